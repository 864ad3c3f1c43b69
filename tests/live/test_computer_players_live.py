"""Computer players over real sockets (issue 48): real server processes, real websockets.

- the away hand-over: a player's socket closes; once they have been away for
  AWAY_AFTER_SECONDS the host's socket gets a frame offering to hand their seat to the
  computer; the host does; the computer's moves for that seat reach the host's socket;
  the owner comes back, takes the seat back and their next move is theirs;
- the host's controls passing on (R11): while the host is away the next player present
  gets "Next round"/"Next trick" and their POST is accepted (another player's is 403);
  the host back gets them back;
- the turn clock: the status line carries the deadline (``data-deadline``, epoch ms) for
  the player whose move it is, a reload keeps it, and the server's runner makes the late
  move (time is moved forward in the database, as tests/games/test_computer_players.py
  ``time_passes`` does, instead of sleeping 30 s);
- two processes sharing PostgreSQL and Redis: a computer move due on a process killed
  with SIGKILL is made by the other, and two runners racing never make one move twice.

Each test makes its own game in a scratch database (tests.support.servers) by a
subprocess, as tests/live/test_multiprocess.py does; the servers run the computer
runner (COMPUTER_RUNNER=1) with the small AWAY_AFTER_SECONDS and heartbeat below
(tests.support.computer_settings reads the heartbeat from the environment).
"""

from __future__ import annotations

import json
import os
import re
import secrets
import signal
import sqlite3
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.support import websocket
from tests.support.servers import (
    HOST,
    POSTGRES_SCHEMES,
    PYTHON,
    ROOT,
    free_port,
    scratch_database,
    start_server,
    stop_process,
    wait_for_port,
)

AWAY_AFTER = 1.5  # seconds without a socket before a seat is away
HEARTBEAT = 0.25  # each socket's presence heartbeat: how soon "away" reaches a page
POLL = 0.2  # the runner's poll: how soon a move found due in the database is made
CLOCK = 30  # the turn clock of the clock test's table (seconds)

VERSION_ATTR = re.compile(r'data-version="(\d+)"')
DEADLINE_ATTR = re.compile(r'data-deadline="(\d+)"')
PLAYABLE = re.compile(r'name="card" value="([^"]+)"')
BID_BUTTON = re.compile(r'name="value" value="(\d+)"')

SETUP = r"""
import json, random, sys
import django
django.setup()
from games.models import Seat, Table
from games.play import actions
from games.testing import driver
from games.testing.factories import make_user, session_cookie, started_table

kind, names, seed = sys.argv[1], sys.argv[2].split(","), int(sys.argv[3])
users = [make_user(name) for name in names]
if kind == "clock":
    table = actions.create_table(users[0], ghost=False, turn_clock=int(sys.argv[4]))
    for user in users[1:]:
        actions.join_table(user, table.invite_token)
    table = Table.objects.get(pk=table.pk)
    table = actions.start_game(users[0], table.pk, table.version)
elif kind == "practice":
    table = actions.start_practice(users[0], int(sys.argv[4]), "normal")
else:
    table, users = started_table(users, ghost=False, seed=seed)
    rng = random.Random(seed)
    while kind == "round-done" and table.phase != Table.Phase.ROUND_DONE:
        user, move = driver.next_move(table, rng)
        table = driver.apply_move(table, user, move)
table = Table.objects.get(pk=table.pk)
seats = Seat.objects.filter(table=table).select_related("user").order_by("position")
print(json.dumps({
    "table_id": table.pk,
    "seats": {seat.name: seat.pk for seat in seats},
    "cookies": {user.username: session_cookie(user) for user in users},
}))
"""


# -- the database, read and moved on from outside Django ---------------------------------


