"""Each table's game as its last move left it, kept in this process for the next move.

A move reads the game under the table lock (games.play.state.load_state: the round,
the hands, the bids, the tricks and their plays), changes it and writes it.
Reading it again for the next move of the same table costs five queries and
about fifty model instances, for rows this very process has just written. So a
move keeps the state it committed, and the next move of that table takes it
instead of reading it, when the locked table row says nothing changed since:

- every change of the game's rows bumps the table's ``version`` in the same
  transaction, or its ``revision`` (a card chosen in advance, which must not
  make anyone's open form stale), so equal (version, revision) under the lock
  means equal rows, whichever process wrote them;
- the table's ``created_at`` and ``seed`` are part of the key too: a test
  database may hand out a deleted table's id again;
- the seats and their users are read again on every move (with the table's lock,
  games.play.actions.LOCKED_SEATS): a name or a language changed in an account shows
  at once;
- a state is taken out while a move uses it and put back only once that move
  has committed, so a move that fails (or is refused) leaves nothing behind,
  and two threads never share one.

Only moves use it (games.play.actions), and the delivery of a change that read its
game again after the commit (games.live.broadcast); pages and sockets read the database.
"""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from datetime import datetime

from django.db.models import F

from games.models import Seat, Table
from games.play.state import SEATS, GameState
from games.storage import transactions

#: Tables kept per process (the least recently moved are dropped first). A state of
#: a 4-player table in round 10 is a few dozen model instances.
MAX_TABLES = 500

type Key = tuple[datetime | None, int, int, int]

_lock = threading.Lock()
_kept: OrderedDict[int, tuple[Key, GameState]] = OrderedDict()


def _key(table: Table) -> Key:
    return (table.created_at, table.seed, table.version, table.revision)


def take(table: Table, seats: list[Seat] | None = None) -> GameState | None:
    """The game of the locked ``table`` as its last move here left it, or None.
    ``seats``: the table's seats as just read (None: read them here).

    The state returned belongs to the caller: it is no longer kept.
    """
    with _lock:
        entry = _kept.pop(table.pk, None)
    if entry is None or entry[0] != _key(table):
        return None
    kept = entry[1]
    seats = _fresh_seats(table, kept.seats, seats)
    if seats is None:
        return None
    state = GameState(
        table=table,
        seats=seats,
        round=kept.round,
        hands=kept.hands,
        bids=kept.bids,
        tricks=kept.tricks,
        plays=kept.plays,
        round_plays=kept.round_plays,
        _scores=kept._scores,
    )
    if state.round is not None:
        state.round.table = table
    state.loaded_at = state.where
    return state


def _fresh_seats(table: Table, kept: list[Seat], seats: list[Seat] | None) -> list[Seat] | None:
    """The table's seats as read again (names, languages; None: read them here), None if
    they are not the same seats."""
    if seats is None:
        seats = SEATS.read(table.pk)
    if [seat.pk for seat in seats] != [seat.pk for seat in kept]:
        return None
    for seat in seats:
        seat.table = table
    return seats


def keep_on_commit(state: GameState) -> None:
    """Keep ``state`` for the table's next move, once the move that made it commits."""
    transactions.on_commit(functools.partial(keep, state))


def keep(state: GameState) -> None:
    """Keep ``state``, read or made after its version committed, for the table's next move."""
    key = _key(state.table)
    table_id = state.table.pk
    with _lock:
        newer = _kept.get(table_id)
        if newer is not None and newer[0][2:] > key[2:]:
            return  # a later move of the table committed (and kept its state) first
        _kept[table_id] = (key, state)
        _kept.move_to_end(table_id)
        while len(_kept) > MAX_TABLES:
            _kept.popitem(last=False)


def mark_changed(table_id: int) -> None:
    """Tell every process's kept state of a table that its rows changed outside the
    moves (a test's rigged hands): the next move reads the game again."""
    Table.objects.filter(pk=table_id).update(revision=F("revision") + 1)


def forget_all() -> None:
    """Drop every kept state (tests)."""
    with _lock:
        _kept.clear()
