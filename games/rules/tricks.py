"""R5 (lead suit, following), R6 (who wins), R7 (Kraken, White Whale) and the R9 trick bonus."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from .cards import ESC, KRA, MER, NUM, PIR, SKG, WHA, Card, Play

__all__ = ["KRAKEN", "WHALE", "TrickResult", "lead_suit", "legal_cards", "resolve_trick"]

KRAKEN: Final = "kraken"
WHALE: Final = "whale"


def lead_suit(trick: Sequence[Play]) -> str | None:
    """R5: the suit of the first numbered card, skipping leading escapes (and the Tigress as
    escape); None if a character or a creature comes first, or if no numbered card was played.
    """
    for play in trick:
        role = play.role
        if role == ESC:
            continue
        if role == NUM:
            return play.card.suit
        return None
    return None


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


def _resolve_plain(plays: Sequence[Play]) -> tuple[int, int]:
    """R6 on a non-empty trick without creatures: (winner index, character bonus of R9)."""
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
            return first_mermaid, 40  # R6.1; R9: +40 only, nobody scores the +30
        return skull, 30 * pirates  # R6.2
    if first_pirate >= 0:
        return first_pirate, 20 * mermaids  # R6.3
    if first_mermaid >= 0:
        return first_mermaid, 0  # R6.4
    if black >= 0:
        return black, 0  # R6.5
    if best_lead >= 0:
        return best_lead, 0  # R6.6
    return first_escape, 0  # R6.7: only escapes


def resolve_trick(trick: Sequence[Play]) -> TrickResult:
    """Resolve a complete trick (plays in play order) by R6, R7 and the R9 bonuses."""
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
        winner, bonus = _resolve_plain(trick)
        return TrickResult(winner, winner, bonus + bonus14)
    if kraken > whale:
        # R7 Kraken (played last if both): destroyed; who would have won without the creatures
        # leads; if nothing remains, the trick's leader leads again.
        rest = [i for i, play in enumerate(trick) if play.role < KRA]
        if not rest:
            return TrickResult(None, 0, 0, KRAKEN)
        winner, _ = _resolve_plain([trick[i] for i in rest])
        return TrickResult(None, rest[winner], 0, KRAKEN)
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
        return TrickResult(None, whale, 0, WHALE)
    return TrickResult(best, best, bonus14)
