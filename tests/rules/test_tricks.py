"""R5 (lead suit, following), R6 (who wins) and R7 (Kraken, White Whale)."""

from __future__ import annotations

import pytest

from games import rules


def trick(notation: str) -> list[rules.Play]:
    return [rules.parse_play(x) for x in notation.split()]


def hand(codes: str) -> list[rules.Card]:
    return [rules.card(x) for x in codes.split()]


def codes(cards: set[rules.Card]) -> set[str]:
    return {c.code for c in cards}


# --- R5: lead suit ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("plays", "suit"),
    [
        ("", None),
        ("G5", "G"),
        ("Y3 G14", "Y"),
        ("B2 G14", "B"),  # black led is a suit like any other
        ("ESC1", None),  # escapes set nothing...
        ("ESC1 ESC2", None),
        ("ESC1 P7", "P"),  # ...the next numbered card sets the suit
        ("ESC1 ESC2 Y4 G9", "Y"),
        ("TIG:escape Y3", "Y"),  # the Tigress as escape is an escape
        ("ESC1 TIG:escape B3", "B"),
        ("TIG:pirate Y3", None),  # the Tigress as pirate is a character
        ("PIR1 G5", None),  # a character first: no lead suit
        ("MER1 G5", None),
        ("SK G5", None),
        ("ESC1 PIR1 G5", None),  # a character after escapes: still no lead suit
        ("KRA G5", None),  # a creature first: no lead suit
        ("WHA G5", None),
        ("ESC2 WHA G5", None),
        ("G5 KRA", "G"),  # a lead suit once set stays after a creature
        ("G5 WHA Y3", "G"),
        ("G5 PIR1", "G"),
    ],
)
def test_r5_lead_suit(plays: str, suit: str | None) -> None:
    assert rules.lead_suit(trick(plays)) == suit


# --- R5: following ---------------------------------------------------------------------


def test_r5_leader_may_play_anything() -> None:
    h = hand("G1 Y2 B14 ESC1 TIG KRA")
    assert rules.legal_cards(h, []) == set(h)


def test_r5_must_follow_with_numbered_cards_special_cards_always_playable() -> None:
    h = hand("G1 G9 Y2 B14 ESC1 PIR2 TIG MER1 SK KRA WHA")
    assert codes(rules.legal_cards(h, trick("G5"))) == {
        "G1", "G9", "ESC1", "PIR2", "TIG", "MER1", "SK", "KRA", "WHA",
    }  # fmt: skip


def test_r5_holding_none_of_the_lead_suit_anything_goes_black_included() -> None:
    h = hand("Y2 B14 P3 ESC1")
    assert rules.legal_cards(h, trick("G5")) == set(h)


def test_r5_black_led_must_be_followed_with_black() -> None:
    h = hand("G1 B3 Y9 PIR1")
    assert codes(rules.legal_cards(h, trick("B10"))) == {"B3", "PIR1"}


def test_r5_black_is_not_forced_when_another_suit_is_led() -> None:
    h = hand("B3 Y9")
    assert codes(rules.legal_cards(h, trick("G2"))) == {"B3", "Y9"}
    assert codes(rules.legal_cards(hand("B3 Y9 G1"), trick("G2"))) == {"G1"}


def test_r5_no_lead_suit_after_a_character_anything_goes() -> None:
    h = hand("G1 G9 Y2 B14")
    assert rules.legal_cards(h, trick("PIR1 G5")) == set(h)
    assert rules.legal_cards(h, trick("ESC1 TIG:pirate G5")) == set(h)
    assert rules.legal_cards(h, trick("KRA G5")) == set(h)


def test_r5_after_leading_escapes_the_first_numbered_card_sets_the_suit() -> None:
    h = hand("G1 Y2")
    assert rules.legal_cards(h, trick("ESC1")) == set(h)
    assert codes(rules.legal_cards(h, trick("ESC1 TIG:escape Y5"))) == {"Y2"}


def test_r5_lead_suit_stays_after_a_creature() -> None:
    h = hand("G1 Y2 ESC3")
    assert codes(rules.legal_cards(h, trick("G5 KRA"))) == {"G1", "ESC3"}
    assert codes(rules.legal_cards(h, trick("G5 WHA Y9"))) == {"G1", "ESC3"}


