"""The engine explains: why a trick was won or destroyed (R6, R7), which captures make its
bonus (R9), the lead suit so far and why a card cannot be played (R5).
"""

from __future__ import annotations

import pytest

from games import rules
from games.rules import BonusKind, LeadKind, NoteKind, ReasonKind, TrickReason


def trick(notation: str) -> list[rules.Play]:
    return [rules.parse_play(x) for x in notation.split()]


def hand(codes: str) -> list[rules.Card]:
    return [rules.card(x) for x in codes.split()]


def explain(notation: str) -> rules.TrickExplanation:
    return rules.explain_trick(trick(notation))


def named(cards: tuple[rules.PlayedCard, ...]) -> list[str]:
    """The plays named, in notation, each checked against its position."""
    return [str(p.play) for p in cards]


def notes(reason: TrickReason) -> dict[NoteKind, list[str]]:
    return {n.kind: named(n.cards) for n in reason.notes}


def captures(ex: rules.TrickExplanation) -> list[tuple[BonusKind, str, int]]:
    return [(b.kind, str(b.card.play), b.points) for b in ex.bonuses]


# --- one example per reason kind -----------------------------------------------------

EXAMPLES = {
    ReasonKind.MERMAID_CAPTURES_SKULL_KING: "SK MER1",
    ReasonKind.MERMAID_CAPTURES_SKULL_KING_DESPITE_PIRATES: "PIR1 SK MER1",
    ReasonKind.SKULL_KING_CAPTURES_PIRATES: "PIR1 SK",
    ReasonKind.SKULL_KING_WINS: "G14 SK",
    ReasonKind.PIRATE_CAPTURES_MERMAIDS: "MER1 PIR2",
    ReasonKind.PIRATE_WINS: "G3 PIR1",
    ReasonKind.MERMAID_WINS: "B14 MER1",
    ReasonKind.TRUMP: "G14 B1",
    ReasonKind.HIGHEST_TRUMP: "B3 B10",
    ReasonKind.HIGHEST_OF_LEAD: "G5 G9",
    ReasonKind.FIRST_ESCAPE: "ESC1 ESC2",
    ReasonKind.WHALE_HIGHEST_NUMBER: "G3 WHA",
    ReasonKind.WHALE_NO_NUMBER: "PIR1 WHA",
    ReasonKind.KRAKEN_DESTROYS: "G5 KRA",
    ReasonKind.KRAKEN_NOTHING_LEFT: "WHA KRA",
}
RULES = {
    ReasonKind.MERMAID_CAPTURES_SKULL_KING: "R6.1",
    ReasonKind.MERMAID_CAPTURES_SKULL_KING_DESPITE_PIRATES: "R6.1",
    ReasonKind.SKULL_KING_CAPTURES_PIRATES: "R6.2",
    ReasonKind.SKULL_KING_WINS: "R6.2",
    ReasonKind.PIRATE_CAPTURES_MERMAIDS: "R6.3",
    ReasonKind.PIRATE_WINS: "R6.3",
    ReasonKind.MERMAID_WINS: "R6.4",
    ReasonKind.TRUMP: "R6.5",
    ReasonKind.HIGHEST_TRUMP: "R6.5",
    ReasonKind.HIGHEST_OF_LEAD: "R6.6",
    ReasonKind.FIRST_ESCAPE: "R6.7",
    ReasonKind.WHALE_HIGHEST_NUMBER: "R7 White Whale",
    ReasonKind.WHALE_NO_NUMBER: "R7 White Whale",
    ReasonKind.KRAKEN_DESTROYS: "R7 Kraken",
    ReasonKind.KRAKEN_NOTHING_LEFT: "R7 Kraken",
}


def test_every_reason_kind_has_an_example_and_a_rule() -> None:
    assert set(EXAMPLES) == set(ReasonKind) == set(RULES)


