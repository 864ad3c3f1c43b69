"""The "moderators" group (issue 50): staff who may hide chat messages and mute
players, see tables and watch them, but not cancel a game nor suspend an account.

Made by a post_migrate handler, not a data migration:

- the permissions it holds are created by Django's own post_migrate handler
  (auth's create_permissions), after every migration ran: a data migration running
  in the same ``migrate`` as the migrations that add those models and Meta
  permissions (games' 0010 and 0011) would find none of them, and on a fresh test
  database none at all;
- a test database is flushed between transactional tests, and a flush sends
  post_migrate again (not the migrations): the group comes back after each flush.

It runs after each app's post_migrate (whichever app comes last, its permissions
exist by then), adds whichever of PERMISSIONS exist, and takes away FORBIDDEN ones
if someone gave them; other permissions an operator adds stay. A superuser may do
all anyway.
"""

from __future__ import annotations

from typing import Any

from django.db import DEFAULT_DB_ALIAS
from django.db.models import Q

GROUP = "moderators"

PERMISSIONS = (
    ("games", "hide_chatmessage"),
    ("games", "add_chatmute"),
    ("games", "change_chatmute"),
    ("games", "view_chatmute"),
    ("games", "delete_chatmute"),
    ("games", "view_chatmessage"),
    ("games", "view_table"),
    ("games", "watch_table"),
)

#: Never the moderators': cancelling a game, suspending or lifting.
FORBIDDEN = Q(content_type__app_label="games", codename="cancel_table") | Q(
    content_type__app_label="accounts", codename__endswith="_suspension"
)


def ensure_group(using: str = DEFAULT_DB_ALIAS) -> Any:
    from django.contrib.auth.models import Group, Permission

    group, _ = Group.objects.using(using).get_or_create(name=GROUP)
    wanted = Q()
    for app_label, codename in PERMISSIONS:
        wanted |= Q(content_type__app_label=app_label, codename=codename)
    present = Permission.objects.using(using).filter(wanted)
    group.permissions.add(*present)
    group.permissions.remove(*group.permissions.filter(FORBIDDEN))
    return group


def on_post_migrate(sender: Any, using: str = DEFAULT_DB_ALIAS, **kwargs: Any) -> None:
    if getattr(sender, "label", "") not in ("accounts", "games"):
        return
    from django.apps import apps

    if not (apps.is_installed("django.contrib.auth") and apps.is_installed("games")):
        return
    ensure_group(using)