def test_r5_only_special_cards_and_suit() -> None:
    assert codes(rules.legal_cards(hand("ESC1 SK"), trick("G5"))) == {"ESC1", "SK"}
    assert rules.legal_cards([], trick("G5")) == set()


def test_r5_legal_cards_accepts_any_iterable() -> None:
    assert codes(rules.legal_cards(iter(hand("G1 Y2")), trick("G5"))) == {"G1"}
    assert codes(rules.legal_cards(tuple(hand("G1 Y2")), tuple(trick("Y5")))) == {"Y2"}


# --- R6: who wins --------------------------------------------------------------------


def winner(plays: str) -> int | None:
    return rules.resolve_trick(trick(plays)).winner


@pytest.mark.parametrize(
    ("plays", "expected"),
    [
        # R6.1 Skull King and a Mermaid: the first Mermaid wins, even with Pirates
        ("SK MER1", 1),
        ("MER2 SK", 0),
        ("PIR1 SK MER1", 2),
        ("SK PIR1 MER2 MER1", 2),
        ("G14 TIG:pirate MER1 SK B14", 2),
        # R6.2 Skull King (no Mermaid) wins
        ("PIR1 SK", 1),
        ("B14 SK PIR3 TIG:pirate", 1),
        # R6.3 Pirates: the first Pirate wins (the Tigress as pirate is a Pirate)
        ("PIR1 PIR2", 0),
        ("MER1 PIR2 PIR1", 1),
        ("G3 TIG:pirate PIR1", 1),
        ("B14 MER1 PIR4", 2),
        # R6.4 Mermaids: the first Mermaid wins
        ("MER2 MER1", 0),
        ("B14 MER1 G14", 1),
        ("TIG:escape MER2", 1),
        # R6.5 black: the highest black card wins
        ("G14 B1", 1),
        ("B3 B10 B7", 1),
        ("Y14 B2 G9 B1", 1),
        # R6.6 lead suit: the highest card of the lead suit wins, other suits never win
        ("G5 G9 G2", 1),
        ("G5 Y14 P14", 0),
        ("ESC1 Y3 Y9 G14", 2),
        ("TIG:escape P1 P2", 2),
        # R6.7 only escapes: the first one wins (the Tigress as escape is an escape)
        ("ESC1 ESC2", 0),
        ("TIG:escape ESC1", 0),
        ("ESC3 TIG:escape ESC1", 0),
        # an escape loses to everything
        ("ESC1 G1", 1),
        ("ESC1 ESC2 P1 ESC3", 2),
    ],
)
def test_r6_winner(plays: str, expected: int) -> None:
    result = rules.resolve_trick(trick(plays))
    assert result.winner == expected
    assert result.winning_play == expected
    assert result.next_leader == expected  # the winner leads the next trick
    assert not result.destroyed
    assert result.destroyed_by is None


def test_r6_a_trick_with_no_lead_suit_is_still_won_by_characters() -> None:
    assert winner("PIR1 G14 B14") == 0
    assert winner("MER1 B14") == 0


def test_r6_empty_trick_is_an_error() -> None:
    with pytest.raises(ValueError):
        rules.resolve_trick([])


# --- R7: Kraken and White Whale -------------------------------------------------------


def test_r7_example_kraken_last_destroys_and_the_black_3_leads() -> None:
    # RULES.md R7: yellow 12, black 3, White Whale, Kraken: destroyed, the black 3's player leads.
    result = rules.resolve_trick(trick("Y12 B3 WHA KRA"))
    assert result.winner is None
    assert result.winning_play is None
    assert result.destroyed
    assert result.destroyed_by == "kraken"
    assert result.next_leader == 1
    assert result.bonus == 0


def test_r7_example_kraken_led_and_only_escapes_first_escape_leads() -> None:
    # RULES.md R7 (seed 000 decides against seed 003): the first escape's player leads.
    result = rules.resolve_trick(trick("KRA ESC1 ESC2"))
    assert (result.winner, result.destroyed_by, result.next_leader) == (None, "kraken", 1)
    assert rules.resolve_trick(trick("KRA TIG:escape ESC1")).next_leader == 1


