"""Issue 50: the "moderators" group may hide chat and mute, see and watch tables, and
nothing more: not cancel a game, not suspend or lift (accounts.moderators)."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import Group, Permission
from django.contrib.contenttypes.models import ContentType
from django.core.management import call_command
from django.test import Client

from accounts.models import User
from accounts.moderators import GROUP, PERMISSIONS, ensure_group

pytestmark = pytest.mark.django_db

FORBIDDEN = (
    ("games", "cancel_table"),
    ("accounts", "add_suspension"),
    ("accounts", "change_suspension"),
    ("accounts", "view_suspension"),
    ("accounts", "delete_suspension"),
)


def held(group: Group) -> set[tuple[str, str]]:
    return set(group.permissions.values_list("content_type__app_label", "codename"))


def permission(app_label: str, codename: str) -> Permission:
    """The permission, made if its model or Meta entry has not landed yet (another
    part of issue 50 adds games' chat mute, hide and table permissions)."""
    found = Permission.objects.filter(content_type__app_label=app_label, codename=codename).first()
    if found is not None:
        return found
    model = codename.split("_", 1)[1]
    content_type, _ = ContentType.objects.get_or_create(app_label=app_label, model=model)
    return Permission.objects.create(content_type=content_type, codename=codename, name=codename)


def test_the_group_exists_on_a_fresh_database_with_what_exists_of_its_permissions() -> None:
    """The test database was made by migrate: its post_migrate made the group."""
    group = Group.objects.get(name=GROUP)
    existing = {
        (app, codename)
        for app, codename in PERMISSIONS
        if Permission.objects.filter(content_type__app_label=app, codename=codename).exists()
    }
    assert held(group) == existing
    # The ones that exist in every checkout: chat messages and tables.
    assert {("games", "view_chatmessage"), ("games", "view_table")} <= held(group)


def test_once_every_permission_exists_the_group_holds_exactly_them() -> None:
    for app_label, codename in (*PERMISSIONS, *FORBIDDEN):
        permission(app_label, codename)
    group = ensure_group()
    assert held(group) == set(PERMISSIONS)
    assert not held(group) & set(FORBIDDEN)


def test_migrate_again_keeps_the_group_and_takes_back_what_it_must_not_hold() -> None:
    """An operator's extra permission stays; cancelling and suspending never do."""
    for app_label, codename in (*PERMISSIONS, *FORBIDDEN):
        permission(app_label, codename)
    group = Group.objects.get(name=GROUP)
    extra = Permission.objects.get(content_type__app_label="games", codename="view_seat")
    group.permissions.add(extra, *(permission(app, code) for app, code in FORBIDDEN))
    group.permissions.remove(permission("games", "hide_chatmessage"))
    call_command("migrate", verbosity=0)  # nothing to migrate: post_migrate runs all the same
    assert held(group) == {*PERMISSIONS, ("games", "view_seat")}
    assert Group.objects.filter(name=GROUP).count() == 1


@pytest.fixture
def moderator() -> User:
    for app_label, codename in PERMISSIONS:
        permission(app_label, codename)
    ensure_group()
    user = User.objects.create_user("mona", password="a-long-Secret-42", is_staff=True)
    user.groups.add(Group.objects.get(name=GROUP))
    return User.objects.get(pk=user.pk)  # no cached permissions


def test_a_moderator_s_rights(moderator: User) -> None:
    for app_label, codename in PERMISSIONS:
        assert moderator.has_perm(f"{app_label}.{codename}")
    for app_label, codename in FORBIDDEN:
        assert not moderator.has_perm(f"{app_label}.{codename}")


@pytest.mark.parametrize(
    ("url", "status"),
    [
        ("/admin/", 200),
        ("/admin/games/table/", 200),  # view_table
        ("/admin/games/chatmessage/", 200),  # view_chatmessage
        ("/admin/accounts/suspension/", 403),
        ("/admin/accounts/suspension/add/", 403),
        ("/admin/accounts/user/", 403),
    ],
)
def test_what_a_moderator_reaches_in_the_admin(moderator: User, url: str, status: int) -> None:
    client = Client()
    client.force_login(moderator)
    assert client.get(url).status_code == status


def test_a_superuser_may_do_all() -> None:
    boss: Any = User.objects.create_superuser("boss", password="a-long-Secret-42")
    for app_label, codename in (*PERMISSIONS, *FORBIDDEN):
        assert boss.has_perm(f"{app_label}.{codename}")
