"""The shared random-move driver (games.testing.driver): one chooser, two readers.

The chooser is a pure function of the generator and what a player sees; the page
(``options_from_page``) and the read model (``options_of``) must offer the same moves,
so a game played over HTTP from the pages and one played through the actions from
the read model are the same game for the same seeds.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from games import rules
from games.models import Bid, Play, Table
from games.play.state import load_state
from games.testing.driver import Move, Options, choose_move, options_from_page, options_of

from .helpers import at_phase, bid_all, play_until, rig_hands, started_table

pytestmark = pytest.mark.django_db


def test_choose_move_is_a_pure_function_of_the_generator_and_the_options() -> None:
    cases = [
        Options(bids=(0, 1, 2, 3)),
        Options(cards=("Y2", "TIG", "G5")),
        Options(next_trick=True),
        Options(next_round=True),
    ]
    for options in cases:
        moves = [choose_move(random.Random(seed), options) for seed in range(40)]
        assert moves == [choose_move(random.Random(seed), options) for seed in range(40)]
        for move in moves:
            assert move is not None
            if options.bids:
                assert move.kind == "bid" and move.value in options.bids
            elif options.cards:
                assert move.kind == "play" and move.card in options.cards
                # R1/R5: the Tigress is declared when played; no other card takes a choice.
                if move.card == "TIG":
                    assert move.tigress_as in (rules.PIRATE, rules.ESCAPE)
                else:
                    assert move.tigress_as == ""
            else:
                assert move.kind == ("next_trick" if options.next_trick else "next_round")
    # Random means every option comes up (40 draws over 3 cards and both Tigress choices).
    plays = [choose_move(random.Random(s), cases[1]) for s in range(40)]
    assert {(m.card, m.tigress_as) for m in plays if m} == {
        ("Y2", ""),
        ("G5", ""),
        ("TIG", rules.PIRATE),
        ("TIG", rules.ESCAPE),
    }
    # The order the options come in does not change the choice (deck order inside).
    swapped = Options(cards=("G5", "Y2", "TIG"))
    assert plays == [choose_move(random.Random(s), swapped) for s in range(40)]
    assert choose_move(random.Random(1), Options()) is None


def test_a_move_posts_the_form_of_the_page() -> None:
    assert Move("bid", value=2).form(7) == {"version": "7", "value": "2"}
    assert Move("play", card="G5").form(7) == {"version": "7", "card": "G5"}
    assert Move("play", card="TIG", tigress_as="escape").form(3) == {
        "version": "3",
        "card": "TIG",
        "tigress_as": "escape",
    }
    assert Move("next_trick").form(9) == {"version": "9"}
    assert [Move(k).url_name for k in ("bid", "play", "next_trick", "next_round")] == [
        "place_bid",
        "play_card",
        "next_trick",
        "next_round",
    ]


def _clients(users: list[Any]) -> dict[int, Client]:
    clients = {}
    for user in users:
        client = Client()
        client.force_login(user)
        clients[user.pk] = client
    return clients


def _page(client: Client, table: Table) -> str:
    response = client.get(reverse("table", args=[table.pk]))
    assert response.status_code == 200
    return response.content.decode()


def test_the_tigress_on_the_page_is_one_option_the_chooser_declares() -> None:
    table, (anne, bert) = started_table(2, ghost=False, seed=4)
    table = play_until(table, random.Random(1), at_phase(Table.Phase.BIDDING, 2))
    rig_hands(table, {0: ["TIG", "G3"], 1: ["G5", "Y2"]})  # R3: anne opens round 2
    table = bid_all(table, 1)
    clients = _clients([anne, bert])
    assert set(options_from_page(_page(clients[anne.pk], table)).cards) == {"TIG", "G3"}
    assert options_from_page(_page(clients[bert.pk], table)) == Options()
    state = load_state(Table.objects.get(pk=table.pk))
    assert set(options_of(state, state.seats[0]).cards) == {"TIG", "G3"}


@pytest.mark.parametrize(("players", "ghost", "seed"), [(2, True, 3), (3, False, 8)])
def test_a_game_over_http_from_the_pages_is_the_game_of_the_action_driver(
    players: int, ghost: bool, seed: int
) -> None:
    """Rounds 1-3 twice from the same seeds: through the pages' forms, through the actions."""
    done = at_phase(Table.Phase.ROUND_DONE, 3)
    by_actions, _ = started_table(players, ghost=ghost, seed=seed, prefix="a")
    by_actions = play_until(by_actions, random.Random(seed), done)

    table, users = started_table(players, ghost=ghost, seed=seed, prefix="h")
    clients = _clients(users)
    host = users[0]
    rng = random.Random(seed)
    moves = 0
    while not done(table):
        state = load_state(table)
        mover = None
        for seat in state.seats:
            html = _page(clients[seat.user_id], table)
            seen = options_from_page(html)
            # The page offers exactly what the read model says this seat may do.
            model = options_of(state, seat)
            assert (tuple(seen.bids), set(seen.cards), seen.next_trick, seen.next_round) == (
                tuple(model.bids),
                set(model.cards),
                model.next_trick,
                model.next_round,
            ), (moves, seat.user.username)
            if seat.user_id != host.pk:
                assert not (seen.next_trick or seen.next_round)  # R11: the host's buttons
            if mover is None and seen:
                mover = (seat.user_id, seen)
        assert mover is not None, f"nobody's page offers a move at move {moves}"
        move = choose_move(rng, mover[1])
        assert move is not None
        url = reverse(move.url_name, args=[table.pk])
        response = clients[mover[0]].post(url, move.form(table.version))
        assert response.status_code == 303, (move, response.content[:300])
        table = Table.objects.get(pk=table.pk)
        moves += 1

    def record(t: Table) -> tuple[list[Any], list[Any]]:
        bids = Bid.objects.filter(round__table=t).order_by("round__number", "seat__position")
        plays = Play.objects.filter(round__table=t).order_by("pk")
        return (
            list(bids.values_list("round__number", "seat__position", "value")),
            list(
                plays.values_list("round__number", "trick__number", "order", "card", "tigress_as")
            ),
        )

    assert moves > 20
    assert record(table) == record(by_actions)
    assert table.version == by_actions.version
