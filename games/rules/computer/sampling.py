"""STRONG's look at the trick in progress: deal the unseen cards to the players still to
play, many times over, let each play as its need suggests, and count how often each of our
candidate cards ends up taking the trick, and with what bonus.

The hands dealt respect what the table has shown (who lacks which suit, how many cards each
holds); the plays are a crude model of a player: one who still needs tricks plays its
strongest card, one who does not plays its weakest, the ghost its top card (R8). Every trick
is decided by the engine's ``resolve_trick``, every card chosen among ``legal_cards``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Final

from ..cards import ESC, KRA, MER, NUM, PIR, SKG, TIG, TIG_AS_ESCAPE, TIG_AS_PIRATE, WHA, Card, Play
from ..deal import GHOST, ghost_play
from ..tricks import lead_suit, legal_cards, resolve_trick
from .knowledge import Knowledge
from .playset import play_of
from .view import SeatView

__all__ = ["trick_chances"]

# About how many simulated plays of the others one decision may cost (~5 us each): keeps
# a decision well under 50 ms on one core, whatever the table size.
_PLAY_BUDGET: Final = 3000
_MIN_SAMPLES: Final = 12
_MAX_SAMPLES: Final = 160


def _power(c: Card, lead: str | None, skull_king_out: bool) -> float:
    """A rough order of strength of ``c`` in a trick led in ``lead``: what the model
    player picks its strongest or weakest card by (R6)."""
    role = c.role
    if role == NUM:
        if c.suit == "B":
            return 40.0 + c.rank0
        if c.suit == lead:
            return 20.0 + c.rank0
        return c.rank0 / 100.0
    if role == SKG:
        return 100.0
    if role in (PIR, TIG):
        return 90.0
    if role == MER:
        return 110.0 if skull_king_out else 80.0  # R6.1: the Mermaid takes the Skull King
    if role == ESC:
        return -1.0
    if role == KRA:
        return -0.5
    assert role == WHA
    return -0.2


def _model_play(hand: list[Card], trick: list[Play], wants: bool) -> Play:
    legal = legal_cards(hand, trick)
    lead = lead_suit(trick)
    skull_king_out = any(p.role == SKG for p in trick)
    best: Card | None = None
    best_power = 0.0
    for c in hand:  # hand order: deterministic
        if c not in legal:
            continue
        power = _power(c, lead, skull_king_out)
        if best is None or (power > best_power if wants else power < best_power):
            best, best_power = c, power
    assert best is not None
    if best.role == TIG:
        return TIG_AS_PIRATE if wants else TIG_AS_ESCAPE
    return play_of(best)


def _deal(pool: Sequence[Card], followers: Sequence[int], know: Knowledge) -> dict[int, list[Card]]:
    """The shuffled ``pool`` dealt to ``followers``: as many cards as each holds, none of a
    suit it has shown it lacks (if the pool allows)."""
    hands: dict[int, list[Card]] = {f: [] for f in followers}
    wanted = {f: know.holding[f] for f in followers}
    spare: list[Card] = []
    for c in pool:
        for f in followers:
            if len(hands[f]) < wanted[f] and not (c.suit and c.suit in know.voids.get(f, ())):
                hands[f].append(c)
                break
        else:
            spare.append(c)
        if all(len(hands[f]) == wanted[f] for f in followers):
            return hands
    for f in followers:  # the voids could not all be kept: fill up anyway
        while len(hands[f]) < wanted[f] and spare:
            hands[f].append(spare.pop())
    return hands


def trick_chances(
    view: SeatView, know: Knowledge, candidates: Sequence[Play], rng: random.Random
) -> list[tuple[float, float]]:
    """For each candidate play: (chance it takes the trick, mean R9 bonus when it does)."""
    so_far = [p.play for p in view.trick]
    position = len(so_far)
    followers = view.order[position + 1 :]
    if not followers:  # last to play: nothing left to chance
        out = []
        for play in candidates:
            result = resolve_trick([*so_far, play])
            win = result.winner == position
            out.append((1.0 if win else 0.0, float(result.bonus) if win else 0.0))
        return out
    wants = {f: (know.needs.get(f) or 0) > 0 for f in followers}
    samples = max(
        _MIN_SAMPLES, min(_MAX_SAMPLES, _PLAY_BUDGET // (len(candidates) * len(followers)))
    )
    pool = list(know.unseen)
    wins = [0] * len(candidates)
    bonus = [0] * len(candidates)
    for _ in range(samples):
        rng.shuffle(pool)
        hands = _deal(pool, followers, know)
        for i, play in enumerate(candidates):
            trick = [*so_far, play]
            for f in followers:
                hand = hands[f]
                if not hand:
                    continue  # cannot happen with a consistent view; be safe
                if f == GHOST:
                    trick.append(ghost_play(hand))  # shuffled: its unseen top card
                else:
                    trick.append(_model_play(hand, trick, wants[f]))
            result = resolve_trick(trick)
            if result.winner == position:
                wins[i] += 1
                bonus[i] += result.bonus
    return [(w / samples, b / w if w else 0.0) for w, b in zip(wins, bonus, strict=True)]