class Database:
    """The scratch database as the servers use it, read with the bare driver (PostgreSQL
    or SQLite: this process never opens it through Django)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.postgres = url.startswith(POSTGRES_SCHEMES)

    def rows(self, query: str, *params: Any) -> list[tuple[Any, ...]]:
        if self.postgres:
            import psycopg

            with psycopg.connect(self.url, autocommit=True) as conn:
                cursor = conn.execute(query, params)  # type: ignore[arg-type]
                return cursor.fetchall() if cursor.description else []
        conn = sqlite3.connect(self.url.removeprefix("sqlite:///"), timeout=10)
        try:
            cursor = conn.execute(query.replace("%s", "?"), params)
            found = cursor.fetchall()
            conn.commit()
            return found
        finally:
            conn.close()

    def moment(self, value: Any) -> datetime | None:
        """A datetime column's value, aware (SQLite keeps naive UTC text)."""
        if value is None or isinstance(value, datetime):
            return value
        return datetime.fromisoformat(value).replace(tzinfo=UTC)

    def stored(self, moment: datetime | None) -> Any:
        if moment is None or self.postgres:
            return moment
        return moment.astimezone(UTC).replace(tzinfo=None).isoformat(sep=" ")

    def table(self, table_id: int) -> dict[str, Any]:
        columns = ("version", "phase", "round_number", "turn_started_at", "computer_due_at")
        row = self.rows(
            "SELECT version, phase, round_number, turn_started_at, computer_due_at"
            " FROM games_table WHERE id = %s",
            table_id,
        )
        found = dict(zip(columns, row[0], strict=True))
        for name in ("turn_started_at", "computer_due_at"):
            found[name] = self.moment(found[name])
        return found

    def time_passes(self, table_id: int, seconds: float) -> None:
        """As if ``seconds`` had passed since the wait for the next move began
        (tests/games/test_computer_players.py ``time_passes``)."""
        now = self.table(table_id)
        back = timedelta(seconds=seconds)
        started, due = now["turn_started_at"], now["computer_due_at"]
        self.rows(
            "UPDATE games_table SET turn_started_at = %s, computer_due_at = %s WHERE id = %s",
            self.stored(started - back),
            self.stored(due and due - back),
            table_id,
        )

    def bids(self, table_id: int, round_number: int) -> dict[int, list[bool]]:
        """Seat id -> by_computer of each of its bids in that round."""
        found: dict[int, list[bool]] = {}
        for seat_id, by_computer in self.rows(
            "SELECT b.seat_id, b.by_computer FROM games_bid b JOIN games_round r"
            " ON r.id = b.round_id WHERE r.table_id = %s AND r.number = %s",
            table_id,
            round_number,
        ):
            found.setdefault(seat_id, []).append(bool(by_computer))
        return found

    def plays(self, table_id: int) -> list[tuple[int, int, int, bool]]:
        """(round number, trick id, seat id, by_computer) of every play at the table."""
        return [
            (number, trick, seat, bool(by_computer))
            for number, trick, seat, by_computer in self.rows(
                "SELECT r.number, p.trick_id, p.seat_id, p.by_computer FROM games_play p"
                " JOIN games_round r ON r.id = p.round_id WHERE r.table_id = %s",
                table_id,
            )
            if seat is not None  # the ghost's (no ghost here)
        ]

    def handed_over(self, seat_id: int) -> bool:
        return bool(self.rows("SELECT handed_over FROM games_seat WHERE id = %s", seat_id)[0][0])


def deadline_ms(moment: datetime) -> int:
    """The status line's data-deadline for a clock started at ``moment``."""
    return int((moment + timedelta(seconds=CLOCK)).timestamp() * 1000)


# -- pages: a socket and its frames, and HTTP ---------------------------------------------


def region(html: str, name: str) -> str | None:
    match = re.search(rf'<section id="{name}"[^>]*>.*?</section>', html, re.S)
    return match.group(0) if match else None


