"""STRONG's look at the round from here: deal the unseen cards to the others (as many as
each holds, none of a suit it has shown it lacks), many times over, and for each candidate
play the trick, or the whole rest of the round, out with :mod:`.rollout`'s quick rule.

The same deals serve every candidate (fewer samples tell them apart). The others want
tricks as long as they are short of their bids (R4: revealed by now); the ghost plays its
top card, which nobody has seen (R8).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from ..cards import Play
from ..deal import GHOST, ghost_play
from ..scoring import score_round
from ..tricks import resolve_trick
from .knowledge import Knowledge
from .rollout import Table, deal_unseen, playout, quick_play
from .strength import static_chance
from .view import SeatView

__all__ = ["Outlook", "look_ahead", "rollout_bid"]

# About how many simulated plays one decision may cost (a few microseconds each): keeps a
# decision well under 50 ms on one core whatever the table size. Tuned with
# scripts/bench_bots.py.
PLAY_BUDGET: Final = 4500
BID_BUDGET: Final = 6000
# The bids played out: the counted one, this many either side of it, and maybe 0.
BID_SPREAD: Final = 2
BID_ZERO: Final = True
MIN_SAMPLES: Final = 12
MAX_SAMPLES: Final = 96
# Fewer samples than this for whole-round rollouts: look at the trick alone instead.
ROLLOUT_SAMPLES: Final = 24


@dataclass(frozen=True, slots=True)
class Outlook:
    """For one candidate play: the chance it takes the trick, the mean bonus when it does,
    and (whole-round rollouts only, else None) the mean points of the round."""

    chance: float
    bonus: float
    points: float | None


def look_ahead(
    view: SeatView, know: Knowledge, candidates: Sequence[Play], rng: random.Random
) -> list[Outlook]:
    """An :class:`Outlook` per candidate play of the seat whose turn it is.

    When the budget allows ``ROLLOUT_SAMPLES`` deals of the whole rest of the round for
    every candidate, it plays the round out (``points`` set); else only the trick.
    """
    so_far = [p.play for p in view.trick]
    position = len(so_far)
    seat = view.seat
    bid = view.bid
    assert bid is not None
    holders = list(know.holding)
    remaining = sum(know.holding.values()) + len(view.hand)
    trick_only = len(view.order) - position
    whole = remaining * len(candidates)
    samples = PLAY_BUDGET // max(1, whole)
    rollouts = samples >= ROLLOUT_SAMPLES and len(view.hand) > 1
    if not rollouts:
        samples = PLAY_BUDGET // max(1, trick_only * len(candidates))
    samples = max(MIN_SAMPLES, min(MAX_SAMPLES, samples))
    table = Table(view.humans, view.ghost, view.opener)
    targets = {s: (view.bids[s] or 0) for s in range(view.humans)}
    base_won = {s: view.won[s] for s in range(view.humans)}
    base_won[GHOST] = view.ghost_won
    my_bonus = sum(t.bonus for t in view.tricks if t.winner == seat)
    followers = view.order[position + 1 :]
    leader = view.order[0]
    wins = [0] * len(candidates)
    bonus = [0] * len(candidates)
    points = [0.0] * len(candidates)
    pool = list(know.unseen)
    for _ in range(samples):
        hands = deal_unseen(pool, holders, know, rng)
        for i, play in enumerate(candidates):
            trick = [*so_far, play]
            if rollouts:
                copies = {h: list(cards) for h, cards in hands.items()}
                copies[seat] = [c for c in view.hand if c is not play.card]
                won = dict(base_won)
                got: dict[int, int] = {}
                playout(table, copies, targets, won, got, leader, trick)
                points[i] += score_round(
                    bid, won[seat], view.cards_dealt, my_bonus + got.get(seat, 0)
                ).total
                continue
            for f in followers:
                if f == GHOST:
                    trick.append(ghost_play(hands[f]))  # shuffled: its unseen top card
                else:
                    trick.append(quick_play(hands[f], trick, targets[f] > base_won[f]))
            result = resolve_trick(trick)
            if result.winner == position:
                wins[i] += 1
                bonus[i] += result.bonus
    return [
        Outlook(w / samples, b / w if w else 0.0, p / samples if rollouts else None)
        for w, b, p in zip(wins, bonus, points, strict=True)
    ]


def rollout_bid(view: SeatView, know: Knowledge, estimate: int, rng: random.Random) -> int:
    """STRONG's bid: the bids next to ``estimate`` (the counted one), each played out from
    the first trick on the same deals, the one with the best mean points (R9) kept.

    The others' bids are still secret (R4): each is taken as what its dealt hand rates
    by the table NORMAL uses.
    """
    n = view.cards_dealt
    low, high = max(0, estimate - BID_SPREAD), min(n, estimate + BID_SPREAD)
    choices = list(range(low, high + 1))
    if BID_ZERO and low > 0:
        choices.insert(0, 0)  # a hand that looks strong may still be safest at 0 (R9)
    seat = view.seat
    holders = list(know.holding)
    per_sample = len(choices) * n * view.players
    samples = max(MIN_SAMPLES, min(MAX_SAMPLES, BID_BUDGET // per_sample))
    table = Table(view.humans, view.ghost, view.opener)
    players = view.players
    points = [0.0] * len(choices)
    pool = list(know.unseen)
    for _ in range(samples):
        hands = deal_unseen(pool, holders, know, rng)
        targets = {
            h: round(sum(static_chance(c, players) for c in hands[h]))
            for h in holders
            if h != GHOST
        }
        for i, bid in enumerate(choices):
            targets[seat] = bid
            copies = {h: list(cards) for h, cards in hands.items()}
            copies[seat] = list(view.hand)
            won = dict.fromkeys([*holders, seat], 0)
            got: dict[int, int] = {}
            playout(table, copies, targets, won, got, view.opener, [])
            points[i] += score_round(bid, won[seat], n, got.get(seat, 0)).total
    # on a tie the first, the lowest: easier to keep by throwing cards away
    return choices[max(range(len(choices)), key=lambda i: (points[i], -i))]
