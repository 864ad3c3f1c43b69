"""The hot reads of a move, compiled to SQL once per process instead of once per call.

Every move locks its table and reads the game (games.play.state.load_state): seven
reads of a fixed shape that differ only in an id. Building and compiling a
queryset costs Django about 0.4 ms of CPU each time, more than the database
takes to answer such a read on an index. A ``CompiledRead`` builds its queryset
once (per database connection, with marker values in place of the ids), keeps
the SQL and the column layout, and afterwards only runs the SQL with the real
ids and builds the model instances exactly as ``QuerySet.__iter__`` does
(``Model.from_db``, select_related included, the backend's converters applied).

A read is written as an ordinary queryset (``build``), so what it selects and in
which order stays readable, and the same queryset run through the ORM must give
the same rows (tests/games/test_compiled.py).

Written against Django 6.1.3 (its compiler, and ModelIterable's way of building
rows): tests/test_library_internals.py fails when that version or
ModelIterable.__iter__'s source changes (docs/upgrading.md says what to check).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db import connections, router
from django.db.models import Model, QuerySet
from django.db.models.query import get_related_populators
from django.db.transaction import TransactionManagementError

#: Stand-ins for the ids while the SQL is compiled. Within every integer field's range
#: (Django compiles a lookup outside it to "no rows"), and each must show up exactly
#: once among the compiled parameters, which _compile checks.
MARKERS = (30_011, 30_022, 30_033)


@dataclass(frozen=True)
class _Compiled:
    sql: str
    params: tuple[Any, ...]
    slots: tuple[int | None, ...]  # params[i] is argument slots[i] (None: a constant)
    compiler: Any
    converters: dict[int, Any]
    names: tuple[str, ...]  # the model's own columns, as Model.from_db takes them
    start: int
    end: int
    populators: tuple[Any, ...]  # select_related's instances
    fetch_mode: Any  # Django 6.1's fetch mode of the queryset (how deferred fields load)


class CompiledRead[M: Model]:
    """``build(*ids)`` -> a queryset; ``read(*ids)`` -> its rows, compiled once per database."""

    def __init__(self, model: type[M], build: Callable[..., QuerySet[M]], arity: int = 1) -> None:
        self.model = model
        self.build = build
        self.arity = arity
        self._by_alias: dict[str, _Compiled] = {}
        # A locking read goes where writes go, as QuerySet.select_for_update sends it.
        self.for_update = bool(build(*MARKERS[:arity]).query.select_for_update)

    def _compile(self, alias: str) -> _Compiled:
        markers = MARKERS[: self.arity]
        queryset = self.build(*markers)
        compiler = queryset.query.get_compiler(using=alias)
        sql, params = compiler.as_sql()
        slots = tuple(markers.index(p) if p in markers else None for p in params)
        missing = set(range(self.arity)) - set(slots)
        if missing or len([s for s in slots if s is not None]) != self.arity:
            raise ValueError(f"each id must appear once in the compiled SQL: {sql}")
        columns = [column for column, _, _ in compiler.select]
        # As django.db.models.query.ModelIterable reads a compiler's rows.
        klass_info, select = compiler.klass_info, compiler.select
        fields = klass_info["select_fields"]
        start, end = fields[0], fields[-1] + 1
        return _Compiled(
            sql=sql,
            params=tuple(params),
            slots=slots,
            compiler=compiler,
            converters=compiler.get_converters(columns),
            names=tuple(column[0].target.attname for column in select[start:end]),
            start=start,
            end=end,
            populators=tuple(
                get_related_populators(klass_info, select, alias, queryset._fetch_mode)
            ),
            fetch_mode=queryset._fetch_mode,
        )

    def read(self, *ids: Any) -> list[M]:
        route = router.db_for_write if self.for_update else router.db_for_read
        alias = route(self.model)
        compiled = self._by_alias.get(alias)
        if compiled is None:
            compiled = self._by_alias[alias] = self._compile(alias)
        connection = connections[alias]
        if (
            self.for_update
            and connection.features.has_select_for_update
            and connection.get_autocommit()
        ):
            # What the ORM says for select_for_update outside a transaction.
            raise TransactionManagementError(
                "select_for_update cannot be used outside of a transaction."
            )
        params = [
            p if slot is None else ids[slot]
            for p, slot in zip(compiled.params, compiled.slots, strict=True)
        ]
        with connection.cursor() as cursor:
            cursor.execute(compiled.sql, params)
            rows = cursor.fetchall()
        if compiled.converters:
            rows = list(compiled.compiler.apply_converters(rows, compiled.converters))
        fetch_mode = compiled.fetch_mode
        instances: list[M] = []
        for row in rows:
            instance = self.model.from_db(
                alias, compiled.names, row[compiled.start : compiled.end], fetch_mode=fetch_mode
            )
            for populator in compiled.populators:
                populator.populate(row, instance)
            instances.append(instance)
        if fetch_mode.track_peers:
            peers = [weakref.ref(instance) for instance in instances]
            for instance in instances:
                instance._state.peers = peers
        return instances
