"""Django's ASGI handler with the middleware chain and the view in one worker thread.

Django builds its middleware chain for ASGI in async mode: every middleware that
can run both ways (Django's own, through MiddlewareMixin) then hands each
``process_request``/``process_view``/``process_response`` to a thread and back, and
a sync-only middleware in the middle hands the rest of the chain back to the
event loop. Our views are synchronous (every move is one locked transaction), so
a request crossed between the loop and threads ten times or more. Here the whole
chain is built in sync mode, as under WSGI, and entered with ONE hop to a thread.
Async views still work: Django's sync path runs them with ``async_to_sync``.

That thread comes from a pool kept for the process's requests (``REQUEST_THREADS``,
8 by default), not from the new thread Django's thread-sensitive hop starts for each
request (it still sends its request_started and request_finished signals from one).
The chain and the view run whole in one thread, so what Django keeps per thread
(its database connection, given back to psycopg's pool when the request ends) is
still the request's own. The pool also bounds how many requests run at once, below
the database pool's size (DB_POOL_MAX, 20).
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from asgiref.sync import sync_to_async
from django.core.handlers.asgi import ASGIHandler
from django.db import close_old_connections
from django.http import HttpRequest

REQUEST_THREADS = int(os.environ.get("REQUEST_THREADS", "8"))


class OneHopASGIHandler(ASGIHandler):
    def load_middleware(self, is_async: bool = False) -> None:
        super().load_middleware(is_async=False)
        chain = self._middleware_chain

        def in_request_thread(request: HttpRequest) -> Any:
            # Django closes a request's database connections (CONN_MAX_AGE; with
            # psycopg's pool: gives them back) on its request_started and
            # request_finished signals, which it sends from another thread than this
            # one: this thread closes its own before and after the request.
            close_old_connections()
            try:
                return chain(request)
            finally:
                close_old_connections()

        self.request_threads = ThreadPoolExecutor(
            max_workers=REQUEST_THREADS, thread_name_prefix="request"
        )
        self._middleware_chain = sync_to_async(
            in_request_thread, thread_sensitive=False, executor=self.request_threads
        )
