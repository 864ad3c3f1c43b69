"""STRONG's look ahead: play the rest of the round out, many times over, on hands dealt at
random from the unseen cards, and see what a bid or a card brings.

Each rollout is a whole round's remainder on the engine: ``play_order`` says who plays,
``legal_cards`` what they may, ``resolve_trick`` who takes the trick and its bonus. The
players in it follow one quick rule (:func:`quick_play`): one who still wants tricks takes
this one as cheaply as it can, one who does not plays the highest card that still loses;
the ghost plays its top card (R8).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Final

from ..cards import ESC, KRA, MER, NUM, PIR, SKG, TIG, TIG_AS_ESCAPE, TIG_AS_PIRATE, WHA, Card, Play
from ..deal import GHOST, ghost_play
from ..order import play_order
from ..tricks import legal_cards, resolve_trick
from .knowledge import Knowledge
from .playset import play_of

__all__ = ["Reading", "Table", "deal_unseen", "playout", "quick_play", "read_trick"]

_NOBODY: Final = float("inf")  # a trick the Kraken destroys: nobody can take it (R7)


def power(role: int, c: Card, lead: str | None, skull_king_out: bool) -> float:
    """A rough order of how strongly a card of effective ``role`` (the Tigress's choice
    made, or TIG: as a pirate if it comes to that) takes a trick led in ``lead`` (R6).
    Without a creature in the trick, the highest power is the winner R6 names: the quick
    rule compares cards by it. Creatures and escapes rank below every number."""
    if role == NUM:
        if c.suit == "B":
            return 40.0 + c.rank0
        if c.suit == lead:
            return 20.0 + c.rank0
        return c.rank0 / 100.0  # off the lead suit: never takes it (R6.6)
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
    return -0.2  # the White Whale


class Reading:
    """What the quick rule reads off a trick in progress: its lead suit (R5), whether the
    Skull King is in it, and the power of the card taking it so far (``NOBODY`` when a
    creature is in it and the engine says nobody takes it)."""

    __slots__ = ("creature", "decided", "lead", "skull_king_out", "top")

    def __init__(self) -> None:
        self.lead: str | None = None
        self.decided = False
        self.skull_king_out = False
        self.creature = False
        self.top = -2.0

    def add(self, play: Play, trick: list[Play]) -> None:
        """``play`` has just been appended to ``trick``."""
        role = play.role
        if not self.decided and role != ESC:
            self.decided = True
            self.lead = play.card.suit  # a special card first: no lead suit (R5)
        if role == SKG:
            self.skull_king_out = True
        elif role in (KRA, WHA):
            self.creature = True
        if self.creature:
            # R7 is the engine's: who takes the trick now, if anyone
            result = resolve_trick(trick)
            if result.winner is None:
                self.top = _NOBODY
            else:
                won = trick[result.winner]
                self.top = power(won.role, won.card, self.lead, self.skull_king_out)
        elif role == SKG:
            # the Mermaids on the table now outrank it (R6.1): read them again
            self.top = max(power(p.role, p.card, self.lead, True) for p in trick)
        else:
            p = power(role, play.card, self.lead, self.skull_king_out)
            if p > self.top:
                self.top = p


def read_trick(trick: list[Play]) -> Reading:
    reading = Reading()
    for i in range(len(trick)):
        reading.add(trick[i], trick[: i + 1])
    return reading


def _play(c: Card, wants: bool) -> Play:
    if c.role == TIG:
        return TIG_AS_PIRATE if wants else TIG_AS_ESCAPE
    return play_of(c)


def quick_play(
    hand: Sequence[Card], trick: list[Play], wants: bool, reading: Reading | None = None
) -> Play:
    """The quick rule's play from ``hand`` on ``trick`` (R5: among the legal cards):
    ``reading`` is ``read_trick(trick)``, passed when the caller keeps it up to date."""
    if not trick:  # leading: the strongest card to take it, the weakest to lose it
        best = None
        best_power = 0.0
        for c in hand:
            p = power(c.role, c, c.suit, False)
            if best is None or (p > best_power if wants else p < best_power):
                best, best_power = c, p
        assert best is not None
        return _play(best, wants)
    legal = legal_cards(hand, trick)
    if reading is None:
        reading = read_trick(trick)
    lead = reading.lead
    skull_king_out = reading.skull_king_out
    top = reading.top
    # one pass: the cheapest card that takes the trick, the dearest one that does not,
    # and the weakest and strongest of all
    cheapest = dearest = weakest = strongest = None
    cheap_p = dear_p = weak_p = strong_p = 0.0
    for c in hand:
        if c not in legal:
            continue
        role = c.role
        p = power(role, c, lead, skull_king_out or role == SKG)
        if p > top:
            if cheapest is None or p < cheap_p:
                cheapest, cheap_p = c, p
        elif dearest is None or p > dear_p:
            dearest, dear_p = c, p
        if weakest is None or p < weak_p:
            weakest, weak_p = c, p
        if strongest is None or p > strong_p:
            strongest, strong_p = c, p
    if wants:
        choice = cheapest if cheapest is not None else weakest
    else:
        choice = dearest if dearest is not None else strongest
    assert choice is not None
    return _play(choice, wants)


class Table:
    """The fixed facts of a round that rollouts need: who plays in which order."""

    __slots__ = ("ghost", "humans", "opener", "orders")

    def __init__(self, humans: int, ghost: bool, opener: int) -> None:
        self.humans = humans
        self.ghost = ghost
        self.opener = opener
        leaders = list(range(humans)) + ([GHOST] if ghost else [])
        self.orders = {lead: play_order(lead, humans, ghost, opener) for lead in leaders}


def deal_unseen(
    pool: list[Card], holders: Sequence[int], know: Knowledge, rng: random.Random
) -> dict[int, list[Card]]:
    """Deal each of ``holders`` as many of ``pool``'s cards, at random, as it holds, none
    of a suit it has shown it lacks when the pool allows (R5). ``pool`` is reordered."""
    hands: dict[int, list[Card]] = {h: [] for h in holders}
    wanted = {h: know.holding[h] for h in holders}
    voids = know.voids
    spare: list[Card] = []
    left = sum(wanted.values())
    size = len(pool)
    randrange = rng.randrange
    i = 0
    while left and i < size:
        # a Fisher-Yates shuffle stopped as soon as the hands are full: pool[i] is the
        # next card drawn at random from those not drawn yet
        j = randrange(i, size)
        c = pool[j]
        pool[j] = pool[i]
        pool[i] = c
        i += 1
        for h in holders:
            if len(hands[h]) < wanted[h] and not (c.suit and c.suit in voids.get(h, ())):
                hands[h].append(c)
                left -= 1
                break
        else:
            spare.append(c)
    for h in holders:  # the voids could not all be kept: fill up anyway
        while len(hands[h]) < wanted[h] and spare:
            hands[h].append(spare.pop())
    return hands


def playout(
    table: Table,
    hands: Mapping[int, list[Card]],
    targets: Mapping[int, int],
    won: dict[int, int],
    bonus: dict[int, int],
    leader: int,
    trick: list[Play],
) -> None:
    """Play the round out from ``trick`` (in progress, led by ``leader``) with the quick
    rule, adding to ``won`` and ``bonus``; ``hands`` are used up. The ghost wants nothing
    and plays its top card (R8)."""
    reading = read_trick(trick)
    while True:
        order = table.orders[leader]
        for seat in order[len(trick) :]:
            hand = hands[seat]
            if not hand:
                return  # the round is over
            if seat == GHOST:
                play = ghost_play(hand)
            else:
                play = quick_play(hand, trick, won[seat] < targets[seat], reading)
            hand.remove(play.card)
            trick.append(play)
            reading.add(play, trick)
        result = resolve_trick(trick)
        if result.winner is not None:
            who = order[result.winner]
            won[who] = won.get(who, 0) + 1
            bonus[who] = bonus.get(who, 0) + result.bonus
        leader = order[result.next_leader]
        trick = []
        reading = Reading()
