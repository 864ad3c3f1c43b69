"""A player's past games (finished, or cancelled after the start), newest first, paginated.

Games waiting or in progress are never listed: nothing of a game in progress
shows outside its table (R4). A page costs 4 queries whatever its length.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.core.paginator import Page, Paginator
from django.db.models import Prefetch, Q, QuerySet
from django.db.models.functions import Coalesce

from . import rules
from .models import RoundScore, Seat, Table

PAGE_SIZE = 20


@dataclass(frozen=True)
class HistoryPlayer:
    name: str
    total: int | None  # final total; None for a cancelled game
    is_winner: bool
    is_them: bool  # the player whose history this is


@dataclass(frozen=True)
class HistoryEntry:
    table_id: int
    ended_at: datetime
    finished: bool  # else cancelled
    players: list[HistoryPlayer]
    winners: list[str]
    score: int | None  # the player's final total (finished games only)
    place: int | None  # 1 + the number of players with a higher total; ties share a place
    cancelled_by: str
    round_number: int  # the round a cancelled game stopped in
    can_replay: bool  # finished, and the viewer sat at it


def past_tables(user: Any) -> QuerySet[Table]:
    """The user's finished games and the games cancelled after they started."""
    return (
        Table.objects.filter(seats__user=user)
        .filter(
            Q(status=Table.Status.FINISHED)
            | Q(status=Table.Status.CANCELLED, started_at__isnull=False)
        )
        .annotate(ended_at=Coalesce("finished_at", "updated_at"))
        .order_by("-ended_at", "-pk")
    )


def history_page(
    user: Any, viewer: Any, page_number: Any
) -> tuple[Page[Table], list[HistoryEntry]]:
    """One page of ``user``'s history as ``viewer`` sees it (bad page numbers: first/last page)."""
    seats = Prefetch("seats", queryset=Seat.objects.select_related("user").order_by("position"))
    queryset = past_tables(user).select_related("cancelled_by").prefetch_related(seats)
    page = Paginator(queryset, PAGE_SIZE).get_page(page_number)
    tables = list(page.object_list)
    finished = [t.pk for t in tables if t.status == Table.Status.FINISHED]
    finals: dict[int, int] = {}  # seat id -> final total
    if finished:
        finals = dict(
            RoundScore.objects.filter(
                round__table_id__in=finished, round__number=rules.ROUNDS
            ).values_list("seat_id", "running_total")
        )
    entries = []
    for table in tables:
        table_seats = list(table.seats.all())
        is_finished = table.status == Table.Status.FINISHED
        totals = {s.pk: finals[s.pk] for s in table_seats if is_finished and s.pk in finals}
        winners = set(rules.winners(totals))
        mine = next((s for s in table_seats if s.user_id == user.pk), None)
        score = totals.get(mine.pk) if mine is not None else None
        entries.append(
            HistoryEntry(
                table_id=table.pk,
                ended_at=table.ended_at,
                finished=is_finished,
                players=[
                    HistoryPlayer(
                        s.user.username, totals.get(s.pk), s.pk in winners, s.user_id == user.pk
                    )
                    for s in table_seats
                ],
                winners=[s.user.username for s in table_seats if s.pk in winners],
                score=score,
                place=(
                    1 + sum(1 for other in totals.values() if other > score)
                    if score is not None
                    else None
                ),
                cancelled_by=table.cancelled_by.username if table.cancelled_by else "",
                round_number=table.round_number,
                can_replay=is_finished and any(s.user_id == viewer.pk for s in table_seats),
            )
        )
    return page, entries
