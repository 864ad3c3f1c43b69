"""Rematch at game over: propose, accept with one click, the same seats; nobody seated unasked.

Every rematch move is an action (one locked transaction, version bump, push on
commit), so the other players' pages re-render with the proposal.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.urls import reverse

from games.live import frames
from games.models import Rematch, RematchAcceptance, Seat, Table
from games.play import actions, outcome
from games.play.state import load_state

from .conftest import World, client_for, fresh

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


def post(user: Any, name: str, table: Table, data: dict[str, Any], **extra: Any) -> Any:
    return client_for(user).post(reverse(name, args=[table.pk]), data, **extra)


def seats_of(table: Table | int) -> list[tuple[int, int]]:
    table_id = table if isinstance(table, int) else table.pk
    return list(
        Seat.objects.filter(table_id=table_id).order_by("position").values_list("position", "user")
    )


def controls_for(table: Table, user: Any) -> str:
    """The controls region as the socket push renders it for this user."""
    table = Table.objects.select_related("host", "cancelled_by").get(pk=table.pk)
    state = load_state(table)
    return frames.render_frames(state, public=())[user.pk]


def test_a_rematch_accepted_by_all_starts_with_the_same_seats(world: World) -> None:
    table = fresh(world.finished3)
    ana, ben, cy = world.user("ana"), world.user("ben"), world.user("cy")
    before = seats_of(table)

    # ben (not the host) proposes; his proposal is his own yes.
    assert post(ben, "propose_rematch", table, {"version": table.version}).status_code == 303
    rematch = Rematch.objects.get(table=table)
    assert not Table.objects.filter(rematch_of__isnull=False).exists()
    assert post(cy, "accept_rematch", table, {"rematch": rematch.pk}).status_code == 303
    assert not Table.objects.filter(rematch_of=rematch).exists(), "seated before everyone said yes"
    assert post(ana, "accept_rematch", table, {"rematch": rematch.pk}).status_code == 303

    rematch.refresh_from_db()
    new = rematch.new_table
    assert rematch.status == Rematch.Status.ACCEPTED and new is not None
    assert seats_of(new) == before  # same players, same seats
    assert new.host_id == table.host_id == ana.pk  # same host
    assert new.ghost == table.ghost  # same options
    assert new.status == Table.Status.WAITING  # it starts when the host starts it
    assert new.seed != table.seed  # a new deal

    # Everyone's game-over controls now lead to the new table.
    for user in (ana, ben, cy):
        assert reverse("table", args=[new.pk]) in controls_for(table, user)
    # Only the host starts it (R11: the host runs the table); then it plays with those seats.
    assert post(ben, "start_game", new, {"version": new.version}).status_code == 403
    assert post(ana, "start_game", new, {"version": new.version}).status_code == 303
    new = fresh(new)
    assert new.status == Table.Status.PLAYING and new.round_number == 1
    assert seats_of(new) == before


def test_a_rematch_of_a_ghost_game_keeps_the_ghost_and_the_host(world: World) -> None:
    """R8: two players with the ghost option on play with Graybeard again."""
    table = fresh(world.finished2)
    ana, ben = world.user("ana"), world.user("ben")
    rematch = actions.propose_rematch(ana, table.pk, table.version)
    actions.accept_rematch(ben, table.pk, rematch.pk)
    new = Rematch.objects.get(pk=rematch.pk).new_table
    assert new.host_id == ben.pk and new.ghost is True
    assert seats_of(new) == seats_of(table)
    started = actions.start_game(ben, new.pk, new.version)
    assert started.uses_ghost is True


def test_a_player_who_does_not_accept_is_never_seated(world: World) -> None:
    table = fresh(world.finished3)
    ana, ben, cy = world.user("ana"), world.user("ben"), world.user("cy")
    seats_before = Seat.objects.count()
    tables_before = Table.objects.count()
    rematch = actions.propose_rematch(ana, table.pk, table.version)
    actions.accept_rematch(ben, table.pk, rematch.pk)
    # cy has not answered: no table, no seat for anyone.
    assert (Table.objects.count(), Seat.objects.count()) == (tables_before, seats_before)
    # cy declines: still nothing, and the proposal is over.
    actions.decline_rematch(cy, table.pk, rematch.pk)
    rematch.refresh_from_db()
    assert rematch.status == Rematch.Status.DECLINED and rematch.new_table is None
    assert (Table.objects.count(), Seat.objects.count()) == (tables_before, seats_before)
    assert not Seat.objects.filter(user=cy).exclude(table__in=world_tables(world)).exists()
    html = controls_for(table, ana)
    assert f"{cy.username} declined the rematch" in html
    # A declined proposal can be followed by a new one.
    again = actions.propose_rematch(cy, table.pk, fresh(table).version)
    assert again.status == Rematch.Status.OPEN
    assert list(
        RematchAcceptance.objects.filter(rematch=again).values_list("seat__user", flat=True)
    ) == [cy.pk]


def world_tables(world: World) -> list[int]:
    return [world.finished3.pk, world.finished2.pk, world.cancelled.pk, world.playing.pk]


def test_the_others_see_the_proposal_and_accept_with_one_click(world: World) -> None:
    table = fresh(world.finished3)
    ana, ben, cy = world.user("ana"), world.user("ben"), world.user("cy")
    # At game over, every player is offered a rematch, next to "Back to the lobby".
    page = client_for(cy).get(reverse("table", args=[table.pk])).content.decode()
    assert reverse("propose_rematch", args=[table.pk]) in page
    assert page.index("Back to the lobby") < page.index("Propose a rematch")
    assert reverse("replay", args=[table.pk]) in page

    actions.propose_rematch(ana, table.pk, table.version)
    rematch = Rematch.objects.get(table=table)
    for user in (ben, cy):
        html = controls_for(table, user)
        assert f"{ana.username} proposes a rematch" in html
        # One click: a form whose only field (besides CSRF) is the proposal's id.
        form = re.search(
            rf'<form[^>]*action="{reverse("accept_rematch", args=[table.pk])}".*?</form>',
            html,
            re.S,
        )
        assert form, html
        fields = set(re.findall(r'name="(\w+)"', form.group(0))) - {"csrfmiddlewaretoken"}
        assert fields == {"rematch"}
        assert f'value="{rematch.pk}"' in form.group(0)
    proposer = controls_for(table, ana)
    assert reverse("accept_rematch", args=[table.pk]) not in proposer
    assert "Withdraw" in proposer

    # An htmx click answers with ben's own regions (out of band) showing the new answer.
    response = post(ben, "accept_rematch", table, {"rematch": rematch.pk}, **HTMX)
    assert response.status_code == 200
    body = response.content.decode()
    assert '<section id="controls"' in body and response["HX-Reswap"] == "none"
    assert reverse("accept_rematch", args=[table.pk]) not in body  # ben has answered
    assert f"{ben.username}: ✓ in" in body and f"{cy.username}: not answered yet" in body


def test_every_rematch_action_bumps_the_version_and_pushes_on_commit(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    pushed: list[tuple[int, int]] = []
    monkeypatch.setattr(
        outcome,
        "on_commit",
        lambda said: pushed.append((said.table.pk, said.table.version)),
    )
    table = fresh(world.finished3)
    ana, ben, cy = world.user("ana"), world.user("ben"), world.user("cy")
    version = table.version
    rematch = actions.propose_rematch(ana, table.pk, version)
    actions.decline_rematch(ben, table.pk, rematch.pk)
    rematch = actions.propose_rematch(ben, table.pk, version + 2)
    actions.accept_rematch(ana, table.pk, rematch.pk)
    actions.accept_rematch(cy, table.pk, rematch.pk)
    assert pushed == [(table.pk, version + n) for n in range(1, 6)]
    assert fresh(table).version == version + 5


def test_no_rematch_controls_and_no_extra_query_while_the_game_is_in_progress(
    world: World, django_assert_num_queries: Any
) -> None:
    from games.after.rematch import rematch_context

    table = fresh(world.playing)
    seat = Seat.objects.get(table=table, user=world.user("ana"))
    with django_assert_num_queries(0):
        assert rematch_context(table, seat, [seat]) is None
    html = controls_for(table, world.user("ana"))
    assert "rematch" not in html.lower()


def test_a_push_reads_the_rematch_proposal_once_for_every_seat(
    world: World, django_assert_num_queries: Any
) -> None:
    """Every seat's controls show the same proposal: the push renders them all from one
    read of it (the proposal, its acceptances), whatever the number of seats."""
    table = fresh(world.finished3)
    table = actions.propose_rematch(world.user("ana"), table.pk, table.version).table
    state = load_state(Table.objects.select_related("host", "cancelled_by").get(pk=table.pk))
    state.scores  # noqa: B018 (the final standings' read, not the rematch's)
    with django_assert_num_queries(2):
        rendered = frames.render_frames(state, ())
    assert len(rendered) == 3
    for user_id, html in rendered.items():
        assert reverse("accept_rematch", args=[table.pk]) in html or user_id == world.user("ana").pk


def test_the_rematch_box_of_a_finished_table_costs_at_most_two_queries(
    world: World, django_assert_num_queries: Any
) -> None:
    from games.after.rematch import rematch_context

    table = fresh(world.finished3)
    seats = list(Seat.objects.filter(table=table).select_related("user").order_by("position"))
    with django_assert_num_queries(1):  # no proposal yet
        assert rematch_context(table, seats[0], seats).can_propose
    table = actions.propose_rematch(world.user("ana"), table.pk, table.version).table
    with django_assert_num_queries(2):  # the proposal, its acceptances
        view = rematch_context(table, seats[1], seats)
    assert [a.accepted for a in view.answers] == [True, False, False]
