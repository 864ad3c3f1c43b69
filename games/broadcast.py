"""Tell every socket of a table that the table changed.

The event names only the table and its new version, never a card or a bid:
each consumer renders what its own user may see (see games.consumers).
"""

import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

log = logging.getLogger(__name__)


def group_name(table_id: int) -> str:
    return f"table-{table_id}"


def send_table_changed(table_id: int, version: int) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(
            group_name(table_id),
            {"type": "table.changed", "table_id": table_id, "version": version},
        )
    except Exception:
        # The move is committed; a lost push is healed by the next snapshot
        # (sockets reconnect and resync), so a broken channel layer must not
        # turn a saved move into an error page.
        log.warning("broadcast of table %s v%s failed", table_id, version, exc_info=True)


def table_changed_on_commit(table_id: int, version: int) -> None:
    transaction.on_commit(lambda: send_table_changed(table_id, version))
