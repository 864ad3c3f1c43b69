"""Django's ASGI handler with the middleware chain and the view in one worker thread.

Django builds its middleware chain for ASGI in async mode: every middleware that
can run both ways (Django's own, through MiddlewareMixin) then hands each
``process_request``/``process_view``/``process_response`` to a thread and back, and
a sync-only middleware in the middle hands the rest of the chain back to the
event loop. Our views are synchronous (every move is one locked transaction), so
a request crossed between the loop and threads ten times or more. Here the whole
chain is built in sync mode, as under WSGI, and entered with ONE hop to the
request's thread (``thread_sensitive``: the same thread Django would use). Async
views still work: Django's sync path runs them with ``async_to_sync``.
"""

from __future__ import annotations

from asgiref.sync import sync_to_async
from django.core.handlers.asgi import ASGIHandler


class OneHopASGIHandler(ASGIHandler):
    def load_middleware(self, is_async: bool = False) -> None:
        super().load_middleware(is_async=False)
        self._middleware_chain = sync_to_async(self._middleware_chain, thread_sensitive=True)
