"""The refusal detector itself: tests.games.helpers.snapshot sees every write it covers.

Hundreds of tests prove "a refusal changed nothing" by comparing two snapshots; the
snapshot is one hand-written query, so these check that a change to each column it
reads, and a row more in each model it counts, makes two snapshots differ.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from games.models import Bid, HandCard, Seat, Table
from games.play import actions
from tests.games.helpers import (
    SNAPSHOT_COUNTS,
    SNAPSHOT_ROWS,
    bid_all,
    random_move,
    snapshot,
    started_table,
)

pytestmark = pytest.mark.django_db


def _changed(update: Any) -> None:
    before = snapshot()
    assert snapshot() == before  # nothing written: equal
    update()
    assert snapshot() != before


def test_snapshot_reads_what_the_orm_reads() -> None:
    """Same rows, same order, same values (as text) as the models' own queries."""
    table, _ = started_table(3)
    # Every bid in and a card played: a row in each model the snapshot reads.
    random_move(bid_all(table), random.Random(3))
    taken = snapshot()
    for key, (model, fields) in SNAPSHOT_ROWS.items():
        rows = model.objects.order_by("pk").values_list(*fields)
        assert len(taken[key]) == len(rows) > 0, key
        for mine, orm in zip(taken[key], rows, strict=True):
            assert [v is None for v in mine] == [v is None for v in orm], key
            assert int(mine[0]) == orm[0], key
    for key, model in SNAPSHOT_COUNTS.items():
        assert taken[key] == model.objects.count(), key
    assert taken["plays"] == 1


@pytest.mark.parametrize(
    ("model", "column", "value"),
    [
        (Table, "version", 99),
        (Table, "phase", Table.Phase.PLAYING),
        (Table, "invite_token", "changed"),
        (Seat, "position", 7),
        (HandCard, "played", True),
        (HandCard, "preselected", True),
    ],
)
def test_a_changed_column_changes_the_snapshot(model: Any, column: str, value: Any) -> None:
    started_table(3)
    row = model.objects.order_by("pk").first()
    _changed(lambda: model.objects.filter(pk=row.pk).update(**{column: value}))


def test_a_bid_and_a_chat_message_change_the_snapshot() -> None:
    table, users = started_table(3)
    _changed(lambda: actions.place_bid(users[1], table.pk, table.version, 1))
    assert Bid.objects.filter(value=1).exists()
    table = Table.objects.get(pk=table.pk)
    _changed(lambda: actions.post_chat(users[0], table.pk, "ahoy"))
