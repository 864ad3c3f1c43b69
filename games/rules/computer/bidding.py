"""R4: how many tricks a computer player bids."""

from __future__ import annotations

import random

from ..scoring import valid_bids
from .knowledge import read
from .levels import Level
from .odds import expected_points, points_table, trick_count_odds
from .sampling import rollout_bid
from .strength import counted_chance, static_chance
from .view import SeatView

__all__ = ["decide_bid"]


def decide_bid(view: SeatView, level: Level, rng: random.Random) -> int:
    """The bid of the seat in ``view`` (0..cards dealt, R4), deterministic for ``rng``'s state."""
    if not view.bidding:
        raise ValueError("this seat has already bid (R4: a bid is final)")
    bids = valid_bids(view.cards_dealt)
    players = view.players
    if level is Level.EASY:
        # plausible, not thought through: its clearly strong cards, give or take one
        strong = sum(static_chance(c, players) >= 0.5 for c in view.hand)
        return min(bids[-1], max(0, strong + rng.choice((-1, 0, 0, 1))))
    if level is Level.NORMAL:
        return _best_bid(view, [static_chance(c, players) for c in view.hand])
    know = read(view)
    others = len(know.holding)
    per_hand = know.in_play / others if others else 0.0
    counted = _best_bid(view, [counted_chance(c, know.unseen, others, per_hand) for c in view.hand])
    # the counted bid is where STRONG starts: the rollouts choose around it
    return rollout_bid(view, know, counted, rng)


def _best_bid(view: SeatView, chances: list[float]) -> int:
    """The bid worth most R9 points on average over how many tricks the hand may take,
    its cards seen as independent ``chances``; on a tie the lower bid, which is easier to
    keep by throwing cards away."""
    odds = trick_count_odds(chances)
    return max(
        valid_bids(view.cards_dealt),
        key=lambda b: (expected_points(points_table(b, view.cards_dealt), 0, odds), -b),
    )
