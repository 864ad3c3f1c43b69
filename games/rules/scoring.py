"""R4 (valid bids), R9 (scoring a round) and R10 (winners).

A score sheet for games played with real cards (seed 001) scores from counts of
captures instead of tricks: ``Captures``, ``capture_problems`` (what one round's
deck cannot hold) and ``score_captures`` (R9 with an "other bonus" for expansions).
"""

from __future__ import annotations

import enum
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass, fields
from typing import Final

from .tricks import (
    MERMAID_BY_PIRATE_POINTS,
    PIRATE_BY_SKULL_KING_POINTS,
    SKULL_KING_BY_MERMAID_POINTS,
)

__all__ = [
    "CAPTURE_LIMITS",
    "CaptureProblem",
    "Captures",
    "RoundScore",
    "bonus_counts",
    "capture_problems",
    "exact_bid_possible",
    "score_captures",
    "score_round",
    "valid_bids",
    "winners",
]


def valid_bids(cards_dealt: int) -> range:
    """R4: a bid is an integer from 0 to the number of cards dealt."""
    if cards_dealt < 0:
        raise ValueError(f"cards_dealt must be >= 0, got {cards_dealt!r}")
    return range(cards_dealt + 1)


@dataclass(frozen=True, slots=True)
class RoundScore:
    """One player's points for a round (R9): base, bonus (0 unless the bid is exact), total."""

    base: int
    bonus: int
    total: int


def score_round(bid: int, won: int, cards_dealt: int, bonus: int = 0) -> RoundScore:
    """R9. ``bonus`` is the sum of the bonuses of the tricks the player won; it counts only
    when the bid is exact and at least 1 (with a bid of 0 made exactly, no trick was won).
    """
    if cards_dealt < 1:
        raise ValueError(f"cards_dealt must be >= 1, got {cards_dealt!r}")
    if not 0 <= bid <= cards_dealt:
        raise ValueError(f"bid must be 0..{cards_dealt}, got {bid!r}")
    if not 0 <= won <= cards_dealt:
        raise ValueError(f"won must be 0..{cards_dealt}, got {won!r}")
    if bonus < 0:
        raise ValueError(f"bonus must be >= 0, got {bonus!r}")
    if bonus_counts(bid, won):
        return RoundScore(20 * bid, bonus, 20 * bid + bonus)
    if bid >= 1:
        base = -10 * abs(won - bid)
    elif won == 0:
        base = 10 * cards_dealt
    else:
        base = -10 * cards_dealt
    return RoundScore(base, 0, base)


def bonus_counts(bid: int, won: int) -> bool:
    """R9: bonuses count only for a bid of 1 or more made exactly."""
    return bid >= 1 and won == bid


# R9's capture bonuses as a score sheet counts them (seed 001): the 14s' points are
# those of cards.Card.bonus14, the characters' those of tricks.
COLOUR_14_POINTS: Final = 10
BLACK_14_POINTS: Final = 20


@dataclass(frozen=True, slots=True)
class Captures:
    """One player's captures in a round, as whole-number counts (R9's bonus table).

    ``colour_14s``: green, yellow or purple 14s in their tricks (+10 each);
    ``black_14``: the black 14 (+20); ``mermaids_by_pirate``: Mermaids taken by their
    Pirate (+20 each); ``pirates_by_skull_king``: Pirates taken by their Skull King,
    the Tigress played as a pirate included (+30 each); ``skull_king_by_mermaid``: the
    Skull King taken by their Mermaid (+40).
    """

    colour_14s: int = 0
    black_14: int = 0
    mermaids_by_pirate: int = 0
    pirates_by_skull_king: int = 0
    skull_king_by_mermaid: int = 0

    def __post_init__(self) -> None:
        for field in fields(self):
            if getattr(self, field.name) < 0:
                raise ValueError(f"{field.name} must be >= 0, got {getattr(self, field.name)!r}")

    @property
    def points(self) -> int:
        """The bonus these captures are worth to an exact bid (R9)."""
        return (
            COLOUR_14_POINTS * self.colour_14s
            + BLACK_14_POINTS * self.black_14
            + MERMAID_BY_PIRATE_POINTS * self.mermaids_by_pirate
            + PIRATE_BY_SKULL_KING_POINTS * self.pirates_by_skull_king
            + SKULL_KING_BY_MERMAID_POINTS * self.skull_king_by_mermaid
        )

    @property
    def any(self) -> bool:
        return any(getattr(self, field.name) for field in fields(self))


