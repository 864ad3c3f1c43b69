"""R1: the 72 cards, plays (a card as played, with the Tigress choice) and their notation."""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Final, NoReturn

__all__ = [
    "DECK",
    "ESCAPE",
    "PIRATE",
    "SUITS",
    "Card",
    "Kind",
    "Play",
    "card",
    "needs_choice",
    "parse_play",
    "sort_hand",
]

#: The four suits in R1 table order; black ("B") is the trump suit.
SUITS: Final = ("G", "Y", "P", "B")
#: The two Tigress choices (R1, R5).
PIRATE: Final = "pirate"
ESCAPE: Final = "escape"
_CHOICES: Final = (PIRATE, ESCAPE)


class Kind(enum.Enum):
    """What a card is (R1). The Tigress stays ``TIGRESS``; what it was played as is on the Play."""

    NUMBER = "number"
    ESCAPE = "escape"
    PIRATE = "pirate"
    MERMAID = "mermaid"
    TIGRESS = "tigress"
    SKULL_KING = "skull_king"
    KRAKEN = "kraken"
    WHALE = "whale"


# Internal "effective role" codes, precomputed on cards and plays so that the trick
# resolution never compares enums or strings in its inner loops.
NUM: Final = 0  # numbered card
ESC: Final = 1  # escape, or the Tigress played as escape
PIR: Final = 2  # pirate, or the Tigress played as pirate
MER: Final = 3  # mermaid
SKG: Final = 4  # Skull King
KRA: Final = 5  # Kraken
WHA: Final = 6  # White Whale
TIG: Final = 7  # the Tigress before its choice (a Card, never a Play)

_ROLE: Final = {
    Kind.NUMBER: NUM,
    Kind.ESCAPE: ESC,
    Kind.PIRATE: PIR,
    Kind.MERMAID: MER,
    Kind.SKULL_KING: SKG,
    Kind.KRAKEN: KRA,
    Kind.WHALE: WHA,
    Kind.TIGRESS: TIG,
}

# Display order of the specials (sort_hand): after the four suits.
_SPECIAL_ORDER: Final = (
    Kind.ESCAPE,
    Kind.PIRATE,
    Kind.TIGRESS,
    Kind.MERMAID,
    Kind.SKULL_KING,
    Kind.KRAKEN,
    Kind.WHALE,
)


class Card:
    """One of the 72 cards. Immutable, and interned: there is exactly one object per code,
    so equality and hashing are by identity (fast) and ``Card("G14") is card("G14")``.

    Attributes: ``code`` ("G14"), ``kind`` (:class:`Kind`), ``suit`` ("G", "Y", "P", "B" or
    None), ``rank`` (1..14 or None); ``index`` is the position in :data:`DECK`.
    """

    __slots__ = ("bonus14", "code", "index", "kind", "rank", "rank0", "role", "sort_key", "suit")

    code: str
    kind: Kind
    suit: str | None
    rank: int | None
    index: int
    # precomputed helpers (internal)
    rank0: int  # rank, or 0 for a special card
    role: int  # NUM, ESC, PIR, MER, SKG, KRA, WHA or TIG
    bonus14: int  # R9 bonus this card gives to whoever takes it (14s only)
    sort_key: int  # sort_hand display order

    def __new__(cls, code: str) -> Card:
        return card(code)

    def __setattr__(self, name: str, value: object) -> NoReturn:
        raise AttributeError(f"Card is immutable (cannot set {name!r})")

    def __delattr__(self, name: str) -> NoReturn:
        raise AttributeError(f"Card is immutable (cannot delete {name!r})")

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"Card({self.code!r})"

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (card, (self.code,))

    def __copy__(self) -> Card:
        return self

    def __deepcopy__(self, memo: object) -> Card:
        return self


def _make_card(code: str, kind: Kind, suit: str | None, rank: int | None, index: int) -> Card:
    obj = object.__new__(Card)
    put = object.__setattr__
    put(obj, "code", code)
    put(obj, "kind", kind)
    put(obj, "suit", suit)
    put(obj, "rank", rank)
    put(obj, "index", index)
    put(obj, "rank0", rank or 0)
    put(obj, "role", _ROLE[kind])
    put(obj, "bonus14", (20 if suit == "B" else 10) if rank == 14 else 0)
    if suit is not None and rank is not None:
        sort_key = SUITS.index(suit) * 100 + rank
    else:
        sort_key = 1000 + _SPECIAL_ORDER.index(kind) * 100 + index
    put(obj, "sort_key", sort_key)
    return obj


