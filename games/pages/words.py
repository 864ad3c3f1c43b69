"""The rules engine's sentences in the active language (issue 13).

games.rules.wording builds the table's explanations ("Highest green wins: Green
12") from English templates and calls ``Words.translate`` on each one. Here that
is Django's gettext, and cards are named as everywhere else on the site
(templatetags.cards.card_name), so a sentence reads like the table around it.
The templates reach the catalogues through games/pages/rules_messages_generated.py.
Call ``table_words`` inside the language you render in (translation.override).
"""

from __future__ import annotations

from collections.abc import Callable

from django.utils.translation import gettext

from games import rules
from games.templatetags.cards import card_name


def _card(play: rules.Play) -> str:
    return card_name(play.card.code, play.as_ or "")


def _suit(suit: str) -> str:
    return gettext(rules.wording.SUIT_NAMES[suit])


def table_words(player: Callable[[int], str] | None = None) -> rules.Words:
    """Words for the active language; ``player`` names a position in the trick."""
    return rules.Words(card=_card, player=player, suit=_suit, translate=gettext)