@pytest.mark.parametrize("kind", list(ReasonKind), ids=lambda k: k.value)
def test_each_reason_kind_names_its_rule(kind: ReasonKind) -> None:
    ex = explain(EXAMPLES[kind])
    assert ex.reason.kind is kind
    assert ex.reason.rule == RULES[kind]
    assert ex.reason.winner == ex.result.winner
    assert ex.reason.next_leader == ex.result.next_leader
    assert not ex.reason.in_progress


# --- R6 -------------------------------------------------------------------------------


def test_r6_1_mermaid_captures_the_skull_king_names_both() -> None:
    ex = explain("SK G5 MER1")
    r = ex.reason
    assert (r.kind, r.rule, r.winner, r.next_leader) == (
        ReasonKind.MERMAID_CAPTURES_SKULL_KING, "R6.1", 2, 2,
    )  # fmt: skip
    assert named(r.cards) == ["MER1", "SK"]
    assert r.card.position == 2
    assert r.notes == ()


def test_r6_1_all_three_character_kinds_the_mermaid_wins_even_with_pirates() -> None:
    ex = explain("PIR1 SK MER1 TIG:pirate")
    r = ex.reason
    assert r.kind is ReasonKind.MERMAID_CAPTURES_SKULL_KING_DESPITE_PIRATES
    assert r.winner == 2
    assert named(r.cards) == ["MER1", "SK", "PIR1", "TIG:pirate"]
    assert notes(r) == {NoteKind.TIGRESS_AS_PIRATE: ["TIG:pirate"]}
    # R9: +40 only, nobody scores the +30
    assert captures(ex) == [(BonusKind.SKULL_KING_BY_MERMAID, "SK", 40)]


def test_r6_1_two_mermaids_the_first_one_captures_the_skull_king() -> None:
    r = explain("SK MER2 MER1").reason
    assert (r.kind, r.winner) == (ReasonKind.MERMAID_CAPTURES_SKULL_KING, 1)
    assert notes(r) == {NoteKind.FIRST_OF_MERMAIDS: ["MER2", "MER1"]}


def test_r6_2_skull_king_captures_the_pirates_names_each_pirate() -> None:
    ex = explain("PIR1 SK TIG:pirate G5")
    r = ex.reason
    assert (r.kind, r.rule, r.winner) == (ReasonKind.SKULL_KING_CAPTURES_PIRATES, "R6.2", 1)
    assert named(r.cards) == ["SK", "PIR1", "TIG:pirate"]
    assert notes(r) == {NoteKind.TIGRESS_AS_PIRATE: ["TIG:pirate"]}


def test_r6_2_skull_king_without_pirate_or_mermaid() -> None:
    r = explain("G14 SK B14 ESC1").reason
    assert (r.kind, r.winner, named(r.cards)) == (ReasonKind.SKULL_KING_WINS, 1, ["SK"])


def test_r6_2_the_tigress_as_escape_is_no_pirate_for_the_skull_king() -> None:
    ex = explain("SK TIG:escape")
    assert ex.reason.kind is ReasonKind.SKULL_KING_WINS
    assert notes(ex.reason) == {NoteKind.TIGRESS_AS_ESCAPE: ["TIG:escape"]}
    assert ex.bonuses == ()


def test_r6_3_pirate_only_beats_the_numbered_cards() -> None:
    r = explain("G14 PIR2 B14").reason
    assert (r.kind, r.rule, r.winner, named(r.cards)) == (
        ReasonKind.PIRATE_WINS, "R6.3", 1, ["PIR2"],
    )  # fmt: skip
    assert r.notes == ()


def test_r6_3_first_of_several_pirates_wins_and_captures_the_mermaid() -> None:
    r = explain("MER1 PIR2 PIR1").reason
    assert (r.kind, r.winner) == (ReasonKind.PIRATE_CAPTURES_MERMAIDS, 1)
    assert named(r.cards) == ["PIR2", "MER1"]
    assert notes(r) == {NoteKind.FIRST_OF_PIRATES: ["PIR2", "PIR1"]}


