"""Request ids and one log line per request (HTTP) or per socket event (websockets).

RequestContextMiddleware comes first in MIDDLEWARE: it takes the incoming
X-Request-ID when it is sane (nginx sets one on every request, see
deploy/nginx.conf.in) or makes one, binds it for every log line of the request,
returns it in the response's X-Request-ID header and logs one line when the
response is ready (not for /healthz, which a load balancer polls every few seconds).

SocketContextMiddleware wraps the table consumer (games/live/routing.py): it binds the
handshake's request id, the user and the table for the whole connection and
logs the connect and the disconnect (with its close code).
"""

from __future__ import annotations

import logging
import random
import re
import time
from collections.abc import Awaitable, Callable
from typing import Any

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.http import HttpRequest, HttpResponse
from django.utils.functional import empty

from . import logs

REQUEST_ID_HEADER = "X-Request-ID"
# Letters, digits and . _ : - only: a request id is copied into every log line,
# so nothing that could break a line or a JSON string gets through.
SANE_REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{8,128}")
QUIET_PATHS = frozenset({"/healthz"})

request_log = logging.getLogger("skullking.request")


def request_id_from(value: str | None) -> str:
    """The incoming id when sane, else a fresh one (32 hex digits, like nginx's $request_id).

    An id only ties log lines together, so it comes from the process's pseudo-random
    generator: uuid4 reads the kernel's (a system call that gives up the GIL, and a
    move's thread then waits for the event loop to hand it back)."""
    if value and SANE_REQUEST_ID.fullmatch(value):
        return value
    return f"{random.getrandbits(128):032x}"


def known_ids(request: HttpRequest) -> tuple[int | None, int | None]:
    """(user id, table id) as far as they are known, without ever loading the session."""
    found_user = None
    user = request.__dict__.get("user")  # AuthenticationMiddleware's lazy user
    if user is not None:
        wrapped = getattr(user, "_wrapped", user)
        if wrapped is not empty and getattr(wrapped, "is_authenticated", False):
            found_user = wrapped.pk
    match = getattr(request, "resolver_match", None)
    table = match.kwargs.get("table_id") if match is not None else None
    return found_user, table if isinstance(table, int) else None


class RequestContextMiddleware:
    sync_capable = True
    async_capable = True

    def __init__(self, get_response: Callable[[HttpRequest], Any]) -> None:
        self.get_response = get_response
        self.is_async = iscoroutinefunction(get_response)
        if self.is_async:
            markcoroutinefunction(self)

    def __call__(self, request: HttpRequest) -> Any:
        if self.is_async:
            return self._acall(request)
        started = self._begin(request)
        try:
            return self._end(request, self.get_response(request), started)
        finally:
            _unbind()

    async def _acall(self, request: HttpRequest) -> HttpResponse:
        started = self._begin(request)
        try:
            return self._end(request, await self.get_response(request), started)
        finally:
            _unbind()

    def _begin(self, request: HttpRequest) -> float:
        request.request_id = request_id_from(request.headers.get(REQUEST_ID_HEADER))  # type: ignore[attr-defined]
        logs.request_id.set(request.request_id)  # type: ignore[attr-defined]
        logs.user_id.set(None)
        logs.table_id.set(None)
        logs.lazy_ids.set(lambda: known_ids(request))
        return time.monotonic()

    def _end(self, request: HttpRequest, response: HttpResponse, started: float) -> HttpResponse:
        response[REQUEST_ID_HEADER] = request.request_id  # type: ignore[attr-defined]
        if request.path not in QUIET_PATHS:
            request_log.log(
                logging.ERROR if response.status_code >= 500 else logging.INFO,
                "%s %s",
                request.method,
                request.path,
                extra={
                    "status": response.status_code,
                    "duration_ms": round((time.monotonic() - started) * 1000, 1),
                },
            )
        return response


def _unbind() -> None:
    # Under ASGI each request has its own context anyway; the sync test client
    # serves one request after another in the same one.
    logs.request_id.set(None)
    logs.lazy_ids.set(None)


Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


class SocketContextMiddleware:
    """ASGI middleware around a websocket consumer: ids bound, connect/disconnect logged."""

    def __init__(self, app: Callable[..., Awaitable[None]]) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Receive, send: Send) -> None:
        if scope["type"] != "websocket":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        incoming = headers.get(REQUEST_ID_HEADER.lower().encode())
        socket_request_id = request_id_from(incoming.decode("latin1") if incoming else None)
        user = scope.get("user")  # resolved by channels' AuthMiddleware before we run
        user = user.pk if user is not None and user.is_authenticated else None
        table = scope.get("url_route", {}).get("kwargs", {}).get("table_id")
        # This connection runs in its own task: these values are its alone.
        logs.request_id.set(socket_request_id)
        logs.user_id.set(user)
        logs.table_id.set(table)

        async def logged_send(message: dict[str, Any]) -> None:
            if message.get("type") == "websocket.accept":
                logs.log_socket_event("connect", user, table)
            await send(message)

        async def logged_receive() -> dict[str, Any]:
            message = await receive()
            if message.get("type") == "websocket.disconnect":
                logs.log_socket_event("disconnect", user, table, code=message.get("code"))
            return message

        await self.app(scope, logged_receive, logged_send)
