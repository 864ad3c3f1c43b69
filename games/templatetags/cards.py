"""``{% card "G14" %}``: a card as a coloured tile carrying ``data-card="<notation>"``.

{% load cards %}
{% card "G14" %}                      a green 14
{% card play.code as_=play.as_ %}     a played Tigress, labelled "as pirate"
{% card "SK" size="small" %}          inline, e.g. in the rules
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from django import template
from django.utils import translation
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _

from games import rules

register = template.Library()

_SUIT_CLASS = {"G": "green", "Y": "yellow", "P": "purple", "B": "black"}
_KIND_CLASS = {
    rules.Kind.ESCAPE: "escape",
    rules.Kind.PIRATE: "pirate",
    rules.Kind.MERMAID: "mermaid",
    rules.Kind.TIGRESS: "tigress",
    rules.Kind.SKULL_KING: "skull-king",
    rules.Kind.KRAKEN: "kraken",
    rules.Kind.WHALE: "whale",
}


def per_language[F: Callable[..., Any]](func: F) -> F:
    """Cache a pure function of a card per active language.

    A table renders the same few dozen cards in every hand and trick, each time
    through several gettext calls: the cards' words and markup are computed once
    per language and card instead.
    """

    @functools.lru_cache(maxsize=4096)
    def cached(language: str | None, *args: Any, **kwargs: Any) -> Any:
        return func(*args, **kwargs)

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return cached(translation.get_language(), *args, **kwargs)

    return wrapper  # type: ignore[return-value]


def suit_name(suit: str) -> str:
    return {
        "G": _("Green"),
        "Y": _("Yellow"),
        "P": _("Purple"),
        "B": _("Black"),
    }[suit]


def kind_name(kind: rules.Kind) -> str:
    return {
        rules.Kind.ESCAPE: _("Escape"),
        rules.Kind.PIRATE: _("Pirate"),
        rules.Kind.MERMAID: _("Mermaid"),
        rules.Kind.TIGRESS: _("Tigress"),
        rules.Kind.SKULL_KING: _("Skull King"),
        rules.Kind.KRAKEN: _("Kraken"),
        rules.Kind.WHALE: _("White Whale"),
    }.get(kind, "")


@per_language
def card_name(code: str, as_: str = "") -> str:
    """A card's name in words: "Green 14", "Pirate", "Tigress (as pirate)"."""
    try:
        c = rules.card(code)
    except ValueError:
        return code
    if c.kind == rules.Kind.NUMBER and c.suit:
        name = _("%(suit)s %(rank)s") % {"suit": suit_name(c.suit), "rank": c.rank}
    else:
        name = kind_name(c.kind)
    if as_ == rules.PIRATE:
        name = _("%(card)s (as pirate)") % {"card": name}
    elif as_ == rules.ESCAPE:
        name = _("%(card)s (as escape)") % {"card": name}
    return name


@register.simple_tag
@per_language
def card(code: str, as_: str = "", size: str = "") -> SafeString:
    try:
        c = rules.card(code)
    except ValueError:
        return format_html('<span class="card card--unknown">{}</span>', code)
    if c.kind == rules.Kind.NUMBER and c.suit:
        css = _SUIT_CLASS[c.suit]
        # The rank, big, over the suit's symbol (static/img/cards/, drawn by the CSS).
        face = format_html('<span class="card__face">{}</span>', c.rank)
        label = suit_name(c.suit)
    else:
        css = f"{_KIND_CLASS[c.kind]} card--special"
        face = SafeString("")
        label = kind_name(c.kind)
    classes = f"card card--{css}" + (f" card--{size}" if size else "")
    as_label = ""
    if as_ == rules.PIRATE:
        as_label = _("as pirate")
    elif as_ == rules.ESCAPE:
        as_label = _("as escape")
    as_part = format_html('<span class="card__as">{}</span>', as_label) if as_label else ""
    # The suit's symbol is drawn by the CSS (.card::before).
    # A numbered card (or a played Tigress) is an image named by the card's name: also
    # inside a hand's button, whose accessible name ("Play Green 14") must then contain
    # the tile's name, not its face and label read apart ("14 Green"; axe's
    # label-content-name-mismatch). A special card's label alone already reads as its
    # name ("Pirate"): it needs no name of its own.
    named = (
        format_html(' role="img" aria-label="{}"', card_name(c.code, as_))
        if face or as_label
        else ""
    )
    # The label comes before the rank in the markup and the CSS draws the rank on top
    # (flex order; the space between them is not drawn in a flex box): the text reads
    # "Green 14" as the card's name does, so a button's "Play Green 14" contains it.
    # axe 4.14's label-content-name-mismatch reads the text, not the tile's name: the
    # rank first ("14Green") failed it (issue 49).
    return format_html(
        '<span class="{}" data-card="{}"{}{}><span class="card__label">{}</span> {}{}</span>',
        classes,
        c.code,
        format_html(' data-as="{}"', as_) if as_label else "",
        named,
        label,
        face,
        as_part,
    )


