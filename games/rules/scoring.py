"""R4 (valid bids), R9 (scoring a round) and R10 (winners)."""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass

__all__ = ["RoundScore", "exact_bid_possible", "score_round", "valid_bids", "winners"]


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
    if bid >= 1:
        if won == bid:
            return RoundScore(20 * bid, bonus, 20 * bid + bonus)
        base = -10 * abs(won - bid)
    elif won == 0:
        base = 10 * cards_dealt
    else:
        base = -10 * cards_dealt
    return RoundScore(base, 0, base)


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
