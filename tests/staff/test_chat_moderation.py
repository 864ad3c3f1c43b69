"""Chat moderation (issue 50): staff hide a message and restore it, and mute a user.

A hidden message reads "message removed by staff" in its place on every page, in each
reader's language, and its text never leaves the server again: not in the page, not in
the pushed frame. A muted user's message is refused with 403 and the date the mute
ends, at one table or anywhere. Every hide, restore and mute is in the admin log with
its reason (the object's History page). R11: the chat is for the seated players.
"""

from __future__ import annotations

import datetime
import re
from typing import Any
from unittest import mock

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.auth.models import Permission
from django.contrib.contenttypes.models import ContentType
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games.live import broadcast
from games.models import ChatMessage, ChatMute, Table
from games.play import actions
from games.testing.factories import make_user, started_table
from tests.support.presence import every_seat_watching

pytestmark = pytest.mark.django_db

INSULT = "you are all bilge rats"
REMOVED = {"en": "message removed by staff", "fr": "message retiré par l\u2019équipe"}


def user_with(name: str, *codenames: str, **fields: Any) -> Any:
    """A user with these permissions of the games app (fresh: permissions are cached)."""
    user = make_user(name, **fields)
    user.user_permissions.add(
        *Permission.objects.filter(content_type__app_label="games", codename__in=codenames)
    )
    return type(user).objects.get(pk=user.pk)


@pytest.fixture
def moderator() -> Any:
    """What the "moderators" group may do with chat: see messages, hide them, mute."""
    return user_with(
        "mona",
        "view_chatmessage",
        "hide_chatmessage",
        "view_chatmute",
        "add_chatmute",
        "change_chatmute",
        "delete_chatmute",
        is_staff=True,
    )


def client_of(user: Any) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def chat_at(players: int = 3) -> tuple[Table, list[Any], ChatMessage]:
    table, users = started_table(players, ghost=False, prefix="chat")
    actions.post_chat(users[0], table.pk, "fair winds")
    actions.post_chat(users[1], table.pk, INSULT)
    return table, users, ChatMessage.objects.get(text=INSULT)


def chat_log(html: str) -> str:
    found = re.search(r'<ol id="chat-log".*?</ol>', html, re.S)
    assert found, "no chat log on the page"
    return found[0]


def log_of(obj: Any) -> list[str]:
    """The admin log's messages about ``obj``, oldest first (its History page)."""
    kind = ContentType.objects.get_for_model(obj)
    entries = LogEntry.objects.filter(content_type=kind, object_id=str(obj.pk))
    return [entry.change_message for entry in entries.order_by("action_time", "pk")]


def hide_url(message: ChatMessage) -> str:
    return reverse("admin:games_chatmessage_hide", args=[message.pk])


def restore_url(message: ChatMessage) -> str:
    return reverse("admin:games_chatmessage_restore", args=[message.pk])


# -- hide and restore through the admin -------------------------------------------------


def test_a_moderator_hides_a_message_and_every_player_sees_it_removed(moderator: Any) -> None:
    table, users, message = chat_at()
    users[2].language = "fr"
    users[2].save()
    staff = client_of(moderator)
    page = staff.get(reverse("admin:games_chatmessage_change", args=[message.pk]))
    assert page.status_code == 200
    assert f'action="{hide_url(message)}"' in page.content.decode()

    response = staff.post(hide_url(message), {"reason": "insults the table"})
    assert response.status_code == 302
    assert response["Location"] == reverse("admin:games_chatmessage_change", args=[message.pk])
    message.refresh_from_db()
    assert message.hidden_at is not None and message.hidden_by == moderator
    for user, language in ((users[0], "en"), (users[1], "en"), (users[2], "fr")):
        log = chat_log(client_of(user).get(reverse("table", args=[table.pk])).content.decode())
        assert REMOVED[language] in log
        assert "bilge" not in log  # the text never reaches a player's page
        assert "fair winds" in log  # the other messages stay
    # The table did not move on: a pending move of a player is not made stale.
    assert Table.objects.get(pk=table.pk).version == table.version
    # In the admin log, with its reason, shown on the message's History page.
    assert log_of(message) == ["Hidden. Reason: insults the table"]
    history = staff.get(reverse("admin:games_chatmessage_history", args=[message.pk]))
    assert "insults the table" in history.content.decode()


def test_a_moderator_restores_a_hidden_message(moderator: Any) -> None:
    table, users, message = chat_at()
    staff = client_of(moderator)
    staff.post(hide_url(message), {"reason": "spam?"})
    page = staff.get(reverse("admin:games_chatmessage_change", args=[message.pk]))
    assert f'action="{restore_url(message)}"' in page.content.decode()
    response = staff.post(restore_url(message), {"reason": "it was a joke between friends"})
    assert response.status_code == 302
    message.refresh_from_db()
    assert message.hidden_at is None and message.hidden_by is None
    log = chat_log(client_of(users[0]).get(reverse("table", args=[table.pk])).content.decode())
    assert INSULT in log and REMOVED["en"] not in log
    assert log_of(message) == [
        "Hidden. Reason: spam?",
        "Restored. Reason: it was a joke between friends",
    ]