class Page:
    """One open table page: its socket, every frame it got, and each region as shown now."""

    def __init__(self, port: int, table_id: int, cookie: str, name: str) -> None:
        self.name = name
        self.frames: list[str] = []
        self.regions: dict[str, str] = {}
        self.ws = websocket.connect(
            HOST,
            port,
            f"/ws/tables/{table_id}/",
            {"Origin": f"http://{HOST}:{port}", "Cookie": cookie},
        )

    @property
    def version(self) -> int:
        return max((int(v) for f in self.frames for v in VERSION_ATTR.findall(f)), default=0)

    def shows(self, name: str) -> str:
        return self.regions.get(name, "")

    def wait(self, predicate: Callable[[Page], bool], what: str, timeout: float = 10) -> float:
        """Read frames until ``predicate(self)`` holds; the time it did (AssertionError after
        ``timeout``)."""
        deadline = time.monotonic() + timeout
        while not predicate(self):
            left = deadline - time.monotonic()
            assert left > 0, f"{self.name}'s page never showed {what}; last controls:\n" + (
                self.shows("controls")
            )
            try:
                frame = self.ws.recv(min(left, 1.0))
            except TimeoutError:
                continue
            assert isinstance(frame, str), f"{self.name}'s socket closed: {frame}"
            self.frames.append(frame)
            for name in ("status", "seats", "trick", "hand", "controls"):
                shown = region(frame, name)
                if shown is not None:
                    self.regions[name] = shown
        return time.monotonic()

    def close(self) -> None:
        self.ws.close()


class Browser:
    """A logged-in person's HTTP side: the table page and its forms (htmx posts)."""

    def __init__(self, port: int, table_id: int, cookie: str) -> None:
        self.base = f"http://{HOST}:{port}"
        self.table_id = table_id
        self.cookie = cookie
        status, _body, cookies = self._open(urllib.request.Request(self._url("")))  # noqa: S310
        assert status == 200
        match = next((m for c in cookies if (m := re.match(r"csrftoken=([^;]+)", c))), None)
        assert match, cookies
        self.csrf = match.group(1)

    def _url(self, path: str) -> str:
        return f"{self.base}/tables/{self.table_id}/{path}"

    def _open(self, request: urllib.request.Request) -> tuple[int, str, list[str]]:
        request.add_header("Cookie", getattr(self, "csrf_cookie", self.cookie))
        try:
            with urllib.request.urlopen(request, timeout=15) as response:  # noqa: S310
                cookies = response.headers.get_all("Set-Cookie") or []
                return int(response.status), response.read().decode(), cookies
        except urllib.error.HTTPError as error:
            return int(error.code), error.read().decode(errors="replace"), []

    def page(self) -> str:
        status, body, _cookies = self._open(urllib.request.Request(self._url("")))  # noqa: S310
        assert status == 200, status
        return body

    def post(self, path: str, **fields: Any) -> int:
        self.csrf_cookie = f"{self.cookie}; csrftoken={self.csrf}"
        request = urllib.request.Request(  # noqa: S310 - http://127.0.0.1 only
            self._url(path),
            data=urllib.parse.urlencode({k: str(v) for k, v in fields.items()}).encode(),
            headers={
                "X-CSRFToken": self.csrf,
                "Origin": self.base,
                "HX-Request": "true",
                "Content-Type": "application/x-www-form-urlencoded",
            },
            method="POST",
        )
        status, self.answer, _cookies = self._open(request)
        return status


@dataclass
class Game:
    table_id: int
    seats: dict[str, int]
    cookies: dict[str, str]


@dataclass
class Server:
    ports: list[int]
    procs: list[subprocess.Popen[bytes]]
    env: dict[str, str]
    db: Database
    logs: Path
    pages: list[Page] = field(default_factory=list)

    def game(self, kind: str, names: list[str], seed: int = 1, *extra: Any) -> Game:
        done = subprocess.run(
            [PYTHON, "-c", SETUP, kind, ",".join(names), str(seed), *map(str, extra)],
            cwd=ROOT,
            env=self.env,
            timeout=90,
            capture_output=True,
            check=False,
        )
        assert done.returncode == 0, done.stderr.decode()[-3000:]
        found = json.loads(done.stdout.decode().strip().splitlines()[-1])
        return Game(found["table_id"], found["seats"], found["cookies"])

    def page(self, game: Game, name: str, server: int = 0) -> Page:
        page = Page(self.ports[server], game.table_id, game.cookies[name], name)
        self.pages.append(page)
        page.wait(lambda p: bool(p.shows("controls")), "its snapshot")
        return page

    def browser(self, game: Game, name: str, server: int = 0) -> Browser:
        return Browser(self.ports[server], game.table_id, game.cookies[name])