def test_r6_3_the_tigress_as_pirate_is_a_pirate_and_can_be_the_first() -> None:
    r = explain("G3 TIG:pirate PIR1").reason
    assert (r.kind, r.winner, named(r.cards)) == (ReasonKind.PIRATE_WINS, 1, ["TIG:pirate"])
    assert notes(r) == {
        NoteKind.FIRST_OF_PIRATES: ["TIG:pirate", "PIR1"],
        NoteKind.TIGRESS_AS_PIRATE: ["TIG:pirate"],
    }


def test_r6_4_mermaid_only_beats_the_numbered_cards() -> None:
    r = explain("B14 MER1 G14").reason
    assert (r.kind, r.rule, r.winner, named(r.cards)) == (
        ReasonKind.MERMAID_WINS, "R6.4", 1, ["MER1"],
    )  # fmt: skip
    assert r.notes == ()


def test_r6_4_two_mermaids_the_first_wins() -> None:
    r = explain("MER2 MER1").reason
    assert (r.kind, r.winner) == (ReasonKind.MERMAID_WINS, 0)
    assert notes(r) == {NoteKind.FIRST_OF_MERMAIDS: ["MER2", "MER1"]}


def test_r6_5_a_single_black_card_trumps_the_lead_suit() -> None:
    r = explain("G14 B1 G13").reason
    assert (r.kind, r.rule, r.winner, r.suit, named(r.cards)) == (
        ReasonKind.TRUMP, "R6.5", 1, "B", ["B1"],
    )  # fmt: skip


def test_r6_5_the_highest_of_several_black_cards_names_the_others() -> None:
    r = explain("B3 G2 B10 B7").reason
    assert (r.kind, r.winner, r.suit) == (ReasonKind.HIGHEST_TRUMP, 2, "B")
    assert named(r.cards) == ["B10", "B3", "B7"]


def test_r6_5_black_led_is_not_called_trumping() -> None:
    r = explain("B5 ESC1").reason
    assert (r.kind, r.winner, named(r.cards)) == (ReasonKind.HIGHEST_TRUMP, 0, ["B5"])


def test_r6_6_highest_of_the_lead_suit_other_suits_never_win() -> None:
    r = explain("G5 G12 Y14 P13 G2 P3").reason
    assert (r.kind, r.rule, r.winner, r.suit, named(r.cards)) == (
        ReasonKind.HIGHEST_OF_LEAD, "R6.6", 1, "G", ["G12"],
    )  # fmt: skip
    assert notes(r) == {NoteKind.OFF_SUIT_CANNOT_WIN: ["G12", "Y14", "P13"]}


def test_r6_6_escape_led_the_next_numbered_card_set_the_suit() -> None:
    r = explain("ESC1 TIG:escape Y3 Y9 G14").reason
    assert (r.kind, r.winner, r.suit) == (ReasonKind.HIGHEST_OF_LEAD, 3, "Y")
    assert notes(r) == {
        NoteKind.OFF_SUIT_CANNOT_WIN: ["Y9", "G14"],
        NoteKind.LEAD_AFTER_ESCAPES: ["Y3", "ESC1", "TIG:escape"],
        NoteKind.TIGRESS_AS_ESCAPE: ["TIG:escape"],
    }


def test_r6_7_only_escapes_the_first_one_wins() -> None:
    r = explain("ESC3 TIG:escape ESC1").reason
    assert (r.kind, r.rule, r.winner, named(r.cards)) == (
        ReasonKind.FIRST_ESCAPE, "R6.7", 0, ["ESC3"],
    )  # fmt: skip
    assert notes(r) == {NoteKind.TIGRESS_AS_ESCAPE: ["TIG:escape"]}


