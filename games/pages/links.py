"""The table's links, reversed once per process instead of in every render.

Django's ``{% url %}`` reverses its name on every render: about 15 times a move
(each seat's hand and controls hold forms, the seat list links every player),
a tenth of a frame's rendering time. The links depend only on the table id or
the player's name, the URLconf and the script prefix, so they are kept per
those, in a bounded cache.
"""

from __future__ import annotations

import functools

from django.conf import settings
from django.urls import get_script_prefix, get_urlconf, reverse

#: The table's forms and links (URL names of games/urls.py taking the table id).
TABLE_ACTIONS = (
    "accept_rematch",
    "add_computer",
    "hand_over",
    "remove_computer",
    "take_back",
    "decline_rematch",
    "leave_table",
    "next_round",
    "next_trick",
    "place_bid",
    "play_card",
    "post_chat",
    "preselect_card",
    "propose_rematch",
    "rotate_invite",
    "start_game",
)


def _where() -> tuple[str, str]:
    # What a reversed URL depends on besides its arguments.
    return get_script_prefix(), str(get_urlconf() or settings.ROOT_URLCONF)


def table_links(table_id: int) -> dict[str, str]:
    """URL name -> the URL of that action on this table, for the templates' ``urls``;
    ``lobby``: the home page, where a finished game leads back to."""
    return _table_links(table_id, *_where())


def player_link(name: str) -> str:
    """The public page of a player (templates: ``p.url``)."""
    return _player_link(name, *_where())


@functools.lru_cache(maxsize=2048)
def _table_links(table_id: int, prefix: str, urlconf: str) -> dict[str, str]:
    links = {name: reverse(name, args=[table_id]) for name in TABLE_ACTIONS}
    return {**links, "lobby": reverse("home")}


@functools.lru_cache(maxsize=4096)
def _player_link(name: str, prefix: str, urlconf: str) -> str:
    return reverse("player", args=[name])
