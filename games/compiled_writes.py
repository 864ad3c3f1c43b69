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

from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections, router
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

    def _build(self, connection: Any, table: str, pk: str) -> str:
        assignments = ", ".join(f"{_column(connection, f)} = %s" for f in self.fields)
        # Names from the model, quoted by the backend; every value is a parameter.
        return f"UPDATE {table} SET {assignments} WHERE {pk} = %s"  # noqa: S608

    def run(self, instance: M) -> None:
        connection, sql, params = self._prepare(instance, adding=False)
        if _waits(connection, _Waiting(sql, [*params, instance.pk], _updated_one_row)):
            return
        with connection.cursor() as cursor:
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


def _updated_one_row(cursor: Any) -> None:
    if cursor.rowcount != 1:
        # As Model.save(update_fields=...) on a row that is gone.
        raise DatabaseError("Save with update_fields did not affect any rows.")


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
        result = execute(statements, [*values, *params], False, context)
        _read_results(waiting, cursor)
        return result

    def flush(self) -> None:
        """Send every waiting write now (a write that refers to one, the block's end)."""
        if self.waiting:
            waiting, self.waiting = self.waiting, []
            with self.connection.cursor() as cursor:
                self._send(waiting, cursor)

    @staticmethod
    def _send(waiting: list[_Waiting], cursor: Any) -> None:
        statements = "; ".join(write.sql for write in waiting)
        cursor.execute(statements, [value for write in waiting for value in write.params])
        _read_results(waiting, cursor)


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
    if connection.vendor != "postgresql" or _batch.get() is not None:
        yield
        return
    batch = _Batch(connection)
    token = _batch.set(batch)
    try:
        with connection.execute_wrapper(batch):
            yield
            batch.flush()
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
