"""How strong a computer player is: the three levels of issue 48."""

from __future__ import annotations

import enum

__all__ = ["Level"]


class Level(enum.Enum):
    """EASY plays a random legal card after a plausible bid; NORMAL bids from its hand's
    strength and plays to make that bid exactly; STRONG also counts the cards seen, weighs
    what the others still need, plays for the bonuses and uses the creatures on purpose.
    """

    EASY = "easy"
    NORMAL = "normal"
    STRONG = "strong"
