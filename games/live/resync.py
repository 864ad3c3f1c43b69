"""Changes made outside the moves reach the open table pages they affect.

A move pushes what it changed (games.live.broadcast). Some things a table page shows
change without a move, and no version says so:

- a user renamed (by staff in the admin): every page of every open table they sit
  at shows the name (the seat list, the score sheet, the chat);
- a user's language (the header's selector): their own other tabs read the table
  in it (pushes, the chat log, the status line).

Each sends the sockets concerned a ``table.resync``, on which they send themselves
a full snapshot (games.live.consumers), once the change is committed. The moves' own
records of what pages hold need nothing: the next move reads the seats' names
again (games.storage.state_cache) and sends what differs.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models.signals import post_save, pre_save
from django.dispatch import receiver

from games.live import broadcast
from games.models import Seat, Table

#: The tables whose pages are live: a finished game's page shows its rematch too.
OPEN = (Table.Status.WAITING, Table.Status.PLAYING, Table.Status.FINISHED)
RESYNC = {"type": "table.resync"}
#: The fields of a user that a table page shows.
SHOWN = ("username", "language")


def open_tables_of(user_id: int) -> list[int]:
    return list(
        Seat.objects.filter(user_id=user_id, table__status__in=OPEN)
        .values_list("table_id", flat=True)
        .distinct()
    )


def resync_tables(table_ids: list[int]) -> None:
    """Every socket of these tables sends itself a snapshot."""
    broadcast.send([(broadcast.group_name(table_id), RESYNC) for table_id in table_ids])


def resync_user(user_id: int, table_ids: list[int]) -> None:
    """This user's sockets of these tables send themselves a snapshot."""
    broadcast.send([(broadcast.user_group(table_id, user_id), RESYNC) for table_id in table_ids])


@receiver(pre_save, sender=get_user_model(), dispatch_uid="games.live.resync.before")
def _remember_shown(sender: Any, instance: Any, update_fields: Any = None, **kwargs: Any) -> None:
    """What the pages showed of the user, read before the save (only when a saved field
    is one they show: a log-in's last_login is not)."""
    if instance.pk is None or (update_fields is not None and not set(update_fields) & set(SHOWN)):
        instance._shown_before = None
        return
    instance._shown_before = sender.objects.filter(pk=instance.pk).values_list(*SHOWN).first()


@receiver(post_save, sender=get_user_model(), dispatch_uid="games.live.resync.after")
def _resync_if_shown_changed(sender: Any, instance: Any, created: bool, **kwargs: Any) -> None:
    before = getattr(instance, "_shown_before", None)
    if created or before is None:
        return
    name_before, language_before = before
    renamed = name_before != instance.username
    relanguaged = language_before != getattr(instance, "language", language_before)
    if not (renamed or relanguaged):
        return
    user_id = instance.pk

    def resync() -> None:
        tables = open_tables_of(user_id)
        if renamed:
            resync_tables(tables)
        else:
            resync_user(user_id, tables)

    transaction.on_commit(resync, robust=True)
