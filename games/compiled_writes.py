"""The hot writes of a move, as SQL built once per process instead of once per call.

A play writes three rows: its hand card (played), the play itself and the table
(its next version). Through ``Model.save`` and ``QuerySet.create`` Django builds
and compiles each statement on every call, about 0.3 ms of CPU each, several
times what the database takes to run it. These write the same rows with the
statement built once per database: the same columns, the same values (each
field's ``pre_save``, so ``auto_now`` and ``auto_now_add`` are set as by the ORM,
and its ``get_db_prep_save``), tests/games/test_compiled_writes.py compares them.

What they skip of ``save``: the pre_save and post_save signals (nothing listens
to these models; the test checks that too) and the model's ``full_clean`` (which
``save`` does not run either).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from django.db import DatabaseError, connections, router
from django.db.models import Field, Model


def _column(connection: Any, field: Field[Any, Any]) -> str:
    return str(connection.ops.quote_name(field.column))


class CompiledUpdate[M: Model]:
    """``run(instance)``: ``instance.save(update_fields=fields)``, compiled once."""

    def __init__(self, model: type[M], fields: Sequence[str]) -> None:
        self.model = model
        self.fields: tuple[Field[Any, Any], ...] = tuple(
            model._meta.get_field(name)  # type: ignore[misc]
            for name in fields
        )
        self._sql: dict[str, str] = {}

    def _build(self, connection: Any) -> str:
        meta = self.model._meta
        assignments = ", ".join(f"{_column(connection, f)} = %s" for f in self.fields)
        table = connection.ops.quote_name(meta.db_table)
        pk = _column(connection, meta.pk)
        # Names from the model, quoted by the backend; every value is a parameter.
        return f"UPDATE {table} SET {assignments} WHERE {pk} = %s"  # noqa: S608

    def run(self, instance: M) -> None:
        alias = router.db_for_write(self.model, instance=instance)
        connection = connections[alias]
        sql = self._sql.get(alias)
        if sql is None:
            sql = self._sql[alias] = self._build(connection)
        params = [
            field.get_db_prep_save(field.pre_save(instance, False), connection)
            for field in self.fields
        ]
        params.append(instance.pk)
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            if cursor.rowcount != 1:
                # As Model.save(update_fields=...) on a row that is gone.
                raise DatabaseError("Save with update_fields did not affect any rows.")


class CompiledInsert[M: Model]:
    """``run(instance)``: ``instance.save()`` of a new row, its primary key read back."""

    def __init__(self, model: type[M]) -> None:
        self.model = model
        meta = model._meta
        self.fields: tuple[Field[Any, Any], ...] = tuple(
            f for f in meta.local_concrete_fields if f is not meta.pk
        )
        self._sql: dict[str, str] = {}

    def _build(self, connection: Any) -> str:
        meta = self.model._meta
        columns = ", ".join(_column(connection, f) for f in self.fields)
        values = ", ".join("%s" for _ in self.fields)
        table = connection.ops.quote_name(meta.db_table)
        pk = _column(connection, meta.pk)
        return f"INSERT INTO {table} ({columns}) VALUES ({values}) RETURNING {pk}"  # noqa: S608

    def run(self, instance: M) -> M:
        alias = router.db_for_write(self.model, instance=instance)
        connection = connections[alias]
        if not connection.features.can_return_columns_from_insert:
            instance.save(force_insert=True, using=alias)  # a backend without RETURNING
            return instance
        sql = self._sql.get(alias)
        if sql is None:
            sql = self._sql[alias] = self._build(connection)
        params = [
            field.get_db_prep_save(field.pre_save(instance, True), connection)
            for field in self.fields
        ]
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            instance.pk = cursor.fetchone()[0]
        instance._state.adding = False
        instance._state.db = alias
        return instance


@functools.cache
def _update(model: type[Model], fields: tuple[str, ...]) -> CompiledUpdate[Model]:
    return CompiledUpdate(model, fields)


@functools.cache
def _insert(model: type[Model]) -> CompiledInsert[Model]:
    return CompiledInsert(model)


def save_fields(instance: Model, fields: Sequence[str]) -> None:
    """``instance.save(update_fields=fields)``, with the statement built once."""
    _update(type(instance), tuple(fields)).run(instance)


def insert[M: Model](instance: M) -> M:
    """``instance.save()`` of a new row (``Model.objects.create``), built once."""
    _insert(type(instance)).run(instance)
    return instance
