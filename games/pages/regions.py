"""The table's regions as HTML, from Jinja2 templates (templates/games/regions/).

Every move renders regions (games.live.frames), so they are the hottest templates of
the site. Django's template language interprets a template node by node and
resolves every variable through several lookups; Jinja2 compiles a template to
Python once, which renders the same region several times faster. The page
around the regions (games/table.html) stays a Django template and takes them
already rendered (``page_regions``).

The environment is the ``jinja2`` engine of settings.TEMPLATES. Its sentences go
through Django's own translation (``{% trans %}`` and ``_()`` call
django.utils.translation), so the catalogues of locale/ serve both engines.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from datetime import datetime
from typing import Any

import jinja2
from django.conf import settings
from django.http import HttpRequest
from django.template import defaultfilters, engines
from django.template.backends.utils import csrf_input
from django.utils import timezone, translation
from django.utils.safestring import SafeString, mark_safe

from games.templatetags.cards import card

#: The regions' templates and the pieces they import, under templates/
FOLDER = "games/regions/"
#: region id in the page -> its template
TEMPLATES: dict[str, str] = {
    "status": f"{FOLDER}status.jinja",
    "seats": f"{FOLDER}seats.jinja",
    "trick": f"{FOLDER}trick.jinja",
    "hand": f"{FOLDER}hand.jinja",
    "controls": f"{FOLDER}controls.jinja",
    "scores": f"{FOLDER}scores.jinja",
    "chat-log": f"{FOLDER}chat_log.jinja",
    "chat-compose": f"{FOLDER}chat_compose.jinja",
    "tricks-history": f"{FOLDER}history.jinja",
    "error": f"{FOLDER}error.jinja",
    "presence": f"{FOLDER}presence.jinja",
    "watching": f"{FOLDER}watching.jinja",
}


def _local(value: datetime | None, format_string: str, filter_: Any) -> str:
    # As Django's date and time filters: an aware datetime shows in the current zone.
    if value is None:
        return ""
    return str(filter_(timezone.template_localtime(value), format_string))


class _Environment(jinja2.Environment):
    """Jinja2's environment, with each template's globals in a plain dict.

    Jinja2 keeps a template's globals as a ChainMap over the environment's, and every
    render copies them into the render's context and makes a set of their names:
    both walk the ChainMap in Python, about a sixth of a small region's render (a
    move renders six to ten). A dict is copied in C. The price: a global added to
    the environment after a template is loaded does not reach that template; all of
    ours are set in ``environment()``, before any template loads.
    """

    def make_globals(self, d: Any) -> dict[str, Any]:  # type: ignore[override]
        return {**self.globals, **(d or {})}


def environment(**options: Any) -> jinja2.Environment:
    """The Jinja2 environment of the regions (settings.TEMPLATES' ``jinja2`` engine)."""
    # A missing name renders as nothing, as in Django's templates, in development
    # too (Django's backend would print it there).
    options["undefined"] = jinja2.Undefined
    options.pop("autoescape", None)  # always on (Django's backend sets it too)
    env = _Environment(autoescape=True, extensions=["jinja2.ext.i18n"], **options)
    # Old-style gettext: a {% trans %} block's words are the template's own (safe) and
    # its values are escaped, as with {% blocktranslate %}; _("...") is escaped, as
    # {% translate %}.
    env.install_gettext_callables(  # type: ignore[attr-defined]
        translation.gettext, translation.ngettext, newstyle=False
    )
    env.globals["card"] = card
    env.globals["seat_body"] = seat_body
    env.filters["date"] = lambda value, fmt: _local(value, fmt, defaultfilters.date)
    env.filters["time"] = lambda value, fmt: _local(value, fmt, defaultfilters.time)
    return env


def jinja_environment() -> jinja2.Environment:
    """The ``jinja2`` engine's own environment, which keeps the compiled templates."""
    return engines["jinja2"].env  # type: ignore[attr-defined,no-any-return]


def template(region: str) -> jinja2.Template:
    # From the environment itself: Jinja2 keeps its compiled templates (and reloads a
    # changed one when settings.DEBUG), without the backend's wrapper around each.
    return jinja_environment().get_template(TEMPLATES[region])


def load_all() -> None:
    """Compile every region's template and the pieces they import (``_parts``,
    ``_rematch``) now: the first render of one that is not yet compiled waits about
    25 ms for Jinja2 to compile it (config.asgi calls this at startup)."""
    environment = jinja_environment()
    for name in environment.list_templates(filter_func=lambda name: name.startswith(FOLDER)):
        environment.get_template(name)


@functools.cache
def _translations(language: str) -> dict[str, Callable[..., str]]:
    """The regions' gettext for one language, remembering each sentence once found.

    A region says 10 to 30 fixed sentences; through Django's gettext each costs a
    lookup of the active language (a context-local) and of its catalogue, about
    ten times the dictionary lookup that answers it here. The catalogues do not
    change while the process runs (compile_catalogues runs before it starts).
    """
    singles: dict[str, str] = {}
    plurals: dict[tuple[str, str, int], str] = {}

    def gettext(message: str) -> str:
        found = singles.get(message)
        if found is None:
            with translation.override(language):
                found = singles[message] = translation.gettext(message)
        return found

    def ngettext(singular: str, plural: str, number: int) -> str:
        key = (singular, plural, number)
        found = plurals.get(key)
        if found is None:
            with translation.override(language):
                found = plurals[key] = translation.ngettext(singular, plural, number)
        return found

    return {"_": gettext, "gettext": gettext, "ngettext": ngettext}


def seat_body(player: Any, in_round: bool, is_bidding: bool) -> SafeString:
    """The inside of one seat of the seat list (``_seat.jinja``), in the active language.

    Every move renders the seat list, and a move changes one or two of its seats: the
    others read as before. Each seat's inside is a function of its PlayerView (a
    frozen dataclass: a key), whether a round is dealt, whether the table bids, and
    the language; it is made once and reused. The seat's element around it (its id,
    its version, whose turn) stays in seats.jinja. In development (settings.DEBUG,
    where Jinja2 reloads a changed template) nothing is kept.
    """
    language = translation.get_language() or settings.LANGUAGE_CODE
    make = _seat_bodies.__wrapped__ if settings.DEBUG else _seat_bodies
    return make(language, player, in_round, is_bidding)


@functools.lru_cache(maxsize=4096)
def _seat_bodies(language: str, player: Any, in_round: bool, is_bidding: bool) -> SafeString:
    html = (
        jinja_environment()
        .get_template(f"{FOLDER}_seat.jinja")
        .render(p=player, round_number=in_round, is_bidding=is_bidding, **_translations(language))
    )
    return mark_safe(html)  # noqa: S308 (autoescaped by its template)


def render(region: str, context: dict[str, Any]) -> str:
    """One region's HTML from its context (a pushed region: no CSRF field, see games.live.frames),
    in the active language."""
    language = translation.get_language() or settings.LANGUAGE_CODE
    return template(region).render({**context, **_translations(language)})


def page_regions(
    context: dict[str, Any], request: HttpRequest, only: tuple[str, ...] | None = None
) -> dict[str, SafeString]:
    """Every region of the page, for games/table.html (``regions.chat_log`` for the
    region "chat-log"): its forms carry the CSRF field. ``only``: these regions alone
    (staff watching the table see no seat's own regions, issue 50)."""
    page = {**context, "oob": False, "csrf_input": csrf_input(request)}
    return {
        region.replace("-", "_"): mark_safe(render(region, page))  # noqa: S308 (autoescaped)
        for region in TEMPLATES
        if region != "presence" and (only is None or region in only)
    }
