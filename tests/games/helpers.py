"""Shared helpers for the games tests: DB snapshots, rigged hands, bids.

Users, tables and random legal moves come from the app's own test support
(games.testing.factories and games.testing.driver), shared with the simulator.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

import pytest
from django.db import connection
from django.db.models import Model

from games.models import (
    Bid,
    ChatMessage,
    HandCard,
    Play,
    Round,
    RoundScore,
    Seat,
    Table,
    Trick,
)
from games.play import actions
from games.play.state import GameState, load_state
from games.storage import state_cache
from games.testing.driver import at_phase, play_until, random_move
from games.testing.factories import make_user, make_users, seated_table, started_table

__all__ = [
    "ACTION_URL_NAMES",
    "assert_refused",
    "at_phase",
    "bid_all",
    "fresh",
    "make_user",
    "make_users",
    "play_until",
    "random_move",
    "rig_hands",
    "seated_table",
    "snapshot",
    "started_table",
    "state_of",
]

# Every URL name that changes a table (each takes the table id and answers POST only).
ACTION_URL_NAMES = (
    "start_game",
    "place_bid",
    "play_card",
    "preselect_card",
    "next_trick",
    "next_round",
    "post_chat",
    "rotate_invite",
    "leave_table",
)


def fresh(table: Table | int) -> Table:
    return Table.objects.get(pk=table if isinstance(table, int) else table.pk)


def state_of(table: Table | int) -> GameState:
    return load_state(fresh(table))


def bid_all(table: Table | int, value: int | Callable[[int, int], int] = 0) -> Table:
    """Every seat bids (in seat order); value may be a function (seat index, cards) -> bid."""
    state = state_of(table)
    assert state.table.phase == Table.Phase.BIDDING and state.round is not None
    current = state.table
    for seat in state.seats:
        if seat.pk in state.bids:
            continue
        bid = value(seat.index, state.round.cards_dealt) if callable(value) else value
        current = actions.place_bid(seat.user, current.pk, current.version, bid)
    return current


def rig_hands(table: Table | int, hands: dict[int, list[str]], ghost: list[str] = ()) -> None:
    """Replace the current round's hands (test arrangement, before any play of the round).

    hands maps seat index (position - 1) to card codes; every seat must be given
    exactly cards_dealt cards, and the ghost too when it plays.
    """
    state = state_of(table)
    assert state.round is not None
    HandCard.objects.filter(round=state.round).delete()
    rows = [
        HandCard(round=state.round, seat=state.seats[index], card=code, deal_order=order)
        for index, codes in hands.items()
        for order, code in enumerate(codes)
    ]
    rows += [
        HandCard(round=state.round, seat=None, card=code, deal_order=order)
        for order, code in enumerate(ghost)
    ]
    HandCard.objects.bulk_create(rows)
    state_cache.mark_changed(state.table.pk)


#: What snapshot() reads: the rows (these columns, in primary-key order) of each model
#: an action may write, and how many rows the others have.
SNAPSHOT_ROWS: dict[str, tuple[type[Model], tuple[str, ...]]] = {
    "tables": (
        Table,
        (
            "pk",
            "version",
            "status",
            "phase",
            "round_number",
            "invite_token",
            "cancelled_by",
            "uses_ghost",
        ),
    ),
    "seats": (Seat, ("pk", "table", "user", "position")),
    "hand_cards": (HandCard, ("pk", "seat", "card", "played", "preselected", "preselected_as")),
    "bids": (Bid, ("pk", "seat", "value")),
    "tricks": (Trick, ("pk", "complete", "winner", "destroyed_by", "next_leader")),
}
SNAPSHOT_COUNTS: dict[str, type[Model]] = {
    "rounds": Round,
    "plays": Play,
    "scores": RoundScore,
    "chat": ChatMessage,
}


@cache
def _snapshot_sql() -> str:
    """One UNION ALL of every model's rows (as text, padded to one width) and counts.

    One round trip instead of nine: the matrix and the bad-input tests take two
    snapshots around each request, and the queries were half of their time.
    """
    quote = connection.ops.quote_name
    width = max(len(fields) for _, fields in SNAPSHOT_ROWS.values())

    def padded(columns: list[str]) -> str:
        columns = [f"CAST({c} AS TEXT)" for c in columns]
        return ", ".join(columns + ["CAST(NULL AS TEXT)"] * (width - len(columns)))

    parts = []
    for key, (model, fields) in SNAPSHOT_ROWS.items():
        meta = model._meta
        columns = [
            quote(meta.pk.column if name == "pk" else meta.get_field(name).column)
            for name in fields
        ]
        # Every name in the query comes from the models' metadata, none from input.
        parts.append(f"SELECT '{key}', {padded(columns)} FROM {quote(meta.db_table)}")  # noqa: S608
    for key, model in SNAPSHOT_COUNTS.items():
        table = quote(model._meta.db_table)
        parts.append(f"SELECT '{key}', {padded(['COUNT(*)'])} FROM {table}")  # noqa: S608
    return " UNION ALL ".join(parts)


def snapshot() -> dict[str, Any]:
    """Everything an action may write, to prove that a refusal changed nothing.

    Rows are tuples of their columns as text (None for NULL), in primary-key order;
    counts are ints. Only ever compared with another snapshot.
    """
    rows: dict[str, list[tuple[str | None, ...]]] = {key: [] for key in SNAPSHOT_ROWS}
    counts: dict[str, int] = {}
    with connection.cursor() as cursor:
        cursor.execute(_snapshot_sql())
        for key, *values in cursor.fetchall():
            if key in SNAPSHOT_COUNTS:
                counts[key] = int(values[0])
            else:
                rows[key].append(tuple(values[: len(SNAPSHOT_ROWS[key][1])]))
    for found in rows.values():
        found.sort(key=lambda row: int(row[0]))
    return {**rows, **counts}


def assert_refused(status: int, func: Callable[..., Any], *args: Any, **kwargs: Any) -> str:
    """The action raises ActionError(status) and leaves the database as it was."""
    before = snapshot()
    with pytest.raises(actions.ActionError) as caught:
        func(*args, **kwargs)
    assert caught.value.status == status, caught.value.message
    assert snapshot() == before, "a refused action changed the database"
    return caught.value.message
