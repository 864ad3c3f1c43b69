"""Staff cancel a table with a reason (issue 50), and a game that is over closes its chat.

"Cancel this table" asks first: a page (GET) with a reason from a short list, or typed
under "Other", then the POST cancels through games.play.actions.cancel_table (locked,
versioned, pushed). The players read "Cancelled by staff: <reason>" in their status
line, in their own language (a typed reason as typed); the admin log keeps it on the
table's History page. A cancelled or finished table's chat is read-only for everyone:
no box to write in, and a message posted anyway is refused (R11 and issue 50).
"""

from __future__ import annotations

import random
import re
from typing import Any
from unittest import mock

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.auth.models import Permission
from django.contrib.contenttypes.models import ContentType
from django.test import Client
from django.urls import reverse

from games.live import broadcast
from games.models import ChatMessage, Table
from games.play import actions
from games.testing.driver import at_phase, play_until, random_move
from games.testing.factories import make_user, started_table
from tests.games.helpers import snapshot
from tests.support.presence import every_seat_watching

pytestmark = pytest.mark.django_db


def user_with(name: str, *codenames: str, **fields: Any) -> Any:
    user = make_user(name, **fields)
    user.user_permissions.add(
        *Permission.objects.filter(content_type__app_label="games", codename__in=codenames)
    )
    return type(user).objects.get(pk=user.pk)


@pytest.fixture
def canceller() -> Any:
    """Staff who may see tables and cancel them (not a moderator: no chat rights)."""
    return user_with("cora", "view_table", "cancel_table", is_staff=True)


def client_of(user: Any) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def cancel_url(table: Table) -> str:
    return reverse("admin:games_table_cancel", args=[table.pk])


def table_page(user: Any, table: Table) -> str:
    return client_of(user).get(reverse("table", args=[table.pk])).content.decode()


def status_line(html: str) -> str:
    found = re.search(r'<section id="status".*?</section>', html, re.S)
    assert found, "no status line"
    return re.sub(r"\s+", " ", found[0])


def a_table(prefix: str = "cx") -> tuple[Table, list[Any]]:
    """A game in progress whose second player reads French."""
    table, users = started_table(3, ghost=False, prefix=prefix)
    users[1].language = "fr"
    users[1].save()
    return table, users


def table_log(table: Table) -> list[str]:
    kind = ContentType.objects.get_for_model(Table)
    entries = LogEntry.objects.filter(content_type=kind, object_id=str(table.pk))
    return [entry.change_message for entry in entries.order_by("action_time", "pk")]


# -- the confirmation and the reason ----------------------------------------------------------


def test_the_cancel_asks_for_a_reason_first_and_changes_nothing(canceller: Any) -> None:
    table, _users = a_table()
    staff = client_of(canceller)
    change = staff.get(reverse("admin:games_table_change", args=[table.pk])).content.decode()
    assert f'href="{cancel_url(table)}"' in change  # a link to the question, not a POST
    before = snapshot()
    page = staff.get(cancel_url(table))
    assert page.status_code == 200
    html = page.content.decode()
    for value, label in [
        ("abuse", "Abuse or harassment"),
        ("stuck", "Stuck table"),
        ("cheating", "Cheating"),
        ("players", "Requested by the players"),
        ("other", "Other"),
    ]:
        assert f'value="{value}"' in html and label in html
    assert 'name="note"' in html
    assert snapshot() == before
    assert Table.objects.get(pk=table.pk).status == Table.Status.PLAYING


def test_a_table_already_over_is_not_asked_about(canceller: Any) -> None:
    """R10/R11: a finished or cancelled table has nothing left to cancel: its page says
    so instead of asking for a reason, and nothing changes."""
    table, _users = a_table()
    Table.objects.filter(pk=table.pk).update(status=Table.Status.FINISHED)
    staff = client_of(canceller)
    before = snapshot()
    response = staff.get(cancel_url(table), follow=True)
    assert response.redirect_chain[-1][0] == reverse("admin:games_table_change", args=[table.pk])
    assert f"Table #{table.pk} is over already: there is nothing to cancel." in (
        response.content.decode()
    )
    assert snapshot() == before
    assert table_log(table) == []