@pytest.mark.parametrize(
    ("plays", "next_leader"),
    [
        ("G5 KRA G9", 2),  # who would have won without the Kraken
        ("PIR1 KRA SK", 2),
        ("SK PIR1 KRA MER1", 3),
        ("B14 G14 KRA", 0),
        # the lead suit is recomputed on what remains
        ("KRA Y5 G7", 1),
        ("KRA ESC1 G2 Y9 G3", 4),
        ("WHA G2 KRA Y9", 1),
        ("ESC1 KRA Y3 Y8", 3),
        ("KRA G5 PIR2", 2),
        # the Kraken alone among escapes and the Tigress as escape
        ("ESC1 KRA", 0),
        ("TIG:escape KRA ESC2", 0),
    ],
)
def test_r7_kraken_destroys_and_the_would_be_winner_leads(plays: str, next_leader: int) -> None:
    result = rules.resolve_trick(trick(plays))
    assert result.winner is None
    assert result.destroyed_by == "kraken"
    assert result.next_leader == next_leader
    assert result.bonus == 0


def test_r7_kraken_nothing_remains_the_trick_leader_leads_again() -> None:
    result = rules.resolve_trick(trick("WHA KRA"))
    assert (result.winner, result.destroyed_by, result.next_leader) == (None, "kraken", 0)


def test_r7_kraken_destroys_bonuses() -> None:
    assert rules.resolve_trick(trick("B14 G14 Y14 P14 KRA")).bonus == 0
    assert rules.resolve_trick(trick("SK PIR1 PIR2 KRA")).bonus == 0
    assert rules.resolve_trick(trick("SK MER1 KRA")).bonus == 0


@pytest.mark.parametrize(
    ("plays", "expected"),
    [
        ("G3 WHA Y9 B8", 2),  # highest rank whatever the suit, black included
        ("B13 WHA G14", 2),
        ("P10 WHA G10", 0),  # equal ranks: the first played wins
        ("WHA Y7 B7 G7", 1),
        ("SK WHA G2", 2),  # special cards have no power
        ("PIR1 MER1 G1 WHA", 2),
        ("ESC1 TIG:pirate WHA Y4 Y3", 3),
        ("KRA G5 WHA Y7", 3),  # both creatures: only the last one (the Whale) has its effect
        ("G5 KRA Y3 WHA", 0),
    ],
)
def test_r7_white_whale_highest_rank_wins(plays: str, expected: int) -> None:
    result = rules.resolve_trick(trick(plays))
    assert result.winner == expected
    assert result.next_leader == expected
    assert not result.destroyed
    assert result.destroyed_by is None


@pytest.mark.parametrize(
    ("plays", "whale"),
    [("PIR1 WHA SK", 1), ("WHA ESC1", 0), ("MER1 TIG:pirate WHA", 2), ("KRA ESC1 WHA", 2),
     ("KRA WHA", 1)],
)  # fmt: skip
def test_r7_white_whale_without_numbered_card_destroys_and_its_player_leads(
    plays: str, whale: int
) -> None:
    result = rules.resolve_trick(trick(plays))
    assert result.winner is None
    assert result.destroyed
    assert result.destroyed_by == "whale"
    assert result.next_leader == whale
    assert result.bonus == 0


def test_r7_both_creatures_only_the_last_has_its_effect() -> None:
    # Whale last: the Kraken is powerless, the Whale decides.
    assert rules.resolve_trick(trick("KRA G5 WHA Y7")).winner == 3
    # Kraken last: the Whale is powerless, the trick is destroyed.
    result = rules.resolve_trick(trick("WHA G5 KRA Y7"))
    assert (result.winner, result.destroyed_by, result.next_leader) == (None, "kraken", 1)


def test_r7_white_whale_only_the_14_bonuses() -> None:
    assert rules.resolve_trick(trick("B14 WHA G14")).bonus == 30
    assert rules.resolve_trick(trick("PIR1 MER1 WHA G2")).bonus == 0
    assert rules.resolve_trick(trick("SK PIR1 WHA G2")).bonus == 0
    assert rules.resolve_trick(trick("SK MER1 WHA Y14")).bonus == 10
