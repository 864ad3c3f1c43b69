"""The table's POST forms, parsed by django.forms: what a field may hold, not what a move may be.

Legality (whose turn, which bid, which card) is the actions' and the engine's
business; these forms only turn the posted strings into values, and refuse
anything that is not one with a message (a 400 by games.play.views).
"""

from __future__ import annotations

import re
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from games import rules
from games.models import MAX_SEATS, TURN_CLOCK_CHOICES, ComputerLevel

ASCII_INTEGER = re.compile(r"-?[0-9]{1,12}")
NO_NUL = {"null_characters_not_allowed": _("Invalid characters in the form.")}


class WholeNumberField(forms.IntegerField):
    """ASCII digits only: int() also reads "٣" and "١٢", Django's IntegerField with it."""

    def __init__(self, what: str, **kwargs: Any) -> None:
        message = _("%(what)s must be a whole number.") % {"what": what}
        messages = {"invalid": message, "required": message}
        super().__init__(error_messages=messages, **kwargs)

    def to_python(self, value: Any) -> int | None:
        text = str(value).strip() if value not in self.empty_values else ""
        if "\x00" in text:
            raise ValidationError(NO_NUL["null_characters_not_allowed"], code="null")
        if text and not ASCII_INTEGER.fullmatch(text):
            raise ValidationError(self.error_messages["invalid"], code="invalid")
        return super().to_python(text)


class MoveForm(forms.Form):
    """Every move names the table version it was made at (a stale one is a 409)."""

    version = WholeNumberField("version", min_value=0)


class BidForm(MoveForm):
    # The round's own range (R4: 0..cards dealt) is the action's check.
    value = WholeNumberField("bid", min_value=0, max_value=rules.ROUNDS)


class PlayForm(MoveForm):
    # "G14", or a Tigress play with its choice: "TIG:pirate" (R7).
    card = forms.CharField(max_length=16, strip=True, error_messages=NO_NUL)
    tigress_as = forms.CharField(max_length=8, required=False, error_messages=NO_NUL)

    def play(self) -> tuple[str, str]:
        """(card code, Tigress choice or "")."""
        card, _sep, choice = self.cleaned_data["card"].partition(":")
        return card, self.cleaned_data["tigress_as"] or choice


class PreselectForm(PlayForm):
    # The card to play when the turn comes; empty clears the choice.
    card = forms.CharField(max_length=16, strip=True, required=False, error_messages=NO_NUL)
    # What the hand's hook buttons send (a tap on a card while others play, issue 49):
    # the card ("G14", "TIG:pirate"), or "" from the hooked card itself, to unhook it.
    # A field of its own, so that "card" in a page stays what is playable now.
    hook = forms.CharField(max_length=16, strip=True, required=False, error_messages=NO_NUL)

    def play(self) -> tuple[str, str]:
        field = "hook" if "hook" in self.data else "card"
        card, _sep, choice = self.cleaned_data[field].partition(":")
        return card, self.cleaned_data["tigress_as"] or choice


class ComputerForm(MoveForm):
    """The host seats a computer player of a level (issue 48)."""

    level = forms.ChoiceField(
        choices=ComputerLevel.choices,
        error_messages={
            "required": _("Choose the computer player's level: Easy, Normal or Strong."),
            "invalid_choice": _("Choose the computer player's level: Easy, Normal or Strong."),
        },
    )


class SeatForm(MoveForm):
    """A control that acts on one seat: a computer player to remove, an away seat to hand over."""

    seat = WholeNumberField("seat", min_value=1)


class PracticeForm(forms.Form):
    """A practice game: how many computer players, and how strong (issue 48)."""

    computers = WholeNumberField("computers", min_value=1, max_value=MAX_SEATS - 1)
    level = ComputerForm.base_fields["level"]


class NewTableForm(forms.Form):
    """A new table's options: the ghost (R8) and the turn clock (issue 48)."""

    ghost = forms.BooleanField(required=False)
    turn_clock = forms.TypedChoiceField(
        choices=TURN_CLOCK_CHOICES,
        coerce=int,
        required=False,
        empty_value=0,
        error_messages={"invalid_choice": _("Choose a turn clock from the list.")},
    )