def server_env(base: dict[str, str], **more: str) -> dict[str, str]:
    label = secrets.token_hex(4)
    return {
        **base,
        "DJANGO_SETTINGS_MODULE": "tests.support.computer_settings",
        "PYTHONUNBUFFERED": "1",
        "DJANGO_DEBUG": "0",
        "AWAY_AFTER_SECONDS": str(AWAY_AFTER),
        "PRESENCE_HEARTBEAT_SECONDS": str(HEARTBEAT),
        "COMPUTER_POLL_SECONDS": str(POLL),
        "COMPUTER_MOVE_DELAY_MS": "0",
        # A shared Redis: presence keys (by seat id) and groups of our own, never another
        # run's scratch database's seats of the same ids.
        "CACHE_KEY_PREFIX": f"computers-{label}",
        "CHANNEL_PREFIX": f"computers-{label}",
        **more,
    }


def _servers(tmp: Path, label: str, count: int, base_url: str, **more: str) -> Iterator[Server]:
    env = server_env(dict(os.environ), **more)
    procs: list[subprocess.Popen[bytes]] = []
    server: Server | None = None
    with scratch_database(base_url, tmp, label, env) as database_url:
        env["DATABASE_URL"] = database_url
        try:
            ports = [free_port() for _ in range(count)]
            logs = [tmp / f"server{i + 1}.log" for i in range(count)]
            for port, log in zip(ports, logs, strict=True):
                procs.append(start_server(port, env, log, wait=False))
            for port, proc, log in zip(ports, procs, logs, strict=True):
                wait_for_port(port, proc, log, timeout=30)
            server = Server(ports, procs, env, Database(database_url), tmp)
            yield server
        finally:
            if server is not None:
                for page in server.pages:
                    page.close()
            stop_process(*procs)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One server process (and its runner) on a scratch database like the suite's own."""
    base_url = os.environ.get("DATABASE_URL", "")
    yield from _servers(tmp_path_factory.mktemp("computers"), "computers", 1, base_url)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """Two server processes sharing PostgreSQL and Redis, each with its runner, polling
    often and moving 0.3 s after the move before: their runners race for every move."""
    base_url, redis_url = os.environ.get("DATABASE_URL", ""), os.environ.get("REDIS_URL")
    if not base_url.startswith(POSTGRES_SCHEMES) or not redis_url:
        pytest.skip(
            "needs DATABASE_URL (PostgreSQL) and REDIS_URL: two server processes share them"
        )
    yield from _servers(
        tmp_path_factory.mktemp("cluster"),
        "cluster",
        2,
        base_url,
        COMPUTER_MOVE_DELAY_MS="300",
        COMPUTER_POLL_SECONDS="0.05",
    )


def page_version(html: str) -> int:
    return max(int(v) for v in VERSION_ATTR.findall(html))


def play_a_card(browser: Browser) -> bool:
    """Play the first card the page offers (whose turn it is, by the rules); False: none."""
    body = browser.page()
    card = PLAYABLE.search(region(body, "hand") or "")
    if card is None:
        return False
    status = browser.post("play/", version=page_version(body), card=card.group(1))
    assert status == 200, (
        f"{card.group(1)} at version {page_version(body)}: "
        + re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", browser.answer))[-900:]
    )
    return True


def bid(browser: Browser) -> None:
    body = browser.page()
    values = BID_BUTTON.findall(region(body, "controls") or "")
    assert values, "no bid to make"
    assert browser.post("bid/", version=page_version(body), value=values[0]) == 200


def moving_on(page: Page) -> bool:
    return "Next trick" in page.shows("controls") or "Next round" in page.shows("controls")


def has_card(page: Page) -> bool:
    return "data-card=" in page.shows("trick")


# -- (a) the away hand-over ----------------------------------------------------------------


