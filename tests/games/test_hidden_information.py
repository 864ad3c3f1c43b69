"""Hidden information over whole games: nobody is shown another seat's hand (or the
ghost's face-down pile), and R4 bids stay secret until all are in.

Checked after every move: what the actions return, the frames the broadcast sends
(each to one user's group, holding nothing hidden from that user), the state read
model's per-seat answers, and the context each user's page is built from.
"""

from __future__ import annotations

import dataclasses
import random
import re
from collections.abc import Callable, Iterator
from typing import Any
from unittest import mock

import pytest
from django.db import models
from django.test import Client
from django.urls import reverse

from games import rules
from games.live import broadcast
from games.models import Bid, HandCard, Play, Table
from games.pages import presenter
from games.play.state import GameState, load_state
from tests.support.presence import every_seat_watching

from .helpers import make_users, random_move, started_table

pytestmark = pytest.mark.django_db

CARD_TOKEN = re.compile(
    r"\b(?:[GYPB]1[0-4]|[GYPB][1-9]|ESC[1-5]|PIR[1-5]|MER[12]|TIG|SK|KRA|WHA)\b"
)


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
        except presenter.NotSeated:
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
    elif callable(value) and hasattr(value, "cache_info"):
        children = [value()]  # a context's lazy region data, as the template resolves it
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
        elif secret_bids and isinstance(item, presenter.PlayerView):
            # the seat list is shared by every player: no bid value before all are in
            assert item.bid is None, f"{where}: a bid in the shared seat list (R4)"
            # ...nor the projected score, a function of the bid (seed 002's pad)
            assert item.round_points is None, f"{where}: a projection before all bids (R4)"
        elif isinstance(item, str):
            if token in item:
                continue  # random text; the token itself is checked elsewhere
            leaked = set(CARD_TOKEN.findall(item)) & codes
            assert not leaked, f"{where}: another seat's cards {leaked} in {item[:80]!r}"


class RecordingLayer:
    def __init__(self) -> None:
        self.events: list[tuple[str, dict[str, Any]]] = []

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        self.events.append((group, message))


def check_frames(
    events: list[tuple[str, dict[str, Any]]], table: Table, users: list[Any], where: str
) -> None:
    """One frame per seated user, sent to that user's group only, hiding the others' secrets."""
    secrets = Secrets.of(table)
    by_group = {broadcast.user_group(table.pk, user.pk): user for user in users}
    assert sorted(group for group, _ in events) == sorted(by_group), f"{where}: frame targets"
    for group, message in events:
        assert message["type"] == "table.frame" and message["version"] == table.version
        user = by_group[group]
        html = message["html"]
        assert_nothing_hidden(html, secrets, user, f"{where}: frame for {user.username}")
        if secrets.bids:
            # R4: before the last bid only "has bid" is shown; a bid's value never.
            assert 'data-bid="' not in html, f"{where}: a bid in a frame before all are in"


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
    table_context = presenter.table_context
    layer = RecordingLayer()
    every_seat_watching(table)
    rng = random.Random(seed)
    moves = 0
    with mock.patch.object(broadcast, "get_channel_layer", return_value=layer):
        while table.status == Table.Status.PLAYING and not (
            table.round_number == last_round and table.phase == Table.Phase.ROUND_DONE
        ):
            layer.events.clear()
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
            check_frames(layer.events, table, users, f"move {moves}")
            if table.phase == Table.Phase.PLAYING and moves % 3 == 0:
                _check_state_per_seat(table)
            if moves % 6 == 0 or table.phase == Table.Phase.BIDDING:
                for user in users:
                    where = f"move {moves}: context"
                    check_context(table_context, table, user, True, where, secrets)
    check_context(table_context, table, stranger, False, "stranger")
    assert table.round_number == last_round and table.phase == Table.Phase.ROUND_DONE
    if last_round == rules.ROUNDS:
        assert table.status == Table.Status.FINISHED


def test_r8_ghost_pile_is_face_down_for_both_humans() -> None:
    """Neither human's page nor table context shows the ghost's card (R8: face down)."""
    table, users = started_table(2, ghost=True, seed=5)
    pile = HandCard.objects.filter(round__table=table, seat__isnull=True)
    assert pile.count() == 1
    ghost_card = pile.get().card
    secrets = Secrets.of(table)
    for user in users:
        client = Client()
        client.force_login(user)
        response = client.get(reverse("table", args=[table.pk]))
        assert response.status_code == 200
        html = response.content.decode()
        assert 'data-card="' in html  # the page shows the user's own hand...
        assert f'data-card="{ghost_card}' not in html  # ...and never the ghost's card
        assert f"Play {ghost_card}" not in html and f'value="{ghost_card}' not in html
        # Nor does anything the page is rendered from (the ghost's pile is a secret).
        check_context(presenter.table_context, table, user, True, f"{user}'s context", secrets)


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


def test_presenter_context_hides_other_hands() -> None:
    table_context = presenter.table_context
    table, users = started_table(2, ghost=True, seed=3)
    (stranger,) = make_users(1, "stranger")
    for user in users:
        check_context(table_context, table, user, True, "start")
    check_context(table_context, table, stranger, False, "start")
