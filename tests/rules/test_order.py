"""R3: dealer and opener; R5/R8: the order of play in a trick."""

from __future__ import annotations

import pytest

from games import rules
from games.rules import GHOST


def test_r3_creator_deals_round_1_and_the_next_seat_opens() -> None:
    for humans in range(2, 9):
        assert rules.dealer_and_opener(1, humans) == (0, 1)


@pytest.mark.parametrize("humans", range(2, 9))
def test_r3_dealer_rotates_one_seat_per_round(humans: int) -> None:
    for n in range(1, 11):
        dealer, opener = rules.dealer_and_opener(n, humans)
        assert dealer == (n - 1) % humans
        assert opener == (dealer + 1) % humans
        assert 0 <= opener < humans and opener != dealer


def test_r3_four_players_example() -> None:
    assert [rules.dealer_and_opener(n, 4) for n in range(1, 11)] == [
        (0, 1), (1, 2), (2, 3), (3, 0), (0, 1), (1, 2), (2, 3), (3, 0), (0, 1), (1, 2),
    ]  # fmt: skip


def test_r3_two_humans_open_alternate_rounds() -> None:
    openers = [rules.dealer_and_opener(n, 2)[1] for n in range(1, 11)]
    assert openers == [1, 0, 1, 0, 1, 0, 1, 0, 1, 0]


@pytest.mark.parametrize(("round_number", "humans"), [(0, 2), (11, 2), (1, 1), (1, 9)])
def test_r3_rejects_out_of_range(round_number: int, humans: int) -> None:
    with pytest.raises(ValueError):
        rules.dealer_and_opener(round_number, humans)


def test_r5_seat_order_without_ghost() -> None:
    assert rules.play_order(0, 4, False, 1) == (0, 1, 2, 3)
    assert rules.play_order(2, 4, False, 1) == (2, 3, 0, 1)
    assert rules.play_order(7, 8, False, 0) == (7, 0, 1, 2, 3, 4, 5, 6)
    assert rules.play_order(1, 2, False, 1) == (1, 0)


def test_r8_human_leads_ghost_second_other_human_third() -> None:
    assert rules.play_order(0, 2, True, 0) == (0, GHOST, 1)
    assert rules.play_order(0, 2, True, 1) == (0, GHOST, 1)
    assert rules.play_order(1, 2, True, 0) == (1, GHOST, 0)
    assert rules.play_order(1, 2, True, 1) == (1, GHOST, 0)


def test_r8_ghost_leads_then_the_opener_then_the_other_human() -> None:
    assert rules.play_order(GHOST, 2, True, 0) == (GHOST, 0, 1)
    assert rules.play_order(GHOST, 2, True, 1) == (GHOST, 1, 0)


@pytest.mark.parametrize(
    ("leader", "humans", "ghost", "opener"),
    [(GHOST, 2, False, 0), (GHOST, 3, True, 0), (0, 3, True, 1), (2, 2, True, 0), (0, 2, True, -1),
     (4, 4, False, 0), (-2, 4, False, 0), (0, 1, False, 0), (0, 9, False, 0)],
)  # fmt: skip
def test_r8_play_order_rejects_invalid_arguments(
    leader: int, humans: int, ghost: bool, opener: int
) -> None:
    with pytest.raises(ValueError):
        rules.play_order(leader, humans, ghost, opener)