def test_an_away_players_seat_is_handed_to_the_computer_and_taken_back(server: Server) -> None:
    """R3: ada deals round 1, bob opens it. bob goes away; ada hands his seat over; the
    computer bids (R4: revealed once all are in) and plays for him; he comes back."""
    game = server.game("started", ["ada", "bob"], 5)
    db, table_id, bob_seat = server.db, game.table_id, game.seats["bob"]
    bob_page = server.page(game, "bob")
    ada_page = server.page(game, "ada")
    ada, bob = server.browser(game, "ada"), server.browser(game, "bob")
    assert "is away" not in ada_page.shows("controls")
    bid(ada)

    bob_page.close()
    closed = time.monotonic()
    offered = ada_page.wait(
        lambda p: (
            "bob is away." in p.shows("controls")
            and f'name="seat" value="{bob_seat}"' in p.shows("controls")
        ),
        "the hand-over of bob's seat",
    )
    assert offered - closed >= AWAY_AFTER - HEARTBEAT  # away only after AWAY_AFTER_SECONDS
    assert "Let the computer play for bob" in ada_page.shows("controls")
    assert "data-away" in ada_page.shows("seats")

    assert ada.post("hand-over/", version=ada_page.version, seat=bob_seat) == 200
    # The runner bids for bob (all bids in: revealed) and plays his lead, on ada's socket.
    ada_page.wait(lambda p: "bid by the computer" in p.shows("seats"), "bob's bid")
    ada_page.wait(has_card, "bob's card")
    assert "the computer plays for them" in ada_page.shows("seats")
    assert db.bids(table_id, 1)[bob_seat] == [True]
    assert [(s, c) for _r, _t, s, c in db.plays(table_id)] == [(bob_seat, True)]
    assert play_a_card(ada)
    ada_page.wait(lambda p: "Next round" in p.shows("controls"), "the round's end")

    # bob opens the table again: the page takes the seat back as it loads.
    body = bob.page()
    take_back = re.search(r'<form[^>]*take-back/"[^>]*>', body)
    assert take_back and 'hx-trigger="load' in take_back.group(0)
    assert bob.post("take-back/") == 200
    assert not db.handed_over(bob_seat)
    bob_page = server.page(game, "bob")
    assert "take-back" not in bob_page.shows("controls")
    ada_page.wait(
        lambda p: (
            "the computer plays for them" not in p.shows("seats")
            and "data-away" not in p.shows("seats")
        ),
        "bob back in his seat",
    )
    assert "is away" not in ada_page.shows("controls")

    # Round 2: bob's bid is his own; the runner leaves it to him.
    assert ada.post("next-round/", version=ada_page.version) == 200
    bob_page.wait(lambda p: "bid-form" in p.shows("controls"), "bob's bid buttons")
    time.sleep(4 * POLL)
    assert bob_seat not in db.bids(table_id, 2)
    bid(bob)
    assert db.bids(table_id, 2)[bob_seat] == [False]


# -- (b) the host's controls passing on -------------------------------------------------


