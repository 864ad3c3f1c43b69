"""An action's transaction on PostgreSQL in as few round trips as it can take.

Every action (games.play.actions) runs in ``action_transaction()``. On PostgreSQL:

- **Its writes wait and go together** (its batch): the compiled writes
  (games.storage.compiled_writes) do not go to the database one at a time; they go as one
  query string of several statements with the next statement the connection runs
  (a read, a savepoint), or at the end of the block. A play's three writes are one
  round trip instead of three. Each waiting write is checked as when it ran alone
  (an update changed its row, an insert's new keys are read back), and a write
  that needs the key of a row still waiting sends the batch first. Django's query
  log (``connection.queries``, with DEBUG) shows writes that went with a read
  under that read's statement.
- **BEGIN goes with the first statement, COMMIT with the last writes.** psycopg
  starts a transaction with a ``BEGIN`` of its own, a round trip before the first
  statement, and Django ends it with a ``COMMIT``, another after the last. Here
  ``BEGIN`` waits in the batch for the first statement (the table's lock), and
  ``COMMIT`` goes behind the last waiting writes, in their query string: a play
  is two round trips, not four. The database runs such a string's statements in
  order and skips the rest at the first error, so a refused write leaves the
  transaction uncommitted, to be rolled back as before: an update that finds no
  row is refused by the database itself (CompiledUpdate), not only by the check
  that reads its row count afterwards.
- **A move's frames render after its COMMIT** (games.live.broadcast, in an on-commit
  hook, in the move's own thread): they may read the database, and nothing is
  rendered for a move that does not commit. (They once rendered between sending
  the COMMIT and reading its answer, through a hook on psycopg's connection; the
  interleaved runs showed no difference beyond noise, and a render that read the
  database there failed.)

On SQLite (one process, no round trip) every write runs at once and the
transaction is Django's own.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, DatabaseError, DataError, connections, transaction
from django.db.models import Model

from config.db_faults import sqlstate_of

#: As Model.save(update_fields=...) on a row that is gone.
NO_ROW = "Save with update_fields did not affect any rows."
DIVISION_BY_ZERO = "22012"  # PostgreSQL's SQLSTATE for it


@contextlib.contextmanager
def no_row_is_an_error() -> Iterator[None]:
    """PostgreSQL's refusal of an update that found no row (CompiledUpdate's division
    by zero) raised as the ORM's own error."""
    try:
        yield
    except DataError as error:
        if getattr(error.__cause__, "sqlstate", None) == DIVISION_BY_ZERO:
            raise DatabaseError(NO_ROW) from error
        raise


@dataclass
class Waiting:
    """A write that waits for the batch's next round trip."""

    sql: str
    params: list[Any]
    done: Callable[[Any], None]  # reads its own result (the cursor is on it)
    inserted: tuple[Model, ...] = ()  # the new rows, whose keys are known once it ran
    #: Part of the transaction's opening (BEGIN, its settings), not of its work.
    opening: bool = False


def _begun(cursor: Any) -> None:
    """BEGIN has no result to read."""