def test_hiding_twice_or_restoring_a_shown_message_changes_nothing(moderator: Any) -> None:
    _table, _users, message = chat_at()
    staff = client_of(moderator)
    restore = staff.post(restore_url(message), follow=True)
    assert "This message is not hidden." in restore.content.decode()
    staff.post(hide_url(message))
    message.refresh_from_db()
    hidden_at = message.hidden_at
    again = staff.post(hide_url(message), follow=True)
    assert "This message is hidden already." in again.content.decode()
    message.refresh_from_db()
    assert message.hidden_at == hidden_at
    assert log_of(message) == ["Hidden."]
    # A GET changes nothing either, and an unknown message is a 404.
    assert staff.get(hide_url(message)).status_code == 405
    missing = reverse("admin:games_chatmessage_hide", args=[message.pk + 1000])
    assert staff.post(missing).status_code == 404


@pytest.mark.parametrize(
    ("role", "status"),
    [
        ("anonymous", 302),  # to the log-in page
        ("player", 302),  # not staff: the admin sends them to log in as staff
        ("staff without the permission", 403),
        ("staff who may only view messages", 403),
        ("table canceller", 403),
    ],
)
def test_hide_and_restore_are_refused_without_the_permission(role: str, status: int) -> None:
    _table, users, message = chat_at()
    user = {
        "anonymous": None,
        "player": users[0],
        "staff without the permission": make_user("stew", is_staff=True),
        "staff who may only view messages": user_with("vic", "view_chatmessage", is_staff=True),
        "table canceller": user_with("carl", "view_table", "cancel_table", is_staff=True),
    }[role]
    client = client_of(user)
    for url in (hide_url(message), restore_url(message)):
        response = client.post(url, {"reason": "x"})
        assert response.status_code == status, (role, url)
        if status == 302:
            assert "/login/" in response["Location"]
    message.refresh_from_db()
    assert message.hidden_at is None
    assert log_of(message) == []
    # Nor may they hide from the list.
    client.post(
        reverse("admin:games_chatmessage_changelist"),
        {"action": "hide_messages", "_selected_action": [message.pk]},
    )
    message.refresh_from_db()
    assert message.hidden_at is None


def test_a_superuser_may_hide_too() -> None:
    _table, _users, message = chat_at()
    boss = make_user("boss", is_staff=True, is_superuser=True)
    assert client_of(boss).post(hide_url(message)).status_code == 302
    message.refresh_from_db()
    assert message.hidden_by == boss


def test_the_action_refuses_a_player_and_changes_nothing() -> None:
    _table, users, message = chat_at()
    with pytest.raises(actions.ActionError) as refused:
        actions.hide_chat_message(users[0], message.pk, "mine")
    assert refused.value.status == 403
    message.refresh_from_db()
    assert message.hidden_at is None and log_of(message) == []


def test_hidden_messages_are_listed_apart_and_hidden_from_the_list(moderator: Any) -> None:
    table, users, message = chat_at()
    actions.post_chat(users[2], table.pk, "buy cheap doubloons")
    spam = ChatMessage.objects.get(text="buy cheap doubloons")
    staff = client_of(moderator)
    listing = reverse("admin:games_chatmessage_changelist")
    response = staff.post(
        listing, {"action": "hide_messages", "_selected_action": [message.pk, spam.pk]}
    )
    assert response.status_code == 302
    assert ChatMessage.objects.filter(hidden_at__isnull=False).count() == 2
    hidden = staff.get(listing, {"hidden": "yes"})
    assert {m.pk for m in hidden.context["cl"].result_list} == {message.pk, spam.pk}
    shown = staff.get(listing, {"hidden": "no"})
    assert [m.text for m in shown.context["cl"].result_list] == ["fair winds"]
    assert log_of(spam) == ["Hidden."]
    staff.post(listing, {"action": "restore_messages", "_selected_action": [spam.pk]})
    spam.refresh_from_db()
    assert spam.hidden_at is None
    # The table's admin page shows which of its messages are hidden, and when.
    boss = make_user("boss", is_staff=True, is_superuser=True)
    page = client_of(boss).get(reverse("admin:games_table_change", args=[table.pk]))
    assert "hidden at" in page.content.decode().lower()


