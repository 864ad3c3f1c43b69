"""What an action did, handed on once its transaction commits.

An action (games.play.actions) changes rows and says what happened as an ``Outcome``:
the table at its new version, the game as the action left it, and what kind of
change it was. It knows nothing of who is told or how. Once the transaction
commits, the outcome goes out on the ``committed`` signal; the live table
(games.live.delivery) is its receiver and decides which regions each page gets.
A transaction that does not commit sends nothing.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.dispatch import Signal

from games.storage import transactions

if TYPE_CHECKING:
    from games.models import Seat, Table
    from games.play.state import GameState


class Change(enum.Enum):
    #: A bid, a play or "next trick": the state says which seats moved and whether
    #: the phase changed (GameState.loaded_at, .moved, .phase_changed).
    MOVE = "move"
    #: A new round dealt: every public fact but the chat, every seat's own view.
    DEAL = "deal"
    #: The table's shape (a join, a leave, the start, the end, a rematch): all of it.
    TABLE = "table"
    #: One seat's own choice that nobody else sees (its next card, R5).
    SEAT = "seat"
    #: A chat message (R11): the log alone; the version stays.
    CHAT = "chat"


@dataclass(frozen=True)
class Outcome:
    table: Table
    change: Change
    #: The game as the action left it (None: whoever needs it reads it again).
    state: GameState | None = None
    #: Change.SEAT: whose choice it was.
    seat: Seat | None = None
    #: The users who lost their seat (they left the table before it started).
    departed: tuple[int, ...] = ()


#: Sent once an action's transaction has committed, with ``outcome=``.
committed = Signal()


def on_commit(outcome: Outcome) -> None:
    """Send ``outcome`` on ``committed`` once the running transaction commits."""
    transactions.on_commit(lambda: committed.send(sender=Outcome, outcome=outcome))
