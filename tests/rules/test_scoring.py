"""R9 (trick bonuses and round scores), R4 (valid bids) and R10 (winners)."""

from __future__ import annotations

import pytest

from games import rules


def bonus(plays: str) -> int:
    return rules.resolve_trick([rules.parse_play(x) for x in plays.split()]).bonus


# --- R9: points for a round ---------------------------------------------------------


@pytest.mark.parametrize(
    ("bid", "won", "cards", "bonus_in", "base", "bonus_out", "total"),
    [
        # b >= 1 and t = b: 20 x b, plus bonuses
        (1, 1, 1, 0, 20, 0, 20),
        (3, 3, 5, 0, 60, 0, 60),
        (3, 3, 5, 40, 60, 40, 100),
        (10, 10, 10, 70, 200, 70, 270),
        # b >= 1 and t != b: -10 x |t - b|, no bonus
        (2, 3, 5, 0, -10, 0, -10),
        (2, 0, 5, 0, -20, 0, -20),
        (4, 1, 6, 30, -30, 0, -30),
        (1, 7, 7, 60, -60, 0, -60),
        # b = 0 and t = 0: 10 x c
        (0, 0, 1, 0, 10, 0, 10),
        (0, 0, 7, 0, 70, 0, 70),
        # b = 0 and t >= 1: -10 x c
        (0, 1, 7, 0, -70, 0, -70),
        (0, 5, 7, 20, -70, 0, -70),
        (0, 1, 1, 0, -10, 0, -10),
    ],
)
def test_r9_round_score_table(
    bid: int, won: int, cards: int, bonus_in: int, base: int, bonus_out: int, total: int
) -> None:
    score = rules.score_round(bid, won, cards, bonus_in)
    assert (score.base, score.bonus, score.total) == (base, bonus_out, total)


def test_r9_c_is_the_cards_dealt_not_the_round_number() -> None:
    # 8 players, rounds 9 and 10 deal 9 cards: a zero bid is worth 90, not 100.
    c = rules.cards_per_round(10, 8)
    assert c == 9
    assert rules.score_round(0, 0, c, 0).total == 90
    assert rules.score_round(0, 2, c, 0).total == -90


def test_r9_a_zero_bid_made_never_has_a_bonus() -> None:
    # With b = 0 and t = 0 the player won no trick, so no bonus can apply.
    score = rules.score_round(0, 0, 5, 20)
    assert (score.base, score.bonus, score.total) == (50, 0, 50)


def test_r9_score_round_default_bonus_and_frozen() -> None:
    score = rules.score_round(2, 2, 4)
    assert (score.base, score.bonus, score.total) == (40, 0, 40)
    with pytest.raises(AttributeError):
        score.total = 1  # type: ignore[misc]


@pytest.mark.parametrize(
    ("bid", "won", "cards", "bonus_in"),
    [(-1, 0, 3, 0), (4, 0, 3, 0), (0, -1, 3, 0), (0, 4, 3, 0), (1, 1, 0, 0), (1, 1, 3, -10)],
)
def test_r9_score_round_rejects_impossible_input(
    bid: int, won: int, cards: int, bonus_in: int
) -> None:
    with pytest.raises(ValueError):
        rules.score_round(bid, won, cards, bonus_in)


# --- R9: bonuses of a trick ----------------------------------------------------------


@pytest.mark.parametrize(
    ("plays", "expected"),
    [
        # each green, yellow or purple 14 in your tricks, whoever played it: +10
        ("G14 G2", 10),
        ("G2 G14", 10),
        ("G9 B1 G14", 10),  # the black 1 takes the green 14
        ("Y14 G14 P14 B2", 30),
        ("P14 PIR1", 10),
        # the black 14: +20
        ("B14 G3", 20),
        ("G3 B14", 20),
        ("B14 G14 Y14 P14", 50),
        # each Mermaid taken by your Pirate: +20 (the Tigress as pirate is a Pirate)
        ("PIR1 MER1", 20),
        ("MER1 PIR1 MER2", 40),
        ("MER2 TIG:pirate", 20),
        ("TIG:pirate MER1 PIR2", 20),
        # each Pirate taken by your Skull King: +30; the Tigress counts only as a pirate
        ("PIR1 SK", 30),
        ("SK PIR1 PIR2 PIR3", 90),
        ("TIG:pirate SK", 30),
        ("TIG:escape SK", 0),
        ("SK TIG:pirate PIR5 B14", 80),
        # the Skull King taken by your Mermaid: +40
        ("SK MER1", 40),
        ("MER1 SK MER2", 40),  # the other Mermaid scores nothing
        # Pirate, Skull King and Mermaid: the Mermaid wins, +40 only, nobody scores the +30
        ("PIR1 SK MER1", 40),
        ("PIR1 PIR2 TIG:pirate SK MER2", 40),
        ("MER1 PIR1 SK G14", 50),
        # a Mermaid winning without the Skull King and Pirates winning nothing: no bonus
        ("MER1 G3", 0),
        ("MER1 MER2", 0),
        ("PIR1 PIR2", 0),
        ("SK G1", 0),
        ("ESC1 ESC2", 0),
        ("G13 G12", 0),
        # destroyed tricks: no bonus
        ("B14 KRA", 0),
        ("SK PIR1 KRA", 0),
        ("MER1 SK WHA KRA", 0),
        ("PIR1 MER1 WHA", 0),
        # White Whale: only the 14 bonuses
        ("PIR1 MER1 WHA G2", 0),
        ("SK PIR1 WHA B14", 20),
        ("SK MER1 WHA G14 Y14", 20),
    ],
)
def test_r9_trick_bonus(plays: str, expected: int) -> None:
    assert bonus(plays) == expected


def test_r9_example_mermaid_captures_skull_king_with_14s() -> None:
    result = rules.resolve_trick([rules.parse_play(x) for x in ["Y14", "SK", "MER2", "B14"]])
    assert result.winner == 2
    assert result.bonus == 10 + 40 + 20


# --- R4: bids -----------------------------------------------------------------------


def test_r4_valid_bids() -> None:
    assert rules.valid_bids(1) == range(0, 2)
    assert list(rules.valid_bids(3)) == [0, 1, 2, 3]
    assert rules.valid_bids(9) == range(10)


# --- R10: winners -------------------------------------------------------------------


def test_r10_highest_total_wins() -> None:
    assert rules.winners({"ann": 120, "bob": 80, "cyd": -30}) == ["ann"]


def test_r10_ties_for_the_highest_total_share_the_victory() -> None:
    assert rules.winners({"bob": 80, "ann": 120, "cyd": 120, "dee": 119}) == ["ann", "cyd"]
    assert rules.winners({3: -10, 1: -10}) == [3, 1]


def test_r10_no_players_no_winner() -> None:
    assert rules.winners({}) == []