@register.filter
def cardname(code: str, as_: str = "") -> str:
    return card_name(code, as_)


def play_label(code: str, as_: str = "") -> str:
    """What a playable card's control says, in words: "Play Green 14", "Play the
    Tigress as a pirate". It contains the card's own visible name (axe's
    label-content-name-mismatch), so speech input can say what the eye reads."""
    if code == "TIG" and as_ == rules.PIRATE:
        return _("Play the Tigress as a pirate")
    if code == "TIG" and as_ == rules.ESCAPE:
        return _("Play the Tigress as an escape")
    if code == "TIG":
        return _("Play the Tigress")
    return _("Play %(card)s") % {"card": card_name(code)}


@per_language
def hand_button(code: str, playable: bool, needs_choice: bool, why_not_id: str = "") -> SafeString:
    """One card of a hand: a button of the hand's form (games/regions/hand.jinja), or a
    disabled tile. The Tigress opens a choice whose two buttons send "TIG:pirate" or
    "TIG:escape". Nothing here depends on the table or its version, so each card's
    markup is made once per language and reused by every hand that holds it.

    A disabled card is named by its tile ("Green 14"); being disabled says it cannot
    be played now. ``why_not_id``: on your turn, the id of the sentence under the hand
    saying why (R5), which describes it, so a screen reader says the reason with the
    card.

    Each control has an id of its card ("play-G14"): a morphing swap
    (static/vendor/idiomorph) then keeps the same element, with its focus, for the
    same card when a push re-renders the hand.
    """
    face = card(code)
    # The buttons are in the hand's form, and a button's type is "submit" by default:
    # neither is spelled out, as a 10-card hand sends them ten times a push.
    if not playable:
        return format_html(
            '<button id="play-{}" class="card-button" disabled{}>{}</button>',
            code,
            format_html(' aria-describedby="{}"', why_not_id) if why_not_id else "",
            face,
        )
    if not needs_choice:
        return format_html(
            '<button id="play-{}" name="card" value="{}" class="card-button"'
            ' aria-label="{}">{}</button>',
            code,
            code,
            play_label(code),
            face,
        )
    choice = format_html_join(
        "",
        '<button name="card" value="{}:{}" class="button" aria-label="{}">{}</button>',
        (
            (code, rules.PIRATE, play_label(code, rules.PIRATE), _("As a pirate")),
            (code, rules.ESCAPE, play_label(code, rules.ESCAPE), _("As an escape")),
        ),
    )
    return format_html(
        '<details class="tigress-choice" id="tigress-choice">'
        '<summary role="button" id="play-{}" class="card-button" aria-label="{}">{}</summary>'
        '<div class="tigress-choice__form"><p>{}</p>{}</div>'
        "</details>",
        code,
        play_label(code),
        face,
        _("Pirate or escape?"),
        choice,
    )


@per_language
def hook_button(code: str, needs_choice: bool, hooked: bool, hooked_as: str = "") -> SafeString:
    """One card of a hand while others play (issue 49, seed 002's hook): a tap hooks it,
    to be played for you when your turn comes if it is allowed then (R5); a tap on the
    hooked card unhooks it (it sends ""), a tap on another moves the hook
    (games.play.actions.preselect_card). The Tigress asks pirate or escape first, as
    when it is played (R1); hooked, it shows the choice and unhooks like any card.

    The button is named by what it shows (the card's tile, and "hooked" on the hooked
    one: no aria-label that could differ from the visible text, WCAG 2.5.3) and says
    its state with aria-pressed. Its id ("hook-G14") and field ("hook") differ from a
    playable card's ("play-G14", "card"), so what a page offers to play now is told
    apart from what it offers to hook.
    """
    if hooked:
        return format_html(
            '<button id="hook-{}" name="hook" value="" class="hook-button" aria-pressed="true">'
            '{}<span class="hook-mark">{}</span></button>',
            code,
            card(code, as_=hooked_as),
            _("hooked"),
        )
    if not needs_choice:
        return format_html(
            '<button id="hook-{}" name="hook" value="{}" class="hook-button"'
            ' aria-pressed="false">{}</button>',
            code,
            code,
            card(code),
        )
    choice = format_html_join(
        "",
        '<button name="hook" value="{}:{}" class="button">{}</button>',
        ((code, rules.PIRATE, _("As a pirate")), (code, rules.ESCAPE, _("As an escape"))),
    )
    return format_html(
        '<details class="tigress-choice" id="tigress-choice">'
        '<summary role="button" id="hook-{}" class="hook-button" aria-pressed="false">{}</summary>'
        '<div class="tigress-choice__form"><p>{}</p>{}</div>'
        "</details>",
        code,
        card(code),
        _("Pirate or escape?"),
        choice,
    )
