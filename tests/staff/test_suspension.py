"""Issue 50: staff suspend an account from the admin, with a reason and an end.

The suspended user's log-in is refused with the reason and the end in their own
language (after the password was found right), their sessions end at their next
request, their open tables are left as a player leaves them (R11: a game in
progress is cancelled for everyone), lifting or the end passing lets them in
again, and every suspend and lift is on the user's history in the admin.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.auth.models import Group, Permission
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from accounts import suspensions
from accounts.models import Suspension, User
from accounts.moderators import GROUP
from games.models import Seat, Table
from games.play import actions

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-Secret-42"
ADD = "/admin/accounts/suspension/add/"


def make_user(name: str, **extra: Any) -> User:
    return User.objects.create_user(name, password=PASSWORD, **extra)


def logged_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def boss() -> User:
    return make_user("boss", is_staff=True, is_superuser=True)


@pytest.fixture
def moderator() -> User:
    user = make_user("mona", is_staff=True)
    user.groups.add(Group.objects.get(name=GROUP))
    return user


@pytest.fixture
def anne() -> User:
    return make_user("anne", language="en")


def suspend_form(user: User, reason: str = "Insults in the chat", ends: Any = None) -> dict:
    data = {"user": str(user.pk), "reason": reason, "ends_at_0": "", "ends_at_1": ""}
    if ends is not None:
        data["ends_at_0"] = ends.strftime("%Y-%m-%d")
        data["ends_at_1"] = ends.strftime("%H:%M:%S")
    return data


def log_in(client: Client, username: str, password: str = PASSWORD) -> Any:
    return client.post(reverse("login"), {"username": username, "password": password})


def later(days: int = 3) -> Any:
    return (timezone.now() + timedelta(days=days)).replace(microsecond=0)


# -- suspending through the admin -------------------------------------------------


def test_a_superuser_suspends_through_the_admin(boss: User, anne: User) -> None:
    ends = later()
    page = logged_in(boss).get(f"{ADD}?user={anne.pk}")
    assert page.status_code == 200 and 'name="reason"' in page.content.decode()
    response = logged_in(boss).post(ADD, suspend_form(anne, ends=ends))
    assert response.status_code == 302, response.content.decode()[:2000]
    suspension = Suspension.objects.get(user=anne)
    assert suspension.reason == "Insults in the chat"
    assert suspension.ends_at == ends and suspension.created_by == boss
    assert suspension.in_force()
    anne.refresh_from_db()
    assert anne.active_suspension == suspension


def test_a_moderator_may_not_suspend_nor_see_suspensions(moderator: User, anne: User) -> None:
    client = logged_in(moderator)
    assert client.get(ADD).status_code == 403
    assert client.post(ADD, suspend_form(anne)).status_code == 403
    assert client.get("/admin/accounts/suspension/").status_code == 403
    assert not Suspension.objects.exists()
    # A moderator's log-in is not refused: the group is not a suspension.
    assert log_in(Client(), "mona").status_code == 302


def test_a_player_who_is_not_staff_is_sent_to_the_admin_log_in(anne: User) -> None:
    other = make_user("bert")
    client = logged_in(other)
    for response in (client.get(ADD), client.post(ADD, suspend_form(anne))):
        assert response.status_code == 302 and "/admin/login/" in response["Location"]
    assert not Suspension.objects.exists()


@pytest.mark.parametrize(
    ("who", "ends", "error"),
    [
        ("self", None, "You cannot suspend yourself."),
        ("anne", -1, "The end must be in the future."),
        ("anne", "no-reason", "This field is required."),
    ],
)
def test_a_bad_suspension_form_is_refused_and_changes_nothing(
    boss: User, anne: User, who: str, ends: Any, error: str
) -> None:
    target = boss if who == "self" else anne
    data = suspend_form(target, ends=later(ends) if isinstance(ends, int) else None)
    if ends == "no-reason":
        data["reason"] = ""
    response = logged_in(boss).post(ADD, data)
    assert response.status_code == 200  # the admin's form again, with the error
    assert error in response.content.decode()
    assert not Suspension.objects.exists()
    assert not LogEntry.objects.exists()


def test_only_a_superuser_suspends_a_superuser(boss: User) -> None:
    deputy = make_user("deputy", is_staff=True)
    deputy.user_permissions.add(
        *Permission.objects.filter(
            content_type__app_label="accounts", codename__endswith="_suspension"
        )
    )
    response = logged_in(deputy).post(ADD, suspend_form(boss))
    assert "Only a superuser may suspend a superuser." in response.content.decode()
    assert not Suspension.objects.exists()


# -- the log-in refused, in the user's language --------------------------------------


def test_the_suspended_user_s_log_in_is_refused_with_the_reason_and_the_end(
    boss: User, anne: User
) -> None:
    ends = later()
    suspensions.suspend(anne, "Insults in the chat", ends, boss)
    response = log_in(Client(), "anne")
    html = response.content.decode()
    assert response.status_code == 403
    assert "Your account is suspended until" in html and "Insults in the chat" in html
    assert str(ends.year) in html and suspensions.when(ends) in html
    assert "_auth_user_id" not in Client().session


def test_a_wrong_password_does_not_reveal_the_suspension(boss: User, anne: User) -> None:
    suspensions.suspend(anne, "Insults in the chat", None, boss)
    response = log_in(Client(), "anne", "not-the-password")
    html = response.content.decode()
    assert response.status_code == 200  # as for any wrong password
    assert "suspended" not in html and "Insults" not in html


def test_the_refusal_is_in_the_user_s_language_french(boss: User) -> None:
    zoe = make_user("zoe", language="fr")
    ends = later()
    suspensions.suspend(zoe, "Triche", ends, boss)
    # Whatever the visitor's browser reads, the account's language says it.
    response = Client().post(
        reverse("login"),
        {"username": "zoe", "password": PASSWORD},
        HTTP_ACCEPT_LANGUAGE="en",
    )
    html = response.content.decode()
    assert response.status_code == 403
    assert "Votre compte est suspendu jusqu\u2019au" in html and "Triche" in html
    from django.utils import translation

    with translation.override("fr"):
        assert suspensions.when(ends) in html


def test_until_lifted_says_so(boss: User, anne: User) -> None:
    suspensions.suspend(anne, "Spam", None, boss)
    html = log_in(Client(), "anne").content.decode()
    assert "until a moderator lifts the suspension" in html and "Spam" in html


def test_the_admin_log_in_refuses_a_suspended_staff_member(boss: User) -> None:
    stan = make_user("stan", is_staff=True)
    suspensions.suspend(stan, "Abused the admin", None, boss)
    response = Client().post("/admin/login/", {"username": "stan", "password": PASSWORD})
    assert response.status_code == 200 and "Abused the admin" in response.content.decode()
    assert "_auth_user_id" not in response.wsgi_request.session


# -- sessions end ---------------------------------------------------------------------


def test_a_logged_in_user_is_logged_out_at_the_next_request_and_told_why(
    boss: User, anne: User
) -> None:
    client = logged_in(anne)
    assert client.get(reverse("profile")).status_code == 200
    suspensions.suspend(anne, "Insults in the chat", later(), boss)
    response = client.get(reverse("profile"))
    assert response.status_code == 302 and response["Location"] == reverse("login")
    page = client.get(response["Location"])
    assert "Insults in the chat" in page.content.decode()
    # Logged out for good: the next page asks for a log-in.
    again = client.get(reverse("profile"))
    assert again.status_code == 302 and again["Location"].startswith(reverse("login") + "?next=")


def test_an_htmx_request_of_a_suspended_user_sends_the_whole_page_to_log_in(
    boss: User, anne: User
) -> None:
    client = logged_in(anne)
    suspensions.suspend(anne, "Spam", None, boss)
    response = client.get(reverse("profile"), HTTP_HX_REQUEST="true")
    assert response["HX-Redirect"] == reverse("login")
    assert client.get(reverse("profile")).status_code == 302


def test_the_french_user_is_told_why_in_french(boss: User) -> None:
    zoe = make_user("zoe", language="fr")
    client = logged_in(zoe)
    suspensions.suspend(zoe, "Triche", None, boss)
    response = client.get(reverse("profile"), follow=True)
    html = response.content.decode()
    assert "Votre compte est suspendu" in html and "Triche" in html


# -- open tables are left (R11) ---------------------------------------------------------


def test_a_game_in_progress_is_cancelled_for_everyone_as_when_they_leave(
    boss: User, anne: User
) -> None:
    """R11: leaving a game in progress cancels it for everyone; suspension leaves it."""
    host = make_user("hugo")
    table = actions.create_table(host, ghost=True)
    actions.join_table(anne, table.invite_token)
    table = Table.objects.get(pk=table.pk)
    actions.start_game(host, table.pk, table.version)
    response = logged_in(boss).post(ADD, suspend_form(anne))
    assert response.status_code == 302
    table = Table.objects.get(pk=table.pk)
    assert table.status == Table.Status.CANCELLED and table.cancelled_by == anne


def test_a_waiting_table_goes_on_without_them(boss: User, anne: User) -> None:
    """R11 on a waiting table: the seat goes, the host's table stays open to others."""
    host = make_user("hugo")
    table = actions.create_table(host, ghost=True)
    actions.join_table(anne, table.invite_token)
    suspensions.suspend(anne, "Spam", None, boss)
    table = Table.objects.get(pk=table.pk)
    assert table.status == Table.Status.WAITING
    assert list(Seat.objects.filter(table=table).values_list("user__username", flat=True)) == [
        "hugo"
    ]


