"""The engine's explanations (games.rules.explain, games.rules.wording) turned into what the
table page shows: the lead suit, the card winning so far, why a trick was won, the bonus it
carries, why a card of your hand cannot be played.

Nothing is decided here: every answer comes from games.rules; this module only maps the
engine's positions in a trick to the seats that played them and names them for the page.
Everything but ``unplayable_reasons`` is public (cards already on the table, bids already
revealed); ``unplayable_reasons`` reads a hand, so only its owner's regions may show it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from django.utils.translation import gettext as _

from games import rules
from games.models import Play, Trick
from games.pages.words import table_words
from games.play.state import GameState
from games.templatetags.cards import card_name


def ghost_name() -> str:
    return _("Graybeard")


def _name_of(seat_id: int | None, names: dict[int, str]) -> str:
    return ghost_name() if seat_id is None else names.get(seat_id, "?")


def _key(seat_id: int | None) -> str:
    # The same keys as games.pages.presenter.seat_key (which imports this module).
    return "ghost" if seat_id is None else f"seat-{seat_id}"


def engine_plays(plays: Sequence[Play]) -> list[rules.Play]:
    return [rules.parse_play(p.notation) for p in plays]


def words_for(plays: Sequence[Play], names: dict[int, str]) -> rules.Words:
    """The engine's sentences with our card names, and a trick position named by who played it."""
    # games.pages.words: gettext and the site's card names, in the active language (issue 13).
    return table_words(player=lambda position: _name_of(plays[position].seat_id, names))


# --- during the trick ------------------------------------------------------------------


@dataclass(frozen=True)
class TrickInProgress:
    """R5 and R6/R7 for the cards on the table so far."""

    lead: str  # "Lead: green", "Escape led: the next number card sets the suit", ...
    lead_suit: str  # "G", "Y", "P", "B" or "" (a CSS hook for the suit's colour)
    winning_key: str  # the seat whose card is winning so far, "" if none / being destroyed
    winning: list[str]  # why that card is winning (or why the trick is being destroyed)


def in_progress(plays: Sequence[Play], names: dict[int, str]) -> TrickInProgress:
    trick = engine_plays(plays)
    words = words_for(plays, names)
    state = rules.lead_state(trick)
    so_far = rules.winning_so_far(trick)
    winner = so_far.result.winner if so_far is not None else None
    return TrickInProgress(
        lead=rules.describe_lead(state, words),
        lead_suit=state.suit or "",
        winning_key=_key(plays[winner].seat_id) if winner is not None else "",
        winning=rules.describe_trick(so_far.reason, words) if so_far is not None else [],
    )


def unplayable_reasons(hand: Iterable[rules.Card], plays: Sequence[Play]) -> dict[str, str]:
    """Card code -> why R5 forbids it now ("You must follow green"). Reads a hand: the
    answer goes to that hand's owner only (R4).
    """
    words = words_for(plays, {})
    found = rules.unplayable_cards(hand, engine_plays(plays))
    return {str(card): rules.describe_unplayable(why, words) for card, why in found.items()}


# --- after the trick -------------------------------------------------------------------


@dataclass(frozen=True)
class ShownPlay:
    key: str  # seat key of who played it
    name: str
    code: str
    as_: str
    is_winner: bool


@dataclass(frozen=True)
class TrickStory:
    """A complete trick: who won it (or that it was destroyed), why, and its bonus."""

    number: int
    plays: list[ShownPlay]
    winner_key: str  # "" when destroyed
    winner_name: str
    reasons: list[str]  # the reason sentence, then its details
    bonuses: list[str] = field(default_factory=list)  # "Pirate captured by Skull King: +30"
    bonus: int = 0
    # R9: can the winner still make their bid exactly, so that the bonus counts?
    bonus_counts: bool = False
    winner_is_ghost: bool = False
    # Every trick of the round is played: whether the bonus counts is settled.
    round_over: bool = False

    @property
    def destroyed(self) -> bool:
        return not self.winner_key