def test_the_message_list_reads_a_flat_number_of_queries(
    moderator: Any, django_assert_max_num_queries: Any
) -> None:
    """As many queries for 3 messages as for 60, some of them hidden."""
    staff = client_of(moderator)
    listing = reverse("admin:games_chatmessage_changelist")
    table, users, message = chat_at()
    actions.hide_chat_message(moderator, message.pk)
    staff.get(listing)  # content types and permissions cached as in a running server
    with django_assert_max_num_queries(100) as few:
        assert staff.get(listing).status_code == 200
    ChatMessage.objects.bulk_create(
        ChatMessage(
            table=table,
            author=users[i % 3],
            text=f"message {i}",
            hidden_at=timezone.now() if i % 4 == 0 else None,
            hidden_by=moderator if i % 4 == 0 else None,
        )
        for i in range(60)
    )
    with django_assert_max_num_queries(len(few.captured_queries)):
        assert staff.get(listing).status_code == 200
    with django_assert_max_num_queries(len(few.captured_queries)):
        assert staff.get(listing, {"hidden": "yes"}).status_code == 200


# -- live: the pushed frame -----------------------------------------------------------


class Recorder:
    def __init__(self) -> None:
        self.sent: list[tuple[str, dict[str, Any]]] = []

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        self.sent.append((group, message))


def test_the_hide_and_the_restore_are_pushed_to_every_open_page(
    moderator: Any, django_capture_on_commit_callbacks: Any
) -> None:
    """The chat log alone, to each seated player, in their language; the text gone."""
    table, users, message = chat_at()
    users[1].language = "fr"
    users[1].save()
    every_seat_watching(table)
    layer = Recorder()
    with mock.patch.object(broadcast, "get_channel_layer", return_value=layer):
        with django_capture_on_commit_callbacks(execute=True):
            actions.hide_chat_message(moderator, message.pk, "insults")
        hidden = list(layer.sent)
        layer.sent.clear()
        with django_capture_on_commit_callbacks(execute=True):
            actions.restore_chat_message(moderator, message.pk)
        restored = list(layer.sent)
    languages = {users[0].pk: "en", users[1].pk: "fr", users[2].pk: "en"}
    assert len(hidden) == len(restored) == len(users)
    for (group, frame), (_group, again) in zip(hidden, restored, strict=True):
        user_id = next(pk for pk in languages if group.endswith(f"-user-{pk}"))
        assert frame["regions"] == ["chat-log"]
        assert REMOVED[languages[user_id]] in frame["html"]
        assert "bilge" not in frame["html"]
        assert "fair winds" in frame["html"]
        assert INSULT in again["html"] and REMOVED[languages[user_id]] not in again["html"]


# -- mutes --------------------------------------------------------------------------------


def mute(user: Any, table: Table | None, hours: float = 2, by: Any = None) -> ChatMute:
    until = timezone.now() + datetime.timedelta(hours=hours)
    return ChatMute.objects.create(
        user=user, table=table, until=until, reason="shouting", created_by=by
    )


def post_chat(user: Any, table: Table, text: str, **extra: Any) -> Any:
    return client_of(user).post(reverse("post_chat", args=[table.pk]), {"text": text}, **extra)


@pytest.mark.parametrize("htmx", [False, True], ids=["plain", "htmx"])
def test_a_muted_player_is_refused_with_403_and_the_end_of_the_mute(htmx: bool) -> None:
    table, users, _message = chat_at()
    until = mute(users[1], None).until
    before = ChatMessage.objects.count()
    response = post_chat(
        users[1], table, "let me speak", **({"HTTP_HX_REQUEST": "true"} if htmx else {})
    )
    assert response.status_code == 403
    body = response.content.decode()
    assert "You are muted until" in body and str(until.year) in body
    assert 'role="alert"' in body
    assert ChatMessage.objects.count() == before  # nothing saved
    # The others chat as before.
    assert post_chat(users[0], table, "quiet now").status_code == 303


def test_a_mute_is_said_in_the_players_language() -> None:
    table, users, _message = chat_at()
    users[1].language = "fr"
    users[1].save()
    mute(users[1], table)
    response = post_chat(users[1], table, "laissez-moi parler")
    assert response.status_code == 403
    assert "Vous êtes réduit au silence jusqu\u2019au" in response.content.decode()


def test_a_table_mute_holds_at_that_table_only_a_site_mute_everywhere() -> None:
    table, users, _message = chat_at()
    other, _ = started_table([users[1], users[0]], ghost=True)
    mute(users[1], table)
    assert post_chat(users[1], table, "here").status_code == 403
    assert post_chat(users[1], other, "there").status_code == 303
    mute(users[1], None)
    assert post_chat(users[1], other, "there again").status_code == 403
    assert list(
        ChatMessage.objects.filter(author=users[1]).order_by("pk").values_list("text", flat=True)
    ) == [
        INSULT,
        "there",
    ]


