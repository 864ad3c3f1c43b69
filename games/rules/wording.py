"""Sentences for the explanations of explain.py, kept apart from the data so that the site
can translate them.

Every sentence is a plain ``%``-format template with named placeholders, all collected in
the dicts below. A presenter passes its own names and its gettext::

    words = rules.Words(
        card=lambda play: card_name(play.card.code, play.as_ or ""),
        player=lambda position: names[order[position]],  # a position in the trick
        translate=gettext,
    )
    rules.describe_trick(explanation.reason, words)  # ["Highest green wins: Green 12", ...]
    rules.describe_lead(rules.lead_state(plays), words)  # "Lead: green"
    rules.describe_unplayable(unplayable, words)  # "You must follow green"
    rules.describe_bonus(capture, words)  # "Pirate captured by Skull King: +30"

``translate`` is applied to the template before it is filled (so a translation can move the
placeholders), and to the default English card and suit names when no namer is given.
Placeholders: ``card`` (the deciding card), ``cards`` (the other cards named, joined by
", "), ``suit``, ``player`` (who leads next), ``points``, ``by`` (the capturing card).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from .cards import ESC, KRA, MER, NUM, PIR, SKG, WHA, Play
from .explain import (
    BonusCapture,
    BonusKind,
    LeadKind,
    LeadState,
    Note,
    NoteKind,
    PlayedCard,
    ReasonKind,
    TrickReason,
    Unplayable,
    UnplayableKind,
)
from .tricks import (
    MERMAID_BY_PIRATE_POINTS,
    PIRATE_BY_SKULL_KING_POINTS,
    SKULL_KING_BY_MERMAID_POINTS,
)

__all__ = [
    "BONUS_TEMPLATES",
    "CARD_NAMES",
    "ENGLISH",
    "IN_PROGRESS_TEMPLATES",
    "LEAD_TEMPLATES",
    "NOTE_TEMPLATES",
    "REASON_TEMPLATES",
    "SUIT_NAMES",
    "UNPLAYABLE_TEMPLATES",
    "Words",
    "describe_bonus",
    "describe_lead",
    "describe_trick",
    "describe_unplayable",
]

# --- the templates: every English sentence of the explanations ---------------------------

#: A complete trick (explain_trick).
REASON_TEMPLATES: Final[dict[ReasonKind, str]] = {
    ReasonKind.MERMAID_CAPTURES_SKULL_KING: (
        "%(card)s captures the Skull King (+%(points)d with an exact bid)"
    ),
    ReasonKind.MERMAID_CAPTURES_SKULL_KING_DESPITE_PIRATES: (
        "%(card)s captures the Skull King, even with pirates in the trick"
        " (+%(points)d with an exact bid; the pirates score nothing)"
    ),
    ReasonKind.SKULL_KING_CAPTURES_PIRATES: (
        "%(card)s takes the trick: it beats the pirates (+%(points)d each with an exact bid)"
    ),
    ReasonKind.SKULL_KING_WINS: "%(card)s takes the trick: without a mermaid nothing beats it",
    ReasonKind.PIRATE_CAPTURES_MERMAIDS: (
        "%(card)s takes the trick: a pirate beats the mermaids (+%(points)d each with an exact bid)"
    ),
    ReasonKind.PIRATE_WINS: "%(card)s takes the trick: a pirate beats the numbered cards",
    ReasonKind.MERMAID_WINS: "%(card)s takes the trick: a mermaid beats the numbered cards",
    ReasonKind.TRUMP: "%(card)s trumps",
    ReasonKind.HIGHEST_TRUMP: "Highest trump wins: %(card)s",
    ReasonKind.HIGHEST_OF_LEAD: "Highest %(suit)s wins: %(card)s",
    ReasonKind.FIRST_ESCAPE: "Only escapes: the first one played wins, %(card)s",
    ReasonKind.WHALE_HIGHEST_NUMBER: "White Whale: the highest number wins, %(card)s",
    ReasonKind.WHALE_NO_NUMBER: (
        "White Whale and no numbered card: the trick is destroyed;"
        " %(player)s played the Whale and leads next"
    ),
    ReasonKind.KRAKEN_DESTROYS: (
        "Kraken destroys the trick; %(player)s would have won and leads next"
    ),
    ReasonKind.KRAKEN_NOTHING_LEFT: (
        "Kraken destroys the trick; no other card remains, so %(player)s, who led it, leads again"
    ),
}

#: A trick still in progress (winning_so_far): who would win if it stopped here.
IN_PROGRESS_TEMPLATES: Final[dict[ReasonKind, str]] = {
    ReasonKind.MERMAID_CAPTURES_SKULL_KING: (
        "%(card)s is winning: it captures the Skull King (+%(points)d with an exact bid)"
    ),
    ReasonKind.MERMAID_CAPTURES_SKULL_KING_DESPITE_PIRATES: (
        "%(card)s is winning: it captures the Skull King, even with pirates in the trick"
    ),
    ReasonKind.SKULL_KING_CAPTURES_PIRATES: (
        "%(card)s is winning: it beats the pirates (+%(points)d each with an exact bid)"
    ),
    ReasonKind.SKULL_KING_WINS: "%(card)s is winning: only a mermaid can beat it",
    ReasonKind.PIRATE_CAPTURES_MERMAIDS: (
        "%(card)s is winning: a pirate beats the mermaids (+%(points)d each with an exact bid)"
    ),
    ReasonKind.PIRATE_WINS: "%(card)s is winning: a pirate beats the numbered cards",
    ReasonKind.MERMAID_WINS: "%(card)s is winning: a mermaid beats the numbered cards",
    ReasonKind.TRUMP: "%(card)s is winning: it trumps",
    ReasonKind.HIGHEST_TRUMP: "%(card)s is winning: the highest trump",
    ReasonKind.HIGHEST_OF_LEAD: "%(card)s is winning: the highest %(suit)s",
    ReasonKind.FIRST_ESCAPE: "Only escapes so far: the first one, %(card)s, is winning",
    ReasonKind.WHALE_HIGHEST_NUMBER: "White Whale: the highest number is winning, %(card)s",
    ReasonKind.WHALE_NO_NUMBER: (
        "White Whale: unless a numbered card comes, the trick is destroyed"
        " and %(player)s, who played the Whale, leads next"
    ),
    ReasonKind.KRAKEN_DESTROYS: (
        "Kraken: the trick is being destroyed; %(player)s would win it and lead next"
    ),
    ReasonKind.KRAKEN_NOTHING_LEFT: (
        "Kraken: the trick is being destroyed; %(player)s, who led it, would lead again"
    ),
}

#: The details that follow a reason, one sentence each.
NOTE_TEMPLATES: Final[dict[NoteKind, str]] = {
    NoteKind.FIRST_OF_PIRATES: "Among several pirates the first played wins: %(card)s",
    NoteKind.FIRST_OF_MERMAIDS: "Between two mermaids the first played wins: %(card)s",
    NoteKind.TIGRESS_AS_PIRATE: "The Tigress was played as a pirate and counts as one",
    NoteKind.TIGRESS_AS_ESCAPE: "The Tigress was played as an escape and counts as one",
    NoteKind.LEAD_AFTER_ESCAPES: "An escape was led: %(card)s set the suit",
    NoteKind.OFF_SUIT_CANNOT_WIN: "Other suits never win: %(cards)s",
    NoteKind.WHALE_CANCELS_SPECIALS: "The White Whale takes all power from %(cards)s",
    NoteKind.EQUAL_RANK_FIRST_WINS: (
        "Equal ranks: the first played wins, %(card)s before %(cards)s"
    ),
    NoteKind.ONLY_LAST_CREATURE_COUNTS: (
        "Kraken and White Whale: only the one played last counts, the %(card)s"
    ),
}

#: R5, during the trick.
LEAD_TEMPLATES: Final[dict[LeadKind, str]] = {
    LeadKind.NO_CARD_YET: "No card yet: the leader may play anything",
    LeadKind.SUIT: "Lead: %(suit)s",
    LeadKind.ESCAPES_ONLY: "Escape led: the next number card sets the suit",
    LeadKind.CHARACTER_LED: "No lead suit: a character was led",
    LeadKind.CREATURE_LED: "No lead suit: a creature was led",
}

#: R5, for a card of your hand you cannot play.
UNPLAYABLE_TEMPLATES: Final[dict[UnplayableKind, str]] = {
    UnplayableKind.MUST_FOLLOW: "You must follow %(suit)s",
}

#: R9, one capture of a won trick (for the trick and the round summary).
BONUS_TEMPLATES: Final[dict[BonusKind, str]] = {
    BonusKind.COLOUR_14: "%(card)s: +%(points)d",
    BonusKind.BLACK_14: "%(card)s: +%(points)d",
    BonusKind.MERMAID_BY_PIRATE: "%(card)s captured by %(by)s: +%(points)d",
    BonusKind.PIRATE_BY_SKULL_KING: "%(card)s captured by %(by)s: +%(points)d",
    BonusKind.SKULL_KING_BY_MERMAID: "%(card)s captured by %(by)s: +%(points)d",
}

#: Default names, used when Words has no namer (lower case: they sit inside sentences).
SUIT_NAMES: Final[dict[str, str]] = {"G": "green", "Y": "yellow", "P": "purple", "B": "black"}
#: Default card names: a numbered card is NUMBER_CARD with its capitalised suit.
CARD_NAMES: Final[dict[str, str]] = {
    "G": "Green",
    "Y": "Yellow",
    "P": "Purple",
    "B": "Black",
    "NUMBER_CARD": "%(suit)s %(rank)d",
    "ESC": "Escape",
    "PIR": "Pirate",
    "MER": "Mermaid",
    "SK": "Skull King",
    "KRA": "Kraken",
    "WHA": "White Whale",
    "TIG:pirate": "Tigress (as pirate)",
    "TIG:escape": "Tigress (as escape)",
    "PLAYER": "player %(number)d",
}

# The points a reason's sentence quotes, from the engine's R9 constants.
_REASON_POINTS: Final[dict[ReasonKind, int]] = {
    ReasonKind.MERMAID_CAPTURES_SKULL_KING: SKULL_KING_BY_MERMAID_POINTS,
    ReasonKind.MERMAID_CAPTURES_SKULL_KING_DESPITE_PIRATES: SKULL_KING_BY_MERMAID_POINTS,
    ReasonKind.SKULL_KING_CAPTURES_PIRATES: PIRATE_BY_SKULL_KING_POINTS,
    ReasonKind.PIRATE_CAPTURES_MERMAIDS: MERMAID_BY_PIRATE_POINTS,
}


def _same(text: str) -> str:
    return text


@dataclass(frozen=True, slots=True)
class Words:
    """How to name things in sentences. ``card`` names a play ("Green 12", "Tigress (as
    pirate)"); ``player`` names a position in the trick; ``suit`` names "G", "Y", "P", "B";
    ``translate`` (e.g. gettext) is applied to every template and default name.
    """

    card: Callable[[Play], str] | None = None
    player: Callable[[int], str] | None = None
    suit: Callable[[str], str] | None = None
    translate: Callable[[str], str] = _same

    def card_name(self, play: Play) -> str:
        if self.card is not None:
            return self.card(play)
        t = self.translate
        c = play.card
        if c.role == NUM and c.suit is not None:
            return t(CARD_NAMES["NUMBER_CARD"]) % {"suit": t(CARD_NAMES[c.suit]), "rank": c.rank}
        if play.as_ is not None:
            return t(CARD_NAMES[str(play)])
        return t(CARD_NAMES[_CARD_KEY[c.role]])

    def player_name(self, position: int) -> str:
        if self.player is not None:
            return self.player(position)
        return self.translate(CARD_NAMES["PLAYER"]) % {"number": position + 1}

    def suit_name(self, suit: str) -> str:
        if self.suit is not None:
            return self.suit(suit)
        return self.translate(SUIT_NAMES[suit])


_CARD_KEY: Final = {ESC: "ESC", PIR: "PIR", MER: "MER", SKG: "SK", KRA: "KRA", WHA: "WHA"}

#: English, with the default names.
ENGLISH: Final = Words()


def _names(cards: Sequence[PlayedCard], words: Words) -> str:
    return ", ".join(words.card_name(p.play) for p in cards)


def describe_trick(reason: TrickReason, words: Words = ENGLISH) -> list[str]:
    """The reason's sentence, then one sentence per note."""
    templates = IN_PROGRESS_TEMPLATES if reason.in_progress else REASON_TEMPLATES
    params = {
        "card": words.card_name(reason.card.play),
        "cards": _names(reason.cards[1:], words),
        "suit": words.suit_name(reason.suit) if reason.suit is not None else "",
        "player": words.player_name(reason.next_leader),
        "points": _REASON_POINTS.get(reason.kind, 0),
    }
    main = words.translate(templates[reason.kind]) % params
    return [main, *(_describe_note(note, words) for note in reason.notes)]


