"""The sentences of the explanations: every kind has its template, the issue's examples read
as written, and a translation and the site's own names are used.
"""

from __future__ import annotations

import enum
import re

import pytest

from games import rules
from games.rules import BonusKind, LeadKind, NoteKind, ReasonKind, UnplayableKind


def trick(notation: str) -> list[rules.Play]:
    return [rules.parse_play(x) for x in notation.split()]


def sentences(notation: str, words: rules.Words = rules.ENGLISH) -> list[str]:
    return rules.describe_trick(rules.explain_trick(trick(notation)).reason, words)


PLAYERS = rules.Words(player=["Anne", "Bea", "Carl", "Dan"].__getitem__)


@pytest.mark.parametrize(
    ("templates", "kinds"),
    [
        (rules.REASON_TEMPLATES, ReasonKind),
        (rules.IN_PROGRESS_TEMPLATES, ReasonKind),
        (rules.NOTE_TEMPLATES, NoteKind),
        (rules.LEAD_TEMPLATES, LeadKind),
        (rules.UNPLAYABLE_TEMPLATES, UnplayableKind),
        (rules.BONUS_TEMPLATES, BonusKind),
    ],
)
def test_every_kind_has_a_template_with_known_placeholders(
    templates: dict[enum.Enum, str], kinds: type[enum.Enum]
) -> None:
    assert set(templates) == set(kinds)
    known = {"card", "cards", "suit", "player", "points", "by"}
    for text in templates.values():
        assert set(re.findall(r"%\((\w+)\)", text)) <= known, text


@pytest.mark.parametrize(
    ("plays", "expected"),
    [
        # the examples of issue 11
        ("PIR1 SK", "Skull King takes the trick: it beats the pirates"
                    " (+30 each with an exact bid)"),
        ("SK MER1", "Mermaid captures the Skull King (+40 with an exact bid)"),
        ("G5 B9", "Black 9 trumps"),
        ("G5 G12 G3", "Highest green wins: Green 12"),
        ("P10 WHA G3", "White Whale: the highest number wins, Purple 10"),
        ("G5 G9 KRA", "Kraken destroys the trick; Bea would have won and leads next"),
        # and the other kinds
        ("PIR1 SK MER1", "Mermaid captures the Skull King, even with pirates in the trick"
                         " (+40 with an exact bid; the pirates score nothing)"),
        ("G14 SK", "Skull King takes the trick: without a mermaid nothing beats it"),
        ("MER1 PIR2", "Pirate takes the trick: a pirate beats the mermaids"
                      " (+20 each with an exact bid)"),
        ("G3 PIR1", "Pirate takes the trick: a pirate beats the numbered cards"),
        ("B14 MER1", "Mermaid takes the trick: a mermaid beats the numbered cards"),
        ("B3 B10", "Highest trump wins: Black 10"),
        ("ESC1 ESC2", "Only escapes: the first one played wins, Escape"),
        ("PIR1 WHA", "White Whale and no numbered card: the trick is destroyed;"
                     " Bea played the Whale and leads next"),
        ("WHA KRA", "Kraken destroys the trick; no other card remains, so Anne, who led it,"
                    " leads again"),
    ],
)  # fmt: skip
def test_reason_sentences(plays: str, expected: str) -> None:
    assert sentences(plays, PLAYERS)[0] == expected


def test_both_creatures_only_the_one_played_last_counts() -> None:
    assert sentences("KRA G5 WHA Y7") == [
        "White Whale: the highest number wins, Yellow 7",
        "Kraken and White Whale: only the one played last counts, the White Whale",
    ]


@pytest.mark.parametrize(
    ("plays", "note"),
    [
        ("MER1 PIR2 TIG:pirate", "Among several pirates the first played wins: Pirate"),
        ("MER2 MER1", "Between two mermaids the first played wins: Mermaid"),
        ("TIG:pirate G3", "The Tigress was played as a pirate and counts as one"),
        ("TIG:escape G3", "The Tigress was played as an escape and counts as one"),
        ("ESC1 Y3 Y9", "An escape was led: Yellow 3 set the suit"),
        ("G5 Y14 G6 P9", "Other suits never win: Yellow 14, Purple 9"),
        ("G2 WHA SK B1", "The White Whale takes all power from Skull King, Black 1"),
        ("P10 WHA G10", "Equal ranks: the first played wins, Purple 10 before Green 10"),
    ],
)
def test_note_sentences(plays: str, note: str) -> None:
    assert note in sentences(plays)[1:]


def test_in_progress_sentences_say_who_is_winning() -> None:
    ex = rules.winning_so_far(trick("G5 G9"))
    assert ex is not None
    assert rules.describe_trick(ex.reason) == ["Green 9 is winning: the highest green"]
    ex = rules.winning_so_far(trick("G5 G9 KRA"))
    assert ex is not None
    assert rules.describe_trick(ex.reason, PLAYERS) == [
        "Kraken: the trick is being destroyed; Bea would win it and lead next"
    ]


@pytest.mark.parametrize(
    ("plays", "expected"),
    [
        ("", "No card yet: the leader may play anything"),
        ("G5", "Lead: green"),
        ("ESC1", "Escape led: the next number card sets the suit"),
        ("ESC1 PIR1", "No lead suit: a character was led"),
        ("KRA", "No lead suit: a creature was led"),
    ],
)
def test_lead_sentences(plays: str, expected: str) -> None:
    assert rules.describe_lead(rules.lead_state(trick(plays))) == expected


def test_unplayable_sentence() -> None:
    out = rules.unplayable_cards([rules.card("G1"), rules.card("Y2")], trick("G5"))
    assert [rules.describe_unplayable(u) for u in out.values()] == ["You must follow green"]


def test_bonus_sentences() -> None:
    ex = rules.explain_trick(trick("G14 SK TIG:pirate"))
    assert [rules.describe_bonus(b) for b in ex.bonuses] == [
        "Green 14: +10",
        "Tigress (as pirate) captured by Skull King: +30",
    ]


def test_translation_is_applied_to_the_template_before_it_is_filled_and_to_names() -> None:
    french = {
        "Highest %(suit)s wins: %(card)s": "%(card)s gagne : la plus forte en %(suit)s",
        "green": "vert",
        "Green": "Vert",
        "%(suit)s %(rank)d": "%(suit)s %(rank)d",
        "Lead: %(suit)s": "Couleur demandée : %(suit)s",
    }
    words = rules.Words(translate=lambda s: french.get(s, s))
    assert sentences("G5 G12", words) == ["Vert 12 gagne : la plus forte en vert"]
    assert rules.describe_lead(rules.lead_state(trick("G5")), words) == "Couleur demandée : vert"


def test_the_sites_own_names_are_used() -> None:
    words = rules.Words(
        card=lambda play: f"[{play}]", player=lambda i: f"seat {i}", suit=lambda s: f"<{s}>"
    )
    assert sentences("G5 G12", words) == ["Highest <G> wins: [G12]"]
    assert sentences("G5 KRA", words)[0] == (
        "Kraken destroys the trick; seat 0 would have won and leads next"
    )