@pytest.mark.parametrize(
    "form",
    [{}, {"reason": "boredom"}, {"reason": "other"}, {"reason": "other", "note": "  "}],
    ids=["no reason", "not on the list", "other without words", "other with blanks"],
)
def test_a_cancel_without_a_valid_reason_is_refused_and_changes_nothing(
    canceller: Any, form: dict[str, str]
) -> None:
    table, _users = a_table()
    before = snapshot()
    response = client_of(canceller).post(cancel_url(table), form)
    assert response.status_code == 400
    assert 'class="errorlist' in response.content.decode()
    assert snapshot() == before
    assert table_log(table) == []


def test_a_chosen_reason_reaches_every_player_in_their_language(canceller: Any) -> None:
    table, users = a_table()
    response = client_of(canceller).post(cancel_url(table), {"reason": "cheating"})
    assert response.status_code == 302
    cancelled = Table.objects.get(pk=table.pk)
    assert cancelled.status == Table.Status.CANCELLED and cancelled.cancelled_by == canceller
    assert cancelled.cancel_reason == "cheating"
    assert cancelled.version == table.version + 1
    assert "Cancelled by staff: Cheating" in status_line(table_page(users[0], table))
    assert "Annulée par l\u2019équipe : Triche" in status_line(table_page(users[1], table))
    assert table_log(table) == ["Cancelled the table. Reason: Cheating"]
    history = client_of(canceller).get(reverse("admin:games_table_history", args=[table.pk]))
    assert "Reason: Cheating" in history.content.decode()


def test_a_typed_reason_is_shown_as_typed(canceller: Any) -> None:
    table, users = a_table()
    note = "Serveur en maintenance <ce soir>"
    response = client_of(canceller).post(cancel_url(table), {"reason": "other", "note": note})
    assert response.status_code == 302
    escaped = "Serveur en maintenance &lt;ce soir&gt;"
    assert f"Cancelled by staff: {escaped}" in status_line(table_page(users[0], table))
    assert f"Annulée par l\u2019équipe : {escaped}" in status_line(table_page(users[1], table))
    assert table_log(table) == [f"Cancelled the table. Reason: {note}"]


def test_the_cancel_is_pushed_to_every_open_page_in_its_language(
    canceller: Any, django_capture_on_commit_callbacks: Any
) -> None:
    """The status line says why, the chat's box goes: live, with no reload."""
    table, users = a_table()
    every_seat_watching(table)
    layer = Recorder()
    pushed = mock.patch.object(broadcast, "get_channel_layer", return_value=layer)
    with pushed, django_capture_on_commit_callbacks(execute=True):
        actions.cancel_table(canceller, table.pk, reason="stuck")
    said = {
        "en": "Cancelled by staff: Stuck table",
        "fr": "Annulée par l\u2019équipe : Table bloquée",
    }
    languages = {users[0].pk: "en", users[1].pk: "fr", users[2].pk: "en"}
    assert len(layer.sent) == len(users)
    for group, message in layer.sent:
        user_id = next(pk for pk in languages if group.endswith(f"-user-{pk}"))
        html = message["html"]
        assert said[languages[user_id]] in status_line(html)
        compose = re.search(r'<div id="chat-compose".*?</div>', html, re.S)
        assert compose and 'id="chat-text"' not in compose[0]


@pytest.mark.parametrize(
    ("role", "status"),
    [
        ("anonymous", 302),
        ("player", 302),
        ("staff without the permission", 403),
        ("moderator", 403),
    ],
)
def test_only_staff_with_the_cancel_permission_may_cancel(role: str, status: int) -> None:
    table, users = a_table()
    user = {
        "anonymous": None,
        "player": users[0],
        "staff without the permission": make_user("stew", is_staff=True),
        "moderator": user_with(
            "mona", "view_table", "view_chatmessage", "hide_chatmessage", is_staff=True
        ),
    }[role]
    client = client_of(user)
    before = snapshot()
    for response in (
        client.get(cancel_url(table)),
        client.post(cancel_url(table), {"reason": "stuck"}),
    ):
        assert response.status_code == status, role
        if status == 302:
            assert "/login/" in response["Location"]
    client.post(
        reverse("admin:games_table_changelist"),
        {
            "action": "cancel_tables",
            "_selected_action": [table.pk],
            "post": "yes",
            "reason": "stuck",
        },
    )
    assert snapshot() == before
    if role == "moderator":
        page = client.get(reverse("admin:games_table_change", args=[table.pk])).content.decode()
        assert cancel_url(table) not in page  # no button that would only say 403


def test_a_superuser_may_cancel() -> None:
    table, _users = a_table()
    boss = make_user("boss", is_staff=True, is_superuser=True)
    assert client_of(boss).post(cancel_url(table), {"reason": "players"}).status_code == 302
    assert Table.objects.get(pk=table.pk).cancel_reason == "players"