def _describe_note(note: Note, words: Words) -> str:
    params = {
        "card": words.card_name(note.cards[0].play),
        "cards": _names(note.cards[1:], words),
    }
    return words.translate(NOTE_TEMPLATES[note.kind]) % params


def describe_lead(state: LeadState, words: Words = ENGLISH) -> str:
    """ "Lead: green", "Escape led: the next number card sets the suit", ..."""
    params = {
        "suit": words.suit_name(state.suit) if state.suit is not None else "",
        "card": words.card_name(state.card.play) if state.card is not None else "",
    }
    return words.translate(LEAD_TEMPLATES[state.kind]) % params


def describe_unplayable(unplayable: Unplayable, words: Words = ENGLISH) -> str:
    """ "You must follow green"."""
    params = {"suit": words.suit_name(unplayable.suit)}
    return words.translate(UNPLAYABLE_TEMPLATES[unplayable.kind]) % params


def describe_bonus(capture: BonusCapture, words: Words = ENGLISH) -> str:
    """ "Green 14: +10", "Pirate captured by Skull King: +30"."""
    params = {
        "card": words.card_name(capture.card.play),
        "by": words.card_name(capture.by.play),
        "points": capture.points,
    }
    return words.translate(BONUS_TEMPLATES[capture.kind]) % params
