"""Every new POST (propose, accept, decline a rematch) refuses bad input with a 4xx and a
message, and a refusal changes nothing in the database."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.urls import reverse

from games.models import Rematch, RematchAcceptance, Table
from games.play import actions
from tests.games.helpers import snapshot

from .conftest import World, client_for, fresh

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
POSTS = ("propose_rematch", "accept_rematch", "decline_rematch")


def everything() -> dict[str, Any]:
    return {
        **snapshot(),
        "rematches": list(Rematch.objects.order_by("pk").values_list("pk", "status", "new_table")),
        "acceptances": list(RematchAcceptance.objects.order_by("pk").values_list("pk", "seat")),
    }


def assert_refused(user: Any, url: str, data: dict[str, Any], status: int, **extra: Any) -> str:
    before = everything()
    response = client_for(user).post(url, data, **extra)
    assert response.status_code == status, (url, data, response.status_code)
    assert everything() == before, "a refused POST changed the database"
    body = response.content.decode()
    if status != 302:
        alert = re.search(r'role="alert"[^>]*>\s*([^<]+)', body)
        assert alert and alert.group(1).strip(), body[:500]
        return alert.group(1).strip()
    return ""


def url(name: str, table: Table | int) -> str:
    return reverse(name, args=[table if isinstance(table, int) else table.pk])


@pytest.fixture
def open_rematch(world: World) -> Rematch:
    table = fresh(world.finished3)
    return actions.propose_rematch(world.user("ana"), table.pk, table.version)


@pytest.mark.parametrize("htmx", [False, True])
@pytest.mark.parametrize(
    ("data", "status", "message"),
    [
        ({}, 400, "version must be a whole number"),
        ({"version": "abc"}, 400, "version must be a whole number"),
        ({"version": "1\x00"}, 400, "Invalid characters"),
        ({"version": "-1"}, 409, "moved on"),
    ],
)
def test_propose_refuses_bad_or_stale_versions(
    world: World, data: dict, status: int, message: str, htmx: bool
) -> None:
    extra = HTMX if htmx else {}
    text = assert_refused(
        world.user("ben"), url("propose_rematch", world.finished3), data, status, **extra
    )
    assert message in text


def test_propose_twice_is_409(world: World, open_rematch: Rematch) -> None:
    table = fresh(world.finished3)
    text = assert_refused(
        world.user("ben"), url("propose_rematch", table), {"version": table.version}, 409
    )
    assert "already been proposed" in text


@pytest.mark.parametrize("table_name", ["playing", "cancelled"])
def test_no_rematch_of_a_game_not_finished(world: World, table_name: str) -> None:
    table = fresh(getattr(world, table_name))
    text = assert_refused(
        world.user("ana"), url("propose_rematch", table), {"version": table.version}, 409
    )
    assert "once the game is over" in text


@pytest.mark.parametrize("name", POSTS)
def test_strangers_anonymous_and_get_are_refused(world: World, name: str) -> None:
    table = fresh(world.finished3)
    data = {"version": table.version, "rematch": "1"}
    assert "seated" in assert_refused(world.user("dan"), url(name, table), data, 403)
    assert "seated" in assert_refused(world.user("staff"), url(name, table), data, 403)
    assert_refused(None, url(name, table), data, 302)  # to the log-in page
    assert client_for(world.user("ana")).get(url(name, table)).status_code == 405
    assert_refused(world.user("ana"), url(name, 2**62), data, 404)


@pytest.mark.parametrize("name", ["accept_rematch", "decline_rematch"])
def test_answers_refuse_bad_rematch_ids(world: World, open_rematch: Rematch, name: str) -> None:
    target, ben = url(name, world.finished3), world.user("ben")
    assert "must be a whole number" in assert_refused(ben, target, {}, 400)
    assert "must be a whole number" in assert_refused(ben, target, {"rematch": "x"}, 400)
    assert "must be a whole number" in assert_refused(ben, target, {"rematch": "1.5"}, 400)
    assert "no such rematch" in assert_refused(ben, target, {"rematch": open_rematch.pk + 99}, 404)
    # A proposal of another table is not this table's.
    other = fresh(world.finished2)
    foreign = actions.propose_rematch(ben, other.pk, other.version)
    assert "no such rematch" in assert_refused(ben, target, {"rematch": foreign.pk}, 404)


def test_accepting_twice_or_after_the_end_of_the_proposal_is_409(
    world: World, open_rematch: Rematch
) -> None:
    table = world.finished3
    ana, ben, cy = world.user("ana"), world.user("ben"), world.user("cy")
    form = {"rematch": open_rematch.pk}
    # the proposer has accepted by proposing
    assert "already accepted" in assert_refused(ana, url("accept_rematch", table), form, 409)
    actions.accept_rematch(ben, table.pk, open_rematch.pk)
    assert "already accepted" in assert_refused(ben, url("accept_rematch", table), form, 409)
    actions.decline_rematch(cy, table.pk, open_rematch.pk)
    for name in ("accept_rematch", "decline_rematch"):
        assert "was declined" in assert_refused(cy, url(name, table), form, 409)


def test_answers_after_everyone_accepted_are_409(world: World) -> None:
    table = fresh(world.finished2)
    ana, ben = world.user("ana"), world.user("ben")
    rematch = actions.propose_rematch(ana, table.pk, table.version)
    actions.accept_rematch(ben, table.pk, rematch.pk)
    for name in ("accept_rematch", "decline_rematch"):
        text = assert_refused(ben, url(name, table), {"rematch": rematch.pk}, 409)
        assert "Everyone has accepted" in text
    text = assert_refused(
        ana, url("propose_rematch", table), {"version": fresh(table).version}, 409
    )
    assert "already been proposed" in text
