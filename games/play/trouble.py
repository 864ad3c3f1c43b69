"""What staff need to tell a stuck table from a slow one (issue 50): whose move the game
waits for, how long since the last move, which seats are away and since when.

Read for a whole page of the admin's table list at once: a fixed number of queries
whatever the number of tables (their seats, current rounds, bids, current tricks and
their plays, each read only for the tables whose phase needs it) and one cache round
trip for the presence of every seat (games.storage.presence). Whose move it is comes
from games.play.state, the one place that answers it (R3, R5, R8).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext as _

from games.models import Bid, Play, Round, Seat, Table, Trick
from games.play import turns
from games.play.state import GHOST, GameState
from games.storage import presence

#: A table in play with no move for this long is stuck (the admin's list filter).
STUCK_AFTER_MINUTES = 10


@dataclass(frozen=True)
class Away:
    name: str
    since: datetime


@dataclass
class Trouble:
    """One table's facts for staff. ``waiting_for``: who the game waits for, in words
    ("" when nobody: not started, over)."""

    waiting_for: str = ""
    away: list[Away] = field(default_factory=list)


def _expected_since(table: Table) -> float:
    started = table.started_at or table.created_at
    return started.timestamp() if started is not None else 0.0


def read(tables: Iterable[Table]) -> dict[int, Trouble]:
    """table id -> its Trouble, for ``tables`` (rows as listed: status, phase, round)."""
    playing = [t for t in tables if t.status == Table.Status.PLAYING]
    facts: dict[int, Trouble] = {t.pk: Trouble() for t in tables}
    if not playing:
        return facts
    by_id = {t.pk: t for t in playing}
    seats: dict[int, list[Seat]] = {t.pk: [] for t in playing}
    for seat in Seat.objects.filter(table_id__in=by_id).select_related("user").order_by("position"):
        seat.table = by_id[seat.table_id]
        seats[seat.table_id].append(seat)
    states = {pk: GameState(table=table, seats=seats[pk]) for pk, table in by_id.items()}
    rounds = Round.objects.filter(table_id__in=by_id, number=F("table__round_number"))
    round_of = {}
    for rnd in rounds:
        rnd.table = by_id[rnd.table_id]
        states[rnd.table_id].round = rnd
        round_of[rnd.pk] = rnd.table_id
    Phase = Table.Phase
    bidding = [r for r, t in round_of.items() if by_id[t].phase == Phase.BIDDING]
    if bidding:
        for bid in Bid.objects.filter(round_id__in=bidding):
            states[round_of[bid.round_id]].bids[bid.seat_id] = bid
    in_trick = [r for r, t in round_of.items() if by_id[t].phase == Phase.PLAYING]
    if in_trick:
        current: dict[int, Trick] = {}
        for trick in Trick.objects.filter(round_id__in=in_trick).order_by("number"):
            current[trick.round_id] = trick  # the round's last trick
        for round_id, trick in current.items():
            states[round_of[round_id]].tricks = [trick]
        tricks = {trick.pk: round_id for round_id, trick in current.items()}
        for play in Play.objects.filter(trick_id__in=tricks).order_by("order"):
            states[round_of[tricks[play.trick_id]]].plays.append(play)
    expected = {
        seat.pk: _expected_since(by_id[pk])
        for pk, table_seats in seats.items()
        for seat in table_seats
        if not seat.is_computer
    }
    away = presence.away_since(expected)
    for pk, state in states.items():
        facts[pk] = Trouble(
            waiting_for=_waiting_for(state),
            away=[
                Away(seat.name, datetime.fromtimestamp(away[seat.pk], tz=UTC))
                for seat in state.seats
                if seat.pk in away
            ],
        )
    return facts


def _waiting_for(state: GameState) -> str:
    table = state.table
    Phase = Table.Phase
    if table.phase == Phase.TRICK_DONE:
        return _("the host, between tricks")
    if table.phase == Phase.ROUND_DONE:
        return _("the host, between rounds")
    if table.phase == Phase.PLAYING and state.next_to_play() == GHOST:
        return _("Graybeard (the ghost)")
    names = [seat.name for seat in turns.waiting_for(state)]
    if table.phase == Phase.BIDDING and names:
        return _("bids from %(names)s") % {"names": ", ".join(names)}
    return ", ".join(names)


def stuck_before() -> datetime:
    """Tables in play whose last move is older than this are stuck (STUCK_AFTER_MINUTES)."""
    return timezone.now() - timedelta(minutes=STUCK_AFTER_MINUTES)


def tables_with_someone_away(table_ids: Iterable[int] | None = None) -> list[int]:
    """The tables in play with at least one person away now: one query for their seats,
    one cache round trip for presence (the admin's "a player away" filter)."""
    rows = Seat.objects.filter(table__status=Table.Status.PLAYING, computer="")
    if table_ids is not None:
        rows = rows.filter(table_id__in=list(table_ids))
    seats = list(rows.values_list("pk", "table_id", "table__started_at", "table__created_at"))
    expected = {pk: (started or created).timestamp() for pk, _table, started, created in seats}
    away = presence.away_since(expected)
    return sorted({table for pk, table, _s, _c in seats if pk in away})
