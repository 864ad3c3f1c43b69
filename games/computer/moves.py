"""The computer's moves that are due, found from the database and made through the actions.

A move is due at a table when ``Table.computer_due_at`` has passed (games.play.turns
sets it with every move): a computer player's turn, a seat handed to the computer, a
turn clock run out. The move is decided from the seat's view alone and made with
``place_bid``/``play_card`` like a person's, ``by_computer``: the same lock, legality
check, version, push, history and record. Two processes that find the same move
both try it; the action's lock and version let one through and refuse the other.
"""

from __future__ import annotations

import hashlib
import logging
import random
from datetime import datetime

from django.utils import timezone

from games.computer.seat_views import view_of
from games.models import Seat, Table
from games.play import actions, turns
from games.play.state import GameState, load_shown_state
from games.rules.computer import Level, decide_bid, decide_card

log = logging.getLogger(__name__)

#: A computer seat's own level; a person's seat, handed over or out of time, plays Normal.
STAND_IN = Level.NORMAL


def level_of(seat: Seat) -> Level:
    return Level(seat.computer) if seat.computer else STAND_IN


def _rng(state: GameState, seat: Seat) -> random.Random:
    """Seeded from the table's seed and the moment of the game: a game replays alike."""
    moment = (
        f"{state.table.seed}:{state.table.round_number}:{len(state.tricks)}:"
        f"{len(state.plays)}:{seat.position}"
    )
    seed = int.from_bytes(hashlib.sha256(moment.encode()).digest()[:8], "big")
    return random.Random(seed)  # noqa: S311 - a game decision, not cryptography


def make_move(state: GameState, seat: Seat) -> None:
    """Decide ``seat``'s move from its view and make it (ActionError if refused)."""
    view = view_of(state, seat)
    level = level_of(seat)
    table = state.table
    if table.phase == Table.Phase.BIDDING:
        value = decide_bid(view, level, _rng(state, seat))
        actions.place_bid(seat.user, table.pk, table.version, value, by_computer=True)
    else:
        play = decide_card(view, level, _rng(state, seat))
        actions.play_card(
            seat.user, table.pk, table.version, str(play.card), play.as_ or "", by_computer=True
        )


def make_due_moves(table_id: int) -> int:
    """Make every computer move due at this table now, one action each; how many were made."""
    made = 0
    for _attempt in range(32):  # a round's bids, or a trick's plays, and some to spare
        table = Table.objects.filter(pk=table_id, status=Table.Status.PLAYING).first()
        if table is None:
            break
        state = load_shown_state(table)
        due = turns.due_now(state, timezone.now())
        if not due:
            break
        try:
            make_move(state, due[0])
        except actions.ActionError as refused:
            # Another process made it, or a person moved first: the game went on.
            log.info("table %s: computer move not made: %s", table_id, refused.message)
            break
        made += 1
    return made


def due_tables(now: datetime) -> tuple[list[int], datetime | None]:
    """The tables with a computer move due by ``now``, and the next moment one falls due."""
    rows = list(
        Table.objects.filter(status=Table.Status.PLAYING, computer_due_at__isnull=False)
        .order_by("computer_due_at")
        .values_list("pk", "computer_due_at")[:200]
    )
    due = [pk for pk, moment in rows if moment <= now]
    later = next((moment for _pk, moment in rows if moment > now), None)
    return due, later


def run_due() -> int:
    """Make every computer move due anywhere now (the runner's one pass; tests call it)."""
    due, _later = due_tables(timezone.now())
    return sum(make_due_moves(table_id) for table_id in due)
