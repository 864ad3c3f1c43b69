"""An action's transaction on PostgreSQL (games.storage.transactions): BEGIN with its first
statement, COMMIT with its last writes, and the move's frames rendered once it has
committed. Nothing of that may change what is saved or sent: a refused
write commits nothing, and every seat still gets its frame (R4: its own)."""

from __future__ import annotations

import threading
from typing import Any
from unittest import mock

import pytest
from django.db import DatabaseError, connection, transaction

from games.live import broadcast
from games.models import Play, Trick
from games.play import actions
from games.play.state import load_state
from games.storage import presence
from games.storage.compiled_writes import save_fields
from games.storage.transactions import NO_ROW
from games.storage.transactions import action_transaction as one_transaction

from .helpers import bid_all, fresh, started_table
from .test_queries import BATCHED

#: What opens a move's transaction, in the string of its first statement: BEGIN, its
#: bounds (a lock waited for 2 s at most), its id (in case the COMMIT's answer is lost).
OPENING = (
    "BEGIN; SET LOCAL lock_timeout = 2000; SET LOCAL statement_timeout = 5000; "
    "SELECT pg_current_xact_id(); SELECT"
)


def _committed() -> bool:
    """Whether this thread's connection is outside any transaction (its last one
    committed or rolled back), its answers all read."""
    raw = connection.connection
    if connection.vendor != "postgresql" or raw is None:
        return not connection.in_atomic_block
    from psycopg.pq import TransactionStatus

    return bool(raw.info.transaction_status == TransactionStatus.IDLE)