def test_a_waiting_table_they_host_closes(boss: User, anne: User) -> None:
    table = actions.create_table(anne, ghost=True)
    actions.join_table(make_user("bert"), table.invite_token)
    suspensions.suspend(anne, "Spam", None, boss)
    assert Table.objects.get(pk=table.pk).status == Table.Status.CANCELLED


def test_a_finished_table_is_left_alone(boss: User, anne: User) -> None:
    host = make_user("hugo")
    table = actions.create_table(host, ghost=True)
    actions.join_table(anne, table.invite_token)
    Table.objects.filter(pk=table.pk).update(status=Table.Status.FINISHED)
    suspensions.suspend(anne, "Spam", None, boss)
    assert Table.objects.get(pk=table.pk).status == Table.Status.FINISHED
    assert Seat.objects.filter(table=table, user=anne).exists()


# -- lifting, and the end passing ---------------------------------------------------------


def lift_url(suspension: Suspension) -> str:
    return reverse("admin:accounts_suspension_lift", args=[suspension.pk])


def test_lifting_lets_them_log_in_again(boss: User, anne: User) -> None:
    suspension = suspensions.suspend(anne, "Spam", None, boss)
    assert log_in(Client(), "anne").status_code == 403
    page = logged_in(boss).get(reverse("admin:accounts_suspension_change", args=[suspension.pk]))
    assert "Lift this suspension now" in page.content.decode()
    response = logged_in(boss).post(lift_url(suspension))
    assert response.status_code == 302
    suspension.refresh_from_db()
    assert suspension.lifted_at is not None and suspension.lifted_by == boss
    anne.refresh_from_db()
    assert anne.active_suspension is None
    assert log_in(Client(), "anne").status_code == 302
    # Lifting twice is refused and changes nothing.
    lifted_at = suspension.lifted_at
    again = logged_in(boss).post(lift_url(suspension))
    assert again.status_code == 409
    suspension.refresh_from_db()
    assert suspension.lifted_at == lifted_at


