"""Django's ASGI handler with a request's whole life in one worker thread.

Django builds its middleware chain for ASGI in async mode: every middleware that
can run both ways (Django's own, through MiddlewareMixin) then hands each
``process_request``/``process_view``/``process_response`` to a thread and back, and
a sync-only middleware in the middle hands the rest of the chain back to the
event loop. Around that, its handler starts a new thread for each request (a
``ThreadSensitiveContext``) to send the request_started signal, and hops to that
thread again to close the response (which sends request_finished). Our views are
synchronous (every move is one locked transaction), so a request crossed between
the loop and threads ten times or more, and each one started a thread.

Here the chain is built in sync mode, as under WSGI, and a request takes ONE hop
to a thread that sends request_started, runs the chain and the view, closes the
response (request_finished) and comes back with it; the event loop only reads
the body and writes the answer. Async views still work: Django's sync path runs
them with ``async_to_sync``. A streaming response (a static file) is closed once
it has been sent, as Django does, with a second hop.

That thread comes from a pool kept for the process's requests (``REQUEST_THREADS``,
4 by default). Each request runs whole in one of them, so what Django keeps per
thread (its database connection, given back to psycopg's pool by the
request_finished signal) is the request's own. The pool (with the move queue
below) also bounds how many requests run at once, below the database pool's size
(DB_POOL_MAX, 20).

Why 4 and not more: the request threads and the event loop share one GIL. Each
thread that comes back from PostgreSQL or Redis waits for it, up to the switch
interval (config/asgi.py) per wait, behind every other thread that renders; the
more requests run at once, the longer each move's waits, and the event loop,
which delivers the frames of the moves already made, gets a smaller share. Four
still overlap one request's database waits with another's work. Interleaved at
50 tables on one process (scripts/bench_live.py, three runs each, the same
minutes): p99 130-161 ms with 4 threads against 198-424 ms with 8; 2 threads gave
56-194 ms; at 10 tables the three were alike.

A table's own POSTs (a bid, a play, "Next trick", a chat line: the views marked
``config.move_queue.queued_by``, found by resolving the path) do not go to that
pool but to the process's move queue (config.move_queue, ``MOVE_THREADS``
threads): one at a time in the order they came, side by side
only once they back up. A move holds the GIL for nearly all of its time, so moves
run side by side only take turns on it and each of a burst finishes about when
the last one does (the figures are in config/move_queue.py). Pages, sign-in
(whose password hashing takes a while), the admin and the exports stay in the
request pool, so none of them holds a move up.

Faults (issue 45): a table's moves run one at a time in the move queue (keyed by
the table's id), so moves stuck behind one table's lock never take every move
thread; a move that waited too long for its turn is answered 503 ("The table is
busy") without running; and one player (one session cookie) has at most
``MOVES_PER_USER`` moves waiting or running in a process: the next is answered
429 at once, on the event loop, so a flood of POSTs never reaches the threads.

What this leaves out of Django's handler: cancelling the request when the client
disconnects while it runs (a synchronous view cannot be stopped anyway; the
answer is then written to a closed connection and dropped).

Written against Django 6.1.3's ASGIHandler (its ``handle`` is replaced whole):
tests/test_library_internals.py fails when that version or that method's source
changes (docs/upgrading.md says what to check).
"""

from __future__ import annotations

import os
import re
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from typing import Any

from asgiref.sync import sync_to_async
from django.core import signals
from django.core.exceptions import RequestAborted
from django.core.handlers.asgi import ASGIHandler, get_script_prefix
from django.http import FileResponse, HttpResponse, HttpResponseBase
from django.urls import Resolver404, resolve, set_script_prefix

from config import move_queue
from config.move_queue import MoveQueue

REQUEST_THREADS = int(os.environ.get("REQUEST_THREADS", "4"))
#: The moves one session may have waiting or running at once in a process.
MOVES_PER_USER = int(os.environ.get("MOVES_PER_USER", "4"))
TOO_MANY = "Too many moves at once: wait for the answer to your last one."
BUSY = "The table is busy, try again."
MOVE_THREADS = int(os.environ.get("MOVE_THREADS", "4"))
SESSION_COOKIE = re.compile(rb"(?:^|;)\s*sessionid=([^;]*)")


