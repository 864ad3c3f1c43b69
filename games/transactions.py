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
- **Work can overlap the COMMIT** (``while_committing``): the frames of a move are
  rendered while the COMMIT's round trip is on its way, and sent once it is back
  (games.broadcast). They render in the move's own thread, between sending the
  query string and reading its answer (``_overlapping_once_sent``): in a worker
  thread, the two took turns on the GIL, and the move got its answer back only at
  the interpreter's switch interval, after most of the render.

On SQLite (one process, no round trip) every write runs at once, the
transaction is Django's own, and work registered with ``while_committing`` runs
where the commit is.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from contextvars import ContextVar
from dataclasses import dataclass, field
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
        #: Work to run while the COMMIT is on its way (while_committing).
        self.overlapping: list[_Overlapping[Any]] = []

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
        try:
            yield
            if batch is not None:
                _end(batch, connection, ours)
        finally:
            if batch is not None:
                _finish_overlapping(batch)


def _end(batch: Batch, connection: Any, ours: bool) -> None:
    """Send what waits at the block's end, with the COMMIT where it is ours, while
    the overlapping work runs."""
    if connection.needs_rollback:
        batch.waiting.clear()  # rolled back when the block ends: nothing to send
        return
    if ours and any(write.done is not _begun for write in batch.waiting):
        # Django's commit then finds the transaction over and sends nothing.
        with _overlapping_once_sent(connection, batch.overlapping):
            batch.flush(then="COMMIT")
        return
    if ours:
        # Only BEGIN waits: nothing was read or written, no transaction to open or end.
        batch.waiting.clear()
    else:
        batch.flush()
    for work in batch.overlapping:
        work.start()


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


# -- work that overlaps the COMMIT -----------------------------------------------------


@dataclass
class _Overlapping[R]:
    """``work()``, run once at the transaction's end, in the action's own thread."""

    work: Callable[[], R]
    future: Future[R] = field(default_factory=Future)
    started: bool = False

    def start(self) -> None:
        """Run it now, in this thread (once)."""
        if not self.started:
            self.started = True
            _run_into(self.future, self.work)

    def result(self) -> R:
        """Its result; run here and now if it was never started (no batch)."""
        self.start()
        return self.future.result()


@contextlib.contextmanager
def _overlapping_once_sent(connection: Any, overlapping: list[_Overlapping[Any]]) -> Iterator[None]:
    """Run ``overlapping`` in this thread while the next query is on its way: once
    its string has gone to PostgreSQL and before its answer is read.

    psycopg runs a query as a generator that its connection's ``wait`` drives: the
    generator sends the string, then says that it waits to read the answer
    (``Wait.R``). For this block, ``wait`` runs the work at that point, where the
    move would otherwise sit idle, and goes on reading after it. Work that the
    generator never waited for (the answer was there at once) runs after the query.
    Meanwhile a query from the work is refused: it would need the connection this
    thread is using (and wait on its lock forever).
    """
    from psycopg.waiting import Wait  # PostgreSQL only

    raw = connection.connection
    driver = raw.wait

    def run_all() -> None:
        with connection.execute_wrapper(_refuse_query):
            for work in overlapping:
                work.start()

    def wait(gen: Any, *args: Any, **kwargs: Any) -> Any:
        return driver(_running_when_it_waits(gen, Wait.R, run_all), *args, **kwargs)

    raw.wait = wait
    try:
        yield
    finally:
        del raw.wait  # the class's own again
    run_all()  # what has not run yet (nothing, mostly); a no-op for the rest


def _running_when_it_waits(gen: Any, reading: Any, work: Callable[[], None]) -> Any:
    """psycopg's query generator ``gen``, calling ``work()`` the first time it waits
    for ``reading`` (its query has gone); what ``gen`` returns."""
    try:
        waiting_for = next(gen)
        while True:
            if waiting_for == reading:
                work()
                work = _nothing
            ready = yield waiting_for
            waiting_for = gen.send(ready)
    except StopIteration as done:  # gen's own end (a generator may not let it through)
        return done.value


def _nothing() -> None:
    """Work already done."""


def _refuse_query(*args: Any) -> Any:
    raise RuntimeError("work that overlaps the COMMIT read the database")


def _run_into[R](future: Future[R], work: Callable[[], R]) -> None:
    try:
        future.set_result(work())
    except BaseException as error:
        future.set_exception(error)


def while_committing[R](work: Callable[[], R]) -> Callable[[], R]:
    """Run ``work`` while this action's COMMIT is on its way to PostgreSQL (in this
    thread, between sending it and reading its answer); the returned callable gives
    its result (or raises its error).

    ``work`` must not use the database (the connection is busy with the COMMIT: a
    query there raises) and must be ready to run once the action's code has
    returned: what it reads is final then, but for the keys of rows inserted by the
    last writes, which come back with the COMMIT (the frames show none of them).
    Without a COMMIT of ours on its way (SQLite, a transaction inside another, a
    rollback), it runs at the block's end, or, outside an action, on first asking.
    It runs before the block is left or never (the COMMIT never went): nothing it
    touches is still in use afterwards. Once the COMMIT has gone it runs whatever
    the database answers; only a commit hands its result on.
    """
    overlapping = _Overlapping(work)
    batch = _batch.get()
    if batch is not None:
        batch.overlapping.append(overlapping)
    return overlapping.result


def _finish_overlapping(batch: Batch) -> None:
    """Forget the block's work: what ran is done (its result and errors are its
    asker's, through while_committing's callable), what did not never will."""
    batch.overlapping.clear()
