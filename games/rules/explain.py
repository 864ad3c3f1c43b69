"""Why a trick goes the way it does (R5, R6, R7, R9), as data a presenter can display.

The presenter's API (all through the facade, ``from games import rules``)::

    ex = rules.explain_trick(plays)        # a complete trick -> TrickExplanation
    ex.result                              # TrickResult, the same as rules.resolve_trick(plays)
    ex.reason                              # TrickReason: kind, rule ("R6.2", "R7 Kraken"),
                                           #   winner, next_leader, cards, suit, notes, would_have
    ex.bonuses                             # tuple[BonusCapture, ...]: what makes ex.result.bonus
    rules.winning_so_far(plays)            # the same for a trick in progress (None if empty)
    rules.lead_state(plays)                # LeadState: "Lead: green", "Escape led: ..."
    rules.unplayable_cards(hand, plays)    # {Card: Unplayable} for the cards R5 forbids
    rules.exact_bid_possible(bid, won, tricks_left)  # R9: would this trick's bonus still count
    rules.describe_trick(ex.reason, words) # English (or translated) sentences: see wording.py
    rules.describe_lead / describe_unplayable / describe_bonus(..., words)

A round summary's "which captures gave the bonus": the ``bonuses`` of the tricks a player
won (``explain_trick`` on each stored trick), shown only when the bid was exact.

Every position is an index in the trick (play order): map it to a seat with the play order,
as for ``TrickResult.winner``. The reasons name only cards already on the table;
``unplayable_cards`` looks at a hand, so its answer goes to that hand's owner only (R4).

No rule is decided here: ``tricks.decide_trick`` decides the trick and says which R6 step or
R7 effect did; this module only names the cards that rule is about.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from .cards import ESC, KRA, MER, NUM, PIR, SKG, WHA, Card, Play
from .tricks import (
    KRAKEN_DECIDED,
    MERMAID_BY_PIRATE_POINTS,
    PIRATE_BY_SKULL_KING_POINTS,
    R6_1,
    R6_2,
    R6_3,
    R6_4,
    R6_5,
    R6_6,
    SKULL_KING_BY_MERMAID_POINTS,
    WHALE_NUMBER,
    TrickResult,
    decide_trick,
    lead_position,
    lead_suit,
    legal_cards,
)

__all__ = [
    "BonusCapture",
    "BonusKind",
    "LeadKind",
    "LeadState",
    "Note",
    "NoteKind",
    "PlayedCard",
    "ReasonKind",
    "TrickExplanation",
    "TrickReason",
    "Unplayable",
    "UnplayableKind",
    "explain_trick",
    "lead_state",
    "unplayable_cards",
    "winning_so_far",
]


@dataclass(frozen=True, slots=True)
class PlayedCard:
    """A play named by an explanation, with its position in the trick (play order)."""

    position: int
    play: Play


# --- who wins and why ------------------------------------------------------------------


class ReasonKind(enum.Enum):
    """What decided a trick; each kind has one rule (``RULE_OF``) and one sentence."""

    MERMAID_CAPTURES_SKULL_KING = "mermaid_captures_skull_king"  # R6.1
    MERMAID_CAPTURES_SKULL_KING_DESPITE_PIRATES = "mermaid_captures_skull_king_despite_pirates"
    SKULL_KING_CAPTURES_PIRATES = "skull_king_captures_pirates"  # R6.2
    SKULL_KING_WINS = "skull_king_wins"  # R6.2, no pirate in the trick
    PIRATE_CAPTURES_MERMAIDS = "pirate_captures_mermaids"  # R6.3
    PIRATE_WINS = "pirate_wins"  # R6.3, no mermaid in the trick
    MERMAID_WINS = "mermaid_wins"  # R6.4
    TRUMP = "trump"  # R6.5, one black card, black not led
    HIGHEST_TRUMP = "highest_trump"  # R6.5, several black cards or black led
    HIGHEST_OF_LEAD = "highest_of_lead"  # R6.6
    FIRST_ESCAPE = "first_escape"  # R6.7
    WHALE_HIGHEST_NUMBER = "whale_highest_number"  # R7 White Whale
    WHALE_NO_NUMBER = "whale_no_number"  # R7 White Whale, destroyed
    KRAKEN_DESTROYS = "kraken_destroys"  # R7 Kraken
    KRAKEN_NOTHING_LEFT = "kraken_nothing_left"  # R7 Kraken, no card but creatures


RULE_OF: Final[dict[ReasonKind, str]] = {
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


class NoteKind(enum.Enum):
    """A detail that completes a reason (a second sentence)."""

    FIRST_OF_PIRATES = "first_of_pirates"  # R6.3: several pirates, the first played wins
    FIRST_OF_MERMAIDS = "first_of_mermaids"  # R6.1/R6.4: two mermaids, the first played wins
    TIGRESS_AS_PIRATE = "tigress_as_pirate"  # R1/R6: the Tigress counts as a pirate
    TIGRESS_AS_ESCAPE = "tigress_as_escape"  # R1/R6: the Tigress counts as an escape
    LEAD_AFTER_ESCAPES = "lead_after_escapes"  # R5: escapes led, a later number set the suit
    OFF_SUIT_CANNOT_WIN = "off_suit_cannot_win"  # R6.6: higher cards of other suits lose
    WHALE_CANCELS_SPECIALS = "whale_cancels_specials"  # R7: special cards have no power
    EQUAL_RANK_FIRST_WINS = "equal_rank_first_wins"  # R7 White Whale: a tie, the first wins
    ONLY_LAST_CREATURE_COUNTS = "only_last_creature_counts"  # R7: both creatures in the trick


NOTE_RULE: Final[dict[NoteKind, str]] = {
    NoteKind.FIRST_OF_PIRATES: "R6.3",
    NoteKind.FIRST_OF_MERMAIDS: "R6",
    NoteKind.TIGRESS_AS_PIRATE: "R1",
    NoteKind.TIGRESS_AS_ESCAPE: "R1",
    NoteKind.LEAD_AFTER_ESCAPES: "R5",
    NoteKind.OFF_SUIT_CANNOT_WIN: "R6.6",
    NoteKind.WHALE_CANCELS_SPECIALS: "R7 White Whale",
    NoteKind.EQUAL_RANK_FIRST_WINS: "R7 White Whale",
    NoteKind.ONLY_LAST_CREATURE_COUNTS: "R7",
}


@dataclass(frozen=True, slots=True)
class Note:
    """A detail of a reason. ``cards``: the card the note is about first, then the others."""

    kind: NoteKind
    cards: tuple[PlayedCard, ...]

    @property
    def rule(self) -> str:
        return NOTE_RULE[self.kind]


@dataclass(frozen=True, slots=True)
class TrickReason:
    """Why a trick was won or destroyed.

    ``cards``: the cards the rule names, the deciding one first (the winner's card, or the
    Kraken / White Whale that destroyed the trick), then the ones it beat or captured that
    the sentence mentions (the Skull King for R6.1, the pirates for R6.2, the mermaids for
    R6.3, the other black cards for R6.5, the Whale for R7). ``winner`` is None when the trick
    is destroyed; ``suit`` is the suit that decided (R6.5 "B", R6.6 the lead suit).
    ``would_have`` (Kraken only): why ``next_leader`` would have won without the creatures,
    with positions in the whole trick. ``in_progress``: the trick is not complete yet, this is
    who would win if it stopped here.
    """

    kind: ReasonKind
    winner: int | None
    next_leader: int
    cards: tuple[PlayedCard, ...]
    suit: str | None = None
    notes: tuple[Note, ...] = ()
    would_have: TrickReason | None = None
    in_progress: bool = False

    @property
    def rule(self) -> str:
        return RULE_OF[self.kind]

    @property
    def card(self) -> PlayedCard:
        """The deciding card (the winner's, or the creature that destroyed the trick)."""
        return self.cards[0]


# --- R9 bonuses ------------------------------------------------------------------------


class BonusKind(enum.Enum):
    """The R9 capture bonuses."""

    COLOUR_14 = "colour_14"  # a green, yellow or purple 14: +10
    BLACK_14 = "black_14"  # the black 14: +20
    MERMAID_BY_PIRATE = "mermaid_by_pirate"  # +20 each
    PIRATE_BY_SKULL_KING = "pirate_by_skull_king"  # +30 each, the Tigress if played as pirate
    SKULL_KING_BY_MERMAID = "skull_king_by_mermaid"  # +40


@dataclass(frozen=True, slots=True)
class BonusCapture:
    """One capture that gives the trick's winner a bonus, if their bid is exact (R9).

    ``card``: the captured card; ``by``: the winner's card; ``points``: what it is worth.
    """

    kind: BonusKind
    card: PlayedCard
    by: PlayedCard
    points: int

    @property
    def rule(self) -> str:
        return "R9"


@dataclass(frozen=True, slots=True)
class TrickExplanation:
    """A trick's result, why, and the captures its bonus is made of.

    ``sum(b.points for b in bonuses) == result.bonus``; no capture in a destroyed trick.
    """

    result: TrickResult
    reason: TrickReason
    bonuses: tuple[BonusCapture, ...]


def explain_trick(trick: Sequence[Play]) -> TrickExplanation:
    """R6/R7/R9 for a complete trick: the result of ``resolve_trick``, the reason, the bonus.

    ValueError on an empty trick, like ``resolve_trick``.
    """
    return _explain(trick, in_progress=False)


def winning_so_far(trick: Sequence[Play]) -> TrickExplanation | None:
    """The same for a trick in progress: who would win (or that the trick would be destroyed)
    if nobody else played, and why. None while no card is on the table.
    """
    if not trick:
        return None
    return _explain(trick, in_progress=True)


def _explain(trick: Sequence[Play], in_progress: bool) -> TrickExplanation:
    result, how = decide_trick(trick)
    played = tuple(PlayedCard(i, play) for i, play in enumerate(trick))
    if how < KRAKEN_DECIDED:
        reason = _r6_reason(played, how, result.next_leader, in_progress)
        return TrickExplanation(result, reason, _bonuses(played, how, result.winner))
    kraken = _last(played, KRA)
    whale = _last(played, WHA)
    if how < WHALE_NUMBER:
        assert kraken is not None
        notes = _creature_notes(kraken, whale)
        if how == KRAKEN_DECIDED:  # nothing but creatures: the leader leads again
            reason = TrickReason(
                ReasonKind.KRAKEN_NOTHING_LEFT,
                None,
                result.next_leader,
                (kraken,),
                notes=notes,
                in_progress=in_progress,
            )
        else:
            rest = tuple(p for p in played if p.play.role < KRA)  # the creatures taken out
            would = _r6_reason(rest, how - KRAKEN_DECIDED, result.next_leader, in_progress)
            reason = TrickReason(
                ReasonKind.KRAKEN_DESTROYS,
                None,
                result.next_leader,
                (kraken, played[result.next_leader]),
                notes=notes,
                would_have=would,
                in_progress=in_progress,
            )
        return TrickExplanation(result, reason, ())
    assert whale is not None
    notes = _creature_notes(whale, kraken)
    if result.winner is None:
        notes += _whale_cancels(whale, played, None)
        reason = TrickReason(
            ReasonKind.WHALE_NO_NUMBER,
            None,
            result.next_leader,
            (whale,),
            notes=notes,
            in_progress=in_progress,
        )
        return TrickExplanation(result, reason, ())
    best = played[result.winner]
    ties = tuple(p for p in played if p is not best and p.play.card.rank0 == best.play.card.rank0)
    if ties:
        notes += (Note(NoteKind.EQUAL_RANK_FIRST_WINS, (best, *ties)),)
    notes += _whale_cancels(whale, played, best)
    reason = TrickReason(
        ReasonKind.WHALE_HIGHEST_NUMBER,
        best.position,
        result.next_leader,
        (best, whale),
        notes=notes,
        in_progress=in_progress,
    )
    return TrickExplanation(result, reason, _bonuses(played, how, result.winner))


def _whale_cancels(
    whale: PlayedCard, played: Sequence[PlayedCard], best: PlayedCard | None
) -> tuple[Note, ...]:
    """R7: the characters and the black cards (other than the winner) the Whale made powerless.
    Escapes had no power to lose; the other creature has its own note.
    """
    powerless = tuple(
        p
        for p in played
        if p.play.role in (PIR, MER, SKG) or (p.play.card.suit == "B" and p is not best)
    )
    return (Note(NoteKind.WHALE_CANCELS_SPECIALS, (whale, *powerless)),) if powerless else ()


def _last(played: Sequence[PlayedCard], role: int) -> PlayedCard | None:
    # decide_trick takes the last one of each creature; a real trick has at most one.
    found = None
    for p in played:
        if p.play.role == role:
            found = p
    return found


def _creature_notes(effective: PlayedCard | None, other: PlayedCard | None) -> tuple[Note, ...]:
    """R7: both creatures in the trick, only the one played last (``effective``) counts."""
    if effective is None or other is None:
        return ()
    return (Note(NoteKind.ONLY_LAST_CREATURE_COUNTS, (effective, other)),)


def _r6_reason(
    played: Sequence[PlayedCard], step: int, winner: int, in_progress: bool
) -> TrickReason:
    """The reason for R6 ``step`` that made ``winner`` (a position) win the creature-free
    ``played`` (the whole trick, or what a Kraken trick leaves).
    """
    win = next(p for p in played if p.position == winner)
    pirates = tuple(p for p in played if p.play.role == PIR)
    mermaids = tuple(p for p in played if p.play.role == MER)
    notes: list[Note] = []
    suit: str | None = None
    if step == R6_1:
        skull = tuple(p for p in played if p.play.role == SKG)
        kind = (
            ReasonKind.MERMAID_CAPTURES_SKULL_KING_DESPITE_PIRATES
            if pirates
            else ReasonKind.MERMAID_CAPTURES_SKULL_KING
        )
        cards = (win, *skull, *pirates)
        notes += _first_of(NoteKind.FIRST_OF_MERMAIDS, win, mermaids)
    elif step == R6_2:
        kind = ReasonKind.SKULL_KING_CAPTURES_PIRATES if pirates else ReasonKind.SKULL_KING_WINS
        cards = (win, *pirates)
    elif step == R6_3:
        kind = ReasonKind.PIRATE_CAPTURES_MERMAIDS if mermaids else ReasonKind.PIRATE_WINS
        cards = (win, *mermaids)
        notes += _first_of(NoteKind.FIRST_OF_PIRATES, win, pirates)
    elif step == R6_4:
        kind = ReasonKind.MERMAID_WINS
        cards = (win,)
        notes += _first_of(NoteKind.FIRST_OF_MERMAIDS, win, mermaids)
    elif step == R6_5:
        suit = "B"
        blacks = tuple(p for p in played if p.play.card.suit == "B" and p is not win)
        led = lead_suit([p.play for p in played])
        kind = ReasonKind.HIGHEST_TRUMP if blacks or led == "B" else ReasonKind.TRUMP
        cards = (win, *blacks)
    elif step == R6_6:
        suit = win.play.card.suit
        kind = ReasonKind.HIGHEST_OF_LEAD
        cards = (win,)
        higher = tuple(
            p
            for p in played
            if p.play.role == NUM
            and p.play.card.suit != suit
            and p.play.card.rank0 > win.play.card.rank0
        )
        if higher:
            notes.append(Note(NoteKind.OFF_SUIT_CANNOT_WIN, (win, *higher)))
    else:  # R6_7
        kind = ReasonKind.FIRST_ESCAPE
        cards = (win,)
    if step in (R6_5, R6_6) and played[0].play.role == ESC:
        setter = played[lead_position([p.play for p in played])]
        escapes = tuple(p for p in played if p.position < setter.position)
        notes.append(Note(NoteKind.LEAD_AFTER_ESCAPES, (setter, *escapes)))
    for p in played:
        if p.play.as_ is not None:
            tigress = (
                NoteKind.TIGRESS_AS_PIRATE if p.play.role == PIR else NoteKind.TIGRESS_AS_ESCAPE
            )
            notes.append(Note(tigress, (p,)))
    return TrickReason(kind, winner, winner, cards, suit, tuple(notes), in_progress=in_progress)


def _first_of(kind: NoteKind, win: PlayedCard, same: Sequence[PlayedCard]) -> list[Note]:
    """R6: among several pirates (or mermaids) the first one played wins."""
    later = tuple(p for p in same if p is not win)
    return [Note(kind, (win, *later))] if later else []


def _bonuses(
    played: Sequence[PlayedCard], how: int, winner: int | None
) -> tuple[BonusCapture, ...]:
    """R9: the captures that make up the winner's bonus, in play order. The character bonus
    goes with the R6 step that won (a White Whale trick has only the 14s).
    """
    if winner is None:
        return ()
    by = played[winner]
    captured_role, points = _CAPTURE_BY_STEP.get(how, (-1, 0))
    out: list[BonusCapture] = []
    for p in played:
        c = p.play.card
        if c.bonus14:
            kind = BonusKind.BLACK_14 if c.suit == "B" else BonusKind.COLOUR_14
            out.append(BonusCapture(kind, p, by, c.bonus14))
        elif p.play.role == captured_role:
            out.append(BonusCapture(_CAPTURE_KIND[how], p, by, points))
    return tuple(out)


# R9: the character captures that score, by the R6 step that won the trick.
_CAPTURE_BY_STEP: Final[dict[int, tuple[int, int]]] = {
    R6_1: (SKG, SKULL_KING_BY_MERMAID_POINTS),
    R6_2: (PIR, PIRATE_BY_SKULL_KING_POINTS),
    R6_3: (MER, MERMAID_BY_PIRATE_POINTS),
}
_CAPTURE_KIND: Final[dict[int, BonusKind]] = {
    R6_1: BonusKind.SKULL_KING_BY_MERMAID,
    R6_2: BonusKind.PIRATE_BY_SKULL_KING,
    R6_3: BonusKind.MERMAID_BY_PIRATE,
}


# --- during the trick: the lead suit and the cards you cannot play -----------------------


class LeadKind(enum.Enum):
    """R5: where the lead suit of a trick stands."""

    NO_CARD_YET = "no_card_yet"  # nothing played: the leader may play anything
    SUIT = "suit"  # a numbered card set the suit
    ESCAPES_ONLY = "escapes_only"  # only escapes so far: the next numbered card sets it
    CHARACTER_LED = "character_led"  # a character came first (maybe after escapes): none
    CREATURE_LED = "creature_led"  # a creature came first (maybe after escapes): none


@dataclass(frozen=True, slots=True)
class LeadState:
    """R5 lead suit of a trick so far. ``suit`` only for SUIT; ``card``: the first card that
    is not an escape, which set the suit or prevented one (None for NO_CARD_YET, ESCAPES_ONLY).
    """

    kind: LeadKind
    suit: str | None = None
    card: PlayedCard | None = None

    @property
    def rule(self) -> str:
        return "R5"


def lead_state(trick: Sequence[Play]) -> LeadState:
    """R5: the lead suit of ``trick`` (the plays so far), or why there is none (yet)."""
    i = lead_position(trick)
    if i < 0:
        return LeadState(LeadKind.ESCAPES_ONLY if trick else LeadKind.NO_CARD_YET)
    play = trick[i]
    setter = PlayedCard(i, play)
    if play.role == NUM:
        return LeadState(LeadKind.SUIT, play.card.suit, setter)
    if play.role in (KRA, WHA):
        return LeadState(LeadKind.CREATURE_LED, None, setter)
    return LeadState(LeadKind.CHARACTER_LED, None, setter)


class UnplayableKind(enum.Enum):
    """Why R5 forbids a card. Following the lead suit is the only restriction R5 has."""

    MUST_FOLLOW = "must_follow"


@dataclass(frozen=True, slots=True)
class Unplayable:
    """A card of the hand that R5 forbids now: the hand holds ``suit``, which was led."""

    card: Card
    kind: UnplayableKind
    suit: str

    @property
    def rule(self) -> str:
        return "R5"


def unplayable_cards(hand: Iterable[Card], trick: Sequence[Play]) -> dict[Card, Unplayable]:
    """R5: the cards of ``hand`` that cannot be played on ``trick`` now, each with why, in
    hand order; exactly the cards that ``legal_cards`` leaves out.
    """
    cards = list(hand)
    legal = legal_cards(cards, trick)
    if len(legal) == len(cards):
        return {}
    suit = lead_suit(trick)
    assert suit is not None  # R5: without a lead suit every card is playable
    return {c: Unplayable(c, UnplayableKind.MUST_FOLLOW, suit) for c in cards if c not in legal}