def test_r6_7_the_tigress_as_escape_can_be_the_first_escape() -> None:
    r = explain("TIG:escape ESC1").reason
    assert (r.kind, r.winner, named(r.cards)) == (ReasonKind.FIRST_ESCAPE, 0, ["TIG:escape"])


# --- R7 -------------------------------------------------------------------------------


def test_r7_kraken_destroys_the_trick_names_the_would_be_winner() -> None:
    # RULES.md R7 example: yellow 12, black 3, White Whale, Kraken: the black 3's player leads.
    ex = explain("Y12 B3 WHA KRA")
    r = ex.reason
    assert (r.kind, r.rule, r.winner, r.next_leader) == (
        ReasonKind.KRAKEN_DESTROYS, "R7 Kraken", None, 1,
    )  # fmt: skip
    assert named(r.cards) == ["KRA", "B3"]
    assert r.card.position == 3
    assert notes(r) == {NoteKind.ONLY_LAST_CREATURE_COUNTS: ["KRA", "WHA"]}
    # why the black 3 would have won without the creatures, positions in the whole trick
    assert r.would_have is not None
    assert (r.would_have.kind, r.would_have.winner, r.would_have.next_leader) == (
        ReasonKind.TRUMP, 1, 1,
    )  # fmt: skip
    assert [p.position for p in r.would_have.cards] == [1]
    assert ex.bonuses == ()


def test_r7_kraken_destroys_every_bonus() -> None:
    ex = explain("SK PIR1 G14 KRA")
    assert ex.bonuses == ()
    assert ex.reason.would_have is not None
    assert ex.reason.would_have.kind is ReasonKind.SKULL_KING_CAPTURES_PIRATES


def test_r7_kraken_led_and_only_escapes_the_first_escape_leads() -> None:
    # seed 000 decides against seed 003: the first escape's player, not the Kraken's.
    r = explain("KRA ESC1 ESC2").reason
    assert (r.kind, r.next_leader, named(r.cards)) == (
        ReasonKind.KRAKEN_DESTROYS,
        1,
        ["KRA", "ESC1"],
    )
    assert r.would_have is not None and r.would_have.kind is ReasonKind.FIRST_ESCAPE


def test_r7_kraken_the_lead_suit_is_set_by_what_remains() -> None:
    r = explain("KRA Y5 G7").reason
    assert r.would_have is not None
    assert (r.would_have.kind, r.would_have.suit, r.next_leader) == (
        ReasonKind.HIGHEST_OF_LEAD, "Y", 1,
    )  # fmt: skip
    r = explain("ESC1 KRA Y3 Y8").reason
    assert r.would_have is not None
    assert notes(r.would_have)[NoteKind.LEAD_AFTER_ESCAPES] == ["Y3", "ESC1"]
    assert r.next_leader == 3


def test_r7_kraken_and_nothing_else_the_leader_leads_again() -> None:
    r = explain("WHA KRA").reason
    assert (r.kind, r.rule, r.winner, r.next_leader) == (
        ReasonKind.KRAKEN_NOTHING_LEFT, "R7 Kraken", None, 0,
    )  # fmt: skip
    assert named(r.cards) == ["KRA"]
    assert r.would_have is None
    assert notes(r) == {NoteKind.ONLY_LAST_CREATURE_COUNTS: ["KRA", "WHA"]}


def test_r7_white_whale_the_highest_number_wins_and_specials_lose_their_power() -> None:
    ex = explain("G3 WHA Y9 B8 SK ESC1")
    r = ex.reason
    assert (r.kind, r.rule, r.winner) == (ReasonKind.WHALE_HIGHEST_NUMBER, "R7 White Whale", 2)
    assert named(r.cards) == ["Y9", "WHA"]
    # black and the Skull King lose their power; escapes had none to lose
    assert notes(r) == {NoteKind.WHALE_CANCELS_SPECIALS: ["WHA", "B8", "SK"]}