def test_lifting_is_a_post_by_whoever_may_change_suspensions(
    boss: User, moderator: User, anne: User
) -> None:
    suspension = suspensions.suspend(anne, "Spam", None, boss)
    assert logged_in(boss).get(lift_url(suspension)).status_code == 405
    assert logged_in(moderator).post(lift_url(suspension)).status_code == 403
    player = logged_in(make_user("bert")).post(lift_url(suspension))
    assert player.status_code == 302 and "/admin/login/" in player["Location"]
    missing = reverse("admin:accounts_suspension_lift", args=[suspension.pk + 1000])
    assert logged_in(boss).post(missing).status_code == 404
    suspension.refresh_from_db()
    assert suspension.lifted_at is None
    # The change form saves nothing: a suspension is only lifted.
    change = reverse("admin:accounts_suspension_change", args=[suspension.pk])
    assert logged_in(boss).post(change, {"reason": "other"}).status_code == 403
    suspension.refresh_from_db()
    assert suspension.reason == "Spam"


def test_once_the_end_has_passed_they_log_in_again(boss: User, anne: User) -> None:
    client = logged_in(anne)
    suspension = suspensions.suspend(anne, "Spam", later(1), boss)
    assert log_in(Client(), "anne").status_code == 403
    Suspension.objects.filter(pk=suspension.pk).update(ends_at=timezone.now() - timedelta(1))
    assert log_in(Client(), "anne").status_code == 302
    # An open session, marked while it was in force, goes on and the mark goes.
    assert client.get(reverse("profile")).status_code == 200
    anne.refresh_from_db()
    assert anne.active_suspension is None


