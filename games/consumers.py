"""The live table: one websocket per open table page, fed by `table.changed` events.

Who may connect: a logged-in user seated at the table. Anyone else is accepted
and at once closed with a 4xxx code (4401 anonymous, 4403 not seated, 4404 no
such table): htmx's ws extension only reconnects after 1006/1011/1012/1013, so
a refused browser does not retry forever.

What is sent: HTML only, rendered for *this* socket's user by games.presenter
(the same named partials as the page), one frame per change holding every live
region as a top-level element with its id, so htmx oob-swaps each in place.
Each region root carries the table version (data-version). Nothing is ever
rendered once and sent to several users: the group event names only the table
and its version, and each consumer renders what its own user may see (R4).

Presence: Seat.connections counts open sockets (F() updates, never below 0);
every connect and disconnect tells the group, which re-renders the seat lists.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer

from .broadcast import group_name
from .push import NotSeated, presence_changed, render_for, seat_connected, seat_disconnected

log = logging.getLogger(__name__)

CLOSE_ANONYMOUS = 4401
CLOSE_NOT_SEATED = 4403
CLOSE_NO_TABLE = 4404
MAX_CLIENT_MESSAGE = 4096  # a snapshot request is a few hundred bytes of JSON

__all__ = ["CLOSE_ANONYMOUS", "CLOSE_NOT_SEATED", "CLOSE_NO_TABLE", "TableConsumer"]


class TableConsumer(AsyncWebsocketConsumer):
    table_id: int
    seat_id: int | None = None  # set once the seat's connection count was incremented
    group: str | None = None
    sent_version: int = -1  # version of the last full render sent down this socket

    # -- lifecycle -------------------------------------------------------------

    async def connect(self) -> None:
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        self.user = self.scope.get("user")
        # Accept first, then close with a 4xxx code: a refused handshake reads as
        # 1006 in the browser, which htmx would retry forever.
        await self.accept()
        if self.user is None or not self.user.is_authenticated:
            await self.close(code=CLOSE_ANONYMOUS)
            return
        seat_id = await database_sync_to_async(seat_connected)(self.table_id, self.user)
        if isinstance(seat_id, int) and seat_id > 0:
            self.seat_id = seat_id
        else:
            await self.close(code=CLOSE_NO_TABLE if seat_id == 0 else CLOSE_NOT_SEATED)
            return
        # Join before rendering, so that no change made between the render and
        # the join can be missed.
        self.group = group_name(self.table_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        if await self.push(None):
            await presence_changed(self.channel_layer, self.table_id)

    async def disconnect(self, code: int) -> None:
        if self.group is not None:
            await self.channel_layer.group_discard(self.group, self.channel_name)
        if self.seat_id is not None:
            seat_id, self.seat_id = self.seat_id, None
            try:
                await database_sync_to_async(seat_disconnected)(seat_id)
            finally:
                await presence_changed(self.channel_layer, self.table_id)

    # -- client -> server ----------------------------------------------------------

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if self.seat_id is None or not text_data or len(text_data) > MAX_CLIENT_MESSAGE:
            return
        try:
            message = json.loads(text_data)
        except ValueError:
            return
        # {"type": "snapshot"} from live.js, or an hx ws-send form with a "snapshot"
        # field (htmx sends the form values as JSON, with a HEADERS key).
        if isinstance(message, dict) and (
            message.get("type") == "snapshot" or "snapshot" in message
        ):
            await self.push(None)

    # -- group events ------------------------------------------------------------------

    async def table_changed(self, event: dict[str, Any]) -> None:
        version = event.get("version")
        # A full render of a newer state already went out (events can queue up
        # while a render runs): nothing to add.
        if isinstance(version, int) and version < self.sent_version:
            return
        await self.push(None)

    async def table_presence(self, event: dict[str, Any]) -> None:
        await self.push(["seats"])

    # -- rendering ------------------------------------------------------------------------

    async def push(self, regions: list[str] | None) -> bool:
        """Render ``regions`` (None: all) for this socket's user and send them.

        Returns False (and closes the socket) when the user lost their seat or
        the table is gone.
        """
        if self.seat_id is None:
            return False
        try:
            html, version = await database_sync_to_async(render_for)(
                self.table_id, self.user, regions, self.origin(), self.scope.get("cookies") or {}
            )
        except NotSeated as refused:
            # Left the table (before the start) or the table was deleted: stop here.
            await self.close(code=CLOSE_NO_TABLE if refused.no_table else CLOSE_NOT_SEATED)
            if self.group is not None:
                await self.channel_layer.group_discard(self.group, self.channel_name)
                self.group = None
            if self.seat_id is not None:
                seat_id, self.seat_id = self.seat_id, None
                await database_sync_to_async(seat_disconnected)(seat_id)
            return False
        if regions is None:
            self.sent_version = max(self.sent_version, version)
        await self.send(text_data=html)
        return True

    def origin(self) -> str:
        """The page's origin (checked against ALLOWED_HOSTS by the ASGI stack), for links."""
        for name, value in self.scope.get("headers", []):
            if name == b"origin":
                origin = value.decode("latin1")
                return "" if origin == "null" else origin
        return ""