def move_key(scope: dict[str, Any]) -> int | str | None:
    """The move queue's key of this request (a table's id), or None: not a move.

    A move is a POST to a view marked ``config.move_queue.queued_by`` (the table's
    actions); the key is the URL's argument it names. The path is resolved as
    Django will resolve it, under the server's script prefix (``root_path``)."""
    if scope.get("method") != "POST":
        return None
    path = scope.get("path", "")
    root = scope.get("root_path", "")
    if root and path.startswith(root):
        path = path[len(root) :]
    try:
        match = resolve(path)
    except Resolver404:
        return None
    argument = getattr(match.func, move_queue.QUEUE_KEY, None)
    if argument is None:
        return None
    key: int | str | None = match.kwargs.get(argument)
    return key


class OneHopASGIHandler(ASGIHandler):
    def __init__(self) -> None:
        super().__init__()
        self.request_threads = ThreadPoolExecutor(
            max_workers=REQUEST_THREADS, thread_name_prefix="request"
        )
        self._in_request_thread = sync_to_async(
            self.respond, thread_sensitive=False, executor=self.request_threads
        )
        self.move_threads = MoveQueue(MOVE_THREADS)
        self._in_move_thread = sync_to_async(
            self.respond, thread_sensitive=False, executor=self.move_threads
        )
        #: Moves waiting or running per session (its cookie), on the event loop.
        self.moves_of: dict[bytes, int] = {}
        self._close_in_request_thread = sync_to_async(
            HttpResponseBase.close, thread_sensitive=False, executor=self.request_threads
        )

    def load_middleware(self, is_async: bool = False) -> None:
        super().load_middleware(is_async=False)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            raise ValueError(f"Django can only handle ASGI/HTTP connections, not {scope['type']}.")
        await self.handle(scope, receive, send)

    async def handle(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        try:
            body_file = await self.read_body(receive)
        except RequestAborted:
            return
        with closing(body_file):
            key = move_key(scope)
            if key is not None:
                response = await self._move(scope, body_file, key)
            else:
                response = await self._in_request_thread(scope, body_file)
            try:
                await self.send_response(response, send)
            finally:
                if response.streaming:
                    await self._close_in_request_thread(response)

    async def _move(
        self, scope: dict[str, Any], body_file: Any, key: int | str
    ) -> HttpResponseBase:
        """A table's POST in the move queue: one at a time per table, a few at a time
        per player (see the module's docstring)."""
        who = _session_of(scope)
        if self.moves_of.get(who, 0) >= MOVES_PER_USER:
            return _plain(429, TOO_MANY)
        self.moves_of[who] = self.moves_of.get(who, 0) + 1
        token = move_queue.move_key.set(key)
        try:
            return await self._in_move_thread(scope, body_file)
        except move_queue.Expired:
            return _plain(503, BUSY)
        finally:
            move_queue.move_key.reset(token)
            left = self.moves_of.pop(who) - 1
            if left:
                self.moves_of[who] = left

    def respond(self, scope: dict[str, Any], body_file: Any) -> HttpResponseBase:
        """In a request (or move) thread: the request's whole cycle, as Django's WSGI
        handler runs it."""
        set_script_prefix(get_script_prefix(scope))
        signals.request_started.send(sender=self.__class__, scope=scope)
        request, response = self.create_request(scope, body_file)
        if request is not None:
            response = self.get_response(request)
        response._handler_class = self.__class__  # type: ignore[attr-defined]
        if isinstance(response, FileResponse):
            response.block_size = self.chunk_size  # as Django's: the server chunks it
        if not response.streaming:
            # Its content is already bytes: close it (request_finished: this thread's
            # database connection goes back to the pool) before it is sent.
            response.close()
        return response


def _session_of(scope: dict[str, Any]) -> bytes:
    """Who sent a request, for the moves-per-player limit: its session cookie (else
    its address)."""
    for name, value in scope.get("headers", ()):
        if name == b"cookie" and (found := SESSION_COOKIE.search(value)):
            return found.group(1)
    client = scope.get("client") or ("", 0)
    return str(client[0]).encode()


def _plain(status: int, message: str) -> HttpResponse:
    """An answer made on the event loop, without Django's middleware: the message alone."""
    response = HttpResponse(message, status=status, content_type="text/plain; charset=utf-8")
    if status == 503:
        response["Retry-After"] = "1"
    # Not a frame (no HX-Reswap): the table page says, in its own language, that the
    # move did not go through (static/js/live.js), as for any answer that is not one.
    return response
