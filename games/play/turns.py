"""Who must move now, and by when the computer moves for them (issue 48).

A seat's move is made by the computer when the seat is a computer player's or was
handed to the computer while its owner is away (``Seat.played_by_computer``): after
a short pause a person can follow (``COMPUTER_MOVE_DELAY_MS``). A person's move is
made by the computer (Normal) when the table's turn clock runs out. Bids are
simultaneous (R4): every bid's wait starts at the deal; a card's starts when that
player's turn does (``Table.turn_started_at``).

The actions store the earliest such moment in ``Table.computer_due_at`` with every
move, so any process finds a due move from the database (games.computer.runner).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings

from games.models import Seat, Table
from games.play.state import GameState


def computer_delay() -> timedelta:
    """The pause before a computer player's move (settings.COMPUTER_MOVE_DELAY_MS)."""
    return timedelta(milliseconds=int(getattr(settings, "COMPUTER_MOVE_DELAY_MS", 1000)))


def waiting_for(state: GameState) -> list[Seat]:
    """The seats whose move the game waits for: those yet to bid, or the one to play."""
    table = state.table
    if table.status != Table.Status.PLAYING:
        return []
    if table.phase == Table.Phase.BIDDING:
        return [seat for seat in state.seats if seat.pk not in state.bids]
    seat = state.seat_to_play()
    return [] if seat is None else [seat]


def deadline(state: GameState, seat: Seat) -> datetime | None:
    """When ``seat``'s turn clock runs out (None: no clock, or not its move)."""
    clock = state.table.turn_clock
    started = state.table.turn_started_at
    if not clock or started is None or seat.played_by_computer:
        return None
    if seat not in waiting_for(state):
        return None
    return started + timedelta(seconds=clock)


def due_at(state: GameState, seat: Seat) -> datetime | None:
    """When the computer makes ``seat``'s move, if it waits for one (None: it won't)."""
    started = state.table.turn_started_at
    if started is None:
        return None
    if seat.played_by_computer:
        return started + computer_delay()
    return deadline(state, seat)


def computer_due_at(state: GameState) -> datetime | None:
    """The earliest moment the computer makes a move at this table (None: none is due)."""
    moments = [m for seat in waiting_for(state) if (m := due_at(state, seat)) is not None]
    return min(moments, default=None)


def due_now(state: GameState, now: datetime) -> list[Seat]:
    """The seats whose move the computer makes at ``now``, in seat order."""
    return [
        seat
        for seat in waiting_for(state)
        if (moment := due_at(state, seat)) is not None and moment <= now
    ]
