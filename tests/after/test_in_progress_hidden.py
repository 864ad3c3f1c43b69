"""R4 and hidden information: nothing of a game in progress shows after-game.

No history entry, no replay, no export and no statistics exist for a game waiting
or in progress, for anyone: its players, the host, strangers, staff, anonymous.
"""

from __future__ import annotations

import random

import pytest
from django.urls import reverse

from games.after.stats import player_stats
from games.models import Table
from games.play import actions
from tests.games.helpers import at_phase, bid_all, play_until

from .conftest import World, client_for, fresh, table_of

pytestmark = pytest.mark.django_db

PHASES = ("waiting", "bidding", "playing", "trick_done", "round_done", "cancelled_waiting")
ROLES = ("ana", "ben", "cy", "dan", "staff", None)  # ana hosts; ben, cy seated; dan a stranger


def table_in(world: World, phase: str) -> Table:
    """A table of ana (host), ben and cy in the given state, with round 1 scored if started."""
    ana, ben, cy = world.user("ana"), world.user("ben"), world.user("cy")
    if phase in ("waiting", "cancelled_waiting"):
        table = actions.create_table(ana, ghost=False)
        for user in (ben, cy):
            table = actions.join_table(user, table.invite_token)
        if phase == "cancelled_waiting":  # the host closed it before the start
            table = actions.leave_table(ana, table.pk, confirmed=True)
        return table
    table = fresh(world.playing)  # round 1 scored, round 2 bidding
    if phase == "bidding":
        return table
    table = bid_all(table, 1)
    if phase == "playing":
        return table
    rng = random.Random(3)
    if phase == "trick_done":
        return play_until(table, rng, at_phase(Table.Phase.TRICK_DONE))
    return play_until(table, rng, at_phase(Table.Phase.ROUND_DONE))


def after_game_urls(table: Table) -> list[str]:
    replay = reverse("replay", args=[table.pk])
    return [
        replay,
        f"{replay}?round=1&trick=0",
        f"{replay}?round=1&trick=1",
        reverse("export_scores", args=[table.pk]),
        reverse("export_record", args=[table.pk]),
    ]


@pytest.mark.parametrize("phase", PHASES)
def test_no_replay_or_export_of_a_game_not_finished_for_anyone(world: World, phase: str) -> None:
    table = table_in(world, phase)
    for role in ROLES:
        user = world.user(role) if role else None
        client = client_for(user)
        for url in after_game_urls(table):
            response = client.get(url)
            if role is None:
                assert response.status_code == 302, url  # to the log-in page
            elif role in ("dan", "staff"):
                assert response.status_code == 403, (role, url)
            else:
                assert response.status_code == 404, (role, url)
            body = response.content.decode()
            assert "data-card" not in body and "running_total" not in body, (role, url)


def test_the_cancelled_game_has_no_replay_either(world: World) -> None:
    for url in after_game_urls(world.cancelled):
        assert client_for(world.user("ana")).get(url).status_code == 404


@pytest.mark.parametrize("phase", PHASES)
def test_no_history_entry_of_a_game_not_finished(world: World, phase: str) -> None:
    table = table_in(world, phase)
    for name in ("ana", "ben", "cy"):
        for viewer in ("ana", "dan"):
            response = client_for(world.user(viewer)).get(
                reverse("player", args=[world.user(name).username])
            )
            assert response.status_code == 200
            html = response.content.decode()
            assert f'data-table="{table.pk}"' not in html
            assert reverse("replay", args=[table.pk]) not in html
            assert table.pk not in [e.table_id for e in response.context["entries"]]


def test_statistics_ignore_games_in_progress(world: World) -> None:
    """Rounds scored in a game in progress change no statistic until it is finished."""
    names = ("ana", "ben", "cy")
    before = {name: player_stats(world.user(name)) for name in names}
    table = fresh(world.playing)
    table = play_until(table, random.Random(9), at_phase(Table.Phase.BIDDING, 4))
    assert table.status == Table.Status.PLAYING
    assert {name: player_stats(world.user(name)) for name in names} == before
    # and a new game started with those players counts for nothing either
    table_of([world.user(n) for n in names], ghost=False, seed=5)
    assert {name: player_stats(world.user(name)) for name in names} == before
