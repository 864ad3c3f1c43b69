"""Games played once for the whole tests/after package (committed; each test's changes roll back).

A complete game through the action layer takes seconds on this machine, so the
finished games are built once per package (scope="package") and deleted after its
last test, before any other package runs.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from games.models import Table
from games.play import actions
from games.testing.factories import make_user, started_table
from tests.games.helpers import at_phase, play_until

User = get_user_model()


@dataclass
class World:
    users: dict[str, Any]
    finished3: Table  # ana (host), ben, cy: 3 players, no ghost
    finished2: Table  # ben (host), ana: 2 players with the ghost (R8)
    cancelled: Table  # ana (host), ben, cy: round 1 scored, then ben left (R11)
    playing: Table  # ana (host), ben, cy: round 1 scored, round 2 bidding

    def user(self, name: str) -> Any:
        return self.users[name]


def table_of(users: list[Any], *, ghost: bool, seed: int) -> Table:
    """A started table: users[0] hosts, the others join in order, fixed deck seed."""
    return started_table(users, ghost=ghost, seed=seed)[0]


def finished_game(users: list[Any], *, ghost: bool, seed: int) -> Table:
    table = play_until(table_of(users, ghost=ghost, seed=seed), random.Random(seed))
    assert table.status == Table.Status.FINISHED
    return table


def in_round_two(users: list[Any], seed: int) -> Table:
    table = table_of(users, ghost=False, seed=seed)
    return play_until(table, random.Random(seed), at_phase(Table.Phase.BIDDING, 2))


@pytest.fixture(scope="package")
def world(django_db_setup: Any, django_db_blocker: Any) -> Any:
    with django_db_blocker.unblock():
        users = {
            name: make_user(f"after-{name}")
            for name in ("ana", "ben", "cy", "dan")  # dan sits at none of these tables
        }
        users["staff"] = make_user("after-staff", is_staff=True, is_superuser=True)
        ana, ben, cy = users["ana"], users["ben"], users["cy"]
        try:
            cancelled = in_round_two([ana, ben, cy], seed=31)
            cancelled = actions.leave_table(ben, cancelled.pk, confirmed=True)
            yield World(
                users=users,
                finished3=finished_game([ana, ben, cy], ghost=False, seed=11),
                finished2=finished_game([ben, ana], ghost=True, seed=12),
                cancelled=cancelled,
                playing=in_round_two([ana, ben, cy], seed=41),
            )
        finally:
            Table.objects.filter(seats__user__in=users.values()).delete()
            Table.objects.filter(host__in=users.values()).delete()
            User.objects.filter(pk__in=[u.pk for u in users.values()]).delete()


def client_for(user: Any | None) -> Client:
    client = Client(raise_request_exception=False)
    if user is not None:
        client.force_login(user)
    return client


def fresh(table: Table) -> Table:
    return Table.objects.get(pk=table.pk)
