"""The hot writes of a move, as SQL built once per process instead of once per call.

A play writes three rows: its hand card (played), the play itself and the table
(its next version); a new deal writes its hand cards, a round's end its scores.
Through ``Model.save``, ``QuerySet.create`` and ``bulk_create`` Django builds and
compiles each statement on every call, about 0.3 ms of CPU each (1.2 ms for a
deal's 40 hand cards), several times what the database takes to run it. These
write the same rows with the statement built once per database: the same columns,
the same values (each field's ``pre_save``, so ``auto_now`` and ``auto_now_add``
are set as by the ORM, and its ``get_db_prep_save``),
tests/games/test_compiled_writes.py compares them.

What they skip of ``save``: the pre_save and post_save signals (nothing listens
to these models; the test checks that too) and the model's ``full_clean`` (which
``save`` does not run either).

Inside ``batched()`` (every action runs in one: games.actions), on PostgreSQL,
``save_fields``, ``insert`` and ``insert_many`` do not go to the database one at a
time: they wait, and go together, as one query string of several statements,
with the next statement the connection runs (a read, a savepoint), or at the end
of the block, before the transaction commits. A play's three writes are one
round trip instead of three. Each waiting write is checked as when it ran alone
(an update changed its row, an insert's new keys are read back), and a write
that needs the key of a row still waiting sends the batch first. On SQLite (one
process, no round trip) each write runs at once, as without a batch. Django's
query log (``connection.queries``, with DEBUG) shows writes that went with a
read under that read's statement.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from django.db import DEFAULT_DB_ALIAS, DatabaseError, DataError, connections, router
from django.db import transaction as django_transaction
from django.db.models import Field, Model


def _column(connection: Any, field: Field[Any, Any]) -> str:
    return str(connection.ops.quote_name(field.column))


class _CompiledWrite[M: Model]:
    """A statement on ``model``'s table with one parameter per field of ``fields``
    (each field's value as the ORM would save it), built once per database."""

    def __init__(self, model: type[M], fields: Sequence[Field[Any, Any]]) -> None:
        self.model = model
        self.fields = tuple(fields)
        self._sql: dict[str, str] = {}

    def _build(self, connection: Any, table: str, pk: str) -> str:
        raise NotImplementedError

    def _prepare(self, instance: M, *, adding: bool) -> tuple[Any, str, list[Any]]:
        """The connection to write with, the statement and the fields' values."""
        alias = router.db_for_write(self.model, instance=instance)
        connection = connections[alias]
        batch = _batch.get()
        if batch is not None:
            _save_after_what_it_refers_to(instance, batch)
        sql = self._sql.get(alias)
        if sql is None:
            meta = self.model._meta
            table = connection.ops.quote_name(meta.db_table)
            sql = self._sql[alias] = self._build(connection, table, _column(connection, meta.pk))
        params = [
            field.get_db_prep_save(field.pre_save(instance, adding), connection)
            for field in self.fields
        ]
        return connection, sql, params


class CompiledUpdate[M: Model](_CompiledWrite[M]):
    """``run(instance)``: ``instance.save(update_fields=fields)``, compiled once."""

    def __init__(self, model: type[M], fields: Sequence[str]) -> None:
        super().__init__(model, [model._meta.get_field(name) for name in fields])  # type: ignore[misc]
        self._refusing: dict[str, str] = {}  # database -> the statement that refuses no row

    def _build(self, connection: Any, table: str, pk: str) -> str:
        assignments = ", ".join(f"{_column(connection, f)} = %s" for f in self.fields)
        # Names from the model, quoted by the backend; every value is a parameter.
        return f"UPDATE {table} SET {assignments} WHERE {pk} = %s"  # noqa: S608

    def _refusing_no_row(self, connection: Any, sql: str) -> str:
        """The update as a statement that the database refuses when it finds no row
        (a division by zero; one row reads as one row, 1): in a query string that
        ends with COMMIT (see transaction()), the COMMIT then never runs."""
        refusing = self._refusing.get(connection.alias)
        if refusing is None:
            refusing = f"WITH updated AS ({sql} RETURNING 1) SELECT 1 / COUNT(*) FROM updated"  # noqa: S608 (the update above)
            self._refusing[connection.alias] = refusing
        return refusing

    def run(self, instance: M) -> None:
        connection, sql, params = self._prepare(instance, adding=False)
        batch = _batch.get()
        if batch is not None and batch.commits:
            sql = self._refusing_no_row(connection, sql)
        if _waits(connection, _Waiting(sql, [*params, instance.pk], _updated_one_row)):
            return
        with connection.cursor() as cursor, _no_row_is_an_error():
            cursor.execute(sql, [*params, instance.pk])
            _updated_one_row(cursor)


class CompiledInsert[M: Model](_CompiledWrite[M]):
    """``run(instance)``: ``instance.save()`` of a new row, its primary key read back."""

    def __init__(self, model: type[M]) -> None:
        meta = model._meta
        super().__init__(model, [f for f in meta.local_concrete_fields if f is not meta.pk])
        self._many: dict[tuple[str, int], str] = {}  # (database, rows) -> statement

    def _build(self, connection: Any, table: str, pk: str) -> str:
        columns = ", ".join(_column(connection, f) for f in self.fields)
        values = ", ".join("%s" for _ in self.fields)
        return f"INSERT INTO {table} ({columns}) VALUES ({values}) RETURNING {pk}"  # noqa: S608

    def run(self, instance: M) -> M:
        # INSERT ... RETURNING: both of the project's databases have it (PostgreSQL, and
        # SQLite from 3.35; Django 6.1 asks for 3.37).
        connection, sql, params = self._prepare(instance, adding=True)

        def saved(cursor: Any) -> None:
            instance.pk = cursor.fetchone()[0]
            instance._state.adding = False
            instance._state.db = connection.alias

        if _waits(connection, _Waiting(sql, params, saved, inserted=(instance,))):
            return instance
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            saved(cursor)
        return instance

    def run_many(self, instances: Sequence[M]) -> None:
        """``bulk_create(instances)`` in one statement, the primary keys read back in
        the rows' order (as bulk_create relies on, on both databases)."""
        if not instances:
            return
        prepared = [self._prepare(instance, adding=True) for instance in instances]
        connection = prepared[0][0]
        rows = [params for _connection, _sql, params in prepared]
        if connection.vendor == "postgresql":
            # One array per column, whatever the number of rows (as bulk_create does
            # on PostgreSQL): the same statement each time, so psycopg parses it once.
            sql = self._many_sql(connection, 0)
            params: list[Any] = [list(column) for column in zip(*rows, strict=True)]
        else:
            sql = self._many_sql(connection, len(rows))
            params = [value for row in rows for value in row]

        def saved(cursor: Any) -> None:
            for instance, (pk,) in zip(instances, cursor.fetchall(), strict=True):
                instance.pk = pk
                instance._state.adding = False
                instance._state.db = connection.alias

        if _waits(connection, _Waiting(sql, params, saved, inserted=tuple(instances))):
            return
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            saved(cursor)

    def _many_sql(self, connection: Any, rows: int) -> str:
        """The statement inserting ``rows`` rows (0: PostgreSQL's, from arrays)."""
        key = (connection.alias, rows)
        sql = self._many.get(key)
        if sql is None:
            meta = self.model._meta
            table = connection.ops.quote_name(meta.db_table)
            columns = ", ".join(_column(connection, f) for f in self.fields)
            if rows:
                row = f"({', '.join('%s' for _ in self.fields)})"
                source = f"VALUES {', '.join([row] * rows)}"
            else:
                arrays = ", ".join(f"%s::{f.db_type(connection)}[]" for f in self.fields)
                source = f"SELECT * FROM UNNEST({arrays})"  # noqa: S608 (model types)
            pk = _column(connection, meta.pk)
            # Names and types from the model, quoted by the backend; values are parameters.
            sql = self._many[key] = f"INSERT INTO {table} ({columns}) {source} RETURNING {pk}"
        return sql


#: As Model.save(update_fields=...) on a row that is gone.
NO_ROW = "Save with update_fields did not affect any rows."


def _updated_one_row(cursor: Any) -> None:
    if cursor.rowcount != 1:
        raise DatabaseError(NO_ROW)


@contextlib.contextmanager
def _no_row_is_an_error() -> Iterator[None]:
    """PostgreSQL's refusal of an update that found no row (CompiledUpdate's division
    by zero) raised as the ORM's own error."""
    try:
        yield
    except DataError as error:
        if getattr(error.__cause__, "sqlstate", None) == DIVISION_BY_ZERO:
            raise DatabaseError(NO_ROW) from error
        raise


DIVISION_BY_ZERO = "22012"


# -- batches ------------------------------------------------------------------------


@dataclass
class _Waiting:
    """A write that waits for the batch's next round trip."""

    sql: str
    params: list[Any]
    done: Callable[[Any], None]  # reads its own result (the cursor is on it)
    inserted: tuple[Model, ...] = ()  # the new rows, whose keys are known once it ran


class _Batch:
    """The writes waiting on one connection, and the execute wrapper that sends them
    ahead of the next statement."""

    def __init__(self, connection: Any) -> None:
        self.connection = connection
        self.waiting: list[_Waiting] = []
        #: This batch's last writes go with the transaction's COMMIT (see transaction()).
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
        with _no_row_is_an_error():
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
    def _send(waiting: list[_Waiting], cursor: Any, then: str = "") -> None:
        statements = "; ".join([*(write.sql for write in waiting), *([then] if then else [])])
        with _no_row_is_an_error():
            cursor.execute(statements, [value for write in waiting for value in write.params])
        _read_results(waiting, cursor)


def _begun(cursor: Any) -> None:
    """BEGIN has no result to read."""


def _read_results(waiting: list[_Waiting], cursor: Any) -> None:
    """Each write's result, in order; the cursor ends on the statement after them."""
    for write in waiting:
        write.done(cursor)
        cursor.cursor.nextset()


_batch: ContextVar[_Batch | None] = ContextVar("compiled_writes_batch", default=None)


def _waits(connection: Any, write: _Waiting) -> bool:
    """Queue ``write`` in this connection's batch; False (run it now) without one."""
    batch = _batch.get()
    if batch is None or batch.connection is not connection:
        return False
    batch.waiting.append(write)
    return True


def _save_after_what_it_refers_to(instance: Model, batch: _Batch) -> None:
    """A write that needs the key of a row still waiting (the update of a trick just
    inserted, a trick's first play, a deal's hand cards) sends the batch first, and
    takes the key."""
    if instance.pk is None and _waits_for(instance, batch):
        batch.flush()
    for field in instance._meta.concrete_fields:
        if not field.is_relation or not field.is_cached(instance):
            continue
        related = field.get_cached_value(instance)
        if related is None:
            continue
        if related.pk is None and _waits_for(related, batch):
            batch.flush()
        if getattr(instance, field.attname) is None:
            setattr(instance, field.attname, related.pk)


def _waits_for(row: Model, batch: _Batch) -> bool:
    return any(any(new is row for new in write.inserted) for write in batch.waiting)


@contextlib.contextmanager
def batched(using: str = DEFAULT_DB_ALIAS) -> Iterator[None]:
    """Within this block, on PostgreSQL, the compiled writes wait and go together
    (see the module's docstring); they have all been sent when it ends without an
    error. Run it inside the transaction: it does not commit."""
    connection = connections[using]
    with _batch_on(connection) as batch:
        yield
        if batch is not None and not connection.needs_rollback:
            batch.flush()


@contextlib.contextmanager
def transaction(using: str = DEFAULT_DB_ALIAS) -> Iterator[None]:
    """``transaction.atomic()`` around ``batched()``, whose own round trips go with
    the others on PostgreSQL when it is the outermost block.

    psycopg starts a transaction with a ``BEGIN`` of its own, a round trip before
    the first statement, and Django ends it with a ``COMMIT``, another after the
    last. Here ``BEGIN`` waits in the batch and goes in front of the first
    statement (the table's lock), and ``COMMIT`` goes behind the last waiting
    writes, in their query string: a play is two round trips, not four. The
    database runs such a string's statements in order and skips the rest at the
    first error, so a refused write (an update that found no row: see
    CompiledUpdate) leaves the transaction uncommitted, to be rolled back as
    before. Nothing may run in the transaction after this block: it is meant for
    a whole action (games.actions), and the COMMIT goes only when the block ends
    without an error and with nothing marked for rollback.
    """
    connection = connections[using]
    with django_transaction.atomic(using=using), _batch_on(connection) as batch:
        ours = batch is not None and _starts_the_transaction(connection)
        if ours:
            assert batch is not None
            # psycopg sends no BEGIN of its own in autocommit mode; the one waiting
            # here opens the transaction all the same. Django turns autocommit back
            # on when the block ends, committed or rolled back.
            connection.connection.autocommit = True
            batch.waiting.append(_Waiting("BEGIN", [], _begun))
            batch.commits = True
        yield
        if batch is None:
            return
        if connection.needs_rollback:
            batch.waiting.clear()  # rolled back when the block ends: nothing to send
        elif not ours:
            batch.flush()
        elif any(write.done is not _begun for write in batch.waiting):
            # Django's commit then finds the transaction over and sends nothing.
            batch.flush(then="COMMIT")
        else:
            # Nothing was written or read: no transaction to open or to end.
            batch.waiting.clear()


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
def _batch_on(connection: Any) -> Iterator[_Batch | None]:
    """A batch for the compiled writes on ``connection`` (None: they run at once, on
    SQLite, or in a batch already open)."""
    if connection.vendor != "postgresql" or _batch.get() is not None:
        yield None
        return
    batch = _Batch(connection)
    token = _batch.set(batch)
    try:
        with connection.execute_wrapper(batch):
            yield batch
    finally:
        _batch.reset(token)


@functools.cache
def _update(model: type[Model], fields: tuple[str, ...]) -> CompiledUpdate[Model]:
    return CompiledUpdate(model, fields)


@functools.cache
def _insert(model: type[Model]) -> CompiledInsert[Model]:
    return CompiledInsert(model)


def save_fields(instance: Model, fields: Sequence[str]) -> None:
    """``instance.save(update_fields=fields)``, with the statement built once."""
    _update(type(instance), tuple(fields)).run(instance)


def insert[M: Model](instance: M, *, key_now: bool = False) -> M:
    """``instance.save()`` of a new row (``Model.objects.create``), built once.

    In a batch its key is known once the batch is sent (before the block ends);
    ``key_now``: the caller needs it at once (it keys a dictionary with it): the
    batch goes now, this row with it."""
    _insert(type(instance)).run(instance)
    if key_now and (batch := _batch.get()) is not None:
        batch.flush()
    return instance


def insert_many(instances: Sequence[Model]) -> None:
    """``bulk_create(instances)`` of new rows of one model (a deal's hand cards, a
    round's scores) in one statement, built once (on SQLite, once per number of rows)."""
    if instances:
        _insert(type(instances[0])).run_many(instances)
