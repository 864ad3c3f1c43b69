"""The pure Skull King rules engine (RULES.md R1-R10). No Django, no I/O.

Public facade::

    from games import rules
    rules.DECK, rules.card("G14"), rules.Play(card, as_=None), rules.parse_play("TIG:escape")
    rules.legal_cards(hand, trick), rules.lead_suit(trick), rules.resolve_trick(trick)
    rules.score_round(bid, won, cards_dealt, bonus), rules.cards_per_round(n, players)
    rules.deal(...), rules.dealer_and_opener(...), rules.play_order(...), rules.ghost_play(...)
    rules.simulate_game(seed, humans, ghost)

Explanations (explain.py, wording.py: see their docstrings)::

    rules.explain_trick(trick), rules.winning_so_far(trick), rules.lead_state(trick)
    rules.unplayable_cards(hand, trick), rules.exact_bid_possible(bid, won, tricks_left)
    rules.describe_trick(reason, words), rules.describe_lead(state, words)
    rules.describe_unplayable(unplayable, words), rules.describe_bonus(capture, words)
"""

from __future__ import annotations

from .cards import (
    DECK,
    ESCAPE,
    PIRATE,
    SUITS,
    Card,
    Kind,
    Play,
    card,
    needs_choice,
    parse_play,
    sort_hand,
)
from .deal import (
    GHOST,
    GHOST_TABLE_HUMANS,
    HUMAN_MAX,
    HUMAN_MIN,
    ROUNDS,
    Deal,
    cards_per_round,
    deal,
    ghost_play,
    uses_ghost,
)
from .explain import (
    BonusCapture,
    BonusKind,
    LeadKind,
    LeadState,
    Note,
    NoteKind,
    PlayedCard,
    ReasonKind,
    TrickExplanation,
    TrickReason,
    Unplayable,
    UnplayableKind,
    explain_trick,
    lead_state,
    unplayable_cards,
    winning_so_far,
)
from .order import dealer_and_opener, play_order
from .scoring import (
    CAPTURE_LIMITS,
    CaptureProblem,
    Captures,
    RoundScore,
    bonus_counts,
    capture_problems,
    exact_bid_possible,
    score_captures,
    score_round,
    valid_bids,
    winners,
)
from .simulator import GameRecord, RoundRecord, SimulationError, simulate_game
from .tricks import KRAKEN, WHALE, TrickResult, lead_suit, legal_cards, resolve_trick
from .wording import (
    BONUS_TEMPLATES,
    CARD_NAMES,
    ENGLISH,
    IN_PROGRESS_TEMPLATES,
    LEAD_TEMPLATES,
    NOTE_TEMPLATES,
    REASON_TEMPLATES,
    SUIT_NAMES,
    UNPLAYABLE_TEMPLATES,
    Words,
    describe_bonus,
    describe_lead,
    describe_trick,
    describe_unplayable,
)

__all__ = [
    "BONUS_TEMPLATES",
    "CAPTURE_LIMITS",
    "CARD_NAMES",
    "DECK",
    "ENGLISH",
    "ESCAPE",
    "GHOST",
    "GHOST_TABLE_HUMANS",
    "HUMAN_MAX",
    "HUMAN_MIN",
    "IN_PROGRESS_TEMPLATES",
    "KRAKEN",
    "LEAD_TEMPLATES",
    "NOTE_TEMPLATES",
    "PIRATE",
    "REASON_TEMPLATES",
    "ROUNDS",
    "SUITS",
    "SUIT_NAMES",
    "UNPLAYABLE_TEMPLATES",
    "WHALE",
    "BonusCapture",
    "BonusKind",
    "CaptureProblem",
    "Captures",
    "Card",
    "Deal",
    "GameRecord",
    "Kind",
    "LeadKind",
    "LeadState",
    "Note",
    "NoteKind",
    "Play",
    "PlayedCard",
    "ReasonKind",
    "RoundRecord",
    "RoundScore",
    "SimulationError",
    "TrickExplanation",
    "TrickReason",
    "TrickResult",
    "Unplayable",
    "UnplayableKind",
    "Words",
    "bonus_counts",
    "capture_problems",
    "card",
    "cards_per_round",
    "deal",
    "dealer_and_opener",
    "describe_bonus",
    "describe_lead",
    "describe_trick",
    "describe_unplayable",
    "exact_bid_possible",
    "explain_trick",
    "ghost_play",
    "lead_state",
    "lead_suit",
    "legal_cards",
    "needs_choice",
    "parse_play",
    "play_order",
    "resolve_trick",
    "score_captures",
    "score_round",
    "simulate_game",
    "sort_hand",
    "unplayable_cards",
    "uses_ghost",
    "valid_bids",
    "winners",
    "winning_so_far",
]
