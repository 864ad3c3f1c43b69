"""The score sheet's forms, parsed by django.forms.

A field is refused here when it cannot be a value at all, or is out of the range
its own form shows (a bid above the cards dealt posted beside it); what depends on
the saved sheet (the version, the order of the rounds, a round's captures as a
whole) is games.sheets.actions' business, in its transaction.

Field names: ``bid-<position>`` on the bids form, ``<what>-<position>`` on the
results form (``tricks-2``, ``colour_14s-2``, ..., ``other-2``), position 1..8 in
seating order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from games import rules
from games.play.forms import NO_NUL, WholeNumberField

from .models import FULL_GAME, MAX_PLAYERS, NAME_MAX, SHORT_GAME, SheetPlayer

#: The most cards a round can deal to each player: the deck shared out (R1, R2).
DECK_SIZE = len(rules.DECK)

#: The capture counts of the results form, in the seed's order: (field, label, most).
CAPTURE_FIELDS: tuple[tuple[str, Any, int], ...] = (
    ("colour_14s", _("Non-black 14s (+10 each)"), rules.CAPTURE_LIMITS.colour_14s),
    ("black_14", _("Black 14 (+20)"), rules.CAPTURE_LIMITS.black_14),
    (
        "mermaids_by_pirate",
        _("Mermaids captured with a Pirate (+20 each)"),
        rules.CAPTURE_LIMITS.mermaids_by_pirate,
    ),
    (
        "pirates_by_skull_king",
        _("Pirates captured with the Skull King (+30 each)"),
        rules.CAPTURE_LIMITS.pirates_by_skull_king,
    ),
    (
        "skull_king_by_mermaid",
        _("Skull King captured with a Mermaid (+40)"),
        rules.CAPTURE_LIMITS.skull_king_by_mermaid,
    ),
)
OTHER_MOST = 1000  # an "other bonus" beyond this is a typing slip


def most_cards(players: int) -> int:
    return DECK_SIZE // players


class Count(WholeNumberField):
    """A whole number with messages that say whose and what, in its range."""

    def __init__(self, message: Any, *, low: int, high: int, **kwargs: Any) -> None:
        super().__init__("", min_value=low, max_value=high, **kwargs)
        for code in ("invalid", "required", "min_value", "max_value"):
            self.error_messages[code] = message


def _message(template: Any, **params: Any) -> str:
    return str(template) % params


class SheetCreateForm(forms.Form):
    """Who plays, in seating order (a registered player by name, or a guest), and how long."""

    KIND_USER = "user"
    KIND_GUEST = "guest"
    KINDS = [(KIND_USER, _("Registered player")), (KIND_GUEST, _("Guest"))]

    rounds = forms.TypedChoiceField(
        choices=[
            (FULL_GAME, _("10 rounds")),
            (SHORT_GAME, pgettext_lazy("sheet", "Short game: 5 rounds")),
        ],
        coerce=int,
        initial=FULL_GAME,
        widget=forms.RadioSelect,
        error_messages={
            "required": _("Choose 10 rounds or a short game of 5."),
            "invalid_choice": _("Choose 10 rounds or a short game of 5."),
        },
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for position in range(1, MAX_PLAYERS + 1):
            self.fields[f"kind-{position}"] = forms.ChoiceField(
                choices=self.KINDS,
                initial=self.KIND_USER,
                required=False,
                error_messages={"invalid_choice": _("Choose a registered player or a guest.")},
            )
            self.fields[f"name-{position}"] = forms.CharField(
                max_length=NAME_MAX,
                required=False,
                strip=True,
                error_messages={
                    **NO_NUL,
                    "max_length": _("A name has at most %(limit_value)d characters."),
                },
            )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        players: list[tuple[str, str]] = []
        for position in range(1, MAX_PLAYERS + 1):
            name = data.get(f"name-{position}") or ""
            if name:
                players.append((data.get(f"kind-{position}") or self.KIND_USER, name))
        data["players"] = players
        return data

    def rows(self) -> list[tuple[int, forms.BoundField, forms.BoundField]]:
        return [
            (position, self[f"kind-{position}"], self[f"name-{position}"])
            for position in range(1, MAX_PLAYERS + 1)
        ]


@dataclass(frozen=True)
class ResultLine:
    tricks: int
    captures: rules.Captures
    other: int


class _RoundForm(forms.Form):
    version = WholeNumberField("version", min_value=0)
    # The sheet's own number of rounds is the action's check (with a clear message).
    round = WholeNumberField("round", min_value=1, max_value=99)

    def __init__(self, players: Sequence[SheetPlayer], *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.players = list(players)

    def messages(self) -> list[str]:
        """Every error, once each, in the form's order."""
        seen: list[str] = []
        for errors in self.errors.values():
            for error in errors:
                if error not in seen:
                    seen.append(str(error))
        return seen