def test_the_host_away_the_next_player_present_moves_the_table_on(server: Server) -> None:
    """R11: cat hosts; while she is away dan (next after her) presses Next round and Next
    trick, eve may not; cat back, they are hers again."""
    game = server.game("round-done", ["cat", "dan", "eve"], 7)
    db, table_id = server.db, game.table_id
    cat_page = server.page(game, "cat")
    dan_page = server.page(game, "dan")
    eve_page = server.page(game, "eve")
    cat, dan, eve = (server.browser(game, n) for n in ("cat", "dan", "eve"))
    cat_page.wait(lambda p: "Next round" in p.shows("controls"), "the host's Next round")
    for page in (dan_page, eve_page):
        page.wait(lambda p: "Waiting for the host" in p.shows("controls"), "the wait")

    cat_page.close()
    dan_page.wait(
        lambda p: (
            "Next round" in p.shows("controls") and "(the host) is away" in p.shows("controls")
        ),
        "Next round while the host is away",
    )
    eve_page.wait(lambda p: "cat is away." in p.shows("controls"), "the host away")
    assert not moving_on(eve_page) and "Waiting for the host" in eve_page.shows("controls")
    assert eve.post("next-round/", version=eve_page.version) == 403
    assert dan.post("next-round/", version=dan_page.version) == 200
    assert db.table(table_id)["round_number"] == 2

    for browser in (cat, dan, eve):  # cat's bid over HTTP: no socket, still away
        bid(browser)
    while db.table(table_id)["phase"] == "playing":
        assert any(play_a_card(b) for b in (cat, dan, eve)), "nobody could play"
    assert db.table(table_id)["phase"] == "trick_done"
    dan_page.wait(lambda p: "Next trick" in p.shows("controls"), "Next trick while host away")
    eve_page.wait(lambda p: p.version == dan_page.version, "the trick's end")
    assert not moving_on(eve_page)
    assert eve.post("next-trick/", version=eve_page.version) == 403
    assert dan.post("next-trick/", version=dan_page.version) == 200

    # The host is back: the next confirmation is hers, dan's POST is refused.
    cat_page = server.page(game, "cat")
    dan_page.wait(lambda p: "(the host) is away" not in p.shows("controls"), "the host back")
    while db.table(table_id)["phase"] == "playing":
        assert any(play_a_card(b) for b in (cat, dan, eve)), "nobody could play"
    cat_page.wait(lambda p: "Next round" in p.shows("controls"), "the host's Next round back")
    dan_page.wait(lambda p: p.version == cat_page.version, "the round's end")
    assert not moving_on(dan_page) and "Waiting for the host" in dan_page.shows("controls")
    assert dan.post("next-round/", version=dan_page.version) == 403
    assert cat.post("next-round/", version=cat_page.version) == 200


# -- (c) the turn clock -----------------------------------------------------------------


def test_the_turn_clock_shows_its_deadline_and_the_runner_makes_the_late_move(
    server: Server,
) -> None:
    """R4: bids are simultaneous, every bidding clock starts at the deal; a card's clock
    starts with that player's turn (R3: gil opens round 1, fay dealt)."""
    game = server.game("clock", ["fay", "gil"], 1, CLOCK)
    db, table_id = server.db, game.table_id
    fay_page, gil_page = server.page(game, "fay"), server.page(game, "gil")
    fay, gil = server.browser(game, "fay"), server.browser(game, "gil")
    dealt = deadline_ms(db.table(table_id)["turn_started_at"])
    for page in (fay_page, gil_page):
        assert DEADLINE_ATTR.findall(page.shows("status")) == [str(dealt)]
    assert DEADLINE_ATTR.findall(region(gil.page(), "status") or "") == [str(dealt)]

    bid(fay)
    fay_page.wait(lambda p: "data-my-bid" in p.shows("status"), "fay's bid")
    assert "data-deadline" not in fay_page.shows("status")  # nothing awaited from her
    assert DEADLINE_ATTR.findall(region(gil.page(), "status") or "") == [str(dealt)]

    db.time_passes(table_id, CLOCK)
    late = time.monotonic()
    gil_page.wait(lambda p: "data-my-bid" in p.shows("status"), "gil's bid by the runner")
    fay_page.wait(lambda p: "bid by the computer" in p.shows("seats"), "gil's bid revealed")
    assert time.monotonic() - late < 5
    assert db.bids(table_id, 1) == {game.seats["fay"]: [False], game.seats["gil"]: [True]}

    # gil's card: his clock started with his turn; the reload shows the same deadline.
    now = db.table(table_id)
    assert now["phase"] == "playing"
    turn = str(deadline_ms(now["turn_started_at"]))
    gil_page.wait(lambda p: DEADLINE_ATTR.findall(p.shows("status")) == [turn], "his deadline")
    assert turn != str(dealt)
    fay_page.wait(lambda p: p.version == now["version"], "the play phase")
    assert "data-deadline" not in fay_page.shows("status")
    assert DEADLINE_ATTR.findall(region(gil.page(), "status") or "") == [turn]

    db.time_passes(table_id, CLOCK)
    fay_page.wait(has_card, "gil's card played by the runner")
    assert [(s, c) for _r, _t, s, c in db.plays(table_id)] == [(game.seats["gil"], True)]
    mine = str(deadline_ms(db.table(table_id)["turn_started_at"]))
    fay_page.wait(lambda p: DEADLINE_ATTR.findall(p.shows("status")) == [mine], "her deadline")


