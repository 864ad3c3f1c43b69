"""The games admin: every model listed, game rows read-only, "Cancel selected tables"."""

from __future__ import annotations

import random
from typing import Any

import pytest
from django.contrib import admin
from django.contrib.messages import get_messages
from django.urls import reverse

from games.models import Bid, ChatMessage, HandCard, Play, Round, RoundScore, Seat, Table, Trick
from games.play import actions

from .helpers import at_phase, fresh, make_users, play_until, seated_table, started_table

pytestmark = pytest.mark.django_db

MODELS = [Table, Seat, Round, HandCard, Bid, Trick, Play, RoundScore, ChatMessage]


@pytest.fixture
def staff_client(client: Any) -> Any:
    (staff,) = make_users(1, "admin")
    staff.is_staff = staff.is_superuser = True
    staff.save()
    client.force_login(staff)
    client.staff = staff
    return client


def test_every_model_is_registered() -> None:
    for model in MODELS:
        assert admin.site.is_registered(model), model


def test_changelists_and_change_pages_render(staff_client: Any) -> None:
    table, users = started_table(2, ghost=True, seed=4)
    table = play_until(table, random.Random(4), at_phase(Table.Phase.ROUND_DONE, 1))
    actions.post_chat(users[0], table.pk, "ahoy")
    for model in MODELS:
        info = (model._meta.app_label, model._meta.model_name)
        response = staff_client.get(reverse("admin:{}_{}_changelist".format(*info)))
        assert response.status_code == 200, model
        obj = model.objects.first()
        response = staff_client.get(reverse("admin:{}_{}_change".format(*info), args=[obj.pk]))
        assert response.status_code == 200, model
    # The search finds the table by a player's name, and only that table.
    other, _ = seated_table(2, prefix="other")
    listing = staff_client.get(reverse("admin:games_table_changelist"), {"q": users[1].username})
    assert [t.pk for t in listing.context["cl"].result_list] == [table.pk]
    assert f"Table #{table.pk}" in listing.content.decode()
    assert f"Table #{other.pk}" not in listing.content.decode()


@pytest.mark.parametrize("model", [HandCard, Bid, Play, Trick, RoundScore, Round, Seat])
def test_game_rows_are_read_only(model: Any, rf: Any) -> None:
    request = rf.get("/")
    (request.user,) = make_users(1, "boss")
    request.user.is_superuser = request.user.is_staff = True
    model_admin = admin.site._registry[model]
    assert not model_admin.has_add_permission(request)
    assert not model_admin.has_change_permission(request)
    assert not model_admin.has_delete_permission(request)


def test_cancel_selected_tables(staff_client: Any) -> None:
    waiting, _ = seated_table(2, prefix="w")
    playing, _ = started_table(3, prefix="p")
    over, _ = seated_table(2, prefix="o")
    actions.cancel_table(staff_client.staff, over.pk)
    chosen = {"action": "cancel_tables", "_selected_action": [waiting.pk, playing.pk, over.pk]}
    # The action asks for a reason and a confirmation first (issue 50): nothing changes yet.
    asked = staff_client.post(reverse("admin:games_table_changelist"), chosen)
    assert asked.status_code == 200 and 'name="reason"' in asked.content.decode()
    assert fresh(waiting).status == Table.Status.WAITING
    response = staff_client.post(
        reverse("admin:games_table_changelist"), {**chosen, "post": "yes", "reason": "stuck"}
    )
    assert response.status_code == 302
    for table in (waiting, playing):
        table.refresh_from_db()
        assert table.status == Table.Status.CANCELLED
        assert table.cancelled_by == staff_client.staff
        assert table.cancel_reason == "stuck"
    texts = [str(m) for m in get_messages(response.wsgi_request)]
    assert any(f"Table #{over.pk}" in t and "over already" in t for t in texts), texts
    assert any("Cancelled 2 tables" in t for t in texts), texts
