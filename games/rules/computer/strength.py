"""How likely a card is to take a trick some time this round.

Two estimates, for two levels:

- :func:`static_chance` (NORMAL) knows only the card and how many play: a fixed table,
  thinned out for more players, the way a casual player rates a hand.
- :func:`counted_chance` (STRONG) counts: of the cards not seen yet, which would beat this
  one (R6, R7), and how many of them are really in the other hands now. A Pirate is worth
  more once the Skull King has gone, a green 12 once the 13 and 14 have.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from ..cards import ESC, KRA, MER, NUM, PIR, SKG, TIG, WHA, Card

__all__ = ["counted_chance", "static_chance"]

# NORMAL's table: the chance of taking a trick against three others. Black is the trump
# suit (R6.5); a colour only wins when it is the lead suit (R6.6), hence the lower values.
_SPECIAL_CHANCE: Final = {SKG: 0.9, PIR: 0.8, TIG: 0.8, MER: 0.6, ESC: 0.0, KRA: 0.0, WHA: 0.1}
_BLACK_CHANCE: Final = {14: 0.8, 13: 0.65, 12: 0.5, 11: 0.4, 10: 0.3, 9: 0.22, 8: 0.16}
_COLOUR_CHANCE: Final = {14: 0.45, 13: 0.3, 12: 0.2, 11: 0.12, 10: 0.08, 9: 0.05}


def static_chance(c: Card, players: int) -> float:
    """NORMAL's rating of ``c`` at a table of ``players`` hands (the ghost's included)."""
    if c.role == NUM:
        table = _BLACK_CHANCE if c.suit == "B" else _COLOUR_CHANCE
        base = table.get(c.rank0, 0.1 if c.suit == "B" else 0.02)
    else:
        base = _SPECIAL_CHANCE[c.role]
    # each opponent is one more chance to be beaten: against three the table's value
    return float(base ** ((players - 1) / 3))


# STRONG's weights: how surely a card in another hand takes the trick from ``c`` when both
# are played together. Another Pirate or Mermaid wins only if played first (R6.3, R6.4).
_SAME_KIND: Final = 0.5
# A colour card only wins when its suit is led: the player has to lead it, or have the
# suit led to it. Set by judgement, not tuned.
_COLOUR_LEAD: Final = 0.85
# How much more often than at random an opponent's card beats ours per card it holds
# beyond the first (it chooses); and the least chance that a hand lacks a colour. Set by
# judgement: Strong's bid and play lean on the rollouts more than on these.
_CHOOSING: Final = 0.08
_VOID_FLOOR: Final = 0.35


def _beaters(c: Card, unseen: Sequence[Card], void: float) -> float:
    """How many of ``unseen`` would take a trick from ``c`` (weighted, see above)."""
    role = c.role
    total = 0.0
    for o in unseen:
        r = o.role
        if r in (KRA, WHA):
            total += 1.0  # destroyed, or numbers win: not ours either way (R7)
        elif role == SKG:
            total += r == MER  # R6.1
        elif role in (PIR, TIG):
            if r == SKG:
                total += 1.0
            elif r in (PIR, TIG):
                total += _SAME_KIND
        elif role == MER:
            if r in (PIR, TIG):
                total += 1.0
            elif r == MER:
                total += _SAME_KIND
        elif role == NUM:
            if r == NUM:
                if o.suit == c.suit:
                    total += o.rank0 > c.rank0
                elif o.suit == "B":
                    total += void  # only from a hand without the led colour (R5)
            elif r != ESC:
                total += 1.0  # any character beats a number (R6)
    return total


def counted_chance(c: Card, unseen: Sequence[Card], opponents: int, per_hand: float) -> float:
    """STRONG's chance that ``c`` takes a trick, given the ``unseen`` cards, against
    ``opponents`` other hands (the ghost's included) of about ``per_hand`` cards each.

    In the trick where ``c`` is played each opponent adds one card, which beats ``c`` about
    as often as the unseen cards do; a little more often the more cards it holds, since a
    player who wants the trick picks the card that takes it.
    """
    role = c.role
    if role in (ESC, KRA, WHA):
        return 0.0  # they never take a trick themselves (R6.7 aside, R7)
    if not unseen or not opponents:
        return 1.0  # nothing left that could beat it
    # the chance that a hand lacks a given colour, so that it may trump with black (R5)
    void = max(_VOID_FLOOR, (1.0 - 13.0 / 71.0) ** per_hand)
    choice = 1.0 + _CHOOSING * max(0.0, per_hand - 1.0)
    beaten = min(0.95, choice * _beaters(c, unseen, void) / len(unseen))
    chance = (1.0 - beaten) ** opponents
    if role == NUM and c.suit != "B":
        chance *= _COLOUR_LEAD
    return float(chance)
