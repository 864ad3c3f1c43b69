"""Defects found by a review and a black-box run (issue 15), each pinned by a test.

Every test here failed before its fix.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from games import actions
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