# -- the admin log ------------------------------------------------------------------------


def test_suspend_and_lift_are_on_the_user_s_history_with_the_reason(boss: User, anne: User) -> None:
    client = logged_in(boss)
    assert client.post(ADD, suspend_form(anne, "Insults in the chat")).status_code == 302
    suspension = Suspension.objects.get(user=anne)
    assert client.post(lift_url(suspension)).status_code == 302
    on_user = LogEntry.objects.filter(
        content_type=ContentType.objects.get_for_model(User), object_id=str(anne.pk)
    ).order_by("pk")
    messages = [entry.get_change_message() for entry in on_user]
    assert [entry.action_flag for entry in on_user] == [CHANGE, CHANGE]
    assert all(entry.user == boss for entry in on_user)
    assert "Suspended until lifted" in messages[0] and "Insults in the chat" in messages[0]
    assert "Suspension lifted" in messages[1] and "Insults in the chat" in messages[1]
    # (A fresh client: the lift's own success message is not on the page.)
    history = logged_in(boss).get(reverse("admin:accounts_user_history", args=[anne.pk]))
    assert history.status_code == 200
    assert history.content.decode().count("Insults in the chat") == 2
    # The suspension's own history has both too.
    assert (
        LogEntry.objects.filter(
            content_type=ContentType.objects.get_for_model(Suspension), object_id=str(suspension.pk)
        ).count()
        == 2
    )


def test_the_user_page_shows_the_suspension_and_a_way_to_suspend(boss: User, anne: User) -> None:
    client = logged_in(boss)
    page = client.get(reverse("admin:accounts_user_change", args=[anne.pk])).content.decode()
    assert f"{ADD}?user={anne.pk}" in page and "Suspend this user" in page
    suspensions.suspend(anne, "Spam", None, boss)
    page = client.get(reverse("admin:accounts_user_change", args=[anne.pk])).content.decode()
    assert "until lifted" in page and "Spam" in page
    listing = client.get("/admin/accounts/user/").content.decode()
    assert "until lifted" in listing


# -- flat query counts ----------------------------------------------------------------------


def _queries(client: Client, url: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url)
    assert response.status_code == 200
    return len(captured)


def test_the_users_list_and_the_suspension_list_keep_flat_query_counts(boss: User) -> None:
    client = logged_in(boss)
    first = make_user("u000")
    suspensions.suspend(first, "Spam", later(), boss)
    users_one = _queries(client, "/admin/accounts/user/")
    suspensions_one = _queries(client, "/admin/accounts/suspension/")
    for n in range(1, 50):
        user = make_user(f"u{n:03}")
        suspensions.suspend(user, f"Spam {n}", later() if n % 2 else None, boss)
    assert Suspension.objects.count() == 50
    assert _queries(client, "/admin/accounts/user/") == users_one
    assert _queries(client, "/admin/accounts/suspension/") == suspensions_one
