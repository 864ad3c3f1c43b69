"""Defects found by a review and a black-box run (issue 15), each pinned by a test.

Every test here failed before its fix.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

import pytest
from django.apps import apps
from django.db import IntegrityError, close_old_connections, connection, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from games import rules
from games.models import Table
from games.play import actions, integrity
from tests.games.helpers import assert_refused, fresh, seated_table, snapshot, started_table

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}

postgresql_only = pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="real row locks need PostgreSQL; set DATABASE_URL=postgres://... to run it (CI does)",
)


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

    def without_bids(locked: Table, seats: Any = None) -> Any:
        # As if the twin request's bid had been committed after this one's checks.
        state = real_load_state(locked, seats)
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
    with caplog.at_level(logging.ERROR, logger="games.play.actions"), pytest.raises(IntegrityError):
        actions.start_game(users[0], table.pk, table.version)
    assert snapshot() == before
    (record,) = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert record.name == "games.play.actions"
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


# ---------------------------------------------------------------------------
# R11 chat: it changes no game row, so it takes no table lock
# ---------------------------------------------------------------------------


def test_r11_chat_takes_no_table_lock_and_one_insert(
    django_assert_num_queries: Any,
) -> None:
    table, users = started_table(3, ghost=False)
    with CaptureQueriesContext(connection) as queries:
        actions.post_chat(users[1], table.pk, "ahoy")
    sql = [q["sql"].upper() for q in queries.captured_queries]
    assert not [s for s in sql if "FOR UPDATE" in s or "SAVEPOINT" in s]
    # the table and the seat in one read, the message in one insert
    with django_assert_num_queries(2):
        actions.post_chat(users[1], table.pk, "ahoy again")


def test_r11_a_flooded_chat_is_refused_before_any_transaction() -> None:
    table, users = started_table(3, ghost=False)
    for number in range(actions.CHAT_BURST):
        actions.post_chat(users[1], table.pk, f"message {number}")
    before = snapshot()
    with CaptureQueriesContext(connection) as queries:
        assert_refused(429, actions.post_chat, users[1], table.pk, "one too many")
    sql = [q["sql"].upper() for q in queries.captured_queries]
    assert not [s for s in sql if "SAVEPOINT" in s or "INSERT" in s or "FOR UPDATE" in s], sql
    assert snapshot() == before


@postgresql_only
@pytest.mark.django_db(transaction=True)
def test_r11_chat_goes_through_while_a_move_holds_the_table_lock() -> None:
    table, users = started_table(3, ghost=False)
    locked, release = threading.Event(), threading.Event()

    def hold_the_lock() -> None:
        try:
            with transaction.atomic():
                actions._lock(table.pk)  # the lock every move holds for its transaction
                locked.set()
                release.wait(timeout=10)
        finally:
            close_old_connections()

    holder = threading.Thread(target=hold_the_lock)
    holder.start()
    try:
        assert locked.wait(timeout=10)
        with connection.cursor() as cursor:
            cursor.execute("SET lock_timeout = '2s'")  # a lock wait fails instead of hanging
        actions.post_chat(users[1], table.pk, "still here")
    finally:
        release.set()
        holder.join()
    assert table.messages.filter(text="still here").exists()
