"""What a seat can work out from its view: the cards not seen yet, how many each player
still holds, which suits a player has shown they lack, and what the others still need.

Everything here is read off a :class:`SeatView`, so it is what an attentive person in the
seat could know, nothing more.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..cards import NUM, Card, Play
from ..deal import GHOST
from ..tricks import lead_suit
from .view import SeatView

__all__ = ["Knowledge", "read"]


@dataclass(frozen=True, slots=True)
class Knowledge:
    """``unseen``: the deck's cards neither in this hand nor played this round, in deck
    order (other hands, the ghost's pile and the undealt rest hold them); ``holding``: how
    many cards each player (seat, or ``GHOST``) still holds; ``voids``: the suits each
    player has shown not to hold (R5: a numbered card off the lead suit is played only
    without that suit); ``needs``: the tricks each seat still needs for its bid (None while
    bids are secret), the ghost never needs any.
    """

    unseen: tuple[Card, ...]
    holding: dict[int, int]
    voids: dict[int, frozenset[str]]
    needs: dict[int, int | None]

    @property
    def in_play(self) -> int:
        """Unseen cards that are in someone's hand (the rest were never dealt)."""
        return sum(self.holding.values())


def read(view: SeatView) -> Knowledge:
    seen: set[Card] = set(view.hand)
    played: dict[int, int] = {}
    voids: dict[int, set[str]] = {}
    tricks = [t.plays for t in view.tricks]
    tricks.append(view.trick)
    for plays in tricks:
        so_far: list[Play] = []
        for p in plays:
            seen.add(p.play.card)
            played[p.seat] = played.get(p.seat, 0) + 1
            suit = lead_suit(so_far)
            c = p.play.card
            # the ghost need not follow (R8), so its plays prove nothing
            if p.seat != GHOST and suit is not None and c.role == NUM and c.suit != suit:
                voids.setdefault(p.seat, set()).add(suit)
            so_far.append(p.play)
    others = [s for s in range(view.humans) if s != view.seat]
    if view.ghost:
        others.append(GHOST)
    holding = {s: view.cards_dealt - played.get(s, 0) for s in others}
    needs: dict[int, int | None] = {}
    for s in others:
        bid = view.bids[s] if s != GHOST else None
        needs[s] = None if bid is None else bid - view.won[s]
    if view.ghost:
        needs[GHOST] = 0
    return Knowledge(
        unseen=tuple(c for c in view.deck if c not in seen),
        holding=holding,
        voids={s: frozenset(v) for s, v in voids.items()},
        needs=needs,
    )
