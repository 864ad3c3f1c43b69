"""From chances of winning tricks to expected points: the arithmetic every level shares.

A hand is seen as independent chances, one per card, of taking a trick; the number of
tricks taken is then a Poisson-binomial count, and a bid or a card is worth the points R9
gives on average over that count. The points come from the engine's ``score_round``, so
the decisions weigh exactly what the game scores.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..scoring import score_round

__all__ = ["expected_points", "points_table", "trick_count_odds"]


def trick_count_odds(chances: Iterable[float]) -> list[float]:
    """P(exactly k of the independent chances come true), for k = 0..len(chances)."""
    odds = [1.0]
    for p in chances:
        q = 1.0 - p
        nxt = [0.0] * (len(odds) + 1)
        for k, o in enumerate(odds):
            nxt[k] += o * q
            nxt[k + 1] += o * p
        odds = nxt
    return odds


def points_table(bid: int, cards_dealt: int) -> list[int]:
    """R9's points, bonus aside, for taking 0..cards_dealt tricks after bidding ``bid``."""
    return [score_round(bid, won, cards_dealt).total for won in range(cards_dealt + 1)]


def expected_points(points: Sequence[int], won: int, odds: Sequence[float]) -> float:
    """The mean of ``points`` when ``won`` tricks are taken already and ``odds`` give the
    chances of taking k more."""
    top = len(points) - 1
    return sum(o * points[min(won + k, top)] for k, o in enumerate(odds) if o)
