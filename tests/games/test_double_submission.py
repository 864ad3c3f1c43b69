"""The same move posted twice (same version): exactly one is applied, the other gets 409.

The sequential tests run everywhere. The threaded ones need real row locks
(select_for_update) and run on PostgreSQL only, which CI uses.
"""

from __future__ import annotations

import random
import threading
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from django.db import close_old_connections, connection

from games import rules
from games.models import Bid, HandCard, Play, Table, Trick
from games.play import actions

from .helpers import assert_refused, at_phase, bid_all, fresh, play_until, started_table
from .helpers import state_of as load

pytestmark = pytest.mark.django_db

THREADS = 8

postgresql_only = pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason=(
        "real concurrency needs PostgreSQL row locks; set "
        "DATABASE_URL=postgres://... to run it (CI does)"
    ),
)


def first_legal(table: Table) -> tuple[Any, str, str]:
    state = load(table)
    seat = state.seat_to_play()
    code = min(state.legal_cards(seat), key=lambda c: rules.card(c).index)
    return seat.user, code, ("pirate" if code == "TIG" else "")


# -- the same POST twice, one after the other ---------------------------------------------


def test_double_bid_one_applied_one_409() -> None:
    table, users = started_table(3)
    applied = actions.place_bid(users[0], table.pk, table.version, 1)
    assert_refused(409, actions.place_bid, users[0], table.pk, table.version, 1)
    assert applied.version == table.version + 1
    assert Bid.objects.filter(round__table=table).count() == 1


def test_double_play_one_applied_one_409() -> None:
    table, _ = started_table(3)
    table = bid_all(table, 0)
    user, code, choice = first_legal(table)
    actions.play_card(user, table.pk, table.version, code, choice)
    assert_refused(409, actions.play_card, user, table.pk, table.version, code, choice)
    assert Play.objects.filter(round__table=table).count() == 1


def test_double_next_trick_one_applied_one_409() -> None:
    table, users = started_table(2, ghost=False, seed=3)
    table = play_until(table, random.Random(3), at_phase(Table.Phase.TRICK_DONE))
    actions.next_trick(users[0], table.pk, table.version)
    assert_refused(409, actions.next_trick, users[0], table.pk, table.version)
    assert Trick.objects.filter(round__table=table, round__number=table.round_number).count() == 2


def test_double_next_round_one_applied_one_409() -> None:
    table, users = started_table(2, ghost=False, seed=3)
    table = play_until(table, random.Random(3), at_phase(Table.Phase.ROUND_DONE))
    actions.next_round(users[0], table.pk, table.version)
    assert_refused(409, actions.next_round, users[0], table.pk, table.version)
    assert fresh(table).round_number == 2


def test_double_start_one_applied_one_409() -> None:
    table, users = started_table(2)
    assert_refused(409, actions.start_game, users[0], table.pk, table.version - 1)
    assert_refused(409, actions.start_game, users[0], table.pk, table.version)
    assert HandCard.objects.filter(round__table=table).count() == 3  # one deal only


# -- real concurrency (PostgreSQL) ---------------------------------------------------------


