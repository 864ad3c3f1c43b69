"""Computer players: what one seat sees, and how it bids and plays (issue 48).

Pure and deterministic like the rest of ``games.rules``: no Django, no I/O, no clock; the
randomness is the ``random.Random`` the caller passes. Public API::

    from games.rules.computer import Level, RoundState, SeatView, seat_view
    from games.rules.computer import decide_bid, decide_card, play_game

    state = RoundState.dealt(seed, round_number, humans, ghost, totals)  # or built by hand
    view = seat_view(state, seat)               # what that seat sees, nothing more (R4, R8)
    bid = decide_bid(view, Level.STRONG, rng)   # 0..cards dealt (R4)
    play = decide_card(view, Level.STRONG, rng) # a rules.Play among view.legal (R5)
    record = play_game(seed, [Level.EASY, Level.STRONG, ...], ghost=False)

The decisions read only the :class:`SeatView`.
"""

from __future__ import annotations

from .bidding import decide_bid
from .levels import Level
from .playing import decide_card
from .selfplay import GameResult, play_game
from .table import RoundState, SeenPlay, SeenTrick
from .view import SeatView, seat_view

__all__ = [
    "GameResult",
    "Level",
    "RoundState",
    "SeatView",
    "SeenPlay",
    "SeenTrick",
    "decide_bid",
    "decide_card",
    "play_game",
    "seat_view",
]