def test_cancel_selected_tables_asks_once_for_all_of_them(canceller: Any) -> None:
    first, _ = a_table("a")
    second, users = a_table("b")
    listing = reverse("admin:games_table_changelist")
    chosen = {"action": "cancel_tables", "_selected_action": [first.pk, second.pk]}
    staff = client_of(canceller)
    asked = staff.post(listing, chosen)
    assert asked.status_code == 200
    html = asked.content.decode()
    assert f"Table #{first.pk}" in html and f"Table #{second.pk}" in html
    assert Table.objects.filter(status=Table.Status.CANCELLED).count() == 0
    wrong = staff.post(listing, {**chosen, "post": "yes", "reason": "other"})
    assert wrong.status_code == 400
    assert Table.objects.filter(status=Table.Status.CANCELLED).count() == 0
    done = staff.post(listing, {**chosen, "post": "yes", "reason": "abuse"})
    assert done.status_code == 302
    for table in (first, second):
        assert Table.objects.get(pk=table.pk).cancel_reason == "abuse"
        assert table_log(table) == ["Cancelled the table. Reason: Abuse or harassment"]
    assert "Annulée par l\u2019équipe : Abus ou harcèlement" in status_line(
        table_page(users[1], second)
    )


# -- a game that is over closes its chat ----------------------------------------------------


def assert_chat_closed(table: Table, users: list[Any]) -> None:
    """No box on any player's page, and a message posted anyway refused: nothing saved."""
    for user in users:
        html = table_page(user, table)
        assert 'id="chat-text"' not in html and 'class="chat__form"' not in html
    assert "The game is over: the chat is closed." in table_page(users[0], table)
    assert "La partie est terminée : le chat est fermé." in table_page(users[1], table)
    before = ChatMessage.objects.count()
    url = reverse("post_chat", args=[table.pk])
    for extra in ({}, {"HTTP_HX_REQUEST": "true"}):
        response = client_of(users[0]).post(url, {"text": "gg"}, **extra)
        assert response.status_code == 409
        assert "This game is over: its chat is closed." in response.content.decode()
    french = client_of(users[1]).post(url, {"text": "bien joué"})
    assert "Cette partie est terminée : son chat est fermé." in french.content.decode()
    assert ChatMessage.objects.count() == before


def test_a_cancelled_table_s_chat_is_closed(canceller: Any) -> None:
    table, users = a_table()
    assert 'id="chat-text"' in table_page(users[0], table)  # open while the game is
    actions.post_chat(users[0], table.pk, "ahoy")
    actions.cancel_table(canceller, table.pk, reason="stuck")
    assert_chat_closed(table, users)
    assert "ahoy" in table_page(users[2], table)  # still read-only, not gone


def test_a_table_left_by_a_player_closes_its_chat_too() -> None:
    table, users = a_table()
    actions.leave_table(users[2], table.pk, confirmed=True)  # R11: cancelled for everyone
    assert_chat_closed(table, users)


class Recorder:
    def __init__(self) -> None:
        self.sent: list[tuple[str, dict[str, Any]]] = []

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        self.sent.append((group, message))


def test_a_finished_game_closes_its_chat_live(django_capture_on_commit_callbacks: Any) -> None:
    """The last card of round 10 (R10) pushes the chat's box closed to every page."""
    table, users = started_table(2, ghost=False, seed=5, prefix="fin")
    users[1].language = "fr"
    users[1].save()
    rng = random.Random(5)
    table = play_until(table, rng, at_phase(Table.Phase.PLAYING, 10), limit=2000)
    every_seat_watching(table)
    layer = Recorder()
    with mock.patch.object(broadcast, "get_channel_layer", return_value=layer):
        while table.status != Table.Status.FINISHED:
            layer.sent.clear()
            with django_capture_on_commit_callbacks(execute=True):
                table = random_move(table, rng)
    closed = {"en": "The game is over: the chat is closed.", "fr": "La partie est terminée"}
    assert len(layer.sent) == 2
    for group, message in layer.sent:
        language = "fr" if group.endswith(f"-user-{users[1].pk}") else "en"
        compose = re.search(r'<div id="chat-compose".*?</div>', message["html"], re.S)
        assert compose, "the game's end does not push the chat's box"
        assert closed[language] in compose[0] and "chat-text" not in compose[0]
    assert_chat_closed(table, users)
