"""The flow of a game through games.play.actions with seeded random legal choices (R11).

The complete games (R2-R10, one per configuration) are in test_simulate_tables.py.
"""

from __future__ import annotations

import random

import pytest

from games.models import Table
from games.play import actions

from .helpers import assert_refused, play_until, started_table

pytestmark = pytest.mark.django_db


def test_r11_only_the_host_moves_the_table_on() -> None:
    table, users = started_table(3, ghost=False, seed=31)
    rng = random.Random(31)
    table = play_until(table, rng, done=lambda t: t.phase == Table.Phase.TRICK_DONE)
    for other in users[1:]:
        assert assert_refused(403, actions.next_trick, other, table.pk, table.version)
    table = actions.next_trick(users[0], table.pk, table.version)
    assert table.phase == Table.Phase.PLAYING
    table = play_until(table, rng, done=lambda t: t.phase == Table.Phase.ROUND_DONE)
    for other in users[1:]:
        assert_refused(403, actions.next_round, other, table.pk, table.version)
    number = table.round_number
    table = actions.next_round(users[0], table.pk, table.version)
    assert table.round_number == number + 1
    assert table.phase == Table.Phase.BIDDING