class Batch:
    """The writes waiting on one connection, and the execute wrapper that sends them
    ahead of the next statement."""

    def __init__(self, connection: Any) -> None:
        self.connection = connection
        self.waiting: list[Waiting] = []
        #: This batch's last writes go with the transaction's COMMIT (action_transaction).
        self.commits = False
        #: The transaction's id (PostgreSQL's xid8), read with its first statement.
        self.xid: int | None = None
        #: What runs once it commits (``on_commit``), kept in case the COMMIT's
        #: answer is lost (CommitUnknown).
        self.hooks: list[Callable[[], Any]] = []

    def __call__(self, execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        """Django's execute wrapper: the waiting writes go in front of ``sql``, in the
        same query string, unless it runs many times or without parameters (a
        statement with a literal ``%`` would read as a placeholder): then before it."""
        if not self.waiting:
            return execute(sql, params, many, context)
        waiting, self.waiting = self.waiting, []
        cursor = context["cursor"]
        if many or not params:
            self._send(waiting, cursor)
            return execute(sql, params, many, context)
        statements = "; ".join([*(write.sql for write in waiting), sql])
        values = [value for write in waiting for value in write.params]
        with no_row_is_an_error():
            result = execute(statements, [*values, *params], False, context)
        _read_results(waiting, cursor)
        return result

    def flush(self, then: str = "") -> None:
        """Send every waiting write now (a write that refers to one, the block's end),
        and the statement ``then`` (without parameters) after them."""
        if self.waiting:
            waiting, self.waiting = self.waiting, []
            with self.connection.cursor() as cursor:
                self._send(waiting, cursor, then)

    @staticmethod
    def _send(waiting: list[Waiting], cursor: Any, then: str = "") -> None:
        statements = "; ".join([*(write.sql for write in waiting), *([then] if then else [])])
        with no_row_is_an_error():
            cursor.execute(statements, [value for write in waiting for value in write.params])
        _read_results(waiting, cursor)

    def waits_for(self, row: Model) -> bool:
        return any(any(new is row for new in write.inserted) for write in self.waiting)


def _read_results(waiting: list[Waiting], cursor: Any) -> None:
    """Each write's result, in order; the cursor ends on the statement after them."""
    for write in waiting:
        write.done(cursor)
        cursor.cursor.nextset()


_batch: ContextVar[Batch | None] = ContextVar("transactions_batch", default=None)


def current_batch() -> Batch | None:
    return _batch.get()


def queue(connection: Any, write: Waiting) -> bool:
    """Queue ``write`` in this connection's batch; False (run it now) without one."""
    batch = _batch.get()
    if batch is None or batch.connection is not connection:
        return False
    batch.waiting.append(write)
    return True


def save_after_what_it_refers_to(instance: Model) -> None:
    """A write that needs the key of a row still waiting (the update of a trick just
    inserted, a trick's first play, a deal's hand cards) sends the batch first, and
    takes the key."""
    batch = _batch.get()
    if batch is None:
        return
    if instance.pk is None and batch.waits_for(instance):
        batch.flush()
    for model_field in instance._meta.concrete_fields:
        if not model_field.is_relation or not model_field.is_cached(instance):
            continue
        related = model_field.get_cached_value(instance)
        if related is None:
            continue
        if related.pk is None and batch.waits_for(related):
            batch.flush()
        if getattr(instance, model_field.attname) is None:
            setattr(instance, model_field.attname, related.pk)


class CommitUnknown(Exception):
    """The COMMIT went out but its answer never came back (the connection broke):
    the transaction ``xid`` may or may not have committed. ``hooks`` are what was
    to run once it did (``on_commit``): ``committed()`` says which, and then they
    are for the caller to run."""

    def __init__(self, xid: int | None, hooks: list[Callable[[], Any]], using: str) -> None:
        super().__init__(f"the COMMIT of transaction {xid} got no answer")
        self.xid = xid
        self.hooks = hooks
        self.using = using

    def committed(self, wait: float = 2.0) -> bool | None:
        """Whether the transaction committed, asked on a fresh connection (PostgreSQL's
        ``pg_xact_status``); None when that cannot be told (no id, no answer)."""
        if self.xid is None:
            return None
        deadline = time.monotonic() + wait
        try:
            with connections[self.using].cursor() as cursor:
                while True:
                    cursor.execute("SELECT pg_xact_status(%s::text::xid8)", [str(self.xid)])
                    row = cursor.fetchone()
                    status = row[0] if row else None
                    if status != "in progress" or time.monotonic() > deadline:
                        break
                    time.sleep(0.05)  # its backend is still ending it
        except DatabaseError:
            return None
        return {"committed": True, "aborted": False}.get(status)


def on_commit(work: Callable[[], Any]) -> None:
    """``transaction.on_commit(work, robust=True)``, also kept by the action's batch:
    if the COMMIT's answer is lost but it did commit, the caller runs them
    (CommitUnknown)."""
    batch = _batch.get()
    if batch is not None:
        batch.hooks.append(work)
    transaction.on_commit(work, robust=True)


def _settings_of_a_move() -> str:
    """How long a move's statements may wait for a lock and run (settings: milliseconds)."""
    lock = int(getattr(settings, "MOVE_LOCK_TIMEOUT_MS", 2000))
    statement = int(getattr(settings, "MOVE_STATEMENT_TIMEOUT_MS", 5000))
    return f"SET LOCAL lock_timeout = {lock}; SET LOCAL statement_timeout = {statement}"


def _read_xid(batch: Batch) -> Callable[[Any], None]:
    def read(cursor: Any) -> None:
        row = cursor.fetchone()
        batch.xid = int(row[0]) if row else None

    return read


@contextlib.contextmanager
def action_transaction(using: str = DEFAULT_DB_ALIAS) -> Iterator[None]:
    """``transaction.atomic()`` whose writes wait in a batch and go together on
    PostgreSQL, with its BEGIN and COMMIT when it is the outermost block (see the
    module's docstring); inside another transaction (a test's) only the writes do.
    Nothing may run in the transaction after this block: it is meant for a whole
    action, and the COMMIT goes only when the block ends without an error and with
    nothing marked for rollback."""
    connection = connections[using]
    with transaction.atomic(using=using), _batch_on(connection) as batch:
        ours = batch is not None and _starts_the_transaction(connection)
        if ours:
            assert batch is not None
            # psycopg sends no BEGIN of its own in autocommit mode; the one waiting
            # here opens the transaction all the same. Django turns autocommit back
            # on when the block ends, committed or rolled back.
            connection.connection.autocommit = True
            # Its bounds (a locked table row is waited for 2 s, not for ever) and its
            # id (in case the COMMIT's answer is lost) go with BEGIN: no round trip
            # of their own. (Locking the table row gives it an id anyway.)
            batch.waiting += [
                Waiting("BEGIN", [], _begun, opening=True),
                Waiting(_settings_of_a_move(), [], _set, opening=True),
                Waiting("SELECT pg_current_xact_id()", [], _read_xid(batch), opening=True),
            ]
            batch.commits = True
        yield
        if batch is not None:
            _end(batch, connection, ours, using)


def _set(cursor: Any) -> None:
    """Two SETs: the second's (empty) result is next."""
    cursor.cursor.nextset()


def _end(batch: Batch, connection: Any, ours: bool, using: str) -> None:
    """Send what waits at the block's end, with the COMMIT where it is ours."""
    if connection.needs_rollback:
        batch.waiting.clear()  # rolled back when the block ends: nothing to send
        return
    if ours and any(not write.opening for write in batch.waiting):
        # Django's commit then finds the transaction over and sends nothing.
        try:
            batch.flush(then="COMMIT")
        except DatabaseError as error:
            if _answer_lost(error, connection):
                raise CommitUnknown(batch.xid, list(batch.hooks), using) from error
            raise  # the database refused a statement: nothing committed
        return
    if ours:
        # Only BEGIN waits: nothing was read or written, no transaction to open or end.
        batch.waiting.clear()
    else:
        batch.flush()


def _answer_lost(error: DatabaseError, connection: Any) -> bool:
    """Whether ``error`` leaves unknown what the database did with the string: the
    connection broke (no answer, or its backend was ended), rather than the database
    refusing one of its statements (the rest, COMMIT included, then never ran)."""
    raw = connection.connection
    sqlstate = sqlstate_of(error)
    broken = raw is None or raw.closed or getattr(raw, "broken", False)
    return broken or sqlstate is None or sqlstate.startswith(("08", "57P"))


def _starts_the_transaction(connection: Any) -> bool:
    """Whether the atomic block just entered is the outermost one and nothing has
    run in it yet (psycopg has not sent its BEGIN)."""
    from psycopg.pq import TransactionStatus  # PostgreSQL only

    raw = connection.connection
    return (
        len(connection.atomic_blocks) == 1
        and raw is not None
        and not raw.autocommit
        and raw.info.transaction_status == TransactionStatus.IDLE
    )


@contextlib.contextmanager
def _batch_on(connection: Any) -> Iterator[Batch | None]:
    """A batch for the compiled writes on ``connection`` (None: they run at once, on
    SQLite, or in a batch already open)."""
    if connection.vendor != "postgresql" or _batch.get() is not None:
        yield None
        return
    batch = Batch(connection)
    token = _batch.set(batch)
    try:
        with connection.execute_wrapper(batch):
            yield batch
    finally:
        _batch.reset(token)
