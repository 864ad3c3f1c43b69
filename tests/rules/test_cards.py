"""R1: the deck, card codes, plays and their notation."""

from __future__ import annotations

import copy
import pickle

import pytest

from games import rules
from games.rules import Kind


def test_r1_deck_has_72_cards_in_table_order() -> None:
    codes = [str(c) for c in rules.DECK]
    expected = (
        [f"{s}{r}" for s in "GYPB" for r in range(1, 15)]
        + [f"ESC{i}" for i in range(1, 6)]
        + [f"PIR{i}" for i in range(1, 6)]
        + ["MER1", "MER2", "TIG", "SK", "KRA", "WHA"]
    )
    assert isinstance(rules.DECK, tuple)
    assert codes == expected
    assert len(set(rules.DECK)) == 72


@pytest.mark.parametrize(
    ("kind", "count"),
    [
        (Kind.NUMBER, 56),
        (Kind.ESCAPE, 5),
        (Kind.PIRATE, 5),
        (Kind.MERMAID, 2),
        (Kind.TIGRESS, 1),
        (Kind.SKULL_KING, 1),
        (Kind.KRAKEN, 1),
        (Kind.WHALE, 1),
    ],
)
def test_r1_card_counts_by_kind(kind: Kind, count: int) -> None:
    assert sum(c.kind is kind for c in rules.DECK) == count


def test_r1_numbered_cards_have_suit_and_rank_specials_have_none() -> None:
    for c in rules.DECK:
        if c.kind is Kind.NUMBER:
            assert c.suit in ("G", "Y", "P", "B")
            assert c.rank is not None and 1 <= c.rank <= 14
            assert c.code == f"{c.suit}{c.rank}"
        else:
            assert c.suit is None
            assert c.rank is None


def test_r1_card_lookup_by_code() -> None:
    g14 = rules.card("G14")
    assert str(g14) == "G14"
    assert g14.code == "G14"
    assert g14.kind is Kind.NUMBER
    assert g14.suit == "G"
    assert g14.rank == 14
    assert rules.card("B1").suit == "B"
    assert rules.card("SK").kind is Kind.SKULL_KING
    assert rules.card("KRA").kind is Kind.KRAKEN
    assert rules.card("WHA").kind is Kind.WHALE
    assert rules.card("TIG").kind is Kind.TIGRESS
    assert rules.card("MER2").kind is Kind.MERMAID
    assert rules.card("PIR5").kind is Kind.PIRATE
    assert rules.card("ESC3").kind is Kind.ESCAPE


@pytest.mark.parametrize(
    "code",
    ["G15", "G0", "B", "X1", "", "g14", "G14 ", "ESC6", "PIR0", "MER3", "TIG:pirate", "SK1"],
)
def test_r1_unknown_code_is_value_error(code: str) -> None:
    with pytest.raises(ValueError):
        rules.card(code)


def test_r1_cards_are_interned_immutable_and_hashable() -> None:
    g14 = rules.card("G14")
    assert g14 is rules.card("G14")
    assert rules.Card("G14") is g14
    assert copy.copy(g14) is g14
    assert copy.deepcopy(g14) is g14
    assert pickle.loads(pickle.dumps(g14)) is g14  # noqa: S301 - our own bytes
    assert {g14: 1}[rules.card("G14")] == 1
    assert g14 != rules.card("Y14")
    with pytest.raises(AttributeError):
        g14.rank = 13
    with pytest.raises(ValueError):
        rules.Card("G15")


def test_r1_play_notation() -> None:
    assert str(rules.Play(rules.card("G14"))) == "G14"
    assert str(rules.Play(rules.card("TIG"), as_="pirate")) == "TIG:pirate"
    assert str(rules.Play(rules.card("TIG"), "escape")) == "TIG:escape"
    play = rules.Play(rules.card("SK"))
    assert play.card is rules.card("SK")
    assert play.as_ is None
    assert play == rules.Play(rules.card("SK"), None)
    assert hash(play) == hash(rules.Play(rules.card("SK")))


def test_r1_tigress_needs_a_choice() -> None:
    with pytest.raises(ValueError):
        rules.Play(rules.card("TIG"))
    with pytest.raises(ValueError):
        rules.Play(rules.card("TIG"), as_="Pirate")
    with pytest.raises(ValueError):
        rules.Play(rules.card("TIG"), as_="mermaid")


@pytest.mark.parametrize("code", ["G14", "PIR1", "ESC1", "SK", "MER1", "KRA", "WHA"])
@pytest.mark.parametrize("choice", ["pirate", "escape"])
def test_r1_choice_only_for_the_tigress(code: str, choice: str) -> None:
    with pytest.raises(ValueError):
        rules.Play(rules.card(code), as_=choice)


def test_r1_play_is_frozen() -> None:
    play = rules.Play(rules.card("G1"))
    with pytest.raises(AttributeError):
        play.as_ = "pirate"  # type: ignore[misc]


@pytest.mark.parametrize("text", ["G14", "B1", "TIG:pirate", "TIG:escape", "SK", "ESC5", "WHA"])
def test_r1_parse_play_round_trips(text: str) -> None:
    play = rules.parse_play(text)
    assert str(play) == text
    assert play == rules.parse_play(text)


def test_r1_parse_play_every_card() -> None:
    for c in rules.DECK:
        if rules.needs_choice(c):
            assert rules.parse_play("TIG:pirate") == rules.Play(c, "pirate")
        else:
            assert rules.parse_play(c.code) == rules.Play(c)


@pytest.mark.parametrize(
    "text",
    ["TIG", "G14:pirate", "SK:escape", "TIG:", "TIG:Pirate", "TIG:mermaid", "G15", "", "tig:pirate",
     "TIG:pirate:escape", " G14", "TIG :pirate"],
)  # fmt: skip
def test_r1_parse_play_rejects_bad_notation(text: str) -> None:
    with pytest.raises(ValueError):
        rules.parse_play(text)


def test_r1_needs_choice_only_for_the_tigress() -> None:
    assert [c.code for c in rules.DECK if rules.needs_choice(c)] == ["TIG"]


def test_sort_hand_display_order() -> None:
    codes = ["WHA", "B1", "KRA", "SK", "MER1", "TIG", "PIR2", "ESC4", "ESC1", "P3", "Y14", "G2",
             "G10", "PIR1", "MER2", "B14", "Y1"]  # fmt: skip
    hand = [rules.card(c) for c in codes]
    assert [str(c) for c in rules.sort_hand(hand)] == [
        "G2", "G10", "Y1", "Y14", "P3", "B1", "B14", "ESC1", "ESC4", "PIR1", "PIR2", "TIG",
        "MER1", "MER2", "SK", "KRA", "WHA",
    ]  # fmt: skip
    assert rules.sort_hand([]) == []
    assert isinstance(rules.sort_hand(iter(hand)), list)
