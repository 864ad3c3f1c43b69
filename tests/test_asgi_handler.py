"""A request crosses from the event loop to a worker thread once (config.http).

Issue 9: with Django's stock ASGI handler, a move's POST went back and forth
between the event loop and threads about ten times (each middleware's
process_request, process_view and process_response, then the view), every
crossing costing CPU on the server that also pushes every socket's frame.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from asgiref import sync
from channels.testing import HttpCommunicator

from config.asgi import application
from games.testing.factories import session_cookie, started_table

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_page_runs_its_middleware_and_view_in_one_hop(monkeypatch: pytest.MonkeyPatch) -> None:
    table, users = started_table(2)
    cookie = session_cookie(users[0])
    hops: list[str] = []
    to_thread, to_loop = sync.SyncToAsync.__call__, sync.AsyncToSync.__call__

    def counted_to_thread(self: Any, *args: Any, **kwargs: Any) -> Any:
        hops.append(f"thread:{getattr(self.func, '__qualname__', self.func)}")
        return to_thread(self, *args, **kwargs)

    def counted_to_loop(self: Any, *args: Any, **kwargs: Any) -> Any:
        hops.append(f"loop:{getattr(self.awaitable, '__qualname__', self.awaitable)}")
        return to_loop(self, *args, **kwargs)

    monkeypatch.setattr(sync.SyncToAsync, "__call__", counted_to_thread)
    monkeypatch.setattr(sync.AsyncToSync, "__call__", counted_to_loop)
    headers = [(b"cookie", cookie.encode()), (b"host", b"127.0.0.1")]

    async def get_the_table() -> dict[str, Any]:
        page = HttpCommunicator(application, "GET", f"/tables/{table.pk}/", headers=headers)
        return await page.get_response(timeout=10)

    response = asyncio.run(get_the_table())
    assert response["status"] == 200
    assert b'id="hand"' in response["body"]  # the player's own table page
    # Django's own: the request_started signal and closing the response. Ours: the
    # whole middleware chain and the view, in one hop; nothing ever hops back.
    chain = [hop for hop in hops if "Signal" not in hop and "close" not in hop]
    assert chain == ["thread:OneHopASGIHandler.load_middleware.<locals>.in_request_thread"], hops


def test_requests_run_in_the_process_s_request_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    """Not a new thread for each request (config.http): the pool's, never more of them."""
    from config import http
    from games import presenter

    table, users = started_table(2)
    headers = [(b"cookie", session_cookie(users[0]).encode()), (b"host", b"127.0.0.1")]
    threads: list[str] = []
    table_context = presenter.table_context

    def recorded(*args: Any, **kwargs: Any) -> Any:
        threads.append(threading.current_thread().name)
        return table_context(*args, **kwargs)

    monkeypatch.setattr(presenter, "table_context", recorded)

    async def get_the_table() -> None:
        for _ in range(http.REQUEST_THREADS + 4):
            page = HttpCommunicator(application, "GET", f"/tables/{table.pk}/", headers=headers)
            assert (await page.get_response(timeout=10))["status"] == 200

    asyncio.run(get_the_table())
    assert len(threads) == http.REQUEST_THREADS + 4
    assert all(name.startswith("request_") for name in threads), threads
    assert len(set(threads)) <= http.REQUEST_THREADS
