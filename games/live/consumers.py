"""The live table: one websocket per open table page.

Who may connect: a logged-in user seated at the table, or staff with
games.watch_table, who watch it (issue 50: the table's public regions only, from
the watch group, never a seat's). Anyone else is accepted and at once closed with
a 4xxx code (4401 anonymous, 4403 not seated, 4404 no
such table, whatever its id): htmx's ws extension only reconnects after
1006/1011/1012/1013, so a refused browser does not retry forever.

What is sent:
- on connect, a full snapshot rendered for this socket's user;
- after every move, the frame rendered for this user where the move was made
  (games.live.broadcast), forwarded as it is: a socket neither reads the database
  nor renders for a move;
- presence marks (who has the table open), on the table's group.

Order: a frame never overtakes the snapshot being sent, nor an earlier frame.
Where the channel layer can hand this process's frames straight to the socket
(config.channel_layers ``listen_here``), they skip channels' queue and dispatch
loop: they wait in the socket's own outbox, and one task at a time forwards
them, under the lock a snapshot holds from its read to its send.

A client may ask for a snapshot again ({"type": "snapshot"}, live.js does after
a gap in versions); that costs a render, so it is answered only when a newer
version was seen since the last snapshot or SNAPSHOT_INTERVAL has passed, and
ignored silently otherwise.

Presence: each socket keeps an entry in the cache with a heartbeat
(games.storage.presence), so the sockets of a killed process stop counting by themselves.

Healing: each heartbeat (PRESENCE_HEARTBEAT_SECONDS) also reads the table's
version. A socket that never got that version (its frame was lost on the way:
Redis down or re-subscribing, a stalled process, a page whose own HTTP answer
hid the gap) sends a snapshot, so every page shows the true state within one
heartbeat and a second. A ``table.resync`` (games.live.resync: a rename, a language)
asks for a snapshot too.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import json
import logging
import time
from collections import deque
from typing import Any

from asgiref.sync import sync_to_async
from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer

from games.live import frames, push
from games.live.broadcast import group_name, note_watchers, user_group, watch_group
from games.live.push import CLOSE_ANONYMOUS, CLOSE_NO_TABLE, CLOSE_NOT_SEATED
from games.storage import presence

log = logging.getLogger(__name__)

#: Group events that only forward what was rendered elsewhere and touch no database.
#: Channels closes stale database connections before every message it dispatches, a
#: hop to a worker thread and back; for these (one per socket per move) it is skipped.
FORWARD_ONLY = frozenset({"table.frame", "table.presence", "table.watch"})

MAX_CLIENT_MESSAGE = 4096  # a snapshot request is a few hundred bytes of JSON
SNAPSHOT_INTERVAL = 5.0  # seconds: at most one snapshot per socket this often at the same version
#: How long a heartbeat that finds the table at a version this socket never got waits
#: for its frame before it sends a snapshot instead (a frame takes milliseconds).
FRAME_GRACE = 1.0

__all__ = ["CLOSE_ANONYMOUS", "CLOSE_NOT_SEATED", "CLOSE_NO_TABLE", "TableConsumer"]


class TableConsumer(AsyncWebsocketConsumer):
    table_id: int
    seat_id: int | None = None  # set once the socket counts as present
    #: Staff watching a table they are not seated at (issue 50): no seat, the public
    #: regions only (the watch group's frames), and the players told by the presence marks.
    watching: bool = False
    language: str = ""  # a watcher's: its frames come in every language watched
    shown_watchers: int | None = None  # how many watchers the players' line says
    seat_ids: tuple[int, ...] = ()
    groups_joined: tuple[str, ...] = ()
    seen_version: int = -1  # the newest version forwarded or snapshotted
    snapshot_version: int = -1  # the version of the last snapshot
    snapshot_at: float = 0.0
    shown_online: set[int] | None = None  # the presence marks this client shows
    shown_away: frozenset[int] | None = None  # the away seats its last heartbeat found
    heartbeat_task: asyncio.Task[None] | None = None
    forwarder: asyncio.Task[None] | None = None  # the task emptying the outbox
    resync_task: asyncio.Task[None] | None = None  # a snapshot asked by table.resync
    context: contextvars.Context  # this socket's own, for the forwarding task

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Messages handed over by the channel layer, in their order (take_directly).
        self.outbox: deque[dict[str, Any]] = deque()
        # Held from a snapshot's read to its send, and while the outbox is forwarded:
        # an older frame never follows a newer snapshot, nor a snapshot a newer frame.
        self.sending = asyncio.Lock()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            # However the socket ends: the layer keeps no callback into it.
            self.stop_taking_directly()
            if self.forwarder is not None:
                self.forwarder.cancel()

    # -- lifecycle -------------------------------------------------------------

    async def connect(self) -> None:
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        self.user = self.scope.get("user")
        # Accept first, then close with a 4xxx code: a refused handshake reads as
        # 1006 in the browser, which htmx would retry forever.
        await self.accept()
        listen_here = getattr(self.channel_layer, "listen_here", None)
        if listen_here is not None:
            # The forwarding task runs in this socket's context (its log ids), not in
            # that of whichever thread published the message.
            self.context = contextvars.copy_context()
            listen_here(self.channel_name, self.take_directly)
        try:
            opened = await database_sync_to_async(push.open_socket)(
                self.table_id, self.user, self.channel_name
            )
        except push.Refused as refused:
            await self.close(code=refused.code)
            return
        self.seat_id, self.seat_ids = opened.seat_id, opened.seat_ids
        self.watching = opened.watching
        own_group = user_group(self.table_id, self.user.pk)
        if self.watching:
            # Never the user's own group (a seat's frames): the public frames alone.
            own_group = watch_group(self.table_id)
            self.language = frames.language_of(self.user)
        # Join before the snapshot, so that no move made in between is missed.
        self.groups_joined = (group_name(self.table_id), own_group)
        for group in self.groups_joined:
            await self.channel_layer.group_add(group, self.channel_name)
        if not await self.send_snapshot():
            return
        online, watchers = await database_sync_to_async(push.online)(self.seat_ids, self.table_id)
        if self.watching:
            # A move made here from now on renders this watcher's language at once.
            note_watchers(self.table_id, sorted({*watchers, self.language}))
        await self.announce_presence(online, watchers)
        self.heartbeat_task = asyncio.create_task(self.heartbeat())

    @property
    def live(self) -> bool:
        """Whether the socket counts as open: a seat's, or staff watching."""
        return self.seat_id is not None or self.watching

    async def disconnect(self, code: int) -> None:
        await self.leave()

    async def leave(self) -> None:
        """Stop everything this socket does; idempotent."""
        self.stop_taking_directly()
        self.outbox.clear()
        if self.heartbeat_task is not None:
            self.heartbeat_task.cancel()
            self.heartbeat_task = None
        for group in self.groups_joined:
            await self.channel_layer.group_discard(group, self.channel_name)
        self.groups_joined = ()
        if self.live:
            seat_id, self.seat_id, self.watching = self.seat_id, None, False
            online, watchers = await sync_to_async(push.close_socket, thread_sensitive=False)(
                seat_id, self.channel_name, self.seat_ids, self.table_id
            )
            await self.announce_presence(online, watchers)

    async def refuse(self, code: int) -> None:
        await self.close(code=code)
        await self.leave()

    async def dispatch(self, message: dict[str, Any]) -> None:
        if message.get("type") in FORWARD_ONLY:
            await getattr(self, get_handler_name(message))(message)
        else:
            await super().dispatch(message)

    def take_directly(self, message: dict[str, Any]) -> None:
        """A message the channel layer hands over on this event loop: forwarded in
        order by one task (started here when none runs)."""
        self.outbox.append(message)
        if self.forwarder is None:
            self.forwarder = asyncio.get_running_loop().create_task(
                self.forward_outbox(), context=self.context
            )

    async def forward_outbox(self) -> None:
        try:
            async with self.sending:
                while self.outbox:
                    await self.dispatch(self.outbox.popleft())
        except OSError:
            # The socket closed under its frames (uvicorn's ClientDisconnected): what
            # is left is of no use to it.
            log.debug("table %s's socket closed under its frames", self.table_id)
            self.outbox.clear()
        except Exception:
            # channels' dispatch loop would end the socket here; this one lives on, and
            # the gap its client sees at the next frame asks for a snapshot.
            log.exception("forwarding a frame to table %s's socket failed", self.table_id)
            self.outbox.clear()
        finally:
            self.forwarder = None

    def stop_taking_directly(self) -> None:
        stop = getattr(self.channel_layer, "stop_listening_here", None)
        if stop is not None:
            stop(self.channel_name)

    # -- client -> server ----------------------------------------------------------

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if not self.live or not text_data or len(text_data) > MAX_CLIENT_MESSAGE:
            return
        try:
            message = json.loads(text_data)
        except ValueError:
            return
        # {"type": "snapshot"} from live.js, or an hx ws-send form with a "snapshot"
        # field (htmx sends the form values as JSON, with a HEADERS key).
        if not isinstance(message, dict) or not (
            message.get("type") == "snapshot" or "snapshot" in message
        ):
            return
        fresh = self.seen_version > self.snapshot_version
        if fresh or time.monotonic() - self.snapshot_at >= SNAPSHOT_INTERVAL:
            await self.send_snapshot()

    # -- group events ------------------------------------------------------------------

    async def table_frame(self, event: dict[str, Any]) -> None:
        """A move's frame, rendered for this user where the move was made."""
        if self.seat_id is None:
            return
        version = event.get("version")
        if isinstance(version, int):
            self.seen_version = max(self.seen_version, version)
        if "seats" in event.get("regions", ()):
            self.shown_online = None  # the seat list came with its own marks
        if "seat_ids" in event:
            # The seats the page shows from now on: its presence marks are theirs alone.
            self.seat_ids = tuple(event["seat_ids"])
        await self.send(text_data=event["html"])

    async def table_resync(self, event: dict[str, Any]) -> None:
        """Something this page shows changed outside the moves (a name renamed by
        staff, the user's language): a snapshot, sent by a task of its own (this
        may run while the outbox's forwarding holds ``sending``)."""
        if not self.live or self.resync_task is not None:
            return
        self.snapshot_soon()

    def snapshot_soon(self) -> None:
        """A snapshot, sent by a task of its own (the caller may run while the outbox's
        forwarding holds ``sending``); one at a time."""
        if self.resync_task is not None:
            return

        async def resync() -> None:
            try:
                await self.send_snapshot()
            finally:
                self.resync_task = None

        self.resync_task = asyncio.get_running_loop().create_task(resync())

    async def table_departed(self, event: dict[str, Any]) -> None:
        """This user left the table (before the start): nothing more to show here. The
        presence this socket announces as it closes names the seats left, not its own:
        the other pages have no mark for it any more."""
        self.seat_ids = tuple(seat for seat in self.seat_ids if seat != self.seat_id)
        await self.refuse(CLOSE_NOT_SEATED)

    async def table_watch(self, event: dict[str, Any]) -> None:
        """A move's public regions, for staff watching the table (issue 50): in this
        socket's language, or if the move was not rendered in it, a snapshot instead."""
        if not self.watching:
            return
        version = event.get("version")
        if isinstance(version, int):
            self.seen_version = max(self.seen_version, version)
        if "seats" in event.get("regions", ()):
            self.shown_online = None
        if "seat_ids" in event:
            self.seat_ids = tuple(event["seat_ids"])
        html = (event.get("html") or {}).get(self.language)
        if html is None:
            self.snapshot_soon()
            return
        await self.send(text_data=html)

    async def table_presence(self, event: dict[str, Any]) -> None:
        """Another socket opened or closed. Its seat list may be older or newer than the
        one this page shows (the frames' order differs between sockets): the marks sent
        are for this page's seats (``seat_ids``, kept by its own frames and snapshots).
        The event also says who watches as staff (issue 50): the next move made in this
        process renders their language, and the players' line says so."""
        if not self.live:
            return
        watchers = event.get("watchers", [])
        note_watchers(self.table_id, watchers)
        await self.show_presence(set(event.get("online", ())) & set(self.seat_ids), len(watchers))

    # -- sending ------------------------------------------------------------------------

    async def send_snapshot(self) -> bool:
        """Render every region for this user and send it; False if the seat is gone."""
        async with self.sending:
            try:
                read = push.watch_snapshot if self.watching else push.snapshot
                snapshot = await database_sync_to_async(read)(self.table_id, self.user)
            except push.Refused as refused:
                # Left the table (before the start) or the table was deleted: stop here.
                await self.refuse(refused.code)
                return False
            self.snapshot_version = snapshot.version
            self.seen_version = max(self.seen_version, snapshot.version)
            self.snapshot_at = time.monotonic()
            self.shown_online = None
            self.seat_ids = snapshot.seat_ids
            await self.send(text_data=snapshot.html)
            return True

    async def announce_presence(self, online: set[int], watchers: list[str]) -> None:
        """Tell every socket of the table who is online now, and who watches as staff."""
        try:
            await self.channel_layer.group_send(
                group_name(self.table_id),
                {"type": "table.presence", "online": sorted(online), "watchers": watchers},
            )
        except Exception:
            # Presence is cosmetic; the next heartbeat shows it right.
            log.warning("presence broadcast for table %s failed", self.table_id, exc_info=True)

    async def show_presence(self, online: set[int], watchers: int | None = None) -> None:
        """The presence marks this page lacks; with ``watchers``, the line saying how many
        staff watch the table (issue 50), if it says otherwise."""
        watching = None if watchers == self.shown_watchers else watchers
        if online == self.shown_online and watching is None:
            return
        self.shown_online = online
        if watching is not None:
            self.shown_watchers = watching
        language = frames.language_of(self.user)
        await self.send(text_data=frames.render_presence(online, self.seat_ids, language, watching))

    async def heartbeat(self) -> None:
        """Keep this socket's presence alive and heal the marks this client shows."""
        with contextlib.suppress(asyncio.CancelledError):
            while self.live:
                await asyncio.sleep(presence.heartbeat_seconds())
                if not self.live:
                    break
                try:
                    beat = await database_sync_to_async(push.heartbeat)(
                        self.table_id,
                        self.seat_id,
                        self.channel_name,
                        self.seat_ids,
                        self.language if self.watching else "",
                    )
                    note_watchers(self.table_id, beat.watchers)
                    # A player gone away or back changes more than a mark: who may hand
                    # their seat to the computer, who moves the table on (issue 48).
                    moved_away = self.shown_away is not None and beat.away != self.shown_away
                    self.shown_away = beat.away
                    if (beat.expired or moved_away or await self.behind(beat.version)) and not (
                        await self.send_snapshot()
                    ):
                        break  # the seat is gone
                    await self.show_presence(beat.online, len(beat.watchers))
                except Exception:
                    log.warning("presence heartbeat failed", exc_info=True)

    async def behind(self, version: int) -> bool:
        """Whether this socket never got the table's ``version``: its frame was lost
        (Redis down or re-subscribing, a process that stalled), or it is still on its
        way, which a moment tells apart."""
        if version <= self.seen_version:
            return False
        await asyncio.sleep(FRAME_GRACE)
        if version <= self.seen_version:
            return False
        log.info("table %s: a socket saw %s of %s", self.table_id, self.seen_version, version)
        return True
