"""R5: which card a computer player plays, and as what (the Tigress).

NORMAL weighs each play the rules allow by its chance of taking this trick and the
chances of the cards left in hand for the tricks after it: together they give odds for
the round's trick count, and the play worth most R9 points on average wins (``_best``).
NORMAL rates cards from a fixed table and looks only at the cards already on the table.

STRONG counts the cards seen and deals the unseen ones to the others, with what they still
need (:mod:`.sampling`): where it can afford to, it plays the whole rest of the round out
for each play and takes the best mean points, bonuses included (R9), so that a Kraken or a
White Whale, or a Mermaid on a Skull King, is chosen when it pays; early in a long round
it plays only the trick out, and weighs that as NORMAL does, with counted chances for the
cards left.
"""

from __future__ import annotations

import random

from ..cards import TIG, TIG_AS_ESCAPE, TIG_AS_PIRATE, Card, Play, card
from ..tricks import resolve_trick
from .knowledge import read
from .levels import Level
from .odds import points_table, trick_count_odds
from .playset import distinct_plays, play_of, plays_of
from .sampling import look_ahead
from .strength import counted_chance, static_chance
from .view import SeatView

__all__ = ["decide_card"]

# The Tigress played as a pirate is rated as one (R1).
_PIRATE_CARD = card("PIR1")


def decide_card(view: SeatView, level: Level, rng: random.Random) -> Play:
    """The play of the seat in ``view``, one of ``view.legal`` (the Tigress with its choice),
    deterministic for ``rng``'s state."""
    if not view.legal:
        raise ValueError("it is not this seat's turn to play")
    if level is Level.EASY:
        c = rng.choice(view.legal)
        if c.role == TIG:
            return TIG_AS_PIRATE if rng.random() < 0.5 else TIG_AS_ESCAPE
        return play_of(c)
    candidates = plays_of(view.legal)
    if len(candidates) == 1:
        return candidates[0]
    players = view.players
    if level is Level.NORMAL:
        now = [(_normal_chance(view, play, players), 0.0) for play in candidates]
        later = {c: static_chance(c, players) for c in view.hand}
        bonus_so_far = 0
    else:
        know = read(view)
        table = {p.play.card for p in view.trick}
        candidates = distinct_plays(candidates, table.union(know.unseen))
        if len(candidates) == 1:
            return candidates[0]
        outlooks = look_ahead(view, know, candidates, rng)
        if outlooks[0].points is not None:
            # the whole rest of the round was played out: take the best mean points
            return max(
                zip(candidates, outlooks, strict=True), key=lambda pair: pair[1].points or 0.0
            )[0]
        now = [(o.chance, o.bonus) for o in outlooks]
        others = len(know.holding)
        per_hand = know.in_play / others if others else 0.0
        later = {c: counted_chance(c, know.unseen, others, per_hand) for c in view.hand}
        bonus_so_far = sum(t.bonus for t in view.tricks if t.winner == view.seat)
    return _best(view, candidates, now, later, bonus_so_far)


def _normal_chance(view: SeatView, play: Play, players: int) -> float:
    """NORMAL: does ``play`` take the trick as it stands, and how likely is it to hold
    against the players still to play, by the fixed table."""
    so_far = [p.play for p in view.trick]
    position = len(so_far)
    result = resolve_trick([*so_far, play])
    if result.winner != position:
        return 0.0
    followers = len(view.order) - position - 1
    if not followers:
        return 1.0
    c = play.card
    base = static_chance(c, 4) if c.role != TIG else static_chance(_PIRATE_CARD, 4)
    return float(base ** (followers / 3))


def _best(
    view: SeatView,
    candidates: list[Play],
    now: list[tuple[float, float]],
    later: dict[Card, float],
    bonus_so_far: int,
) -> Play:
    """The candidate worth most R9 points on average, from ``now`` (per candidate: its
    chance of taking this trick, the bonus the trick brings when it does) and ``later``
    (each card's chance of taking a trick afterwards), as independent chances."""
    bid = view.bid
    assert bid is not None  # bids are all in before the first card (R4)
    won = view.won[view.seat]
    points = points_table(bid, view.cards_dealt)
    need = bid - won
    best = candidates[0]
    best_value = float("-inf")
    for play, (chance, trick_bonus) in zip(candidates, now, strict=True):
        rest = trick_count_odds(later[c] for c in view.hand if c is not play.card)
        # tricks taken from here: this one with ``chance``, then ``rest``'s count
        value = 0.0
        for k, o in enumerate(rest):
            value += o * ((1.0 - chance) * points[won + k] + chance * points[won + k + 1])
        if bid:
            # R9: bonuses count only when the bid is made exactly
            exact_without = rest[need] if 0 <= need < len(rest) else 0.0
            exact_with = rest[need - 1] if 0 <= need - 1 < len(rest) else 0.0
            value += bonus_so_far * ((1.0 - chance) * exact_without + chance * exact_with)
            value += chance * trick_bonus * exact_with
        if value > best_value + 1e-9:
            best, best_value = play, value
    return best
