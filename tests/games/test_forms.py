"""The POST forms (games.play.forms, django.forms): values in, a message out for anything else."""

from __future__ import annotations

import pytest

from games.play import forms


@pytest.mark.parametrize("number", ["٣", "١٢", "²", "--1", "1.5", "1e3", "", "9" * 13, "1\x00"])
def test_a_version_is_ascii_digits_only(number: str) -> None:
    form = forms.MoveForm({"version": number})
    assert not form.is_valid()
    message = str(form.errors["version"][0])
    assert message in ("version must be a whole number.", "Invalid characters in the form.")


def test_a_bid_is_bounded_by_the_largest_round() -> None:
    """R4: 0..cards dealt, at most 10 (the action checks the round's own range)."""
    assert forms.BidForm({"version": "3", "value": "10"}).is_valid()
    for value in ("11", "-1"):
        assert not forms.BidForm({"version": "3", "value": value}).is_valid()


def test_a_play_splits_the_tigress_choice_and_refuses_nul() -> None:
    """R7: the Tigress's buttons send "TIG:pirate"; a separate field also works."""
    form = forms.PlayForm({"version": "4", "card": "TIG:pirate"})
    assert form.is_valid() and form.play() == ("TIG", "pirate")
    form = forms.PlayForm({"version": "4", "card": "TIG", "tigress_as": "escape"})
    assert form.is_valid() and form.play() == ("TIG", "escape")
    form = forms.PlayForm({"version": "4", "card": "G\x001"})
    assert not form.is_valid()
    assert str(form.errors["card"][0]) == "Invalid characters in the form."
