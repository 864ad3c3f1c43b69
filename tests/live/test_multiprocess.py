"""Two real server processes sharing PostgreSQL and Redis (the production shape).

A move posted over HTTP to process 2 reaches a websocket held by process 1
through Redis within a second; stopping a process (SIGTERM) closes its sockets
with 1012 so that browsers reconnect, and their seats' presence counts drop.

Needs DATABASE_URL (PostgreSQL) and REDIS_URL: CI sets both. Uses its own
database (``tests.support.servers.scratch_database``), created and migrated here
and dropped afterwards.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import statistics
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from games.storage import presence
from tests.support import websocket
from tests.support.servers import (
    HOST,
    PYTHON,
    ROOT,
    free_port,
    scratch_database,
    start_server,
    stop_process,
    wait_for_port,
)

pytestmark = pytest.mark.services

VERSION_ATTR = re.compile(r'data-version="(\d+)"')

SETUP = """
import json, os
import django
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup()
from games.play import actions
from games.models import Table
from games.play.state import load_state
from tests.live.helpers import make_game

game = make_game(("anne", "bert"))
for user in game.users:
    table = Table.objects.get(pk=game.table.pk)
    actions.place_bid(user, table.pk, table.version, 1)
table = Table.objects.get(pk=game.table.pk)
state = load_state(table)
seat = state.seat_to_play()
print(json.dumps({
    "table_id": table.pk,
    "version": table.version,
    "cookies": game.cookies,
    "seat_ids": [s.pk for s in state.seats],
    "mover": [u.pk for u in game.users].index(seat.user_id),
    "card": sorted(state.legal_cards(seat))[0],
}))
"""


@dataclass
class Cluster:
    ports: list[int]
    procs: list[subprocess.Popen[bytes]]
    database_url: str
    game: dict


def db_value(database_url: str, query: str, *params: object) -> object:
    import psycopg

    with psycopg.connect(database_url, autocommit=True) as conn:
        row = conn.execute(query, params).fetchone()  # type: ignore[arg-type]
        return row[0] if row else None


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    base_url, redis_url = os.environ.get("DATABASE_URL"), os.environ.get("REDIS_URL")
    if not base_url or not redis_url:
        pytest.skip(
            "needs DATABASE_URL (PostgreSQL) and REDIS_URL: the two-process test shares them"
        )
    env = {
        **os.environ,
        "REDIS_URL": redis_url,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "PYTHONUNBUFFERED": "1",
        # DEBUG off, as in production: persistent database connections (conn_max_age).
        "DJANGO_DEBUG": "0",
    }
    logs = tmp_path_factory.mktemp("servers")
    procs: list[subprocess.Popen[bytes]] = []
    with scratch_database(base_url, logs, "live", env) as database_url:
        env["DATABASE_URL"] = database_url
        try:
            setup = subprocess.run(
                [PYTHON, "-c", SETUP],
                cwd=ROOT,
                env=env,
                check=True,
                timeout=60,
                capture_output=True,
            )
            game = json.loads(setup.stdout.decode().strip().splitlines()[-1])
            ports = [free_port(), free_port()]
            paths = [logs / f"server{i + 1}.log" for i in range(len(ports))]
            for port, log in zip(ports, paths, strict=True):
                procs.append(start_server(port, env, log, wait=False))
            for port, proc, log in zip(ports, procs, paths, strict=True):
                wait_for_port(port, proc, log, timeout=20)
            yield Cluster(ports, procs, database_url, game)
        finally:
            stop_process(*procs)


def server_presence(seat_id: int) -> int:
    """presence.open_sockets as the servers see it: their cache, without the tests' prefix."""
    from django.conf import settings
    from django.test.utils import override_settings

    caches = {name: dict(conf) for name, conf in settings.CACHES.items()}
    for conf in caches.values():
        conf.pop("KEY_PREFIX", None)
    with override_settings(CACHES=caches):
        return presence.open_sockets(seat_id)


async def presence_reaches(seat_id: int, expected: int, timeout: float = 5.0) -> int:
    """The seat's socket count once it is ``expected`` (or the last one read at the deadline).

    A socket's disconnect runs on its server after the client has closed it: the count
    follows a close a moment later, so the test waits for it instead of reading once.
    """
    deadline = time.monotonic() + timeout
    while True:
        count = await asyncio.to_thread(server_presence, seat_id)
        if count == expected or time.monotonic() > deadline:
            return count
        await asyncio.sleep(0.02)


async def open_socket(cluster: Cluster, server: int, player: int) -> websocket.WebSocket:
    port = cluster.ports[server]
    return await asyncio.to_thread(
        websocket.connect,
        HOST,
        port,
        f"/ws/tables/{cluster.game['table_id']}/",
        {"Origin": f"http://{HOST}:{port}", "Cookie": cluster.game["cookies"][player]},
    )


async def drain(ws: websocket.WebSocket, quiet: float = 0.3) -> list[str]:
    frames: list[str] = []
    while True:
        try:
            frame = await asyncio.to_thread(ws.recv, quiet if frames else 5)
        except TimeoutError:
            return frames
        assert isinstance(frame, str), frame
        frames.append(frame)


