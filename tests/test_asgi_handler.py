"""A request crosses from the event loop to a worker thread once (config.http).

Issue 9: with Django's stock ASGI handler, a move's POST went back and forth
between the event loop and threads about ten times (each middleware's
process_request, process_view and process_response, then the view), every
crossing costing CPU on the server that also pushes every socket's frame.
"""

from __future__ import annotations

import asyncio
import threading
import warnings
from typing import Any

import pytest
from asgiref import sync
from channels.testing import HttpCommunicator

from config import http
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
    # The request_started signal, the whole middleware chain, the view and closing
    # the response (request_finished), in one hop; nothing ever hops back.
    assert hops == ["thread:OneHopASGIHandler.respond"], hops


def test_requests_run_in_the_process_s_request_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    """Not a new thread for each request (config.http): the pool's, never more of them."""
    from games.pages import presenter

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


def _get_pages(table_id: int, cookie: str, count: int) -> None:
    headers = [(b"cookie", cookie.encode()), (b"host", b"127.0.0.1")]

    async def get_them() -> None:
        for _ in range(count):
            page = HttpCommunicator(application, "GET", f"/tables/{table_id}/", headers=headers)
            assert (await page.get_response(timeout=10))["status"] == 200

    asyncio.run(get_them())


def test_a_request_starts_no_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """Django's handler starts a thread per request for its request signals; ours none.

    The only threads ours may start are its request pool's own, up to its size: a
    request can find the thread that answered the one before not yet back in the
    pool (concurrent.futures) and the pool then grows by one.
    """
    table, users = started_table(2)
    cookie = session_cookie(users[0])
    _get_pages(table.pk, cookie, 2)  # the pool's first thread, and the database's
    started: list[str] = []
    start = threading.Thread.start

    def counted(self: threading.Thread) -> None:
        started.append(self.name)
        start(self)

    monkeypatch.setattr(threading.Thread, "start", counted)
    _get_pages(table.pk, cookie, 6)
    assert all(name.startswith("request_") for name in started), started
    assert len(started) < http.REQUEST_THREADS


def test_the_request_signals_are_sent_from_the_request_s_own_thread() -> None:
    """request_started and request_finished give back the database connection of the
    thread that ran the view (config.http): they must run in that very thread."""
    from django.core import signals

    from games.pages import presenter

    table, users = started_table(2)
    seen: list[tuple[str, str]] = []

    def record(what: str) -> Any:
        def receiver(**kwargs: Any) -> None:
            seen.append((what, threading.current_thread().name))

        return receiver

    started, finished = record("started"), record("finished")
    signals.request_started.connect(started)
    signals.request_finished.connect(finished)
    table_context = presenter.table_context

    def view_thread(*args: Any, **kwargs: Any) -> Any:
        seen.append(("view", threading.current_thread().name))
        return table_context(*args, **kwargs)

    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(presenter, "table_context", view_thread)
            _get_pages(table.pk, session_cookie(users[0]), 3)
    finally:
        signals.request_started.disconnect(started)
        signals.request_finished.disconnect(finished)
    assert [what for what, _ in seen] == ["started", "view", "finished"] * 3
    for request in range(3):
        names = {name for _, name in seen[request * 3 : request * 3 + 3]}
        assert len(names) == 1 and names.pop().startswith("request_"), seen


def test_a_static_file_streams_through_the_handler() -> None:
    """A streaming answer (WhiteNoise's file) is sent whole and closed after it."""
    from django.core import signals

    sent: list[dict[str, Any]] = []
    finished: list[str] = []

    def on_finished(**kwargs: Any) -> None:
        finished.append(threading.current_thread().name)

    async def get_the_stylesheet() -> None:
        scope = {
            "type": "http",
            "method": "GET",
            "path": "/static/css/site.css",
            "raw_path": b"/static/css/site.css",
            "query_string": b"",
            "headers": [(b"host", b"127.0.0.1")],
            "scheme": "http",
            "server": ("127.0.0.1", 80),
        }
        requests = [{"type": "http.request", "body": b"", "more_body": False}]

        async def receive() -> dict[str, Any]:
            if requests:
                return requests.pop()
            await asyncio.sleep(3600)  # the client stays connected
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        await application(scope, receive, send)

    signals.request_finished.connect(on_finished)
    try:
        with warnings.catch_warnings():
            # WhiteNoise's file iterator is synchronous; Django's handler warns of it.
            warnings.simplefilter("ignore")
            asyncio.run(get_the_stylesheet())
    finally:
        signals.request_finished.disconnect(on_finished)
    assert sent[0]["type"] == "http.response.start" and sent[0]["status"] == 200
    body = b"".join(message.get("body", b"") for message in sent[1:])
    assert b".seat" in body and sent[-1] == {"type": "http.response.body"}
    assert len(finished) == 1  # closed once it was sent


