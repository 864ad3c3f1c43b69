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

Inside an action's transaction (games.storage.transactions), on PostgreSQL, ``save_fields``,
``insert`` and ``insert_many`` do not go to the database one at a time: they wait
in its batch and go together, each checked as when it ran alone.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from django.db import DatabaseError, connections, router
from django.db.models import Field, Model

from games.storage import transactions
from games.storage.transactions import NO_ROW, Waiting


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
        transactions.save_after_what_it_refers_to(instance)
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
        ends with COMMIT (see games.storage.transactions), the COMMIT then never runs."""
        refusing = self._refusing.get(connection.alias)
        if refusing is None:
            refusing = f"WITH updated AS ({sql} RETURNING 1) SELECT 1 / COUNT(*) FROM updated"  # noqa: S608 (the update above)
            self._refusing[connection.alias] = refusing
        return refusing

    def run(self, instance: M) -> None:
        connection, sql, params = self._prepare(instance, adding=False)
        batch = transactions.current_batch()
        if batch is not None and batch.commits:
            sql = self._refusing_no_row(connection, sql)
        if transactions.queue(connection, Waiting(sql, [*params, instance.pk], _updated_one_row)):
            return
        with connection.cursor() as cursor, transactions.no_row_is_an_error():
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

        if transactions.queue(connection, Waiting(sql, params, saved, inserted=(instance,))):
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

        if transactions.queue(connection, Waiting(sql, params, saved, inserted=tuple(instances))):
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
        raise DatabaseError(NO_ROW)


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
    if key_now and (batch := transactions.current_batch()) is not None:
        batch.flush()
    return instance


def insert_many(instances: Sequence[Model]) -> None:
    """``bulk_create(instances)`` of new rows of one model (a deal's hand cards, a
    round's scores) in one statement, built once (on SQLite, once per number of rows)."""
    if instances:
        _insert(type(instances[0])).run_many(instances)
