"""An action's transaction on PostgreSQL (games.transactions): BEGIN with its first
statement, COMMIT with its last writes, and the move's frames rendered while the
COMMIT is on its way. Nothing of that may change what is saved or sent: a refused
write commits nothing, and every seat still gets its frame (R4: its own)."""

from __future__ import annotations

import threading
import time
from typing import Any
from unittest import mock

import pytest
from django.db import DatabaseError, connection, transaction

from games import actions, broadcast, presence
from games.compiled_writes import save_fields
from games.models import Play, Trick
from games.state import load_state
from games.transactions import NO_ROW, while_committing
from games.transactions import action_transaction as one_transaction

from .helpers import bid_all, fresh, started_table
from .test_queries import BATCHED


def _commit_on_its_way() -> bool:
    """Whether this thread's connection has a query out whose answer it has not read
    (PostgreSQL: the COMMIT's string, while the frames render)."""
    raw = connection.connection
    if connection.vendor != "postgresql" or raw is None:
        return False
    from psycopg.pq import TransactionStatus

    return bool(raw.info.transaction_status == TransactionStatus.ACTIVE)


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
    assert lock.startswith("BEGIN; SELECT") and "FOR NO KEY UPDATE" in lock
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
def test_a_new_deal_s_writes_go_with_the_commit_while_its_frames_render() -> None:
    """R2, R3: "Next round" is the lock (with BEGIN), the round (its key: the hand cards
    refer to it), then the hand cards and the table's new round and phase with the
    COMMIT; the frames render in this thread while that string is on its way."""
    import random

    from games.testing import driver

    table, users = started_table(3, ghost=False)
    table = driver.play_until(table, random.Random(2), done=driver.at_phase("round_done", 1))
    renders: list[tuple[str, bool]] = []
    sent: list[tuple[str, str]] = []
    render = broadcast._render_for_listeners

    def recorded(*args: Any, **kwargs: Any) -> Any:
        renders.append((threading.current_thread().name, _commit_on_its_way()))
        return render(*args, **kwargs)

    with mock.patch.object(broadcast, "_render_for_listeners", recorded):
        _statements_of(lambda: actions.next_round(users[0], table.pk, table.version), sent)
    (lock, _status), (round_, _), (deal, status) = sent
    assert lock.startswith("BEGIN; SELECT") and "FOR NO KEY UPDATE" in lock
    assert "games_round" in round_ and "COMMIT" not in round_
    assert "games_handcard" in deal and "games_table" in deal and deal.endswith("; COMMIT")
    assert status == "IDLE"
    # Once, in the move's own thread, while the COMMIT was on its way (not before it).
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


# -- work that overlaps the COMMIT ----------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_work_registered_in_a_transaction_gives_its_result_once_committed() -> None:
    """On PostgreSQL it runs while the COMMIT is on its way (sent, its answer not yet
    read); on SQLite where the commit is. Either way in the action's own thread, and
    its result is there for the on-commit hooks."""
    table, _users = started_table(2)
    ran_in: list[tuple[str, bool]] = []
    seen: list[int] = []

    def work() -> int:
        ran_in.append((threading.current_thread().name, _commit_on_its_way()))
        return 42

    with one_transaction():
        changed = fresh(table)
        changed.version += 1
        save_fields(changed, ("version",))
        result = while_committing(work)
        transaction.on_commit(lambda: seen.append(result()))
        assert ran_in == []  # not before the action's code is done
    assert seen == [42]
    assert ran_in == [(threading.current_thread().name, BATCHED)]


@pytest.mark.django_db(transaction=True)
def test_a_refused_commit_hands_out_nothing_and_leaves_no_work_running() -> None:
    """On PostgreSQL the work runs beside a COMMIT that the database then refuses:
    it is over before the error comes out, and no on-commit hook sees its result.
    On SQLite (no COMMIT to overlap) it never runs."""
    table, _users = started_table(2)
    ran: list[str] = []
    seen: list[str] = []

    def work() -> str:
        time.sleep(0.05)
        ran.append("done")
        return "done"

    with pytest.raises(DatabaseError, match=NO_ROW), one_transaction():
        changed = fresh(table)
        changed.version += 1
        save_fields(changed, ("version",))
        result = while_committing(work)
        transaction.on_commit(lambda: seen.append(result()))
        save_fields(Trick(pk=10**9, number=1), ("complete",))
    assert ran == (["done"] if BATCHED else [])
    assert seen == []
    assert fresh(table).version == changed.version - 1


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(not BATCHED, reason="it overlaps only PostgreSQL's COMMIT")
def test_work_that_reads_the_database_while_the_commit_is_on_its_way_fails_loudly() -> None:
    """The connection is busy with the COMMIT (its answer not read yet): a query from
    the work is refused at once, not left waiting for the connection forever, and the
    transaction still commits."""
    table, _users = started_table(2)
    with one_transaction():
        changed = fresh(table)
        changed.version += 1
        save_fields(changed, ("version",))
        result = while_committing(lambda: Trick.objects.count())
    with pytest.raises(RuntimeError, match="read the database"):
        result()
    assert fresh(table).version == changed.version


def test_the_overlapping_work_runs_once_the_query_has_gone_and_before_its_answer() -> None:
    """psycopg's query generator: it waits to write (the string going out), then to
    read (the answer): the work runs at the first wait to read, once, and what the
    generator is sent and returns passes through unchanged. A generator that never
    waits to read (its answer already there) leaves the work to run after it."""
    from games.transactions import _running_when_it_waits

    events: list[str] = []

    def query(waits: tuple[str, ...]) -> Any:
        for wait in waits:
            events.append(f"ready for {(yield wait)}")
        return "rows"

    def drive(waits: tuple[str, ...]) -> str:
        gen = _running_when_it_waits(query(waits), "R", lambda: events.append("work"))
        try:
            waiting_for = next(gen)
            while True:
                waiting_for = gen.send(waiting_for)
        except StopIteration as done:
            return str(done.value)

    assert drive(("W", "R", "R")) == "rows"
    assert events == ["ready for W", "work", "ready for R", "ready for R"]
    events.clear()
    assert drive(()) == "rows" and drive(("W",)) == "rows"
    assert events == ["ready for W"]


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
def test_a_play_s_frames_rendered_while_it_commits_reach_every_seat() -> None:
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


@pytest.mark.django_db(transaction=True)
def test_frames_that_failed_while_committing_are_rendered_again_whole() -> None:
    """A render that fails beside the COMMIT (a bug) does not cost the seats their
    frames: they are rendered again after it, every region whole."""
    users, state, seat, card = _a_play_to_make()
    layer = mock.Mock(spec=["publish_many"])
    real = broadcast._render_for_listeners
    calls: list[int] = []

    def fails_once(*args: Any) -> dict[int, str]:
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("a bug")
        return real(*args)

    with (
        mock.patch.object(broadcast, "get_channel_layer", return_value=layer),
        mock.patch.object(broadcast, "_render_for_listeners", fails_once),
    ):
        table = actions.play_card(seat.user, state.table.pk, state.table.version, card, "")
    assert len(calls) == 2
    (messages,), _kwargs = layer.publish_many.call_args
    assert len(messages) == len(users)
    for _group, message in messages:
        assert message["version"] == table.version
        assert '<section id="seats"' in message["html"]  # whole, not its parts