def test_only_a_table_s_own_posts_go_to_the_move_thread() -> None:
    """config.http.move_queue_key: every action of a table (the views marked
    config.move_queue.queued_by), keyed by its table, and nothing else."""
    from django.urls import reverse

    from tests.games.helpers import ACTION_URL_NAMES

    def scope(method: str, path: str, root: str = "") -> dict[str, Any]:
        return {"type": "http", "method": method, "path": root + path, "root_path": root}

    rematch = ("propose_rematch", "accept_rematch", "decline_rematch")
    for name in (*ACTION_URL_NAMES, *rematch):
        path = reverse(name, args=[12])
        assert http.move_key(scope("POST", path)) == 12, path
        assert http.move_key(scope("POST", path, root="/prefix")) == 12, path
        assert http.move_key(scope("GET", path)) is None, path
    others = [
        reverse("table", args=[12]),
        reverse("create_table"),
        reverse("export_scores", args=[12]),
        reverse("login"),
        reverse("set_language"),
        "/admin/games/table/12/change/",
    ]
    for path in others:
        assert http.move_key(scope("POST", path)) is None, path


def test_moves_run_one_at_a_time_in_arrival_order(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bid that comes while another runs (R4: bids are simultaneous) waits for it in
    the move queue (config.move_queue); a page is served from the request pool.

    (The page comes after the bids: the tests' in-memory SQLite refuses a read while
    another connection writes, where PostgreSQL and the site's SQLite file wait.)"""
    import time

    from config.asgi import django_asgi_app
    from games.models import Bid
    from games.pages import presenter
    from games.play import views

    table, users = started_table(4)
    # The queue's second thread would take a move that waited 20 ms: not in this test.
    monkeypatch.setattr(django_asgi_app.move_threads, "_join_after", 5.0)
    running: list[str] = []
    overlaps: list[int] = []
    lanes: dict[str, set[str]] = {"move": set(), "page": set()}
    act, table_context = views._act, presenter.table_context

    def recorded_act(*args: Any, **kwargs: Any) -> Any:
        running.append(threading.current_thread().name)
        overlaps.append(len(running))
        lanes["move"].add(threading.current_thread().name)
        time.sleep(0.05)  # long enough for another thread to start one meanwhile
        try:
            return act(*args, **kwargs)
        finally:
            running.pop()

    def recorded_page(*args: Any, **kwargs: Any) -> Any:
        lanes["page"].add(threading.current_thread().name)
        return table_context(*args, **kwargs)

    monkeypatch.setattr(views, "_act", recorded_act)
    monkeypatch.setattr(presenter, "table_context", recorded_page)
    token = "a" * 32  # a CSRF secret, as the csrftoken cookie holds it

    def headers(user: Any, post: bool) -> list[tuple[bytes, bytes]]:
        cookie = f"{session_cookie(user)}; csrftoken={token}"
        found = [(b"cookie", cookie.encode()), (b"host", b"127.0.0.1")]
        if post:
            found += [
                (b"x-csrftoken", token.encode()),
                (b"content-type", b"application/x-www-form-urlencoded"),
                (b"hx-request", b"true"),
            ]
        return found

    bidders = [headers(user, post=True) for user in users[:2]]
    looker = headers(users[0], post=False)

    async def bid_and_look() -> list[int]:
        bids = []
        for bidder in bidders:
            bid = HttpCommunicator(
                application,
                "POST",
                f"/tables/{table.pk}/bid/",
                body=f"version={table.version}&value=1".encode(),
                headers=bidder,
            )
            bids.append(asyncio.ensure_future(bid.get_response(timeout=10)))
            await asyncio.sleep(0.02)  # the second comes while the first runs
        page = HttpCommunicator(
            application, "GET", f"/tables/{table.pk}/", headers=looker
        ).get_response(timeout=10)
        answers = await asyncio.gather(*bids)
        return [answer["status"] for answer in [*answers, await page]]

    assert asyncio.run(bid_and_look()) == [200] * 3
    assert Bid.objects.filter(round__table=table).count() == 2  # both bids counted (R4)
    assert overlaps == [1, 1]  # the second started once the first was done
    assert all(name.startswith("move") for name in lanes["move"]), lanes
    assert all(name.startswith("request") for name in lanes["page"]), lanes