def _build_deck() -> tuple[Card, ...]:
    specs: list[tuple[str, Kind, str | None, int | None]] = []
    for suit in SUITS:
        specs.extend((f"{suit}{rank}", Kind.NUMBER, suit, rank) for rank in range(1, 15))
    specs.extend((f"ESC{i}", Kind.ESCAPE, None, None) for i in range(1, 6))
    specs.extend((f"PIR{i}", Kind.PIRATE, None, None) for i in range(1, 6))
    specs.extend((f"MER{i}", Kind.MERMAID, None, None) for i in range(1, 3))
    specs.append(("TIG", Kind.TIGRESS, None, None))
    specs.append(("SK", Kind.SKULL_KING, None, None))
    specs.append(("KRA", Kind.KRAKEN, None, None))
    specs.append(("WHA", Kind.WHALE, None, None))
    return tuple(_make_card(code, k, s, r, i) for i, (code, k, s, r) in enumerate(specs))


#: The 72 cards, in R1 table order.
DECK: Final[tuple[Card, ...]] = _build_deck()
_BY_CODE: Final[dict[str, Card]] = {c.code: c for c in DECK}
TIGRESS_CARD: Final[Card] = _BY_CODE["TIG"]


def card(code: str) -> Card:
    """The card with this notation (R1), e.g. ``card("G14")``; ValueError if unknown."""
    try:
        return _BY_CODE[code]
    except (KeyError, TypeError):
        raise ValueError(f"unknown card code: {code!r}") from None


def needs_choice(c: Card) -> bool:
    """True only for the Tigress, which is declared pirate or escape when played (R1)."""
    return c.role == TIG


@dataclass(frozen=True, slots=True)
class Play:
    """A card as played. ``as_`` is "pirate" or "escape" for the Tigress, None otherwise.

    ``str(play)`` is its notation: "G14", "TIG:pirate", "TIG:escape".
    """

    card: Card
    as_: str | None = None
    # effective role (NUM, ESC, PIR, MER, SKG, KRA, WHA): the Tigress resolved to PIR/ESC
    role: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        c = self.card
        if not isinstance(c, Card):
            raise ValueError(f"not a card: {c!r}")
        if c.role == TIG:
            if self.as_ == PIRATE:
                role = PIR
            elif self.as_ == ESCAPE:
                role = ESC
            else:
                raise ValueError(f"the Tigress needs as_='pirate' or 'escape', got {self.as_!r}")
        elif self.as_ is not None:
            raise ValueError(f"only the Tigress takes a choice, got {c.code}:{self.as_}")
        else:
            role = c.role
        object.__setattr__(self, "role", role)

    def __str__(self) -> str:
        if self.as_ is None:
            return self.card.code
        return f"{self.card.code}:{self.as_}"


#: One shared Play per non-Tigress card (by card index), plus the two Tigress plays.
PLAY_OF: Final[tuple[Play | None, ...]] = tuple(None if c.role == TIG else Play(c) for c in DECK)
TIG_AS_PIRATE: Final = Play(TIGRESS_CARD, PIRATE)
TIG_AS_ESCAPE: Final = Play(TIGRESS_CARD, ESCAPE)
_PLAY_BY_NOTATION: Final[dict[str, Play]] = {
    **{str(p): p for p in PLAY_OF if p is not None},
    str(TIG_AS_PIRATE): TIG_AS_PIRATE,
    str(TIG_AS_ESCAPE): TIG_AS_ESCAPE,
}


def parse_play(text: str) -> Play:
    """Parse a play's notation ("G14", "TIG:pirate", "TIG:escape"); ValueError otherwise."""
    try:
        return _PLAY_BY_NOTATION[text]
    except (KeyError, TypeError):
        raise ValueError(f"invalid play notation: {text!r}") from None


def sort_hand(cards: Iterable[Card]) -> list[Card]:
    """Display order: suits G, Y, P, B by rank ascending, then ESC, PIR, TIG, MER, SK, KRA, WHA."""
    return sorted(cards, key=_sort_key)


def _sort_key(c: Card) -> int:
    return c.sort_key
