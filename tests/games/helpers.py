"""Shared helpers for the games tests: DB snapshots, rigged hands, bids.

Users, tables and random legal moves come from the app's own test support
(games.testing.factories and games.testing.driver), shared with the simulator.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from games import actions
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
from games.state import GameState, load_state
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


def snapshot() -> dict[str, Any]:
    """Everything an action may write, to prove that a refusal changed nothing."""
    return {
        "tables": list(
            Table.objects.order_by("pk").values_list(
                "pk",
                "version",
                "status",
                "phase",
                "round_number",
                "invite_token",
                "cancelled_by",
                "uses_ghost",
            )
        ),
        "seats": list(Seat.objects.order_by("pk").values_list("pk", "table", "user", "position")),
        "rounds": Round.objects.count(),
        "hand_cards": list(
            HandCard.objects.order_by("pk").values_list(
                "pk", "seat", "card", "played", "preselected", "preselected_as"
            )
        ),
        "bids": list(Bid.objects.order_by("pk").values_list("pk", "seat", "value")),
        "tricks": list(
            Trick.objects.order_by("pk").values_list(
                "pk", "complete", "winner", "destroyed_by", "next_leader"
            )
        ),
        "plays": Play.objects.count(),
        "scores": RoundScore.objects.count(),
        "chat": ChatMessage.objects.count(),
    }


def assert_refused(status: int, func: Callable[..., Any], *args: Any, **kwargs: Any) -> str:
    """The action raises ActionError(status) and leaves the database as it was."""
    before = snapshot()
    with pytest.raises(actions.ActionError) as caught:
        func(*args, **kwargs)
    assert caught.value.status == status, caught.value.message
    assert snapshot() == before, "a refused action changed the database"
    return caught.value.message
