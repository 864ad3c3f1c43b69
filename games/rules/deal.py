"""R2 (players, rounds, cards dealt), the shuffle and deal, and the ghost's automatic play (R8)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from .cards import DECK, PLAY_OF, TIG, TIG_AS_ESCAPE, Card, Play

__all__ = [
    "GHOST",
    "GHOST_TABLE_HUMANS",
    "HUMAN_MAX",
    "HUMAN_MIN",
    "ROUNDS",
    "Deal",
    "cards_per_round",
    "check_table",
    "deal",
    "ghost_play",
    "uses_ghost",
]

#: Player index used for the ghost Graybeard (R8).
GHOST: Final = -1
HUMAN_MIN: Final = 2
# R8: the ghost (Graybeard) plays only at a table of exactly this many humans.
GHOST_TABLE_HUMANS: Final = HUMAN_MIN


def uses_ghost(option: bool, humans: int) -> bool:
    """R8: whether the ghost plays, given the table's option and its humans."""
    return option and humans == GHOST_TABLE_HUMANS


HUMAN_MAX: Final = 8
ROUNDS: Final = 10


def check_table(round_number: int, humans: int) -> None:
    """ValueError unless 1 <= round_number <= ROUNDS and HUMAN_MIN <= humans <= HUMAN_MAX."""
    if not HUMAN_MIN <= humans <= HUMAN_MAX:
        raise ValueError(f"players must be {HUMAN_MIN}..{HUMAN_MAX}, got {humans!r}")
    if not 1 <= round_number <= ROUNDS:
        raise ValueError(f"round_number must be 1..{ROUNDS}, got {round_number!r}")


def cards_per_round(round_number: int, players: int) -> int:
    """R2: n cards in round n, except 9 in rounds 9 and 10 with 8 players.

    ``players`` is the number of humans (the ghost's third hand does not change it).
    """
    check_table(round_number, players)
    if players == 8 and round_number > 9:
        return 9
    return round_number


@dataclass(frozen=True, slots=True)
class Deal:
    """One round's deal: a hand per human seat (0..humans-1) and the ghost's pile, in deal order."""

    hands: tuple[tuple[Card, ...], ...]
    ghost_hand: tuple[Card, ...] = ()


def deal(seed: int, round_number: int, humans: int, ghost: bool) -> Deal:
    """Shuffle the whole 72-card deck with ``random.Random(seed)`` and deal it (R2).

    Deterministic given its arguments; the caller passes a fresh seed for every round (the
    deck is reshuffled before each round). The shuffle is exactly
    ``deck = list(DECK); random.Random(seed).shuffle(deck)``, whose *last* card is the top
    of the deck: reading from the top, seat 0 gets the first n cards, seat 1 the next n, ...
    and the ghost (2 humans only, R8) the n after the humans'. Only the Fisher-Yates steps
    that fix the dealt cards are run (the same random draws, the same cards as the full
    shuffle, fewer steps).
    """
    n = cards_per_round(round_number, humans)
    if ghost and humans != 2:
        raise ValueError("the ghost only plays with exactly 2 humans (R8)")
    dealt = n * (humans + 1 if ghost else humans)
    deck = list(DECK)
    randrange = random.Random(seed).randrange  # noqa: S311 - a game shuffle, not cryptography
    # random.shuffle: for i in reversed(range(1, 72)): j = randbelow(i + 1); swap(i, j).
    # randrange(i + 1) draws exactly as randbelow(i + 1). Position i is final once visited.
    top: list[Card] = []
    for i in range(len(deck) - 1, len(deck) - 1 - dealt, -1):
        if i:
            j = randrange(i + 1)
            deck[i], deck[j] = deck[j], deck[i]
        top.append(deck[i])
    hands = tuple(tuple(top[k * n : (k + 1) * n]) for k in range(humans))
    ghost_hand = tuple(top[humans * n :]) if ghost else ()
    return Deal(hands, ghost_hand)


def ghost_play(ghost_remaining: Sequence[Card]) -> Play:
    """R8: the ghost plays the top card of its pile (index 0); its Tigress is always an escape."""
    if not ghost_remaining:
        raise ValueError("the ghost has no card left")
    top = ghost_remaining[0]
    if top.role == TIG:
        return TIG_AS_ESCAPE
    play = PLAY_OF[top.index]
    assert play is not None
    return play
