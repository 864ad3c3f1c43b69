"""The pure Skull King rules engine (RULES.md R1-R10). No Django, no I/O.

Public facade::

    from games import rules
    rules.DECK, rules.card("G14"), rules.Play(card, as_=None), rules.parse_play("TIG:escape")
    rules.legal_cards(hand, trick), rules.lead_suit(trick), rules.resolve_trick(trick)
    rules.score_round(bid, won, cards_dealt, bonus), rules.cards_per_round(n, players)
    rules.deal(...), rules.dealer_and_opener(...), rules.play_order(...), rules.ghost_play(...)
    rules.simulate_game(seed, humans, ghost)
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
from .deal import GHOST, HUMAN_MAX, HUMAN_MIN, ROUNDS, Deal, cards_per_round, deal, ghost_play
from .order import dealer_and_opener, play_order
from .scoring import RoundScore, score_round, valid_bids, winners
from .simulator import GameRecord, RoundRecord, SimulationError, simulate_game
from .tricks import KRAKEN, WHALE, TrickResult, lead_suit, legal_cards, resolve_trick

__all__ = [
    "DECK",
    "ESCAPE",
    "GHOST",
    "HUMAN_MAX",
    "HUMAN_MIN",
    "KRAKEN",
    "PIRATE",
    "ROUNDS",
    "SUITS",
    "WHALE",
    "Card",
    "Deal",
    "GameRecord",
    "Kind",
    "Play",
    "RoundRecord",
    "RoundScore",
    "SimulationError",
    "TrickResult",
    "card",
    "cards_per_round",
    "deal",
    "dealer_and_opener",
    "ghost_play",
    "lead_suit",
    "legal_cards",
    "needs_choice",
    "parse_play",
    "play_order",
    "resolve_trick",
    "score_round",
    "simulate_game",
    "sort_hand",
    "valid_bids",
    "winners",
]
