"""A player's past games (finished, or cancelled after the start), newest first, paginated.

Games waiting or in progress are never listed: nothing of a game in progress
shows outside its table (R4). A page costs 6 queries whatever its length (the sixth:
for whom the computer made moves, issue 48).

Finished score sheets (games played with real cards: games.sheets, seed 001) of a
registered player are listed among them, marked ``with_cards``: the page is one
query over both (a UNION: its count, its rows), then the page's tables, their
seats and final scores; a page holding sheets costs 2 more.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.core.paginator import Page, Paginator
from django.db.models import CharField, Exists, F, OuterRef, Prefetch, Q, QuerySet, Value
from django.db.models.functions import Coalesce

from games import rules
from games.models import Bid, Play, RoundScore, Seat, Table
from games.sheets.models import Sheet, SheetEntry, SheetPlayer

PAGE_SIZE = 20


@dataclass(frozen=True)
class HistoryPlayer:
    name: str
    total: int | None  # final total; None for a cancelled game
    is_winner: bool
    is_them: bool  # the player whose history this is
    registered: bool = True  # else a score sheet's guest: no profile to link to
    computer: bool = False  # a computer player (issue 48)


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
    with_cards: bool = False  # a score sheet of a game played with real cards
    sheet_token: str = ""  # its link
    short: bool = False  # a short game of 5 rounds
    with_computers: bool = False  # computer players sat at it: kept apart from the record
    # The people for whom the computer made moves (away, or out of time).
    stood_in_for: list[str] = field(default_factory=list)


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
    kind = CharField()
    both = (
        past_tables(user)
        .order_by()
        .annotate(kind=Value("table", output_field=kind))
        .values_list("kind", "pk", "ended_at")
        .union(
            Sheet.objects.filter(players__user=user, status=Sheet.Status.FINISHED)
            .annotate(kind=Value("sheet", output_field=kind), ended_at=F("finished_at"))
            .values_list("kind", "pk", "ended_at")
        )
        .order_by("-ended_at", "-pk")
    )
    page = Paginator(both, PAGE_SIZE).get_page(page_number)
    listed = list(page.object_list)
    table_ids = [pk for what, pk, _at in listed if what == "table"]
    by_id = (
        {
            t.pk: t
            for t in past_tables(user)
            .filter(pk__in=table_ids)
            .select_related("cancelled_by")
            .prefetch_related(seats)
        }
        if table_ids
        else {}
    )
    tables = [by_id[pk] for pk in table_ids if pk in by_id]
    finished = [t.pk for t in tables if t.status == Table.Status.FINISHED]
    finals: dict[int, int] = {}  # seat id -> final total
    if finished:
        finals = dict(
            RoundScore.objects.filter(
                round__table_id__in=finished, round__number=rules.ROUNDS
            ).values_list("seat_id", "running_total")
        )
    stood_in = _stood_in_for([t.pk for t in tables])
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
                        s.name,
                        totals.get(s.pk),
                        s.pk in winners,
                        s.user_id == user.pk,
                        registered=not s.is_computer,
                        computer=s.is_computer,
                    )
                    for s in table_seats
                ],
                winners=[s.name for s in table_seats if s.pk in winners],
                score=score,
                place=(
                    1 + sum(1 for other in totals.values() if other > score)
                    if score is not None
                    else None
                ),
                cancelled_by=table.cancelled_by.username if table.cancelled_by else "",
                round_number=table.round_number,
                can_replay=is_finished and any(s.user_id == viewer.pk for s in table_seats),
                with_computers=any(s.is_computer for s in table_seats),
                stood_in_for=[s.name for s in table_seats if s.pk in stood_in],
            )
        )
    sheet_ids = [pk for what, pk, _at in listed if what == "sheet"]
    entries += _sheet_entries(user, sheet_ids)
    order = {(what, pk): i for i, (what, pk, _at) in enumerate(listed)}
    entries.sort(key=lambda e: order[("sheet" if e.with_cards else "table", e.table_id)])
    return page, entries


def _stood_in_for(table_ids: list[int]) -> set[int]:
    """The people's seats of these tables for whom the computer made a move (one query)."""
    if not table_ids:
        return set()
    by_computer = Q(by_computer=True, seat_id=OuterRef("pk"))
    return set(
        Seat.objects.filter(table_id__in=table_ids, computer="")
        .filter(Exists(Play.objects.filter(by_computer)) | Exists(Bid.objects.filter(by_computer)))
        .values_list("pk", flat=True)
    )


def _sheet_entries(user: Any, sheet_ids: list[int]) -> list[HistoryEntry]:
    """The finished score sheets ``sheet_ids`` as history entries (2 queries; none if empty)."""
    if not sheet_ids:
        return []
    players = Prefetch(
        "players", queryset=SheetPlayer.objects.select_related("user").order_by("position")
    )
    sheets = Sheet.objects.filter(pk__in=sheet_ids).prefetch_related(players)
    finals = dict(
        SheetEntry.objects.filter(
            round__sheet_id__in=sheet_ids, round__number=F("round__sheet__rounds")
        ).values_list("player_id", "running_total")
    )
    entries = []
    for sheet in sheets:
        sheet_players = list(sheet.players.all())
        totals = {p.pk: finals[p.pk] for p in sheet_players if finals.get(p.pk) is not None}
        winners = set(rules.winners(totals))
        mine = next((p for p in sheet_players if p.user_id == user.pk), None)
        score = totals.get(mine.pk) if mine is not None else None
        entries.append(
            HistoryEntry(
                table_id=sheet.pk,
                ended_at=sheet.finished_at or sheet.updated_at,
                finished=True,
                players=[
                    HistoryPlayer(
                        p.name,
                        totals.get(p.pk),
                        p.pk in winners,
                        p.user_id == user.pk,
                        registered=not p.is_guest,
                    )
                    for p in sheet_players
                ],
                winners=[p.name for p in sheet_players if p.pk in winners],
                score=score,
                place=(
                    1 + sum(1 for other in totals.values() if other > score)
                    if score is not None
                    else None
                ),
                cancelled_by="",
                round_number=sheet.rounds,
                can_replay=False,
                with_cards=True,
                sheet_token=sheet.token,
                short=sheet.is_short,
            )
        )
    return entries