def test_a_mute_ends_at_its_time() -> None:
    table, users, _message = chat_at()
    ended = mute(users[1], table, hours=-1)  # over an hour ago
    assert post_chat(users[1], table, "free again").status_code == 303
    ended.delete()
    mute(users[1], None, hours=1)
    assert post_chat(users[1], table, "muted").status_code == 403
    later = timezone.now() + datetime.timedelta(hours=1, minutes=1)
    with mock.patch("django.utils.timezone.now", return_value=later):
        assert post_chat(users[1], table, "an hour later").status_code == 303
    assert ChatMessage.objects.filter(text="muted").count() == 0


def test_a_moderator_mutes_in_the_admin_and_the_log_says_why(moderator: Any) -> None:
    table, users, _message = chat_at()
    staff = client_of(moderator)
    add = reverse("admin:games_chatmute_add")
    assert staff.get(add).status_code == 200
    response = staff.post(
        add,
        {
            "user": users[2].pk,
            "table": table.pk,
            "until_0": "2099-01-01",
            "until_1": "12:00:00",
            "reason": "spam after a warning",
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    created = ChatMute.objects.get(user=users[2])
    assert created.table == table and created.created_by == moderator
    assert post_chat(users[2], table, "buy now").status_code == 403
    (said,) = log_of(created)
    assert "spam after a warning" in said and f"table #{table.pk}" in said
    history = staff.get(reverse("admin:games_chatmute_history", args=[created.pk]))
    assert "spam after a warning" in history.content.decode()
    listing = staff.get(reverse("admin:games_chatmute_changelist"), {"active": "yes"})
    assert [m.pk for m in listing.context["cl"].result_list] == [created.pk]


def test_a_new_mute_that_would_already_be_over_is_refused(moderator: Any) -> None:
    """A mute ending in the past would mute nobody: the form says so and saves nothing."""
    table, users, _message = chat_at()
    response = client_of(moderator).post(
        reverse("admin:games_chatmute_add"),
        {
            "user": users[2].pk,
            "table": table.pk,
            "until_0": "2001-01-01",
            "until_1": "12:00:00",
            "reason": "too late",
        },
    )
    assert response.status_code == 200
    assert "A new mute must end in the future." in response.content.decode()
    assert not ChatMute.objects.filter(user=users[2]).exists()
    assert post_chat(users[2], table, "still here").status_code != 403


@pytest.mark.parametrize(
    ("role", "status"),
    [("anonymous", 302), ("player", 302), ("staff without the permission", 403)],
)
def test_mutes_are_refused_without_the_permission(role: str, status: int) -> None:
    _table, users, _message = chat_at()
    user = {
        "anonymous": None,
        "player": users[0],
        "staff without the permission": user_with("hal", "hide_chatmessage", is_staff=True),
    }[role]
    client = client_of(user)
    add = reverse("admin:games_chatmute_add")
    assert client.get(add).status_code == status
    response = client.post(
        add,
        {"user": users[2].pk, "until_0": "2099-01-01", "until_1": "12:00:00", "reason": "x"},
    )
    assert response.status_code == status
    assert not ChatMute.objects.exists()


def test_the_mute_list_reads_a_flat_number_of_queries(
    moderator: Any, django_assert_max_num_queries: Any
) -> None:
    """As many queries for 2 mutes as for 30, at tables and site-wide."""
    table, users, _message = chat_at()
    staff = client_of(moderator)
    listing = reverse("admin:games_chatmute_changelist")
    mute(users[0], table, by=moderator)
    mute(users[1], None, by=moderator)
    staff.get(listing)  # content types and permissions cached as in a running server
    with django_assert_max_num_queries(100) as few:
        assert staff.get(listing).status_code == 200
    for n in range(28):
        other, _ = started_table(2, ghost=True, prefix=f"m{n}_")
        mute(users[n % 3], other if n % 2 else None, by=moderator)
    with django_assert_max_num_queries(len(few.captured_queries)):
        response = staff.get(listing)
    assert response.status_code == 200
    assert len(response.context["cl"].result_list) == 30


def test_the_moderators_group_hides_and_mutes_but_does_not_cancel() -> None:
    """The group made from these permissions (accounts.moderators): chat, not tables."""
    from django.contrib.auth.models import Group

    from accounts.moderators import GROUP

    table, _users, message = chat_at()
    gil = make_user("gil", is_staff=True)
    gil.groups.add(Group.objects.get(name=GROUP))
    client = client_of(type(gil).objects.get(pk=gil.pk))
    assert client.post(hide_url(message), {"reason": "rude"}).status_code == 302
    message.refresh_from_db()
    assert message.hidden_by == gil
    assert client.get(reverse("admin:games_chatmute_add")).status_code == 200
    cancel = reverse("admin:games_table_cancel", args=[table.pk])
    assert client.get(cancel).status_code == 403
    assert client.post(cancel, {"reason": "stuck"}).status_code == 403
    assert Table.objects.get(pk=table.pk).status == Table.Status.PLAYING
