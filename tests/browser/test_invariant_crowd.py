"""Issue 44 at the larger tables: four players reading three languages, and eight.

The same invariant as test_invariant.py (invariant.py: after every move, every
region of every live page reads as a fresh load of that page), in a module of its
own so that xdist runs it beside the smaller tables. The quick run plays round 1
and the host's "Next round" (the round's end pushes the score sheet, R9); the
thorough run plays every round (R2: with 8 players, rounds 9 and 10 deal 9 cards)
and a rematch.
"""

from __future__ import annotations

import pytest

from .conftest import Seat, Server
from .test_invariant import ROUNDS, OpenSeats, play_table

pytestmark = pytest.mark.browser

QUICK = pytest.param(1, id="round-1")
COMPLETE = pytest.param(ROUNDS, id="complete", marks=pytest.mark.thorough)


@pytest.mark.parametrize("rounds", [QUICK, COMPLETE])
def test_four_players_in_three_languages(
    server: Server, open_seats: OpenSeats, rounds: int
) -> None:
    """Each player reads the live table in their account's language (accounts.language,
    games.live.frames.language_of): the host English, one French, one German, one English.
    A region pushed in one language must read as that player's fresh load."""
    seats = [Seat("io"), Seat("jules", language="fr"), Seat("kai", language="de"), Seat("lu")]
    play_table(server, open_seats, seats, rounds, 3)


@pytest.mark.parametrize("rounds", [QUICK, COMPLETE])
def test_eight_players(server: Server, open_seats: OpenSeats, rounds: int) -> None:
    """R2: the largest table, eight players."""
    seats = [Seat(name) for name in ("ma", "ne", "ol", "pi", "qu", "ro", "sa", "ti")]
    play_table(server, open_seats, seats, rounds, 4)
