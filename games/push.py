"""Glue between the table consumer and the rest: seats, presence, per-user rendering.

Synchronous helpers (the consumer wraps them in database_sync_to_async), plus
the presence notification sent to a table's group.
"""

from __future__ import annotations

import logging
import string
from typing import Any

from django.conf import settings
from django.db.models import F
from django.http import HttpRequest

from . import presenter
from .broadcast import group_name
from .models import Seat, Table

log = logging.getLogger(__name__)


class NotSeated(presenter.NotSeated):
    """Nothing of this table may be rendered for this user (or the table is gone)."""

    def __init__(self, *, no_table: bool = False) -> None:
        super().__init__()
        self.no_table = no_table


def seat_connected(table_id: int, user: Any) -> int:
    """Count one more open socket on the user's seat.

    Returns the seat id, 0 if there is no such table, -1 if the user is not seated.
    """
    seat_id = (
        Seat.objects.filter(table_id=table_id, user_id=user.pk).values_list("pk", flat=True).first()
    )
    if seat_id is None:
        return -1 if Table.objects.filter(pk=table_id).exists() else 0
    # One atomic UPDATE: concurrent sockets (other tabs, other processes) never lose a count.
    Seat.objects.filter(pk=seat_id).update(connections=F("connections") + 1)
    return int(seat_id)


def seat_disconnected(seat_id: int) -> None:
    """Count one socket fewer, never below 0 (the seat may be gone: a no-op then)."""
    Seat.objects.filter(pk=seat_id, connections__gt=0).update(connections=F("connections") - 1)


_CSRF_CHARS = frozenset(string.ascii_letters + string.digits)
CSRF_SECRET_LENGTH = 32


def socket_request(user: Any, cookies: dict[str, str]) -> HttpRequest | None:
    """A stand-in request for rendering partials pushed down a socket.

    The partials' forms carry ``{% csrf_token %}``; with the browser's own CSRF
    cookie (sent with the websocket handshake) they get a token that works, as on
    the page. Without a well-formed cookie, None: the tag renders nothing and the
    X-CSRFToken header the page's <body> sets for htmx still applies (a freshly
    made token would be worse: its cookie can never reach the browser).
    """
    secret = cookies.get(settings.CSRF_COOKIE_NAME, "")
    if len(secret) != CSRF_SECRET_LENGTH or not set(secret) <= _CSRF_CHARS:
        return None
    request = HttpRequest()
    request.method = "GET"
    request.user = user
    request.META["CSRF_COOKIE"] = secret
    return request


def render_for(
    table_id: int,
    user: Any,
    regions: list[str] | None,
    origin: str = "",
    cookies: dict[str, str] | None = None,
) -> tuple[str, int]:
    """The table's live regions (None: all) as oob fragments for ``user``, and the version.

    Raises NotSeated when the user has no seat there or the table does not exist.
    """
    table = Table.objects.select_related("host", "cancelled_by").filter(pk=table_id).first()
    if table is None:
        raise NotSeated(no_table=True)
    request = socket_request(user, cookies or {})
    try:
        html = presenter.render_regions(
            table, user, regions, oob=True, origin=origin, request=request
        )
    except presenter.NotSeated:
        raise NotSeated() from None
    return html, table.version


async def presence_changed(layer: Any, table_id: int) -> None:
    """Tell every socket of the table to re-render its seat list (who is connected)."""
    if layer is None:
        return
    try:
        await layer.group_send(
            group_name(table_id), {"type": "table.presence", "table_id": table_id}
        )
    except Exception:
        # Presence is cosmetic; the next change or snapshot shows it right.
        log.warning("presence broadcast for table %s failed", table_id, exc_info=True)
