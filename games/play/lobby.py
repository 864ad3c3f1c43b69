"""The lobby: a user's tables grouped by status, with whose move it is in each game.

Built in a fixed number of queries whatever the number of tables: the rows that
"whose move is it" needs (current round, its bids, its tricks, the plays of the
unfinished trick) are read for all listed games in progress at once, and each
game's state is assembled from them, the same GameState the table page reads
through load_state.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from django.db.models import F, Prefetch, prefetch_related_objects
from django.utils.translation import gettext as _

from games import rules
from games.models import (
    MAX_SEATS,
    TURN_CLOCK_CHOICES,
    Bid,
    ComputerLevel,
    Play,
    Round,
    RoundScore,
    Seat,
    Table,
    Trick,
)
from games.pages.presenter import _headline
from games.play.state import GameState

LOBBY_LIMIT = 100  # tables listed per group


@dataclass(frozen=True)
class FinalScore:
    name: str
    total: int
    is_winner: bool


def _final_scores(tables: list[Table]) -> dict[int, tuple[FinalScore, ...]]:
    """The final totals of finished games, from one query whatever their number (none when
    no finished game is listed): the running totals of each game's last round.
    """
    if not tables:
        return {}
    last = RoundScore.objects.filter(
        round__table__in=tables, round__number=F("round__table__round_number")
    ).values_list("round__table_id", "seat_id", "running_total")
    totals: dict[int, dict[int, int]] = defaultdict(dict)
    for table_id, seat_id, total in last:
        totals[table_id][seat_id] = total
    result = {}
    for table in tables:
        names = {seat.pk: seat.name for seat in table.seats.all()}
        by_seat = totals.get(table.pk, {})
        winners = set(rules.winners(by_seat))
        ordered = sorted(by_seat.items(), key=lambda item: -item[1])
        result[table.pk] = tuple(
            FinalScore(names.get(seat_id, "?"), total, seat_id in winners)
            for seat_id, total in ordered
        )
    return result


@dataclass(frozen=True)
class TableSummary:
    table: Table
    players: list[str]
    host_name: str
    your_turn: bool = False
    headline: str = ""
    round_number: int = 0
    # A finished game: each player's final total, best first, and who won (R10).
    final_scores: tuple[FinalScore, ...] = ()

    @property
    def is_playing(self) -> bool:
        return self.table.status == Table.Status.PLAYING


def _states(tables: list[Table]) -> dict[int, GameState]:
    """The game state of each table in progress, from 4 queries whatever their number.

    Holds what "whose move" needs (no hands, no scores). ``tables`` come with
    their seats prefetched.
    """
    if not tables:
        return {}
    rounds = {
        r.table_id: r
        for r in Round.objects.filter(table__in=tables, number=F("table__round_number"))
    }
    bids: dict[int, dict[int, Bid]] = defaultdict(dict)
    for bid in Bid.objects.filter(round__in=rounds.values()):
        bids[bid.round_id][bid.seat_id] = bid
    tricks: dict[int, list[Trick]] = defaultdict(list)
    for trick in Trick.objects.filter(round__in=rounds.values()).order_by("number"):
        tricks[trick.round_id].append(trick)
    plays: dict[int, list[Play]] = defaultdict(list)
    unfinished = Play.objects.filter(round__in=rounds.values(), trick__complete=False)
    for play in unfinished.order_by("order"):
        plays[play.trick_id].append(play)
    states = {}
    for table in tables:
        state = GameState(table=table, seats=list(table.seats.all()))
        state.round = rounds.get(table.pk)
        if state.round is not None:
            state.bids = bids[state.round.pk]
            state.tricks = tricks[state.round.pk]
            if state.tricks:
                state.plays = plays[state.tricks[-1].pk]
        states[table.pk] = state
    return states


def lobby_context(user: Any) -> dict[str, Any]:
    """The user's tables grouped by status, with whose turn it is for games in progress."""
    groups = {
        status: list(
            Table.objects.filter(seats__user=user, status=status)
            .select_related("host", "cancelled_by")
            .order_by("-updated_at")[:LOBBY_LIMIT]
        )
        for status in Table.Status.values
    }
    listed = [table for tables in groups.values() for table in tables]
    seats = Prefetch("seats", queryset=Seat.objects.select_related("user").order_by("position"))
    prefetch_related_objects(listed, seats)
    states = _states(groups[Table.Status.PLAYING])
    finals = _final_scores(groups[Table.Status.FINISHED])

    summaries: dict[str, list[TableSummary]] = {}
    for status, tables in groups.items():
        summaries[status] = []
        for table in tables:
            players = [seat.name for seat in table.seats.all()]
            your_turn, headline = False, ""
            state = states.get(table.pk)
            me = state.seat_of(user.pk) if state is not None else None
            if state is not None and me is not None:
                names = {seat.pk: seat.name for seat in state.seats}
                your_turn, headline = _headline(state, me, names, table.host_id == user.pk)
            elif status == Table.Status.CANCELLED and table.cancelled_by:
                headline = _("Cancelled by %(name)s.") % {"name": table.cancelled_by.username}
            summaries[status].append(
                TableSummary(
                    table=table,
                    players=players,
                    host_name=table.host.username,
                    your_turn=your_turn,
                    headline=headline,
                    round_number=table.round_number,
                    final_scores=finals.get(table.pk, ()),
                )
            )
    return {
        "waiting_tables": summaries["waiting"],
        "playing_tables": summaries["playing"],
        "finished_tables": summaries["finished"],
        "cancelled_tables": summaries["cancelled"],
        "has_tables": any(summaries.values()),
        # The new table's and the practice game's choices (issue 48).
        "turn_clock_choices": TURN_CLOCK_CHOICES,
        "computer_levels": ComputerLevel.choices,
        "practice_counts": range(1, MAX_SEATS),
    }
