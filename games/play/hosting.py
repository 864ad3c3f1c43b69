"""Who moves the table on (R11) and who may hand an away seat to the computer (issue 48).

The host presses "Next trick" and "Next round". While the host is away (no page
open for ``AWAY_AFTER_SECONDS``, games.storage.presence), the next person in seat
order after the host who has the table open does, until the host is back.
"""

from __future__ import annotations

from collections.abc import Sequence

from games.models import Seat, Table
from games.storage import presence


def _since(table: Table) -> float:
    started = table.started_at or table.created_at
    return started.timestamp() if started is not None else 0.0


def away(table: Table, seats: Sequence[Seat]) -> set[int]:
    """The people's seats (not the computer players') that are away now."""
    people = [seat.pk for seat in seats if not seat.is_computer]
    return presence.away_seats(people, _since(table))


def host_seat(table: Table, seats: Sequence[Seat]) -> Seat | None:
    return next((seat for seat in seats if seat.user_id == table.host_id), None)


def acting_host(
    table: Table,
    seats: Sequence[Seat],
    *,
    online: set[int] | None = None,
    away_seats: set[int] | None = None,
) -> Seat | None:
    """The seat that moves the table on now: the host's, or while the host is away the
    next person after them, in seat order, who has the table open (None: nobody can).
    ``online``, ``away_seats``: what presence says, if the caller has just read it."""
    host = host_seat(table, seats)
    if host is None:
        return None
    if away_seats is None:
        away_seats = away(table, [host])
    if host.pk not in away_seats:
        return host
    after = [s for s in seats if s.position > host.position] + [
        s for s in seats if s.position < host.position
    ]
    people = [s for s in after if not s.is_computer and not s.handed_over]
    if online is None:
        online = presence.online_seats(s.pk for s in people)
    return next((s for s in people if s.pk in online), None)


def may_hand_over(table: Table, seats: Sequence[Seat], by: Seat, away_seats: set[int]) -> bool:
    """Whether ``by`` may hand an away seat to the computer: the host, or every other
    player present while the host is away."""
    if by.is_computer or by.pk in away_seats:
        return False
    host = host_seat(table, seats)
    return by == host or host is None or host.pk in away_seats