class BidsForm(_RoundForm):
    """Before the round: the cards dealt and each player's bid (R4: 0..cards dealt)."""

    def __init__(self, players: Sequence[SheetPlayer], *args: Any, **kwargs: Any) -> None:
        super().__init__(players, *args, **kwargs)
        most = most_cards(len(self.players))
        self.fields["cards"] = Count(
            _message(_("The cards dealt must be a whole number from 1 to %(most)s."), most=most),
            low=1,
            high=most,
        )
        for player in self.players:
            self.fields[f"bid-{player.position}"] = Count(
                _message(
                    _("%(name)s's bid must be a whole number from 0 to the cards dealt."),
                    name=player.name,
                ),
                low=0,
                high=most,
            )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        cards = data.get("cards")
        if cards is None:
            return data
        for player in self.players:
            bid = data.get(f"bid-{player.position}")
            if bid is not None and bid not in rules.valid_bids(cards):
                self.add_error(
                    f"bid-{player.position}",
                    _message(
                        _("%(name)s's bid must be from 0 to %(cards)s, the cards dealt."),
                        name=player.name,
                        cards=cards,
                    ),
                )
        return data

    def bid_fields(self) -> list[tuple[SheetPlayer, forms.BoundField]]:
        return [(p, self[f"bid-{p.position}"]) for p in self.players]

    def bids(self) -> dict[int, int]:
        """Player position -> bid."""
        return {p.position: self.cleaned_data[f"bid-{p.position}"] for p in self.players}


class ResultsForm(_RoundForm):
    """After the round: each player's tricks won and captures (counts), and other bonus."""

    def __init__(
        self, players: Sequence[SheetPlayer], *args: Any, cards: int | None = None, **kwargs: Any
    ) -> None:
        super().__init__(players, *args, **kwargs)
        self.cards = cards
        most = most_cards(len(self.players))
        for player in self.players:
            pos, name = player.position, player.name
            self.fields[f"tricks-{pos}"] = Count(
                _message(
                    _("%(name)s's tricks won must be a whole number from 0 to the cards dealt."),
                    name=name,
                ),
                low=0,
                high=most,
            )
            for field, label, high in CAPTURE_FIELDS:
                self.fields[f"{field}-{pos}"] = Count(
                    _message(
                        _("%(name)s: “%(what)s” must be a whole number from 0 to %(most)s."),
                        name=name,
                        what=label,
                        most=high,
                    ),
                    low=0,
                    high=high,
                    required=False,
                )
            self.fields[f"other-{pos}"] = Count(
                _message(
                    _("%(name)s's other bonus must be a whole number from -%(most)s to %(most)s."),
                    name=name,
                    most=OTHER_MOST,
                ),
                low=-OTHER_MOST,
                high=OTHER_MOST,
                required=False,
            )

    def player_fields(self) -> list[dict[str, Any]]:
        """Per player: its tricks field, its capture fields with their labels, other bonus."""
        rows = []
        for p in self.players:
            pos = p.position
            captures = [(self[f"{f}-{pos}"], label) for f, label, _high in CAPTURE_FIELDS]
            other = self[f"other-{pos}"]
            has_bonus = any(_nonzero(bound.value()) for bound, _label in captures) or _nonzero(
                other.value()
            )
            rows.append(
                {
                    "player": p,
                    "tricks": self[f"tricks-{pos}"],
                    "captures": captures,
                    "other": other,
                    "open": has_bonus
                    or any(bound.errors for bound, _l in captures)
                    or other.errors,
                }
            )
        return rows

    def lines(self) -> dict[int, ResultLine]:
        """Player position -> what was entered (empty bonus fields are 0)."""
        data = self.cleaned_data
        result = {}
        for p in self.players:
            pos = p.position
            counts = {f: data.get(f"{f}-{pos}") or 0 for f, _label, _high in CAPTURE_FIELDS}
            result[pos] = ResultLine(
                tricks=data[f"tricks-{pos}"],
                captures=rules.Captures(**counts),
                other=data.get(f"other-{pos}") or 0,
            )
        return result


def _nonzero(value: Any) -> bool:
    return value not in (None, "", "0", 0)
