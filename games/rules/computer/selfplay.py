"""A whole game of computer players on the engine alone (tests, scripts/bench_bots.py).

Each seat decides from its own :class:`SeatView` with its own ``random.Random``, seeded from
the game's seed and the seat, so a game is the same for the same seed and levels whatever
else runs. The deciding functions can be swapped (the benchmark wraps them to time them).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..cards import Play
from ..deal import GHOST, ROUNDS
from ..scoring import RoundScore, winners
from .bidding import decide_bid
from .levels import Level
from .playing import decide_card
from .table import RoundState
from .view import SeatView, seat_view

__all__ = ["BidFn", "CardFn", "GameResult", "play_game"]

BidFn = Callable[[SeatView, Level, random.Random], int]
CardFn = Callable[[SeatView, Level, random.Random], Play]


@dataclass(frozen=True, slots=True)
class GameResult:
    """Per round and seat: ``rounds`` (the scores), ``bids``, ``won`` (tricks taken); per
    seat ``totals`` after round 10; ``winners`` (R10)."""

    seed: int
    levels: tuple[Level, ...]
    ghost: bool
    rounds: tuple[tuple[RoundScore, ...], ...]
    bids: tuple[tuple[int, ...], ...]
    won: tuple[tuple[int, ...], ...]
    totals: tuple[int, ...]
    winners: tuple[int, ...]


def play_game(
    seed: int,
    levels: Sequence[Level],
    ghost: bool = False,
    *,
    bid: BidFn = decide_bid,
    card: CardFn = decide_card,
) -> GameResult:
    """Ten rounds (R2) with one computer player per entry of ``levels``."""
    humans = len(levels)
    deals = random.Random(seed)  # noqa: S311 - a game shuffle, not cryptography
    rngs = [random.Random(f"{seed}:{seat}") for seat in range(humans)]  # noqa: S311
    totals = (0,) * humans
    rounds: list[tuple[RoundScore, ...]] = []
    bids: list[tuple[int, ...]] = []
    won: list[tuple[int, ...]] = []
    for number in range(1, ROUNDS + 1):
        state = RoundState.dealt(deals.randrange(1 << 62), number, humans, ghost, totals)
        # R4: bids are secret until all are in, so each seat decides before seeing any
        for seat in range(humans):
            state.bid(seat, bid(seat_view(state, seat), levels[seat], rngs[seat]))
        while (turn := state.to_play()) is not None:
            if turn == GHOST:
                state.play_ghost()
            else:
                state.play(turn, card(seat_view(state, turn), levels[turn], rngs[turn]))
        scores = state.scores()
        rounds.append(scores)
        bids.append(tuple(state.bids[s] for s in range(humans)))
        won.append(tuple(state.won()))
        totals = tuple(t + s.total for t, s in zip(totals, scores, strict=True))
    return GameResult(
        seed=seed,
        levels=tuple(levels),
        ghost=ghost,
        rounds=tuple(rounds),
        bids=tuple(bids),
        won=tuple(won),
        totals=totals,
        winners=tuple(winners(dict(enumerate(totals)))),
    )
