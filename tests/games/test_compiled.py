"""The compiled reads (games.storage.compiled) read exactly what their querysets read.

load_state and the table lock run SQL compiled once per process (issue 9: the
ORM spent more CPU compiling these reads than the database spent answering
them). Whatever a move decides (R5 legality, R6 winners, R9 scores) is decided
from these rows, so they must be the ORM's rows, field for field, on the
backend the suite runs on (SQLite locally, PostgreSQL in CI).
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from django.db import connection, transaction
from django.db.models import Model
from django.db.transaction import TransactionManagementError

from games.models import Seat, Table
from games.play import actions, state
from games.storage.compiled import CompiledRead

from .helpers import play_until, started_table

pytestmark = pytest.mark.django_db


def fields(instance: Model) -> dict[str, Any]:
    return {f.attname: getattr(instance, f.attname) for f in instance._meta.concrete_fields}


def a_game_in_its_third_round() -> Table:
    table, _users = started_table(4, ghost=True)
    rng = random.Random(7)
    # Stop inside a trick of round 3: every read of load_state has rows (R4 bids, R5 plays).
    return play_until(
        table,
        rng,
        lambda t: t.round_number == 3 and t.phase == Table.Phase.PLAYING and t.version % 3 == 0,
    )


def test_each_read_of_load_state_gives_the_orms_rows_field_for_field() -> None:
    table = a_game_in_its_third_round()
    current = state.ROUND.read(table.pk, table.round_number)[0]
    reads: list[tuple[CompiledRead[Any], tuple[int, ...]]] = [
        (state.SEATS, (table.pk,)),
        (state.ROUND, (table.pk, table.round_number)),
        (state.HANDS, (current.pk,)),
        (state.BIDS, (current.pk,)),
        (state.TRICKS, (current.pk,)),
        (state.PLAYS, (current.pk,)),
    ]
    for read, ids in reads:
        compiled = read.read(*ids)
        through_the_orm = list(read.build(*ids))
        assert compiled, f"{read.model.__name__}: the game should have rows here"
        assert [fields(row) for row in compiled] == [fields(row) for row in through_the_orm]
        assert all(type(row) is read.model for row in compiled)
        assert all(not row._state.adding and row._state.db == "default" for row in compiled)


def test_select_related_users_come_with_the_seats_without_a_query(
    django_assert_num_queries,
) -> None:
    table = a_game_in_its_third_round()
    with django_assert_num_queries(1):
        seats = state.SEATS.read(table.pk)
        names = [seat.user.username for seat in seats]
    assert names == [
        seat.user.username for seat in Seat.objects.filter(table=table).order_by("position")
    ]


def test_the_lock_with_the_seats_gives_the_orms_rows_in_one_query(
    django_assert_num_queries,
) -> None:
    """A move's lock reads the seats and their users with the table (games.play.actions)."""
    table = a_game_in_its_third_round()
    with transaction.atomic():
        with django_assert_num_queries(1):
            locked, seats = actions._lock_with_seats(table.pk)
            names = [seat.user.username for seat in seats]
        through_the_orm = list(actions.LOCKED_SEATS.build(table.pk))
    assert [fields(seat) for seat in seats] == [fields(seat) for seat in through_the_orm]
    assert fields(locked) == fields(Table.objects.get(pk=table.pk))
    assert all(seat.table is locked for seat in seats)
    assert names == [
        seat.user.username for seat in Seat.objects.filter(table=table).order_by("position")
    ]


def test_rows_read_compiled_save_like_any_other() -> None:
    # An action changes what it read (a hand card played): the instance must save.
    table = a_game_in_its_third_round()
    with transaction.atomic():
        locked = actions.LOCKED_TABLE.read(table.pk)[0]
        locked.version += 1
        locked.save()
    assert Table.objects.get(pk=table.pk).version == table.version + 1


@pytest.mark.django_db(transaction=True)
def test_the_lock_outside_a_transaction_fails_as_the_orms_does() -> None:
    table, _users = started_table(2)

    def error_of(read: Any) -> type[Exception] | None:
        try:
            read()
        except TransactionManagementError as error:
            return type(error)
        return None

    orm = error_of(lambda: list(actions.LOCKED_TABLE.build(table.pk)))
    compiled = error_of(lambda: actions.LOCKED_TABLE.read(table.pk))
    assert compiled == orm
    # PostgreSQL takes row locks, so a lock outside a transaction is a bug; SQLite
    # locks the whole database at BEGIN IMMEDIATE and has no FOR UPDATE at all.
    assert (compiled is not None) == connection.features.has_select_for_update


def test_an_unknown_table_reads_nothing() -> None:
    with transaction.atomic():
        assert actions.LOCKED_TABLE.read(10**15) == []


def test_the_sql_is_compiled_once_per_database() -> None:
    built: list[int] = []

    def build(table_id: int) -> Any:
        built.append(table_id)
        return Table.objects.filter(pk=table_id)

    read = CompiledRead(Table, build)
    table, _users = started_table(2)
    other, _users = started_table(2, prefix="other")
    assert [t.pk for t in read.read(table.pk)] == [table.pk]
    assert [t.pk for t in read.read(other.pk)] == [other.pk]
    # Once to tell whether it locks, once to compile: never again per read.
    assert len(built) == 2


def test_an_id_the_sql_does_not_take_is_refused_when_compiled() -> None:
    # A build that ignores its id would read the same rows whatever the id.
    read = CompiledRead(Table, lambda table_id: Table.objects.filter(pk=1))
    with pytest.raises(ValueError, match="each id must appear once"):
        read.read(5)