class Http:
    """A logged-in browser-ish HTTP client for one server: session + CSRF cookie."""

    def __init__(self, port: int, session_cookie: str, table_id: int) -> None:
        self.base = f"http://{HOST}:{port}"
        self.session_cookie = session_cookie
        self.table_id = table_id
        page = urllib.request.Request(  # noqa: S310 - http://127.0.0.1 only
            f"{self.base}/tables/{table_id}/", headers={"Cookie": session_cookie}
        )
        with urllib.request.urlopen(page, timeout=10) as response:  # noqa: S310
            cookies = response.headers.get_all("Set-Cookie") or []
        match = next((m for c in cookies if (m := re.match(r"csrftoken=([^;]+)", c))), None)
        assert match, cookies
        self.csrf = match.group(1)

    def post(self, path: str, **fields: str) -> int:
        request = urllib.request.Request(  # noqa: S310 - http://127.0.0.1 only
            f"{self.base}/tables/{self.table_id}/{path}",
            data=urllib.parse.urlencode(fields).encode(),
            headers={
                "Cookie": f"{self.session_cookie}; csrftoken={self.csrf}",
                "X-CSRFToken": self.csrf,
                "Origin": self.base,
                "HX-Request": "true",
                "Content-Type": "application/x-www-form-urlencoded",
            },
            method="POST",
        )
        try:
            with urllib.request.urlopen(request, timeout=10) as response:  # noqa: S310
                return int(response.status)
        except urllib.error.HTTPError as error:
            return int(error.code)


async def wait_for(ws: websocket.WebSocket, predicate, timeout: float) -> float:  # type: ignore[no-untyped-def]
    """Time at which a frame matching ``predicate`` arrived."""
    deadline = time.monotonic() + timeout
    while True:
        frame = await asyncio.to_thread(ws.recv, max(0.01, deadline - time.monotonic()))
        assert isinstance(frame, str), frame
        if predicate(frame):
            return time.monotonic()


async def test_move_posted_to_one_process_reaches_a_socket_on_the_other(cluster: Cluster) -> None:
    game = cluster.game
    watcher = 1 - game["mover"]
    # The watcher's socket lives on process 1; the mover posts to process 2.
    ws1 = await open_socket(cluster, 0, watcher)
    snapshot = (await drain(ws1))[0]
    assert f'data-version="{game["version"]}"' in snapshot
    ws2 = await open_socket(cluster, 1, game["mover"])
    await drain(ws2)
    await drain(ws1)  # presence of the mover
    http = await asyncio.to_thread(
        Http, cluster.ports[1], game["cookies"][game["mover"]], game["table_id"]
    )

    latencies = []
    for n in range(10):
        text = f"ping {n}"
        start = time.monotonic()
        posted = asyncio.create_task(asyncio.to_thread(http.post, "chat/", text=text))
        arrived = await wait_for(ws1, lambda frame, text=text: text in frame, timeout=1.0)
        assert await posted == 200
        latencies.append(arrived - start)

    start = time.monotonic()
    posted = asyncio.create_task(
        asyncio.to_thread(
            http.post, "play/", version=str(game["version"]), card=game["card"], tigress_as=""
        )
    )
    new_version = game["version"] + 1
    arrived = await wait_for(
        ws1, lambda frame: f'data-version="{new_version}"' in frame, timeout=1.0
    )
    assert await posted == 200
    latencies.append(arrived - start)
    print(
        f"\npush latency HTTP POST on process 2 -> frame on process 1, n={len(latencies)}: "
        f"median {statistics.median(latencies) * 1000:.1f} ms, "
        f"max {max(latencies) * 1000:.1f} ms"
    )
    assert max(latencies) < 1.0
    await asyncio.to_thread(ws1.close)
    await asyncio.to_thread(ws2.close)


async def test_sigterm_closes_sockets_with_1012_and_releases_presence(cluster: Cluster) -> None:
    game = cluster.game
    seat_id = cluster.game["seat_ids"][0]
    # The module's earlier test closed its sockets of this seat: their disconnect
    # may still be running on the servers.
    assert await presence_reaches(seat_id, 0) == 0
    ws = await open_socket(cluster, 0, 0)
    await drain(ws)
    # Presence lives in the shared cache (Redis): read it as the servers do (this
    # test process gives its own cache keys a prefix of their own).
    assert await presence_reaches(seat_id, 1) == 1

    proc = cluster.procs[0]
    proc.send_signal(signal.SIGTERM)
    closed = await asyncio.to_thread(ws.recv, 3)
    assert isinstance(closed, websocket.Closed), closed
    assert closed.code == 1012
    await asyncio.to_thread(proc.wait, 10)
    assert proc.returncode == 0
    # The consumer ran its disconnect before the process stopped: read once, no wait.
    assert await asyncio.to_thread(server_presence, seat_id) == 0
    # The other process keeps serving: a browser reconnects there and gets a snapshot.
    again = await open_socket(cluster, 1, 0)
    assert f'data-version="{game["version"] + 1}"' in (await drain(again))[0]
    await asyncio.to_thread(again.close)