def test_r7_white_whale_equal_ranks_the_first_played_wins() -> None:
    r = explain("P10 WHA G10 Y10").reason
    assert (r.kind, r.winner) == (ReasonKind.WHALE_HIGHEST_NUMBER, 0)
    assert notes(r) == {NoteKind.EQUAL_RANK_FIRST_WINS: ["P10", "G10", "Y10"]}


def test_r7_white_whale_without_numbered_card_destroys_and_its_player_leads() -> None:
    ex = explain("PIR1 WHA SK")
    r = ex.reason
    assert (r.kind, r.winner, r.next_leader, named(r.cards)) == (
        ReasonKind.WHALE_NO_NUMBER, None, 1, ["WHA"],
    )  # fmt: skip
    assert notes(r) == {NoteKind.WHALE_CANCELS_SPECIALS: ["WHA", "PIR1", "SK"]}
    assert ex.bonuses == ()


def test_r7_both_creatures_the_whale_played_last_decides() -> None:
    r = explain("KRA G5 WHA Y7").reason
    assert (r.kind, r.winner) == (ReasonKind.WHALE_HIGHEST_NUMBER, 3)
    assert notes(r) == {NoteKind.ONLY_LAST_CREATURE_COUNTS: ["WHA", "KRA"]}


def test_r7_both_creatures_the_kraken_played_last_decides() -> None:
    r = explain("WHA G5 KRA Y7").reason
    assert (r.kind, r.next_leader) == (ReasonKind.KRAKEN_DESTROYS, 1)
    assert named(r.cards) == ["KRA", "G5"]
    assert notes(r) == {NoteKind.ONLY_LAST_CREATURE_COUNTS: ["KRA", "WHA"]}


# --- R9: which captures make the bonus ------------------------------------------------


@pytest.mark.parametrize(
    ("plays", "expected"),
    [
        # each green, yellow or purple 14 in your tricks, whoever played it: +10
        ("G14 Y14 P14 B1", [(BonusKind.COLOUR_14, "G14", 10), (BonusKind.COLOUR_14, "Y14", 10),
                            (BonusKind.COLOUR_14, "P14", 10)]),
        # the black 14: +20
        ("B14 G3", [(BonusKind.BLACK_14, "B14", 20)]),
        # each Mermaid taken by your Pirate: +20
        ("MER1 PIR1 MER2", [(BonusKind.MERMAID_BY_PIRATE, "MER1", 20),
                            (BonusKind.MERMAID_BY_PIRATE, "MER2", 20)]),
        # each Pirate taken by your Skull King: +30, the Tigress only as a pirate
        ("PIR1 SK TIG:pirate", [(BonusKind.PIRATE_BY_SKULL_KING, "PIR1", 30),
                                (BonusKind.PIRATE_BY_SKULL_KING, "TIG:pirate", 30)]),
        ("PIR1 SK TIG:escape", [(BonusKind.PIRATE_BY_SKULL_KING, "PIR1", 30)]),
        # the Skull King taken by your Mermaid: +40
        ("SK MER2", [(BonusKind.SKULL_KING_BY_MERMAID, "SK", 40)]),
        # pirate, Skull King and mermaid: the mermaid scores +40 only
        ("PIR1 SK MER1 PIR2", [(BonusKind.SKULL_KING_BY_MERMAID, "SK", 40)]),
        # a mermaid that wins without the Skull King captures nothing worth a bonus
        ("MER1 G14 MER2", [(BonusKind.COLOUR_14, "G14", 10)]),
        # 14s and characters together, in play order
        ("Y14 SK PIR1 B14", [(BonusKind.COLOUR_14, "Y14", 10),
                             (BonusKind.PIRATE_BY_SKULL_KING, "PIR1", 30),
                             (BonusKind.BLACK_14, "B14", 20)]),
        # White Whale: the characters have no power, only the 14s
        ("B14 WHA G14 SK PIR1", [(BonusKind.BLACK_14, "B14", 20),
                                 (BonusKind.COLOUR_14, "G14", 10)]),
        ("SK MER1 WHA Y2", []),
        # Kraken: nobody scores a bonus from its cards
        ("B14 G14 SK PIR1 KRA", []),
        # White Whale with no numbered card: destroyed, no bonus
        ("SK PIR1 WHA", []),
    ],
)  # fmt: skip
def test_r9_bonus_breakdown(plays: str, expected: list[tuple[BonusKind, str, int]]) -> None:
    ex = explain(plays)
    assert captures(ex) == expected
    assert sum(b.points for b in ex.bonuses) == ex.result.bonus
    assert all(b.rule == "R9" for b in ex.bonuses)


