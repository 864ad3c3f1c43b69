"""What one seat sees of the game, and nothing more: the only input of the decisions.

A computer player must not know more than a person in its seat would (R4: the other bids
stay secret until every player has bid; nobody sees another hand, nor the ghost's pile,
R8). :func:`seat_view` is the one place that cuts the engine's full state down to that, so
the decision code (``bidding``, ``playing``) cannot cheat even by mistake.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..cards import DECK, Card
from ..deal import GHOST
from .table import RoundState, SeenPlay, SeenTrick

__all__ = ["SeatView", "seat_view"]


@dataclass(frozen=True, slots=True)
class SeatView:
    """One seat's view of the round in progress.

    Table: ``seat`` (this seat's index), ``humans`` (the seat count), ``ghost`` (whether the
    ghost plays, R8), ``deck`` (the cards in the game: R1's 72 with Kraken and White Whale,
    and no loot cards, R11), ``round_number``, ``cards_dealt`` (R2), ``dealer``, ``opener``
    (R3), ``totals`` (every seat's running total before this round).

    Round: ``hand`` (this seat's unplayed cards, deal order), ``bids`` (by seat: all of
    them once everyone has bid, before that only this seat's own, the others None, R4),
    ``has_bid`` (who has bid, which R4 lets everyone see), ``tricks`` (the finished tricks:
    their cards, in order, and who won them), ``won`` (tricks won so far per seat),
    ``ghost_won``.

    Trick in progress: ``leader`` and ``order`` (who plays, in order, with ``GHOST`` for the
    ghost; None and () while bidding), ``trick`` (the cards played so far, with who played
    them), ``legal`` (the cards this seat may play when it is its turn, by the engine's
    ``legal_cards``, in hand order; () when it is not its turn).
    """

    seat: int
    humans: int
    ghost: bool
    deck: tuple[Card, ...]
    round_number: int
    cards_dealt: int
    dealer: int
    opener: int
    totals: tuple[int, ...]
    hand: tuple[Card, ...]
    bids: tuple[int | None, ...]
    has_bid: tuple[bool, ...]
    tricks: tuple[SeenTrick, ...]
    won: tuple[int, ...]
    ghost_won: int
    leader: int | None
    order: tuple[int, ...]
    trick: tuple[SeenPlay, ...]
    legal: tuple[Card, ...]

    @property
    def bid(self) -> int | None:
        """This seat's own bid (None before it has bid)."""
        return self.bids[self.seat]

    @property
    def bidding(self) -> bool:
        """True while this seat still has to bid."""
        return not self.has_bid[self.seat]

    @property
    def to_play(self) -> bool:
        """True when it is this seat's turn to play a card."""
        return bool(self.legal)

    @property
    def players(self) -> int:
        """Hands at the table: the humans, and the ghost's (R8)."""
        return self.humans + self.ghost


def seat_view(state: RoundState, seat: int) -> SeatView:
    """What ``seat`` sees of ``state``: its own hand, the public table, and the other bids
    only once every player has bid (R4)."""
    if not 0 <= seat < state.humans:
        raise ValueError(f"seat must be 0..{state.humans - 1}, got {seat!r}")
    revealed = state.all_bids_in
    bids = tuple(state.bids.get(s) if revealed or s == seat else None for s in range(state.humans))
    playing = revealed and not state.finished
    hand = tuple(state.hands[seat])
    legal = state.legal(seat)
    return SeatView(
        seat=seat,
        humans=state.humans,
        ghost=state.ghost,
        deck=DECK,
        round_number=state.round_number,
        cards_dealt=state.cards_dealt,
        dealer=state.dealer,
        opener=state.opener,
        totals=tuple(state.totals),
        hand=hand,
        bids=bids,
        has_bid=tuple(s in state.bids for s in range(state.humans)),
        tricks=tuple(state.tricks),
        won=tuple(state.won()),
        ghost_won=sum(t.winner == GHOST for t in state.tricks),
        leader=state.leader if playing else None,
        order=state.order if playing else (),
        trick=tuple(state.trick),
        # hand order, not the set's: a set of cards iterates in an order that changes
        # from one process to the next (cards hash by identity), and decisions must not
        # depend on it
        legal=tuple(c for c in hand if c in legal),
    )
