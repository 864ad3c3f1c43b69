"""R2: rounds and cards dealt, the shuffle and deal; R8: the ghost's hand and automatic play."""

from __future__ import annotations

import random

import pytest

from games import rules


def test_r2_constants() -> None:
    assert (rules.HUMAN_MIN, rules.HUMAN_MAX) == (2, 8)
    assert rules.ROUNDS == 10
    assert rules.GHOST == -1


@pytest.mark.parametrize("players", range(2, 8))
def test_r2_round_n_deals_n_cards(players: int) -> None:
    assert [rules.cards_per_round(n, players) for n in range(1, 11)] == list(range(1, 11))


def test_r2_eight_players_rounds_9_and_10_deal_9_cards() -> None:
    assert [rules.cards_per_round(n, 8) for n in range(1, 11)] == [1, 2, 3, 4, 5, 6, 7, 8, 9, 9]


def test_r2_the_deck_always_suffices() -> None:
    for players in range(2, 9):
        for n in range(1, 11):
            assert rules.cards_per_round(n, players) * players <= 72
    assert rules.cards_per_round(10, 2) * 3 <= 72  # with the ghost's third hand (R8)


@pytest.mark.parametrize(("round_number", "players"), [(0, 4), (11, 4), (1, 1), (1, 9), (5, 0)])
def test_r2_cards_per_round_rejects_out_of_range(round_number: int, players: int) -> None:
    with pytest.raises(ValueError):
        rules.cards_per_round(round_number, players)


@pytest.mark.parametrize("humans", range(2, 9))
@pytest.mark.parametrize("round_number", [1, 5, 9, 10])
def test_r2_deal_gives_each_human_n_distinct_cards(humans: int, round_number: int) -> None:
    d = rules.deal(1234, round_number, humans, False)
    n = rules.cards_per_round(round_number, humans)
    assert len(d.hands) == humans
    assert all(len(h) == n for h in d.hands)
    assert d.ghost_hand == ()
    every = [c for h in d.hands for c in h]
    assert len(set(every)) == len(every)
    assert set(every) <= set(rules.DECK)
    assert all(isinstance(h, tuple) for h in d.hands)


@pytest.mark.parametrize("round_number", range(1, 11))
def test_r2_r8_ghost_gets_a_third_hand_of_the_same_size(round_number: int) -> None:
    d = rules.deal(99, round_number, 2, True)
    assert [len(h) for h in d.hands] == [round_number, round_number]
    assert len(d.ghost_hand) == round_number
    every = [*d.hands[0], *d.hands[1], *d.ghost_hand]
    assert len(set(every)) == 3 * round_number


@pytest.mark.parametrize("humans", range(3, 9))
def test_r8_no_ghost_from_three_players(humans: int) -> None:
    with pytest.raises(ValueError):
        rules.deal(1, 1, humans, True)


def test_r2_deal_is_deterministic_given_the_seed() -> None:
    assert rules.deal(7, 10, 4, False) == rules.deal(7, 10, 4, False)
    assert rules.deal(7, 10, 4, False) != rules.deal(8, 10, 4, False)


def test_r2_deal_is_the_whole_deck_shuffled_with_random_seed() -> None:
    # The top of the deck is the end of the list shuffled by random.Random(seed).shuffle.
    for seed in range(50):
        for humans, ghost in [(2, True), (2, False), (5, False), (8, False)]:
            for round_number in (1, 7, 10):
                deck = list(rules.DECK)
                random.Random(seed).shuffle(deck)
                deck.reverse()
                n = rules.cards_per_round(round_number, humans)
                d = rules.deal(seed, round_number, humans, ghost)
                assert [list(h) for h in d.hands] == [
                    deck[i * n : (i + 1) * n] for i in range(humans)
                ]
                assert list(d.ghost_hand) == (deck[humans * n : (humans + 1) * n] if ghost else [])


def test_r2_eight_players_last_round_uses_the_whole_deck() -> None:
    d = rules.deal(5, 10, 8, False)
    assert {c for h in d.hands for c in h} == set(rules.DECK)


def test_r8_ghost_plays_its_top_card() -> None:
    pile = [rules.card("G3"), rules.card("SK")]
    play = rules.ghost_play(pile)
    assert play == rules.Play(rules.card("G3"))
    assert rules.ghost_play(pile[1:]) == rules.Play(rules.card("SK"))
    assert pile == [rules.card("G3"), rules.card("SK")]  # not mutated


def test_r8_ghost_tigress_is_always_an_escape() -> None:
    play = rules.ghost_play((rules.card("TIG"), rules.card("G1")))
    assert str(play) == "TIG:escape"


def test_r8_ghost_with_no_card_is_an_error() -> None:
    with pytest.raises(ValueError):
        rules.ghost_play([])


def test_r8_the_ghost_plays_only_with_the_option_at_a_table_of_exactly_two() -> None:
    from games import rules

    assert rules.uses_ghost(True, rules.HUMAN_MIN)
    assert rules.GHOST_TABLE_HUMANS == rules.HUMAN_MIN == 2
    assert not rules.uses_ghost(False, 2)
    assert not any(rules.uses_ghost(True, n) for n in range(3, rules.HUMAN_MAX + 1))