def test_r9_bonus_captures_name_the_winning_card() -> None:
    ex = explain("PIR1 G14 SK")
    assert {str(b.by.play) for b in ex.bonuses} == {"SK"}
    assert {b.by.position for b in ex.bonuses} == {2}


# --- during the trick: who is winning --------------------------------------------------


def test_winning_so_far_nothing_on_the_table() -> None:
    assert rules.winning_so_far([]) is None


def test_winning_so_far_the_mark_moves_as_cards_land() -> None:
    plays = trick("G5 G9 B2 PIR1 SK MER1")
    kinds = []
    for k in range(1, len(plays) + 1):
        ex = rules.winning_so_far(plays[:k])
        assert ex is not None
        assert ex.reason.in_progress
        assert ex.reason.winner == k - 1
        assert ex.result == rules.resolve_trick(plays[:k])
        kinds.append(ex.reason.kind)
    assert kinds == [
        ReasonKind.HIGHEST_OF_LEAD,
        ReasonKind.HIGHEST_OF_LEAD,
        ReasonKind.TRUMP,
        ReasonKind.PIRATE_WINS,
        ReasonKind.SKULL_KING_CAPTURES_PIRATES,
        ReasonKind.MERMAID_CAPTURES_SKULL_KING_DESPITE_PIRATES,
    ]


@pytest.mark.parametrize(
    ("plays", "kind", "winner", "next_leader"),
    [
        ("KRA", ReasonKind.KRAKEN_NOTHING_LEFT, None, 0),
        ("G5 KRA", ReasonKind.KRAKEN_DESTROYS, None, 0),
        ("KRA G5 G9", ReasonKind.KRAKEN_DESTROYS, None, 2),
        ("WHA", ReasonKind.WHALE_NO_NUMBER, None, 0),
        ("SK WHA", ReasonKind.WHALE_NO_NUMBER, None, 1),
        ("SK WHA G2", ReasonKind.WHALE_HIGHEST_NUMBER, 2, 2),
        ("G5 KRA WHA", ReasonKind.WHALE_HIGHEST_NUMBER, 0, 0),
    ],
)
def test_r7_winning_so_far_with_creatures(
    plays: str, kind: ReasonKind, winner: int | None, next_leader: int
) -> None:
    ex = rules.winning_so_far(trick(plays))
    assert ex is not None
    assert (ex.reason.kind, ex.reason.winner, ex.reason.next_leader) == (kind, winner, next_leader)
    assert ex.reason.in_progress


# --- R5: the lead suit so far ------------------------------------------------------------


