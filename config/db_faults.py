"""A lost database connection is a 503 "try again", never a 500 (issue 45).

A request whose connection breaks under it (its backend ended: a restart, a
failover, ``pg_terminate_backend``) has changed nothing: a move runs in one
transaction, which did not commit (games.play.actions runs such a move once more by
itself, and looks up a COMMIT whose answer was lost). What is left is a query
outside any move that meets the broken connection: the session's user read by a
middleware, a page's reads. Such a request is answered 503 with a message that
says so and a ``Retry-After``, which htmx shows in the page's error line
(static/js/live.js) and a browser shows as a page; the pool has already dropped
the connection, so the next request gets a sound one.

How: Django sends ``got_request_exception`` for an uncaught exception, from inside
its ``except`` block (Django's own test client reads ``sys.exc_info()`` there the
same way); the receiver marks the request, and ``DatabaseFaultMiddleware``,
outside every middleware that reads the database, turns the marked request's
error answer into the 503. Django still logs the exception with its traceback.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from asgiref.sync import iscoroutinefunction
from django.core.signals import got_request_exception
from django.db import InterfaceError, OperationalError
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.utils.decorators import sync_and_async_middleware

#: How long a client is asked to wait before trying again, in seconds.
RETRY_AFTER = "1"


def sqlstate_of(error: BaseException) -> str | None:
    """The SQLSTATE PostgreSQL answered ``error`` with (psycopg's, under Django's
    wrapping); None when it answered nothing."""
    seen: BaseException | None = error
    while seen is not None:
        sqlstate = getattr(seen, "sqlstate", None)
        if sqlstate:
            return str(sqlstate)
        seen = seen.__cause__
    return None


def connection_lost(error: BaseException) -> bool:
    """Whether ``error`` is the database connection breaking under a statement (no
    answer, or its backend was ended: SQLSTATE classes 08 and 57P), rather than the
    database refusing the statement."""
    if not isinstance(error, OperationalError | InterfaceError):
        return False
    sqlstate = sqlstate_of(error)
    return sqlstate is None or sqlstate.startswith(("08", "57P"))


@receiver(got_request_exception, dispatch_uid="config.db_faults.mark")
def _mark(sender: Any, request: HttpRequest | None = None, **kwargs: Any) -> None:
    error = sys.exc_info()[1]
    if request is not None and error is not None and connection_lost(error):
        request.database_fault = True  # type: ignore[attr-defined]


def try_again(request: HttpRequest) -> HttpResponse:
    response = HttpResponse(render_to_string("503.html", request=request), status=503)
    response["Retry-After"] = RETRY_AFTER
    return response


def _answer(request: HttpRequest, response: HttpResponse) -> HttpResponse:
    if response.status_code >= 500 and getattr(request, "database_fault", False):
        return try_again(request)
    return response


@sync_and_async_middleware
def DatabaseFaultMiddleware(
    get_response: Callable[[HttpRequest], Any],
) -> Callable[[HttpRequest], Any]:
    """The error answer of a request whose database connection broke: a 503."""
    if iscoroutinefunction(get_response):

        async def middleware(request: HttpRequest) -> HttpResponse:
            return _answer(request, await get_response(request))

        return middleware

    def sync_middleware(request: HttpRequest) -> HttpResponse:
        return _answer(request, get_response(request))

    return sync_middleware
