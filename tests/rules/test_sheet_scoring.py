"""R9 from a score sheet's counts (seed 001, issue 47): the seed's worked examples,
the capture bonuses as counts, the "other bonus", and what one round's deck cannot hold."""

from __future__ import annotations

import pytest

from games import rules
from games.rules import CaptureProblem, Captures

NONE = Captures()


def total(bid: int, won: int, cards: int, captures: Captures = NONE, other: int = 0) -> int:
    return rules.score_captures(bid, won, cards, captures, other).total


# --- seed 001's worked examples ("Exemple à la manche 5", "À la manche 10") -----------


def test_seed_001_round_5_a_bid_of_2_made_scores_40() -> None:
    assert total(2, 2, 5) == 40


def test_seed_001_round_5_a_bid_of_2_with_4_tricks_costs_20() -> None:
    assert total(2, 4, 5) == -20


def test_seed_001_round_5_a_bid_of_0_made_scores_50_and_missed_costs_50() -> None:
    assert total(0, 0, 5) == 50
    assert total(0, 1, 5) == -50
    assert total(0, 5, 5) == -50  # whatever the tricks


def test_seed_001_round_10_a_bid_of_0_is_plus_or_minus_100() -> None:
    assert total(0, 0, 10) == 100
    assert total(0, 3, 10) == -100


def test_r2_r9_a_missed_zero_in_round_9_with_nine_cards_dealt_costs_90() -> None:
    # With 8 players rounds 9 and 10 deal 9 cards (R2): c is the cards dealt.
    assert rules.cards_per_round(10, 8) == 9
    assert total(0, 2, rules.cards_per_round(9, 8)) == -90
    assert total(0, 0, rules.cards_per_round(10, 8)) == 90


def test_r9_a_made_bid_with_the_black_14_and_a_pirate_taken_by_the_skull_king_is_base_plus_50() -> (
    None
):
    score = rules.score_captures(3, 3, 6, Captures(black_14=1, pirates_by_skull_king=1))
    assert (score.base, score.bonus, score.total) == (60, 50, 110)


# --- R9's bonus table as counts -----------------------------------------------------------


@pytest.mark.parametrize(
    ("captures", "points"),
    [
        (Captures(colour_14s=1), 10),
        (Captures(colour_14s=3), 30),
        (Captures(black_14=1), 20),
        (Captures(mermaids_by_pirate=2), 40),
        (Captures(pirates_by_skull_king=6), 180),
        (Captures(skull_king_by_mermaid=1), 40),
        (Captures(1, 1, 1, 0, 1), 10 + 20 + 20 + 40),
        (Captures(), 0),
    ],
)
def test_r9_capture_points(captures: Captures, points: int) -> None:
    assert captures.points == points


def test_r9_bonuses_and_the_other_bonus_count_only_for_an_exact_bid_of_one_or_more() -> None:
    captures = Captures(colour_14s=2)
    made = rules.score_captures(2, 2, 5, captures, other=-5)
    assert (made.base, made.bonus, made.total) == (40, 15, 55)
    missed = rules.score_captures(2, 3, 5, captures, other=30)
    assert (missed.base, missed.bonus, missed.total) == (-10, 0, -10)
    zero = rules.score_captures(0, 0, 5, Captures(), other=30)
    assert (zero.base, zero.bonus, zero.total) == (50, 0, 50)
    # an "other bonus" may take a made bid's bonus below zero (an expansion's penalty)
    penalty = rules.score_captures(1, 1, 5, Captures(), other=-30)
    assert (penalty.base, penalty.bonus, penalty.total) == (20, -30, -10)


def test_r9_score_captures_agrees_with_score_round_without_an_other_bonus() -> None:
    for cards in (1, 5, 10):
        for bid in range(cards + 1):
            for won in range(cards + 1):
                captures = Captures(colour_14s=1, skull_king_by_mermaid=1)
                assert rules.score_captures(bid, won, cards, captures) == rules.score_round(
                    bid, won, cards, captures.points
                )


def test_bonus_counts() -> None:
    assert rules.bonus_counts(1, 1)
    assert not rules.bonus_counts(0, 0)
    assert not rules.bonus_counts(2, 1)


def test_captures_refuse_negative_counts() -> None:
    with pytest.raises(ValueError):
        Captures(colour_14s=-1)


# --- what one round's deck cannot hold (R1, R6) ----------------------------------------------


@pytest.mark.parametrize(
    ("entries", "problems"),
    [
        ([(2, Captures(colour_14s=2)), (1, Captures(colour_14s=1))], []),
        ([(2, Captures(colour_14s=2)), (1, Captures(colour_14s=2))], [CaptureProblem.COLOUR_14S]),
        ([(1, Captures(black_14=1)), (1, Captures(black_14=1))], [CaptureProblem.BLACK_14]),
        ([(1, Captures(mermaids_by_pirate=3))], [CaptureProblem.MERMAIDS]),
        ([(1, Captures(pirates_by_skull_king=6))], []),  # five Pirates and the Tigress
        ([(1, Captures(pirates_by_skull_king=7))], [CaptureProblem.PIRATES]),
        (
            [(1, Captures(skull_king_by_mermaid=1)), (1, Captures(skull_king_by_mermaid=1))],
            [CaptureProblem.SKULL_KING],
        ),
        (
            [(1, Captures(skull_king_by_mermaid=1)), (1, Captures(pirates_by_skull_king=1))],
            [CaptureProblem.SKULL_KING_BOTH],
        ),
        ([(0, Captures(colour_14s=1)), (1, Captures())], [CaptureProblem.NO_TRICK]),
        ([(0, Captures())], []),
    ],
)
def test_r1_capture_problems_of_a_round(
    entries: list[tuple[int, Captures]], problems: list[CaptureProblem]
) -> None:
    assert rules.capture_problems(entries) == problems