@pytest.mark.parametrize(
    ("plays", "kind", "suit", "card"),
    [
        ("", LeadKind.NO_CARD_YET, None, None),
        ("G5", LeadKind.SUIT, "G", "G5"),
        ("B2 G14", LeadKind.SUIT, "B", "B2"),
        ("ESC1", LeadKind.ESCAPES_ONLY, None, None),
        ("ESC1 TIG:escape", LeadKind.ESCAPES_ONLY, None, None),
        ("ESC1 P7", LeadKind.SUIT, "P", "P7"),
        ("TIG:escape Y3", LeadKind.SUIT, "Y", "Y3"),
        ("PIR1 G5", LeadKind.CHARACTER_LED, None, "PIR1"),
        ("TIG:pirate G5", LeadKind.CHARACTER_LED, None, "TIG:pirate"),
        ("ESC1 SK G5", LeadKind.CHARACTER_LED, None, "SK"),
        ("MER2", LeadKind.CHARACTER_LED, None, "MER2"),
        ("KRA G5", LeadKind.CREATURE_LED, None, "KRA"),
        ("ESC2 WHA G5", LeadKind.CREATURE_LED, None, "WHA"),
        ("G5 KRA", LeadKind.SUIT, "G", "G5"),  # a lead suit once set stays after a creature
    ],
)
def test_r5_lead_state(plays: str, kind: LeadKind, suit: str | None, card: str | None) -> None:
    state = rules.lead_state(trick(plays))
    assert (state.kind, state.suit) == (kind, suit)
    assert (None if state.card is None else str(state.card.play)) == card
    assert state.suit == rules.lead_suit(trick(plays))
    assert state.rule == "R5"


# --- R5: why a card cannot be played ----------------------------------------------------


def test_r5_unplayable_cards_must_follow_the_lead_suit() -> None:
    h = hand("G1 Y2 B14 ESC1 PIR2 TIG MER1 SK KRA WHA P9 G9")
    out = rules.unplayable_cards(h, trick("G5"))
    assert [c.code for c in out] == ["Y2", "B14", "P9"]  # hand order
    for c, why in out.items():
        assert (why.card, why.kind, why.suit, why.rule) == (
            c, rules.UnplayableKind.MUST_FOLLOW, "G", "R5",
        )  # fmt: skip


def test_r5_unplayable_black_led_must_be_followed_with_black() -> None:
    out = rules.unplayable_cards(hand("G1 B3 Y9 PIR1"), trick("B10"))
    assert {c.code: u.suit for c, u in out.items()} == {"G1": "B", "Y9": "B"}


def test_r5_unplayable_lead_suit_after_escapes_and_after_a_creature() -> None:
    out = rules.unplayable_cards(hand("G1 Y2"), trick("ESC1 TIG:escape Y5"))
    assert {c.code: u.suit for c, u in out.items()} == {"G1": "Y"}
    out = rules.unplayable_cards(hand("G1 Y2 ESC3"), trick("G5 KRA"))
    assert {c.code: u.suit for c, u in out.items()} == {"Y2": "G"}


@pytest.mark.parametrize(
    ("cards", "plays"),
    [
        ("G1 Y2 B14", ""),  # the leader plays anything
        ("Y2 B14 P3", "G5"),  # none of the lead suit: anything goes
        ("G1 Y2", "PIR1 G5"),  # a character led: no lead suit
        ("G1 Y2", "ESC1"),  # only escapes so far
        ("G1 Y2", "KRA G5"),  # a creature led
        ("ESC1 SK KRA", "G5"),  # special cards can always be played
    ],
)
def test_r5_nothing_unplayable(cards: str, plays: str) -> None:
    assert rules.unplayable_cards(hand(cards), trick(plays)) == {}


# --- R9: can the bid still be exact ----------------------------------------------------


@pytest.mark.parametrize(
    ("bid", "won", "left", "possible"),
    [(2, 1, 1, True), (2, 2, 3, True), (2, 3, 0, False), (3, 1, 1, False), (0, 0, 4, True),
     (0, 1, 2, False), (3, 0, 3, True)],
)  # fmt: skip
def test_r9_exact_bid_still_possible(bid: int, won: int, left: int, possible: bool) -> None:
    assert rules.exact_bid_possible(bid, won, left) is possible


def test_r9_exact_bid_possible_rejects_negative_counts() -> None:
    with pytest.raises(ValueError):
        rules.exact_bid_possible(1, -1, 2)
