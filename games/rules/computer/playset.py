"""A card as the play it makes (R1): the engine's shared Play objects, and both ways of
playing the Tigress."""

from __future__ import annotations

from ..cards import ESC, MER, NUM, PIR, PLAY_OF, TIG, TIG_AS_ESCAPE, TIG_AS_PIRATE, WHA, Card, Play

__all__ = ["distinct_plays", "play_of", "plays_of"]


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


def distinct_plays(plays: list[Play], others: set[Card]) -> list[Play]:
    """``plays`` less those that would change nothing, now or later, against playing an
    earlier one: the escapes are all alike, as are the Pirates and the Mermaids (R6 tells
    them apart only by who played first), and so are two numbers of one suit with no card
    between them in ``others`` (the cards that could still meet them: the unseen ones and
    those on the table); while the White Whale is among them, no number of any suit
    between them (R7: it ranks numbers across suits). The 14s stay apart: who takes them
    scores (R9). The Tigress's two plays stay too: as an escape it is gone, with its
    pirate, for later tricks (R1).
    """
    whale = any(c.role == WHA for c in others)
    runs: dict[str, list[int]] = {}
    for c in others:
        if c.suit is not None:
            runs.setdefault("" if whale else c.suit, []).append(c.rank0)
    seen: set[tuple[object, ...]] = set()
    out: list[Play] = []
    for play in plays:
        c = play.card
        key: tuple[object, ...]
        if c.role == NUM and c.rank0 < 14:
            # the run of this hand's cards the rank belongs to: how many cards of ``others``
            # of that suit (of any, with the Whale: ties go to the first played) rank up to it
            below = runs.get("" if whale else (c.suit or ""), ())
            key = (c.suit, sum(r <= c.rank0 for r in below))
        elif c.role in (ESC, PIR, MER):
            key = (c.role,)
        else:
            key = (c.code, play.as_)
        if key not in seen:
            seen.add(key)
            out.append(play)
    return out