# -- (d) two processes: a killed process's due move, and racing runners ------------------


@pytest.mark.services
def test_two_racing_runners_make_every_computer_move_once(cluster: Server) -> None:
    """A practice game (R2-R9) with three computer players, its person's moves posted to
    either process: both runners find every computer move due at once; each is made once."""
    game = cluster.game("practice", ["hal"], 1, 3)
    db, table_id = cluster.db, game.table_id
    page = cluster.page(game, "hal", server=0)
    browsers = [cluster.browser(game, "hal", server=i) for i in (0, 1)]
    rounds = 3
    deadline = time.monotonic() + 90
    moves = 0
    while True:
        now = db.table(table_id)
        if now["round_number"] == rounds and now["phase"] == "round_done":
            break
        assert time.monotonic() < deadline, f"the game stalled at {now}"
        browser = browsers[moves % 2]
        body = browser.page()
        controls, version = region(body, "controls") or "", page_version(body)
        if BID_BUTTON.search(controls):
            bid(browser)
        elif "Next trick" in controls:
            assert browser.post("next-trick/", version=version) == 200
        elif "Next round" in controls:
            if db.table(table_id)["round_number"] >= rounds:
                break
            assert browser.post("next-round/", version=version) == 200
        elif not play_a_card(browser):
            time.sleep(0.05)
            continue
        moves += 1
    page.wait(lambda p: p.version == db.table(table_id)["version"], "the last move")

    seats = list(game.seats.values())
    for number in range(1, rounds + 1):
        assert db.bids(table_id, number) == {seat: [seat != game.seats["hal"]] for seat in seats}, (
            f"round {number}"
        )
    plays = db.plays(table_id)
    by_trick: dict[int, list[int]] = {}
    for _number, trick, seat, _by_computer in plays:
        by_trick.setdefault(trick, []).append(seat)
    assert len(by_trick) == sum(range(1, rounds + 1))
    assert all(sorted(s) == sorted(seats) for s in by_trick.values()), by_trick
    lost = sum(
        log.read_text().count("computer move not made") for log in cluster.logs.glob("*.log")
    )
    print(f"\n{len(plays)} plays, {moves} of hal's moves; races lost by a runner: {lost}")


@pytest.mark.services
def test_a_move_due_on_a_killed_process_is_made_by_another(cluster: Server) -> None:
    """ivy bids (R4) on a third process whose computer moves wait 3 s; it is killed with
    SIGKILL at once; the computer's lead (R3: ivy dealt, Computer 1 opens) is made by
    another process's runner when due, and reaches ivy's socket on process 2."""
    game = cluster.game("practice", ["ivy"], 1, 1)
    db, table_id, computer = cluster.db, game.table_id, game.seats["Computer 1"]
    page = cluster.page(game, "ivy", server=1)
    page.wait(lambda p: "data-has-bid" in p.shows("seats"), "the computer's bid")

    port = free_port()
    env = {**cluster.env, "COMPUTER_MOVE_DELAY_MS": "3000"}
    doomed = start_server(port, env, cluster.logs / "doomed.log")
    try:
        bid(Browser(port, table_id, game.cookies["ivy"]))
        doomed.send_signal(signal.SIGKILL)
        doomed.wait(10)
        due = db.table(table_id)["computer_due_at"]
        assert due is not None and db.plays(table_id) == []
        page.wait(has_card, "the computer's lead", timeout=15)
        arrived = time.time()
    finally:
        stop_process(doomed)
    assert due.timestamp() - 0.2 <= arrived <= due.timestamp() + 5
    assert [(s, c) for _r, _t, s, c in db.plays(table_id)] == [(computer, True)]