def story(
    trick: Trick,
    plays: Sequence[Play],
    names: dict[int, str],
    bid_counts: dict[int | None, bool],
    round_over: bool = False,
) -> TrickStory | None:
    """The story of a complete trick. ``bid_counts``: seat id -> can that seat still make its
    bid exactly (rules.exact_bid_possible), for whether the trick's bonus still counts;
    ``round_over``: no trick of the round is left, so that is settled.
    """
    if not trick.complete or not plays:
        return None
    explanation = rules.explain_trick(engine_plays(plays))
    words = words_for(plays, names)
    winner = explanation.result.winner
    winner_seat = plays[winner].seat_id if winner is not None else None
    won = winner is not None
    return TrickStory(
        number=trick.number,
        plays=[
            ShownPlay(
                key=_key(p.seat_id),
                name=_name_of(p.seat_id, names),
                code=p.card,
                as_=p.tigress_as,
                is_winner=i == winner,
            )
            for i, p in enumerate(plays)
        ],
        winner_key=_key(winner_seat) if won else "",
        winner_name=_name_of(winner_seat, names) if won else "",
        reasons=rules.describe_trick(explanation.reason, words),
        bonuses=[rules.describe_bonus(b, words) for b in explanation.bonuses],
        bonus=explanation.result.bonus if won else 0,
        # R8: the ghost never scores, so its bonus never counts.
        bonus_counts=won and winner_seat is not None and bid_counts.get(winner_seat, False),
        winner_is_ghost=won and winner_seat is None,
        round_over=round_over,
    )


def bids_still_exact(state: GameState) -> dict[int | None, bool]:
    """Seat id -> whether its bid can still be made exactly this round (R9), once bids are
    revealed (before that, nothing about bids is public: R4)."""
    if state.round is None or not state.all_bids_in:
        return {}
    won = state.tricks_won()
    played = sum(1 for t in state.tricks if t.complete)
    left = state.round.cards_dealt - played
    return {
        seat_id: rules.exact_bid_possible(bid.value, won.get(seat_id, 0), left)
        for seat_id, bid in state.bids.items()
    }


def round_over(state: GameState) -> bool:
    """Every trick of the current round is complete."""
    if state.round is None:
        return False
    return sum(1 for t in state.tricks if t.complete) == state.round.cards_dealt


def round_stories(state: GameState, names: dict[int, str]) -> list[TrickStory]:
    """Every complete trick of the current round, in order."""
    counts, over = bids_still_exact(state), round_over(state)
    stories = (story(t, state.plays_of(t), names, counts, over) for t in state.tricks)
    return [s for s in stories if s is not None]


def current_story(state: GameState, names: dict[int, str]) -> TrickStory | None:
    trick = state.trick
    if trick is None or not trick.complete:
        return None
    return story(trick, state.plays, names, bids_still_exact(state), round_over(state))


def bonus_captures(state: GameState, names: dict[int, str]) -> dict[int, list[str]]:
    """Seat id -> the captures that made its bonus this round (R9), from the tricks it won."""
    captures: dict[int, list[str]] = {}
    for trick in state.tricks:
        plays = state.plays_of(trick)
        if not trick.complete or trick.destroyed_by or trick.won_by_ghost or not plays:
            continue
        explanation = rules.explain_trick(engine_plays(plays))
        words = words_for(plays, names)
        for capture in explanation.bonuses:
            captures.setdefault(trick.winner_id or 0, []).append(
                rules.describe_bonus(capture, words)
            )
    return captures


def ghost_announcement(state: GameState) -> str:
    """ "Graybeard plays Yellow 3": the ghost's automatic play in the trick on the table (R8)."""
    for play in reversed(state.plays):
        if play.seat_id is None:
            return _("%(name)s plays %(card)s") % {
                "name": ghost_name(),
                "card": card_name(play.card, play.tigress_as),
            }
    return ""


def bid_sum(state: GameState) -> tuple[int, int] | None:
    """(sum of the bids, cards dealt) once every bid is revealed (R4), else None."""
    if state.round is None or not state.all_bids_in:
        return None
    return sum(b.value for b in state.bids.values()), state.round.cards_dealt


__all__ = [
    "ShownPlay",
    "TrickInProgress",
    "TrickStory",
    "bid_sum",
    "bids_still_exact",
    "bonus_captures",
    "current_story",
    "ghost_announcement",
    "in_progress",
    "round_stories",
    "unplayable_reasons",
]
