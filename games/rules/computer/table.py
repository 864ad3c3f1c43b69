"""One round as the engine holds it, hidden cards included, and its moves.

The engine (``games.rules``) is a set of functions over cards and plays, with no object for
"the game so far". The computer players need one to build what a seat sees
(:func:`games.rules.computer.view.seat_view`), and the self-play games (tests, benchmark)
need one to run: this is that object, and every move goes through the engine's own
functions (``deal``, ``dealer_and_opener``, ``play_order``, ``legal_cards``,
``resolve_trick``, ``ghost_play``, ``score_round``), so no rule is restated here.

A caller that keeps the game elsewhere (the Django side's ``games.state.GameState``) builds a
``RoundState`` from it with the constructor: seats are engine indexes (0..humans-1, the
ghost is ``GHOST``), hands are the unplayed cards in deal order.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..cards import Card, Play
from ..deal import GHOST, cards_per_round, deal, ghost_play
from ..order import dealer_and_opener, play_order
from ..scoring import RoundScore, score_round, valid_bids
from ..tricks import legal_cards, resolve_trick

__all__ = ["RoundState", "SeenPlay", "SeenTrick"]


@dataclass(frozen=True, slots=True)
class SeenPlay:
    """A card on the table and who played it (a seat, or ``GHOST``)."""

    seat: int
    play: Play


@dataclass(frozen=True, slots=True)
class SeenTrick:
    """A finished trick as everyone at the table saw it (R6, R7).

    ``winner`` is a seat (``GHOST`` for the ghost) or None when the trick was destroyed;
    ``bonus`` is the R9 bonus it carries for its winner.
    """

    leader: int
    plays: tuple[SeenPlay, ...]
    winner: int | None
    next_leader: int
    bonus: int
    destroyed_by: str | None


@dataclass
class RoundState:
    """Everything about the round in progress, as the engine holds it (not what a seat sees).

    ``hands``: each human seat's unplayed cards in deal order; ``ghost_pile``: the ghost's
    (R8); ``bids``: the bids made so far by seat (secret until all are in, R4); ``tricks``:
    the finished tricks; ``trick``: the plays of the trick in progress, led by ``leader``;
    ``totals``: each seat's running total before this round.
    """

    humans: int
    ghost: bool
    round_number: int
    cards_dealt: int
    dealer: int
    opener: int
    hands: list[list[Card]]
    ghost_pile: list[Card] = field(default_factory=list)
    bids: dict[int, int] = field(default_factory=dict)
    tricks: list[SeenTrick] = field(default_factory=list)
    leader: int = 0
    trick: list[SeenPlay] = field(default_factory=list)
    totals: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if not self.totals:
            self.totals = (0,) * self.humans
        if not self.trick and not self.tricks:
            self.leader = self.opener  # R3: the player after the dealer opens

    @classmethod
    def dealt(
        cls, seed: int, round_number: int, humans: int, ghost: bool, totals: tuple[int, ...] = ()
    ) -> RoundState:
        """Round ``round_number`` freshly dealt from ``seed`` by the engine (R2, R3, R8)."""
        cards = deal(seed, round_number, humans, ghost)
        dealer, opener = dealer_and_opener(round_number, humans)
        return cls(
            humans=humans,
            ghost=ghost,
            round_number=round_number,
            cards_dealt=cards_per_round(round_number, humans),
            dealer=dealer,
            opener=opener,
            hands=[list(hand) for hand in cards.hands],
            ghost_pile=list(cards.ghost_hand),
            totals=totals,
        )

    # -- bidding (R4) -----------------------------------------------------------------
    @property
    def all_bids_in(self) -> bool:
        return len(self.bids) == self.humans

    def bid(self, seat: int, value: int) -> None:
        if self.all_bids_in or seat in self.bids:
            raise ValueError(f"seat {seat} cannot bid now (R4: a bid is final)")
        if value not in valid_bids(self.cards_dealt):
            raise ValueError(f"R4: bid {value!r} is not 0..{self.cards_dealt}")
        self.bids[seat] = value

    # -- playing (R5-R8) --------------------------------------------------------------
    @property
    def order(self) -> tuple[int, ...]:
        """Who plays the trick in progress, in order (R5, R8)."""
        return play_order(self.leader, self.humans, self.ghost, self.opener)

    @property
    def finished(self) -> bool:
        return len(self.tricks) == self.cards_dealt

    def to_play(self) -> int | None:
        """The seat (or ``GHOST``) whose turn it is; None while bidding or once finished."""
        if not self.all_bids_in or self.finished:
            return None
        return self.order[len(self.trick)]

    def legal(self, seat: int) -> set[Card]:
        """R5: what ``seat`` may play now (empty when it is not its turn)."""
        if self.to_play() != seat:
            return set()
        return legal_cards(self.hands[seat], [p.play for p in self.trick])

    def play(self, seat: int, play: Play) -> SeenTrick | None:
        """``seat`` plays ``play``; the trick it finishes, if it does."""
        if seat == GHOST:
            raise ValueError("the ghost plays by play_ghost (R8)")
        if play.card not in self.legal(seat):
            raise ValueError(f"R5: seat {seat} cannot play {play} now")
        self.hands[seat].remove(play.card)
        return self._add(seat, play)

    def play_ghost(self) -> SeenTrick | None:
        """R8: the ghost plays the top card of its pile."""
        if self.to_play() != GHOST:
            raise ValueError("it is not the ghost's turn")
        play = ghost_play(self.ghost_pile)
        del self.ghost_pile[0]
        return self._add(GHOST, play)

    def _add(self, seat: int, play: Play) -> SeenTrick | None:
        self.trick.append(SeenPlay(seat, play))
        order = self.order
        if len(self.trick) < len(order):
            return None
        result = resolve_trick([p.play for p in self.trick])
        done = SeenTrick(
            leader=self.leader,
            plays=tuple(self.trick),
            winner=None if result.winner is None else order[result.winner],
            next_leader=order[result.next_leader],
            bonus=result.bonus,
            destroyed_by=result.destroyed_by,
        )
        self.tricks.append(done)
        self.trick = []
        self.leader = done.next_leader
        return done

    # -- scoring (R9) -----------------------------------------------------------------
    def won(self) -> list[int]:
        """Tricks won so far per human seat (destroyed and the ghost's count for nobody)."""
        won = [0] * self.humans
        for t in self.tricks:
            if t.winner is not None and t.winner != GHOST:
                won[t.winner] += 1
        return won

    def scores(self) -> tuple[RoundScore, ...]:
        """R9, once the round is finished."""
        if not self.finished:
            raise ValueError("the round is not finished")
        won = self.won()
        bonus = [0] * self.humans
        for t in self.tricks:
            if t.winner is not None and t.winner != GHOST:
                bonus[t.winner] += t.bonus
        return tuple(
            score_round(self.bids[s], won[s], self.cards_dealt, bonus[s])
            for s in range(self.humans)
        )