#: What one round's deck holds (R1): three colour 14s, one black 14, two Mermaids,
#: five Pirates and the Tigress, one Skull King.
CAPTURE_LIMITS: Final = Captures(
    colour_14s=3, black_14=1, mermaids_by_pirate=2, pirates_by_skull_king=6, skull_king_by_mermaid=1
)


class CaptureProblem(enum.Enum):
    """Why the captures entered for a round cannot all have happened (R1, R6, R9)."""

    COLOUR_14S = "colour_14s"  # more than three colour 14s
    BLACK_14 = "black_14"  # the black 14 taken twice
    MERMAIDS = "mermaids_by_pirate"  # more than two Mermaids
    PIRATES = "pirates_by_skull_king"  # more than five Pirates and the Tigress
    SKULL_KING = "skull_king_by_mermaid"  # the Skull King taken twice
    SKULL_KING_BOTH = "skull_king_both"  # taken by a Mermaid, yet winning Pirates
    NO_TRICK = "no_trick"  # a capture by a player who won no trick


def capture_problems(
    round_captures: Iterable[tuple[int, Captures]],
) -> list[CaptureProblem]:
    """What is impossible in one round's (tricks won, captures) per player, in
    ``CaptureProblem``'s order ([] when it could all have happened).

    The whole round shares one deck (R1): its limits are ``CAPTURE_LIMITS``. The one
    Skull King wins at most one trick and is not taken if it wins: a Skull King
    taken by a Mermaid and Pirates taken by the Skull King cannot both be (R6).
    Captures come only with tricks won (R9).
    """
    entries = list(round_captures)
    if any(won < 0 for won, _captures in entries):
        raise ValueError("tricks won must be >= 0")
    totals = {
        field.name: sum(getattr(captures, field.name) for _won, captures in entries)
        for field in fields(Captures)
    }
    problems = [
        kind
        for kind in CaptureProblem
        if kind.value in totals and totals[kind.value] > getattr(CAPTURE_LIMITS, kind.value)
    ]
    if totals["skull_king_by_mermaid"] and totals["pirates_by_skull_king"]:
        problems.append(CaptureProblem.SKULL_KING_BOTH)
    if any(won == 0 and captures.any for won, captures in entries):
        problems.append(CaptureProblem.NO_TRICK)
    return problems


def score_captures(
    bid: int, won: int, cards_dealt: int, captures: Captures, other: int = 0
) -> RoundScore:
    """R9 from a score sheet's counts (seed 001): ``captures`` and ``other``, an
    "other bonus" for expansions (any whole number, negative too), count only for an
    exact bid of 1 or more. The rest is ``score_round``'s.
    """
    score = score_round(bid, won, cards_dealt, captures.points)
    if not bonus_counts(bid, won) or not other:
        return score
    return RoundScore(score.base, score.bonus + other, score.total + other)


def exact_bid_possible(bid: int, won: int, tricks_left: int) -> bool:
    """R9: can the bid still be made exactly (so that the bonuses would count), with ``won``
    tricks taken and ``tricks_left`` still to play in the round?
    """
    if won < 0 or tricks_left < 0:
        raise ValueError(f"won and tricks_left must be >= 0, got {won!r}, {tricks_left!r}")
    return won <= bid <= won + tricks_left


def winners[K: Hashable](totals: Mapping[K, int]) -> list[K]:
    """R10: every key tied for the highest total, in the mapping's order ([] if empty)."""
    if not totals:
        return []
    best = max(totals.values())
    return [key for key, total in totals.items() if total == best]
