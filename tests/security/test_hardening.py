"""Defects found by a review and a black-box run (issue 15), each pinned by a test.

Every test here failed before its fix.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest
from django.apps import apps
from django.db import IntegrityError
from django.test import Client
from django.urls import reverse

from games import actions, integrity, rules
from games.models import Table
from tests.games.helpers import assert_refused, fresh, seated_table, snapshot, started_table

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


def client_for(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


# ---------------------------------------------------------------------------
# R11: leaving a game in progress cancels it, but only when the leaver confirmed that
# ---------------------------------------------------------------------------


def test_r11_leaving_a_game_in_progress_needs_the_confirmation_in_the_action() -> None:
    table, users = started_table(3, ghost=False)
    assert_refused(409, actions.leave_table, users[1], table.pk)
    left = actions.leave_table(users[1], table.pk, confirmed=True)
    assert left.status == Table.Status.CANCELLED
    assert left.cancelled_by == users[1]


def _start_just_before_leaving(monkeypatch: pytest.MonkeyPatch, host: Any) -> None:
    """The host's "Start" wins the row lock between the leaver's page and their "Leave"."""
    leave = actions.leave_table

    def racing(user: Any, table_id: int, **kwargs: Any) -> Table:
        actions.start_game(host, table_id, fresh(table_id).version)
        return leave(user, table_id, **kwargs)

    monkeypatch.setattr(actions, "leave_table", racing)


@pytest.mark.parametrize("headers", [{}, HTMX], ids=["plain", "htmx"])
def test_r11_a_plain_leave_that_loses_the_race_to_the_start_cancels_nothing(
    monkeypatch: pytest.MonkeyPatch, headers: dict[str, str]
) -> None:
    table, (anne, bert, _cleo) = seated_table(3)
    _start_just_before_leaving(monkeypatch, anne)
    response = client_for(bert).post(reverse("leave_table", args=[table.pk]), **headers)
    assert response.status_code == 409
    assert "cancelled for everyone" in response.content.decode()
    started = fresh(table)
    assert started.status == Table.Status.PLAYING
    assert started.seats.filter(user=bert).exists()


def test_r11_an_unconfirmed_leave_of_a_game_in_progress_asks_and_changes_nothing() -> None:
    table, (_anne, bert, _cleo) = started_table(3, ghost=False)
    before = snapshot()
    response = client_for(bert).post(reverse("leave_table", args=[table.pk]))
    assert response.status_code == 409
    assert 'name="confirm" value="yes"' in response.content.decode()
    assert snapshot() == before


# ---------------------------------------------------------------------------
# A database constraint: a lost race is a 409, anything else is a logged bug
# ---------------------------------------------------------------------------


def test_r4_a_bid_that_lost_the_race_to_its_twin_is_a_409_without_an_error_log(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    table, users = started_table(3, ghost=False)
    actions.place_bid(users[0], table.pk, table.version, 0)
    real_load_state = actions.load_state

    def without_bids(locked: Table) -> Any:
        # As if the twin request's bid had been committed after this one's checks.
        state = real_load_state(locked)
        state.bids = {}
        return state

    monkeypatch.setattr(actions, "load_state", without_bids)
    message = assert_refused(409, actions.place_bid, users[0], table.pk, table.version, 1)
    assert message == "That move was already made."
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


def test_a_constraint_that_no_race_explains_is_logged_and_raised(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    table, users = seated_table(3)
    real_deal = rules.deal

    def broken_deal(*args: Any) -> rules.Deal:
        # A bug: the same card dealt twice (handcard_unique_card), not a double submission.
        dealt = real_deal(*args)
        first = dealt.hands[0]
        return rules.Deal(hands=((first[0], first[0]), *dealt.hands[1:]), ghost_hand=())

    monkeypatch.setattr(rules, "deal", broken_deal)
    before = snapshot()
    with caplog.at_level(logging.ERROR, logger="games.actions"), pytest.raises(IntegrityError):
        actions.start_game(users[0], table.pk, table.version)
    assert snapshot() == before
    (record,) = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert record.name == "games.actions"
    assert "start_game" in record.getMessage()
    assert record.exc_info is not None


def test_every_lost_race_constraint_exists_on_the_models() -> None:
    names = {
        constraint.name
        for model in apps.get_app_config("games").get_models()
        for constraint in model._meta.constraints
    }
    assert names >= integrity.LOST_RACE_CONSTRAINTS
    assert "handcard_unique_card" not in integrity.LOST_RACE_CONSTRAINTS  # a deal bug, no race