def _statements_of(action: Any, sent: list[tuple[str, str]] | None = None) -> list[tuple[str, str]]:
    """The query strings psycopg sends while ``action()`` runs (after Django's execute
    wrappers, the batch's among them), each with the transaction's status after it;
    ``sent``: the list they go into as they are sent."""
    import psycopg

    sent = [] if sent is None else sent
    execute = psycopg.ClientCursor.execute

    def recording(cursor: Any, query: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return execute(cursor, query, *args, **kwargs)
        finally:
            if str(query):  # not the pool's check of a connection it hands out (empty)
                sent.append((str(query), cursor.connection.info.transaction_status.name))

    with mock.patch.object(psycopg.ClientCursor, "execute", recording):
        action()
    return sent


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(not BATCHED, reason="round trips to PostgreSQL: SQLite runs in the process")
def test_a_play_is_two_round_trips_with_begin_and_commit_in_them() -> None:
    """R5: a card played is the table's lock (with BEGIN) and its writes (with COMMIT)."""
    table, _users = started_table(3, ghost=False)
    state = load_state(bid_all(fresh(table)))
    seat = state.seat_to_play()
    card = str(sorted(state.legal_cards(seat))[0])
    table = state.table
    sent = _statements_of(lambda: actions.play_card(seat.user, table.pk, table.version, card, ""))
    # psycopg sent no BEGIN of its own (the lock's string opens the transaction), and
    # the writes' string closed it: Django's commit found nothing to send.
    (lock, lock_status), *reads, (writes_, status) = sent
    assert lock.startswith(OPENING) and "FOR NO KEY UPDATE" in lock
    assert lock_status == "INTRANS"
    assert all(not sql.startswith(("BEGIN", "COMMIT")) for sql, _status in reads)
    assert "games_play" in writes_ and writes_.endswith("; COMMIT") and status == "IDLE"
    assert len(sent) <= 3  # the lock, the scores (R8, read for the page), the writes
    assert connection.get_autocommit() and connection.connection.autocommit
    # Committed: another transaction reads the play.
    assert Play.objects.filter(round=state.round, card=card).exists()
    assert fresh(table).version == table.version + 1


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(not BATCHED, reason="round trips to PostgreSQL: SQLite runs in the process")
def test_a_new_deal_s_writes_go_with_the_commit_and_its_frames_render_after_it() -> None:
    """R2, R3: "Next round" is the lock (with BEGIN), the round (its key: the hand cards
    refer to it), then the hand cards and the table's new round and phase with the
    COMMIT; the frames render in this thread once it has committed."""
    import random

    from games.testing import driver

    table, users = started_table(3, ghost=False)
    table = driver.play_until(table, random.Random(2), done=driver.at_phase("round_done", 1))
    renders: list[tuple[str, bool]] = []
    sent: list[tuple[str, str]] = []
    render = broadcast._render_for_listeners

    def recorded(*args: Any, **kwargs: Any) -> Any:
        renders.append((threading.current_thread().name, _committed()))
        return render(*args, **kwargs)

    with mock.patch.object(broadcast, "_render_for_listeners", recorded):
        _statements_of(lambda: actions.next_round(users[0], table.pk, table.version), sent)
    (lock, _status), (round_, _), (deal, status) = sent
    assert lock.startswith(OPENING) and "FOR NO KEY UPDATE" in lock
    assert "games_round" in round_ and "COMMIT" not in round_
    assert "games_handcard" in deal and "games_table" in deal and deal.endswith("; COMMIT")
    assert status == "IDLE"
    # Once, in the move's own thread, after the COMMIT (not before it).
    assert renders == [(threading.current_thread().name, True)]
    table = fresh(table)
    assert (table.round_number, table.phase) == (2, "bidding")


@pytest.mark.django_db(transaction=True)
def test_a_write_refused_in_the_commit_s_query_string_commits_nothing() -> None:
    """An update that finds no row stops the COMMIT that goes after it: the version
    written before it is not saved either."""
    table, _users = started_table(2)
    version = fresh(table).version
    with pytest.raises(DatabaseError, match=NO_ROW), one_transaction():
        changed = fresh(table)
        changed.version += 1
        save_fields(changed, ("version",))
        save_fields(Trick(pk=10**9, number=1), ("complete",))
    assert fresh(table).version == version
    assert connection.get_autocommit() and not connection.in_atomic_block


@pytest.mark.django_db(transaction=True)
def test_a_transaction_left_by_an_error_or_marked_for_rollback_commits_nothing() -> None:
    table, _users = started_table(2)
    version = fresh(table).version
    with pytest.raises(RuntimeError), one_transaction():
        changed = fresh(table)
        changed.version += 1
        save_fields(changed, ("version",))
        raise RuntimeError("refused")
    assert fresh(table).version == version
    with one_transaction():
        changed = fresh(table)
        changed.version += 1
        save_fields(changed, ("version",))
        transaction.set_rollback(True)
    assert fresh(table).version == version
    with one_transaction():
        changed = fresh(table)
        changed.version += 1
        save_fields(changed, ("version",))
    assert fresh(table).version == version + 1
    assert connection.execute_wrappers == []


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(not BATCHED, reason="round trips to PostgreSQL: SQLite runs in the process")
def test_a_transaction_that_runs_nothing_sends_nothing() -> None:
    sent = _statements_of(_empty_transaction)
    assert sent == []
    assert connection.get_autocommit() and not connection.in_atomic_block


def _empty_transaction() -> None:
    with one_transaction():
        pass


def _a_play_to_make() -> tuple[list[Any], Any, Any, str]:
    """A 3-player table in play, every seat watching: its users, its state, the seat
    to play and a card it may play."""
    table, users = started_table(3, ghost=False)
    for seat_id in table.seats.values_list("pk", flat=True):
        presence.touch(seat_id, f"test-{seat_id}")
    state = load_state(bid_all(fresh(table)))
    seat = state.seat_to_play()
    return users, state, seat, str(sorted(state.legal_cards(seat))[0])


@pytest.mark.django_db(transaction=True)
def test_a_play_s_frames_rendered_once_it_has_committed_reach_every_seat() -> None:
    """R5: each seat gets its own frame (R4: its user's group alone) with the new
    version, the actor's frame is its answer, and nothing is rendered twice."""
    users, state, seat, card = _a_play_to_make()
    layer = mock.Mock(spec=["publish_many"])
    renders = mock.Mock(wraps=broadcast._render_for_listeners)
    with (
        mock.patch.object(broadcast, "get_channel_layer", return_value=layer),
        mock.patch.object(broadcast, "_render_for_listeners", renders),
        broadcast.collecting(seat.user_id) as answers,
    ):
        table = actions.play_card(seat.user, state.table.pk, state.table.version, card, "")
    assert renders.call_count == 1
    (messages,), _kwargs = layer.publish_many.call_args
    frames_of = {group: message for group, message in messages}
    assert set(frames_of) == {broadcast.user_group(table.pk, user.pk) for user in users}
    for user in users:
        message = frames_of[broadcast.user_group(table.pk, user.pk)]
        assert message["version"] == table.version
        assert f'data-version="{table.version}"' in message["html"]
    assert answers[seat.user_id] == frames_of[broadcast.user_group(table.pk, seat.user_id)]["html"]
    assert Play.objects.filter(card=card, seat=seat).exists()