def race(calls: list[Callable[[], Any]]) -> Counter[Any]:
    """Run the calls in threads released at once; count outcomes (ok / ActionError status)."""
    barrier = threading.Barrier(len(calls))
    outcomes: list[Any] = []
    lock = threading.Lock()

    def run(call: Callable[[], Any]) -> None:
        try:
            barrier.wait(timeout=10)
            try:
                call()
                outcome: Any = "ok"
            except actions.ActionError as error:
                outcome = error.status
            except Exception as error:  # anything else is a bug: report it
                outcome = f"{type(error).__name__}: {error}"
            with lock:
                outcomes.append(outcome)
        finally:
            close_old_connections()
            connection.close()

    threads = [threading.Thread(target=run, args=(call,)) for call in calls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(t.is_alive() for t in threads), "a thread hung (deadlock?)"
    return Counter(outcomes)


@postgresql_only
@pytest.mark.django_db(transaction=True)
def test_concurrent_same_bid_exactly_one_applied() -> None:
    table, users = started_table(3)
    version = table.version
    outcome = race(
        [lambda: actions.place_bid(users[0], table.pk, version, 1) for _ in range(THREADS)]
    )
    assert outcome == Counter({"ok": 1, 409: THREADS - 1})
    assert Bid.objects.filter(round__table=table).count() == 1
    assert fresh(table).version == version + 1


@postgresql_only
@pytest.mark.django_db(transaction=True)
def test_r4_concurrent_bids_of_different_players_all_count_once() -> None:
    """Everyone bids at once on the same version (R4: bidding is simultaneous):
    each player's bid is applied exactly once; their double clicks get 409."""
    table, users = started_table(3)
    version = table.version
    calls = [
        (lambda user=user: actions.place_bid(user, table.pk, version, 0))
        for user in users
        for _ in range(3)
    ]
    outcome = race(calls)
    assert outcome == Counter({"ok": len(users), 409: len(calls) - len(users)})
    assert Bid.objects.filter(round__table=table).count() == len(users)
    assert fresh(table).version == version + len(users)


@postgresql_only
@pytest.mark.django_db(transaction=True)
def test_concurrent_same_play_exactly_one_applied() -> None:
    table, _ = started_table(3)
    table = bid_all(table, 0)
    user, code, choice = first_legal(table)
    version = table.version
    outcome = race(
        [lambda: actions.play_card(user, table.pk, version, code, choice) for _ in range(THREADS)]
    )
    assert outcome == Counter({"ok": 1, 409: THREADS - 1})
    plays = Play.objects.filter(round__table=table)
    assert list(plays.values_list("card", flat=True)) == [code]
    assert HandCard.objects.filter(round__table=table, played=True).count() == 1
    state = load(table)
    assert state.table.version == version + 1
    assert len(state.plays) == 1


@postgresql_only
@pytest.mark.django_db(transaction=True)
def test_concurrent_same_play_with_the_ghost_exactly_one_applied() -> None:
    table, _ = started_table(2, ghost=True)
    table = bid_all(table, 0)
    user, code, choice = first_legal(table)
    version = table.version
    outcome = race(
        [lambda: actions.play_card(user, table.pk, version, code, choice) for _ in range(THREADS)]
    )
    assert outcome == Counter({"ok": 1, 409: THREADS - 1})
    # the human's card and the ghost's automatic answer, once each
    assert Play.objects.filter(round__table=table).count() == 2
    assert Play.objects.filter(round__table=table, seat__isnull=True).count() == 1


@postgresql_only
@pytest.mark.django_db(transaction=True)
def test_concurrent_next_trick_exactly_one_applied() -> None:
    table, users = started_table(2, ghost=False, seed=3)
    table = play_until(table, random.Random(3), at_phase(Table.Phase.ROUND_DONE, 1))
    table = actions.next_round(users[0], table.pk, table.version)
    table = play_until(table, random.Random(4), at_phase(Table.Phase.TRICK_DONE, 2))
    version = table.version
    outcome = race(
        [lambda: actions.next_trick(users[0], table.pk, version) for _ in range(THREADS)]
    )
    assert outcome == Counter({"ok": 1, 409: THREADS - 1})
    assert Trick.objects.filter(round__table=table, round__number=2).count() == 2


@postgresql_only
@pytest.mark.django_db(transaction=True)
def test_concurrent_joins_never_overfill_or_duplicate_positions() -> None:
    from .helpers import make_users, seated_table

    table, _ = seated_table(2)
    newcomers = make_users(8, "newcomer")
    outcome = race(
        [lambda user=user: actions.join_table(user, table.invite_token) for user in newcomers]
    )
    assert outcome == Counter({"ok": 6, 409: 2})
    positions = sorted(fresh(table).seats.values_list("position", flat=True))
    assert positions == list(range(1, 9))
