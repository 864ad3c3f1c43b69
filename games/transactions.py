"""An action's transaction on PostgreSQL in as few round trips as it can take.

Every action (games.actions) runs in ``action_transaction()``. On PostgreSQL:

- **Its writes wait and go together** (its batch): the compiled writes
  (games.compiled_writes) do not go to the database one at a time; they go as one
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
- **A move's frames render after its COMMIT** (games.broadcast, in an on-commit
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
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from django.db import DEFAULT_DB_ALIAS, DatabaseError, DataError, connections, transaction
from django.db.models import Model

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
            batch.waiting.append(Waiting("BEGIN", [], _begun))
            batch.commits = True
        yield
        if batch is not None:
            _end(batch, connection, ours)


def _end(batch: Batch, connection: Any, ours: bool) -> None:
    """Send what waits at the block's end, with the COMMIT where it is ours."""
    if connection.needs_rollback:
        batch.waiting.clear()  # rolled back when the block ends: nothing to send
        return
    if ours and any(write.done is not _begun for write in batch.waiting):
        # Django's commit then finds the transaction over and sends nothing.
        batch.flush(then="COMMIT")
        return
    if ours:
        # Only BEGIN waits: nothing was read or written, no transaction to open or end.
        batch.waiting.clear()
    else:
        batch.flush()


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
