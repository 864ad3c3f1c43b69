"""R5 (lead suit, following), R6 (who wins), R7 (Kraken, White Whale) and the R9 trick bonus."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from .cards import ESC, KRA, MER, NUM, PIR, SKG, WHA, Card, Play

__all__ = ["KRAKEN", "WHALE", "TrickResult", "lead_suit", "legal_cards", "resolve_trick"]

KRAKEN: Final = "kraken"
WHALE: Final = "whale"


def lead_position(trick: Sequence[Play]) -> int:
    """R5: the position of the first play that is not an escape (nor the Tigress as escape),
    the card that sets the lead suit or, a character or a creature, that there is none; -1 if
    the trick is empty or has only escapes so far.
    """
    for i, play in enumerate(trick):
        if play.role != ESC:
            return i
    return -1


def lead_suit(trick: Sequence[Play]) -> str | None:
    """R5: the suit of the first numbered card, skipping leading escapes (and the Tigress as
    escape); None if a character or a creature comes first, or if no numbered card was played.
    """
    i = lead_position(trick)
    # special cards have no suit: a character or a creature first means no lead suit
    return None if i < 0 else trick[i].card.suit


def legal_cards(hand: Iterable[Card], trick: Sequence[Play]) -> set[Card]:
    """R5: the cards of ``hand`` that may be played now on ``trick`` (the plays so far).

    With a lead suit that the hand holds, numbered cards must be of that suit; special
    cards are always playable. Otherwise any card is playable.
    """
    cards = set(hand)
    suit = lead_suit(trick)
    if suit is not None:
        for c in cards:
            if c.suit == suit:
                return {c for c in cards if c.suit is None or c.suit == suit}
    return cards


@dataclass(frozen=True, slots=True)
class TrickResult:
    """Outcome of a complete trick; indexes are positions in the trick (play order).

    ``winner`` is None when the trick is destroyed (``destroyed_by`` "kraken" or "whale");
    ``bonus`` is the R9 bonus for the winner if their bid is exact (0 when destroyed).
    """

    winner: int | None
    next_leader: int
    bonus: int = 0
    destroyed_by: str | None = None

    @property
    def destroyed(self) -> bool:
        return self.destroyed_by is not None

    @property
    def winning_play(self) -> int | None:
        return self.winner


# How a trick was decided, returned by decide_trick next to the result so that explain.py
# names the very rule that decided it instead of deciding a second time. 1..7 are the R6
# steps; a Kraken trick is KRAKEN_DECIDED + the R6 step that picked who leads next (+ 0 when
# nothing remained); a White Whale trick is WHALE_NUMBER or WHALE_NO_NUMBER.
R6_1: Final = 1  # Skull King and a Mermaid: the first Mermaid
R6_2: Final = 2  # Skull King, no Mermaid
R6_3: Final = 3  # the first Pirate
R6_4: Final = 4  # the first Mermaid
R6_5: Final = 5  # the highest black card
R6_6: Final = 6  # the highest card of the lead suit
R6_7: Final = 7  # only escapes: the first one
KRAKEN_DECIDED: Final = 10
WHALE_NUMBER: Final = 20
WHALE_NO_NUMBER: Final = 21

# R9 bonuses for characters captured by the winning character (the 14s are Card.bonus14).
SKULL_KING_BY_MERMAID_POINTS: Final = 40
PIRATE_BY_SKULL_KING_POINTS: Final = 30
MERMAID_BY_PIRATE_POINTS: Final = 20


def _resolve_plain(plays: Sequence[Play]) -> tuple[int, int, int]:
    """R6 on a non-empty trick without creatures: (winner index, character bonus of R9, step)."""
    skull = first_mermaid = first_pirate = first_escape = -1
    mermaids = pirates = 0
    lead: str | None = None
    decided = False
    black_rank = lead_rank = 0
    black = best_lead = -1
    for i, play in enumerate(plays):
        role = play.role
        if role == NUM:
            c = play.card
            suit = c.suit
            if not decided:
                lead = suit
                decided = True
            if suit == "B":
                if c.rank0 > black_rank:
                    black_rank = c.rank0
                    black = i
            elif suit == lead and c.rank0 > lead_rank:
                lead_rank = c.rank0
                best_lead = i
        elif role == ESC:
            if first_escape < 0:
                first_escape = i
        else:
            decided = True
            if role == PIR:
                pirates += 1
                if first_pirate < 0:
                    first_pirate = i
            elif role == MER:
                mermaids += 1
                if first_mermaid < 0:
                    first_mermaid = i
            elif role == SKG:
                skull = i
            else:  # pragma: no cover - creatures are removed by the caller
                raise ValueError("creature in a plain trick")
    if skull >= 0:
        if first_mermaid >= 0:
            # R9: +40 only, nobody scores the +30
            return first_mermaid, SKULL_KING_BY_MERMAID_POINTS, R6_1
        return skull, PIRATE_BY_SKULL_KING_POINTS * pirates, R6_2
    if first_pirate >= 0:
        return first_pirate, MERMAID_BY_PIRATE_POINTS * mermaids, R6_3
    if first_mermaid >= 0:
        return first_mermaid, 0, R6_4
    if black >= 0:
        return black, 0, R6_5
    if best_lead >= 0:
        return best_lead, 0, R6_6
    return first_escape, 0, R6_7  # only escapes


def resolve_trick(trick: Sequence[Play]) -> TrickResult:
    """Resolve a complete trick (plays in play order) by R6, R7 and the R9 bonuses."""
    return decide_trick(trick)[0]


def decide_trick(trick: Sequence[Play]) -> tuple[TrickResult, int]:
    """The one code path that decides a trick: its result and how it was decided (R6_1 ..
    R6_7, KRAKEN_DECIDED + step, WHALE_NUMBER, WHALE_NO_NUMBER). On a trick still in
    progress it tells who would win if nobody else played.
    """
    kraken = whale = -1
    bonus14 = 0
    for i, play in enumerate(trick):
        role = play.role
        if role == KRA:
            kraken = i
        elif role == WHA:
            whale = i
        bonus14 += play.card.bonus14
    if kraken < 0 and whale < 0:
        if not trick:
            raise ValueError("empty trick")
        winner, bonus, step = _resolve_plain(trick)
        return TrickResult(winner, winner, bonus + bonus14), step
    if kraken > whale:
        # R7 Kraken (played last if both): destroyed; who would have won without the creatures
        # leads; if nothing remains, the trick's leader leads again.
        rest = [i for i, play in enumerate(trick) if play.role < KRA]
        if not rest:
            return TrickResult(None, 0, 0, KRAKEN), KRAKEN_DECIDED
        winner, _, step = _resolve_plain([trick[i] for i in rest])
        return TrickResult(None, rest[winner], 0, KRAKEN), KRAKEN_DECIDED + step
    # R7 White Whale (played last if both): highest rank wins whatever the suit, first on ties;
    # no numbered card: destroyed and the Whale's player leads. Only the 14 bonuses apply.
    best = -1
    best_rank = 0
    for i, play in enumerate(trick):
        rank = play.card.rank0
        if rank > best_rank:
            best_rank = rank
            best = i
    if best < 0:
        return TrickResult(None, whale, 0, WHALE), WHALE_NO_NUMBER
    return TrickResult(best, best, bonus14), WHALE_NUMBER
