"""Hidden information over whole games: nobody is shown another seat's hand (or the
ghost's face-down pile), and R4 bids stay secret until all are in.

Checked after every move: what the actions return, the broadcast events, the state
read model's per-seat answers, and (when games/presenter.py provides
``table_context(table, user)``) the context each user's page is built from.
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import random
import re
from collections.abc import Callable, Iterator
from typing import Any
from unittest import mock

import pytest
from django.db import models

from games import broadcast, rules
from games.models import Bid, HandCard, Play, Table
from games.state import GameState, load_state

from .helpers import make_users, random_move, started_table

pytestmark = pytest.mark.django_db

CARD_TOKEN = re.compile(
    r"\b(?:[GYPB]1[0-4]|[GYPB][1-9]|ESC[1-5]|PIR[1-5]|MER[12]|TIG|SK|KRA|WHA)\b"
)


def _presenter() -> Callable[[Table, Any], Any] | None:
    if importlib.util.find_spec("games.presenter") is None:
        return None
    return getattr(importlib.import_module("games.presenter"), "table_context", None)


def _not_seated() -> type[Exception]:
    presenter = importlib.import_module("games.presenter")
    return getattr(presenter, "NotSeated", Exception)


def check_context(
    table_context: Callable[[Table, Any], Any],
    table: Table,
    user: Any,
    seated: bool,
    where: str,
    secrets: Secrets | None = None,
) -> None:
    if not seated:
        # a stranger gets nothing of the table (or at least nothing hidden)
        try:
            context = table_context(table, user)
        except _not_seated():
            return
    else:
        context = table_context(table, user)
    assert_nothing_hidden(context, secrets or Secrets.of(table), user, where)


def walk(value: Any, depth: int = 0, seen: set[int] | None = None) -> Iterator[Any]:
    """Every value reachable from a context: containers, dataclasses, model caches, querysets."""
    seen = set() if seen is None else seen
    if depth > 8 or id(value) in seen:
        return
    seen.add(id(value))
    yield value
    children: list[Any] = []
    if isinstance(value, dict):
        children = [*value.keys(), *value.values()]
    elif isinstance(value, list | tuple | set | frozenset):
        children = list(value)
    elif isinstance(value, models.QuerySet):
        children = list(value)  # what a template iterating it would see
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        children = [getattr(value, f.name) for f in dataclasses.fields(value)]
    elif isinstance(value, models.Model):
        children = list(value._state.fields_cache.values())
        children += list(getattr(value, "_prefetched_objects_cache", {}).values())
        children += [v for k, v in vars(value).items() if not k.startswith("_")]
    elif hasattr(value, "__dict__") and type(value).__module__.startswith("games"):
        children = list(vars(value).values())
    for child in children:
        yield from walk(child, depth + 1, seen)


@dataclasses.dataclass
class Secrets:
    """What is secret in the current round: unplayed hand cards and (while bidding) bids."""

    table: Table
    cards: list[tuple[int | None, int, str]]  # (holder user id or None for the ghost, pk, code)
    bids: list[tuple[int, int]]  # (user id, bid pk)

    @classmethod
    def of(cls, table: Table) -> Secrets:
        current = {"round__table": table, "round__number": table.round_number}
        cards = list(
            HandCard.objects.filter(**current, played=False).values_list("seat__user", "pk", "card")
        )
        bids: list[tuple[int, int]] = []
        if table.phase == Table.Phase.BIDDING:
            bids = list(Bid.objects.filter(**current).values_list("seat__user", "pk"))
        return cls(table, cards, bids)

    def hidden_from(self, user: Any) -> tuple[set[str], set[int], set[int]]:
        """(card codes, hand card pks, bid pks) that this user must not see."""
        others = [c for c in self.cards if c[0] != user.pk]
        return (
            {code for _, _, code in others},
            {pk for _, pk, _ in others},
            {pk for owner, pk in self.bids if owner != user.pk},
        )


def assert_nothing_hidden(value: Any, secrets: Secrets, user: Any, where: str) -> None:
    codes, pks, secret_bids = secrets.hidden_from(user)
    token = secrets.table.invite_token
    for item in walk(value):
        assert not isinstance(item, GameState), f"{where}: the whole game state is exposed"
        if isinstance(item, HandCard):
            assert item.pk not in pks, f"{where}: another seat's hand card {item.card}"
        elif isinstance(item, Bid):
            # R4: until every player has bid, the others' bids are secret.
            assert item.pk not in secret_bids, f"{where}: a secret bid (R4)"
        elif isinstance(item, rules.Card):
            assert item.code not in codes, f"{where}: another seat's card {item.code}"
        elif secret_bids and hasattr(item, "bid") and getattr(item, "is_you", True) is False:
            # a per-player view (e.g. presenter.PlayerView): no bid value before all are in
            assert item.bid is None, f"{where}: another player's bid (R4)"
        elif isinstance(item, str):
            if token in item:
                continue  # random text; the token itself is checked elsewhere
            leaked = set(CARD_TOKEN.findall(item)) & codes
            assert not leaked, f"{where}: another seat's cards {leaked} in {item[:80]!r}"


class RecordingLayer:
    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        self.events.append(message)


def _check_state_per_seat(table: Table) -> None:
    state = load_state(table)
    to_play = state.seat_to_play()
    for seat in state.seats:
        own = {h.card for h in HandCard.objects.filter(round=state.round, seat=seat, played=False)}
        assert {str(c) for c in state.hand_of(seat)} == own
        legal = state.legal_cards(seat)
        assert legal <= own, "legal cards outside the seat's own hand"
        if seat != to_play:
            assert legal == set(), "legal cards offered out of turn"


@pytest.mark.parametrize(
    ("players", "ghost", "seed", "last_round"),
    [
        pytest.param(2, True, 101, 10, id="2-ghost-whole-game"),
        # rounds 1-5 keep the run short; the whole-game check above covers rounds 6-10
        pytest.param(4, False, 104, 5, id="4-rounds-1-5"),
    ],
)
def test_r4_and_hands_stay_hidden_over_a_whole_game(
    players: int,
    ghost: bool,
    seed: int,
    last_round: int,
    django_capture_on_commit_callbacks: Any,
) -> None:
    table, users = started_table(players, ghost=ghost, seed=seed)
    (stranger,) = make_users(1, "stranger")
    table_context = _presenter()
    layer = RecordingLayer()
    rng = random.Random(seed)
    moves = 0
    with mock.patch.object(broadcast, "get_channel_layer", return_value=layer):
        while table.status == Table.Status.PLAYING and not (
            table.round_number == last_round and table.phase == Table.Phase.ROUND_DONE
        ):
            with django_capture_on_commit_callbacks(execute=True):
                moved = random_move(table, rng)
            assert moved is not None
            moves += 1
            # What the action returns is the table row, nothing of anyone's hand or bid.
            assert isinstance(moved, Table)
            table = Table.objects.get(pk=table.pk)
            secrets = Secrets.of(table)
            for user in (*users, stranger):
                assert_nothing_hidden(moved, secrets, user, f"move {moves}: action result")
            # The push names the table and version only (each socket renders its own view).
            assert layer.events[-1] == {
                "type": "table.changed",
                "table_id": table.pk,
                "version": moved.version,
            }
            if table.phase == Table.Phase.PLAYING and moves % 3 == 0:
                _check_state_per_seat(table)
            if table_context is not None and (moves % 6 == 0 or table.phase == "bidding"):
                for user in users:
                    where = f"move {moves}: context"
                    check_context(table_context, table, user, True, where, secrets)
    if table_context is not None:
        check_context(table_context, table, stranger, False, "stranger")
    assert table.round_number == last_round and table.phase == Table.Phase.ROUND_DONE
    if last_round == rules.ROUNDS:
        assert table.status == Table.Status.FINISHED
    assert len(layer.events) == moves


def test_r8_ghost_pile_is_face_down_for_both_humans() -> None:
    table, users = started_table(2, ghost=True, seed=5)
    pile = HandCard.objects.filter(round__table=table, seat__isnull=True)
    assert pile.count() == 1
    secrets = Secrets.of(table)
    for user in users:
        codes, _, _ = secrets.hidden_from(user)
        assert pile.get().card in codes  # the helper treats the ghost's pile as secret


def test_r4_bids_in_the_state_are_revealed_only_when_all_are_in() -> None:
    """The read model keeps bids per seat; the phase says whether they may be shown."""
    table, _ = started_table(3, seed=9)
    table = random_move(table, random.Random(1))
    state = load_state(Table.objects.get(pk=table.pk))
    assert len(state.bids) == 1 and not state.all_bids_in
    assert state.table.phase == Table.Phase.BIDDING
    rng = random.Random(2)
    while table.phase == Table.Phase.BIDDING:
        table = random_move(table, rng)
    state = load_state(Table.objects.get(pk=table.pk))
    assert state.all_bids_in and state.table.phase == Table.Phase.PLAYING
    assert not Play.objects.filter(round__table=table).exists()


def test_presenter_context_hides_other_hands_if_present() -> None:
    table_context = _presenter()
    if table_context is None:
        pytest.skip("games/presenter.py with table_context(table, user) does not exist yet")
    table, users = started_table(2, ghost=True, seed=3)
    (stranger,) = make_users(1, "stranger")
    for user in users:
        check_context(table_context, table, user, True, "start")
    check_context(table_context, table, stranger, False, "start")
