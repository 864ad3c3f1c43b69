"""A card as the play it makes (R1): the engine's shared Play objects, and both ways of
playing the Tigress."""

from __future__ import annotations

from ..cards import PLAY_OF, TIG, TIG_AS_ESCAPE, TIG_AS_PIRATE, Card, Play

__all__ = ["play_of", "plays_of"]


def play_of(c: Card) -> Play:
    """The play of a card that needs no choice."""
    play = PLAY_OF[c.index]
    if play is None:
        raise ValueError("the Tigress is played as a pirate or as an escape (R1)")
    return play


def plays_of(cards: tuple[Card, ...]) -> list[Play]:
    """Every play these cards allow, in their order; the Tigress both ways (R1, R5)."""
    out: list[Play] = []
    for c in cards:
        if c.role == TIG:
            out += (TIG_AS_PIRATE, TIG_AS_ESCAPE)
        else:
            out.append(play_of(c))
    return out
