"""Logs: one line per request and per socket event, with request, user and table ids.

The lines are read as the console handler writes them (ContextFilter + the
formatter of LOG_FORMAT), so what is asserted is what an operator sees.
"""

from __future__ import annotations

import io
import json
import logging
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth.decorators import login_not_required
from django.http import HttpRequest, HttpResponse
from django.urls import path

from config.asgi import application
from config.logs import ContextFilter, JsonFormatter, TextFormatter, log_socket_event
from tests.live.helpers import headers, make_game, make_user
from tests.support.servers import ROOT

pytestmark = pytest.mark.django_db

HEX_ID = re.compile(r"[0-9a-f]{32}")


# A URLconf of our own: a view that logs on its way and one that fails.
@login_not_required
def chatty(request: HttpRequest, table_id: int) -> HttpResponse:
    logging.getLogger("games.play.actions").warning("something worth a look")
    return HttpResponse("ok")


@login_not_required
def broken(request: HttpRequest) -> HttpResponse:
    raise RuntimeError("the view broke")


urlpatterns = [
    path("chatty/<int:table_id>/", chatty),
    path("broken/", broken),
]


@pytest.fixture
def log_lines() -> Iterator[Callable[[], list[dict]]]:
    """The JSON lines written from now on, parsed."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(ContextFilter())
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        yield lambda: [json.loads(line) for line in stream.getvalue().splitlines()]
    finally:
        root.removeHandler(handler)


def request_lines(lines: list[dict]) -> list[dict]:
    return [line for line in lines if line["logger"] == "skullking.request"]


def test_one_line_per_request_with_the_incoming_request_id(client, log_lines) -> None:
    response = client.get("/rules/", HTTP_X_REQUEST_ID="edge-4f2a91c3")
    assert response["X-Request-ID"] == "edge-4f2a91c3"
    [line] = request_lines(log_lines())
    assert line["message"] == "GET /rules/"
    assert line["status"] == 200
    assert line["request_id"] == "edge-4f2a91c3"
    assert line["level"] == "INFO"
    assert isinstance(line["duration_ms"], float)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00", line["time"])


@pytest.mark.parametrize("incoming", ["", "short", "has space 1234", "x" * 129, "new\nline-1234"])
def test_an_insane_request_id_is_replaced_by_a_fresh_one(client, log_lines, incoming) -> None:
    response = client.get("/rules/", HTTP_X_REQUEST_ID=incoming)
    assert HEX_ID.fullmatch(response["X-Request-ID"])
    assert request_lines(log_lines())[0]["request_id"] == response["X-Request-ID"]


def test_each_request_gets_its_own_id(client) -> None:
    first, second = client.get("/rules/"), client.get("/rules/")
    assert first["X-Request-ID"] != second["X-Request-ID"]


def test_request_line_names_the_user_and_the_table(client, log_lines) -> None:
    user = make_user("logan")
    client.force_login(user)
    assert client.get("/tables/987654/").status_code == 404
    [line] = request_lines(log_lines())
    assert (line["user_id"], line["table_id"], line["status"]) == (user.pk, 987654, 404)


def test_every_line_of_a_request_carries_its_ids(client, settings, log_lines) -> None:
    settings.ROOT_URLCONF = __name__
    client.get("/chatty/42/", HTTP_X_REQUEST_ID="chatty-request-1")
    [warning] = [line for line in log_lines() if line["logger"] == "games.play.actions"]
    assert (warning["request_id"], warning["table_id"]) == ("chatty-request-1", 42)
    assert warning["level"] == "WARNING"


def test_a_refused_action_logs_its_reason_and_the_posted_version(client, log_lines) -> None:
    # A 409 in the request log alone cannot tell a stale page from "not your turn":
    # the refusal's own line says which, and which version the form posted.
    game = make_game(("rhea", "sven"))
    client.force_login(game.users[0])
    stale = game.table.version - 1
    url = f"/tables/{game.table.pk}/bid/"
    assert client.post(url, {"version": stale, "value": "0"}).status_code == 409
    [refused] = [line for line in log_lines() if line["logger"] == "skullking.refused"]
    assert refused["status"] == 409 and refused["posted_version"] == str(stale)
    assert "moved on" in refused["message"]
    assert (refused["user_id"], refused["table_id"]) == (game.users[0].pk, game.table.pk)


def test_an_error_is_logged_with_its_traceback_and_request_id(client, settings, log_lines):
    settings.ROOT_URLCONF = __name__
    client.raise_request_exception = False
    response = client.get("/broken/", HTTP_X_REQUEST_ID="broken-request-1")
    assert response.status_code == 500
    lines = log_lines()
    [error] = [line for line in lines if line["logger"] == "django.request"]
    assert error["level"] == "ERROR"
    assert error["request_id"] == "broken-request-1"
    assert "Traceback" in error["traceback"]
    assert "RuntimeError: the view broke" in error["traceback"]
    [line] = request_lines(lines)
    assert (line["status"], line["level"]) == (500, "ERROR")


def test_healthz_is_not_in_the_request_log(client, log_lines) -> None:
    assert client.get("/healthz").status_code == 200
    assert client.get("/rules/").status_code == 200
    assert [line["message"] for line in request_lines(log_lines())] == ["GET /rules/"]


@pytest.mark.django_db(transaction=True)
async def test_socket_connect_and_disconnect_are_logged_with_their_ids(log_lines) -> None:
    game = await database_sync_to_async(make_game)(("sofia", "tomas"))
    comm = WebsocketCommunicator(
        application,
        f"/ws/tables/{game.table.pk}/",
        headers=[*headers(game.cookies[0]), (b"x-request-id", b"socket-handshake-1")],
    )
    connected, _ = await comm.connect(timeout=3)
    assert connected
    await comm.receive_from(timeout=3)  # the snapshot
    await comm.disconnect(code=1001)
    events = [line for line in log_lines() if line["logger"] == "skullking.socket"]
    assert [line["event"] for line in events] == ["connect", "disconnect"]
    for line in events:
        assert line["request_id"] == "socket-handshake-1"
        assert (line["user_id"], line["table_id"]) == (game.users[0].pk, game.table.pk)
    assert events[1]["code"] == 1001


def test_log_socket_event_for_the_consumer(log_lines) -> None:
    log_socket_event("snapshot", 7, 3, regions=["seats"])
    [line] = log_lines()
    assert (line["logger"], line["message"], line["event"]) == (
        "skullking.socket",
        "socket snapshot",
        "snapshot",
    )
    assert (line["user_id"], line["table_id"], line["regions"]) == (7, 3, ["seats"])


def test_text_format_puts_the_ids_in_brackets() -> None:
    record = logging.LogRecord("skullking.request", logging.INFO, "", 0, "GET %s", ("/",), None)
    record.request_id, record.user_id, record.table_id, record.status = "r-12345678", 3, 9, 200
    line = TextFormatter().format(record)
    assert re.fullmatch(
        r"\S+ \S+ INFO skullking\.request \[req=r-12345678 user=3 table=9\] GET / status=200",
        line,
    )


def run_logging(**env: str) -> subprocess.CompletedProcess[str]:
    code = (
        "import django, logging; django.setup();"
        "logging.getLogger('games.live.push').warning('broadcast failed', extra={'table_id': 5})"
    )
    environment = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", **env}
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        check=False,
    )


def test_log_format_json_writes_one_json_object_per_line() -> None:
    done = run_logging(LOG_FORMAT="json")
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stderr.splitlines()]
    [line] = [line for line in lines if line["logger"] == "games.live.push"]
    assert (line["level"], line["message"], line["table_id"]) == ("WARNING", "broadcast failed", 5)


def test_log_format_text_is_the_default_and_anything_else_refused() -> None:
    done = run_logging()
    assert done.returncode == 0, done.stderr
    assert "WARNING games.live.push [table=5] broadcast failed" in done.stderr
    assert run_logging(LOG_FORMAT="xml").returncode != 0
