"""Shared helpers for the games tests: users, tables, random legal moves, DB snapshots."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth import get_user_model

from games import actions, rules
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

User = get_user_model()

# Every URL name that changes a table (each takes the table id and answers POST only).
ACTION_URL_NAMES = (
    "start_game",
    "place_bid",
    "play_card",
    "next_trick",
    "next_round",
    "post_chat",
    "rotate_invite",
    "leave_table",
)


def make_users(count: int, prefix: str = "player") -> list[Any]:
    """Users without a password hash (hashing is slow and never needed here)."""
    users = []
    for number in range(1, count + 1):
        user = User(username=f"{prefix}{number}")
        user.set_unusable_password()
        user.save()
        users.append(user)
    return users


def seated_table(
    players: int, *, ghost: bool = True, seed: int = 1, prefix: str = "player"
) -> tuple[Table, list[Any]]:
    """A waiting table created by users[0] with `players` seated, and a fixed deck seed."""
    users = make_users(players, prefix)
    table = actions.create_table(users[0], ghost=ghost)
    Table.objects.filter(pk=table.pk).update(seed=seed)
    for user in users[1:]:
        table = actions.join_table(user, table.invite_token)
    table.refresh_from_db()
    return table, users


def started_table(
    players: int, *, ghost: bool = True, seed: int = 1, prefix: str = "player"
) -> tuple[Table, list[Any]]:
    table, users = seated_table(players, ghost=ghost, seed=seed, prefix=prefix)
    table = actions.start_game(users[0], table.pk, table.version)
    return table, users


def fresh(table: Table | int) -> Table:
    return Table.objects.get(pk=table if isinstance(table, int) else table.pk)


def state_of(table: Table | int) -> GameState:
    return load_state(fresh(table))


def user_of(state: GameState, seat: Seat) -> Any:
    return seat.user


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


def _host(table: Table) -> Any:
    return User.objects.get(pk=table.host_id)


def random_move(table: Table | int, rng: random.Random) -> Table | None:
    """Make one random legal move on a game in progress; None when the game is over.

    `table` must be current (as returned by the last action, or fresh from the database).
    """
    if isinstance(table, int):
        table = fresh(table)
    if table.status != Table.Status.PLAYING:
        return None
    phase = table.phase
    if phase == Table.Phase.BIDDING:
        state = load_state(table)
        assert state.round is not None
        seat = next(s for s in state.seats if s.pk not in state.bids)
        value = rng.randint(0, state.round.cards_dealt)
        return actions.place_bid(seat.user, table.pk, table.version, value)
    if phase == Table.Phase.PLAYING:
        state = load_state(table)
        seat = state.seat_to_play()
        assert seat is not None, "the ghost's turn was left pending (R8)"
        legal = sorted(state.legal_cards(seat), key=lambda c: rules.card(c).index)
        code = rng.choice(legal)
        tigress_as = ""
        if rules.needs_choice(rules.card(code)):
            tigress_as = rng.choice((rules.PIRATE, rules.ESCAPE))
        return actions.play_card(seat.user, table.pk, table.version, code, tigress_as)
    if phase == Table.Phase.TRICK_DONE:
        return actions.next_trick(_host(table), table.pk, table.version)
    if phase == Table.Phase.ROUND_DONE:
        return actions.next_round(_host(table), table.pk, table.version)
    raise AssertionError(f"unexpected phase {phase!r}")


def play_until(
    table: Table | int,
    rng: random.Random,
    done: Callable[[Table], bool] = lambda t: t.status != Table.Status.PLAYING,
    after: Callable[[Table], None] | None = None,
    limit: int = 5000,
) -> Table:
    """Random legal moves until done(table) (default: the game is over)."""
    current = fresh(table)
    for _ in range(limit):
        if done(current):
            return current
        moved = random_move(current, rng)
        assert moved is not None, "the game ended before the condition was met"
        current = moved  # the action saved and returned the current table row
        if after is not None:
            after(current)
    raise AssertionError("the condition was never met")


def at_phase(phase: str, round_number: int | None = None) -> Callable[[Table], bool]:
    def done(table: Table) -> bool:
        return table.phase == phase and (round_number is None or table.round_number == round_number)

    return done


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
            HandCard.objects.order_by("pk").values_list("pk", "seat", "card", "played")
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
