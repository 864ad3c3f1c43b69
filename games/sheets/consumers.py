"""A score sheet's socket: anyone logged in with the sheet's link may watch it.

Refused sockets are accepted and closed at once with a 4xxx code, as the table's
(games.live.consumers): 4401 anonymous, 4404 no such sheet; htmx's ws extension does
not retry those.

Sent: a full snapshot on connect, then one after every save (a "sheet.changed"
on the sheet's group, games.sheets.live), rendered for this socket's user in the
language of the page that opened it (``?lang=``). A client may ask for a snapshot
({"type": "snapshot"}, as static/js/live.js does after a gap): answered at most
once every SNAPSHOT_INTERVAL seconds.
"""

from __future__ import annotations

import json
import logging
import time
from typing import Any
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings

from games.live.push import CLOSE_ANONYMOUS, CLOSE_NO_TABLE

from .live import render_frame, sheet_group
from .models import Sheet

log = logging.getLogger(__name__)

SNAPSHOT_INTERVAL = 2.0
MAX_CLIENT_MESSAGE = 4096
LANGUAGES = {code for code, _name in settings.LANGUAGES}


def _snapshot(token: str, user: Any, language: str) -> tuple[int, str] | None:
    sheet = Sheet.objects.filter(token=token).select_related("created_by").first()
    if sheet is None:
        return None
    return sheet.version, render_frame(sheet, user, language)


def _sheet_id(token: str) -> int | None:
    return Sheet.objects.filter(token=token).values_list("pk", flat=True).first()


class SheetConsumer(AsyncWebsocketConsumer):
    token: str
    group: str = ""
    seen_version: int = -1
    snapshot_at: float = 0.0

    async def connect(self) -> None:
        self.token = str(self.scope["url_route"]["kwargs"]["token"])
        query = parse_qs(self.scope.get("query_string", b"").decode("latin-1"))
        language = (query.get("lang") or [""])[0]
        self.language = language if language in LANGUAGES else settings.LANGUAGE_CODE
        self.user = self.scope.get("user")
        await self.accept()
        if self.user is None or not self.user.is_authenticated:
            await self.close(code=CLOSE_ANONYMOUS)
            return
        sheet_id = await database_sync_to_async(_sheet_id)(self.token)
        if sheet_id is None:
            await self.close(code=CLOSE_NO_TABLE)
            return
        # Join before the snapshot: no save made in between is missed.
        self.group = sheet_group(sheet_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.send_snapshot()

    async def disconnect(self, code: int) -> None:
        if self.group:
            await self.channel_layer.group_discard(self.group, self.channel_name)
            self.group = ""

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if not self.group or not text_data or len(text_data) > MAX_CLIENT_MESSAGE:
            return
        try:
            message = json.loads(text_data)
        except ValueError:
            return
        asked = isinstance(message, dict) and message.get("type") == "snapshot"
        if asked and time.monotonic() - self.snapshot_at >= SNAPSHOT_INTERVAL:
            await self.send_snapshot(force=True)

    async def sheet_changed(self, event: dict[str, Any]) -> None:
        version = event.get("version")
        if isinstance(version, int) and version <= self.seen_version:
            return  # this socket already sent that version (or a newer one)
        await self.send_snapshot()

    async def send_snapshot(self, *, force: bool = False) -> None:
        found = await database_sync_to_async(_snapshot)(self.token, self.user, self.language)
        if found is None:
            await self.close(code=CLOSE_NO_TABLE)
            return
        version, html = found
        self.snapshot_at = time.monotonic()
        if version <= self.seen_version and not force:
            return
        self.seen_version = max(version, self.seen_version)
        await self.send(text_data=html)
