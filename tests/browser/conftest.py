"""Browser tests: real chromium (Playwright, sync API) against the production server.

pytest-django's live_server speaks no websocket, so this session starts config.serve
itself, on a free port, against a database of its own:

- SQLite (the default): a temporary file, ``DATABASE_URL=sqlite:////tmp/.../browser.sqlite3``;
- PostgreSQL (``DATABASE_URL=postgres://...``, as CI sets it): a dedicated database
  ``skullking_browser_<pid>_<random>``, created here, migrated, and dropped at the end.

(Both from ``tests.support.servers.scratch_database``.)

The schema comes from ``manage.py migrate`` run in a subprocess and the users from
``manage.py shell -c``, so the test process itself never opens a database: nothing
here is marked ``django_db``. ``REDIS_URL``, when set, is passed on unchanged
(channel layer and cache of the server).

Run with ``pytest -m browser -p no:asyncio`` (sync Playwright and pytest-asyncio
clash in one process). Every player gets a browser context of their own.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, WebSocketRoute, expect

from tests.support.cache import PREFIX
from tests.support.servers import (
    ROOT,
    free_port,
    manage,
    scratch_database,
    start_server,
    stop_process,
)

ARTIFACTS = ROOT / "test-artifacts"
#: Debian's old headless shell (package chromium-headless-shell, the same build as
#: chromium): what Playwright itself runs headless, and on the 2-core machine the whole
#: browser run costs about half the CPU of the full browser's headless mode (measured:
#: 165 s against 91 s). ``CHROMIUM=/usr/bin/chromium`` runs the full browser instead.
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium-headless-shell")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PASSWORD = "Parrot-and-plank-42"
#: Users created for the whole session (the sign-up test makes its own).
USERS = ("ann", "bob", "cid", "dee", "eve", "fay")
#: Every expect() waits at most this long: a few seconds, generous for a 2-core box.
EXPECT_TIMEOUT_MS = 8_000
ACTION_TIMEOUT_MS = 10_000

expect.set_options(timeout=EXPECT_TIMEOUT_MS)


# ---------------------------------------------------------------------------
# chromium
# ---------------------------------------------------------------------------


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    """Debian's chromium: Playwright cannot download its own browser here."""
    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": CHROMIUM_ARGS}


# ---------------------------------------------------------------------------
# the server and its database
# ---------------------------------------------------------------------------


@dataclass
class Server:
    url: str
    env: dict[str, str]
    log_path: Path
    process: subprocess.Popen[bytes] | None = None

    def manage(self, *args: str, timeout: float = 180) -> str:
        """Run ``manage.py <args>`` against the server's database; return its stdout."""
        return manage(self.env, *args, timeout=timeout)

    def shell(self, code: str) -> str:
        return self.manage("shell", "--no-imports", "-c", code)

    def log_tail(self, lines: int = 60) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """config.serve on a free port with a migrated database of its own and the USERS created."""
    tmp = tmp_path_factory.mktemp("browser")
    env = {
        **os.environ,
        # config.settings with a fast password hasher (log-ins are not what these test).
        "DJANGO_SETTINGS_MODULE": "tests.support.browser_settings",
        # Development mode: plain http, static files straight from the finders.
        "DJANGO_ENV": "development",
        "DJANGO_DEBUG": "1",
        # Many sign-ups and log-ins from 127.0.0.1 in one run (and Redis keeps counters).
        "SIGNUP_RATE_LIMIT": "100000",
        "AXES_FAILURE_LIMIT": "100000",
        "PYTHONUNBUFFERED": "1",
        # Browser runs may go side by side (pytest-xdist), each with a server and a
        # database of its own, on one Redis: the table ids of two databases are the
        # same numbers, so each server keeps its channels and cache keys apart.
        "CHANNEL_PREFIX": f"asgi-{PREFIX}",
        "CACHE_KEY_PREFIX": PREFIX,
        # Each mail (a password reset, issue 49) as a file here: the test reads the link.
        "EMAIL_FILE_PATH": str(tmp / "mail"),
    }
    with scratch_database(os.environ.get("DATABASE_URL", ""), tmp, "browser", env) as db_url:
        env["DATABASE_URL"] = db_url
        port = free_port()
        srv = Server(url=f"http://127.0.0.1:{port}", env=env, log_path=tmp / "server.log")
        try:
            names = ", ".join(repr(n) for n in USERS)
            srv.shell(
                "from django.contrib.auth import get_user_model\n"
                "User = get_user_model()\n"
                f"for name in ({names},):\n"
                f"    User.objects.create_user(name, password={PASSWORD!r})\n"
            )
            srv.process = start_server(port, env, srv.log_path, timeout=45)
            yield srv
        finally:
            stop_process(srv.process)


# ---------------------------------------------------------------------------
# players: one browser context each
# ---------------------------------------------------------------------------


@dataclass
class Player:
    name: str
    context: BrowserContext
    page: Page
    errors: list[str] = field(default_factory=list)
    touch: bool = False  # a phone: helpers.press taps

    def goto(self, path: str) -> Any:
        return self.page.goto(path)


# ---------------------------------------------------------------------------
# browser errors: every page-making fixture fails its test on any of them (issue 44)
# ---------------------------------------------------------------------------

#: htmx's error events. htmx logs each with console.error (caught as a console error
#: below) and then fires ``htmx:error``; an event fired on an element a swap already
#: took out of the document reaches no document listener, but its console.error is
#: still seen. These listeners make sure (and say what the event was about).
HTMX_ERROR_EVENTS = (
    "htmx:oobErrorNoTarget",
    "htmx:swapError",
    "htmx:sendError",
    "htmx:responseError",
    "htmx:targetError",
    "htmx:onLoadError",
)

#: Installed in every page before its own scripts: counts htmx's error events in
#: ``window.__htmxErrors`` and reports each to the test through ``__browserError``.
WATCH_HTMX = """(() => {
    if (window.__htmxWatch) return;
    window.__htmxWatch = true;
    window.__htmxErrors = 0;
    const named = __NAMED__;
    const report = (name, evt) => {
        window.__htmxErrors += 1;
        const d = (evt && evt.detail) || {};
        const el = d.content || d.target || d.elt;
        let what = el && el.outerHTML ? el.outerHTML.slice(0, 500) : "";
        if (d.xhr) what += ` (answer ${d.xhr.status} to ${d.pathInfo?.requestPath || ""})`;
        try { window.__browserError(`${name}: ${what}`); } catch (e) { /* no binding */ }
    };
    for (const name of named) document.addEventListener(name, (e) => report(name, e));
    document.addEventListener("htmx:error", (e) => {
        const name = e.detail?.errorInfo?.error;
        if (!named.includes(name)) report(name || "htmx:error", e);
    });
})();""".replace("__NAMED__", json.dumps(list(HTMX_ERROR_EVENTS)))

#: Chromium's own line for any answer of status 4xx, an XHR's or a document's
#: included. Such an answer is what the test asked for (a refused move, a stranger
#: turned away) or, unexpected, htmx reports it (htmx:responseError); a sub-resource
#: (script, style, image) that fails is caught by its response instead
#: (``watch_errors``). A 5xx is never expected: its line counts.
ANSWER_4XX = re.compile(r"^Failed to load resource: the server responded with a status of 4\d\d")


def watch_errors(context: BrowserContext, page: Page, sink: list[str], who: str) -> None:
    """Put every console error, page error, htmx error event and failed sub-resource of
    ``page`` in ``sink``, each prefixed with ``who``."""

    def console(msg: Any) -> None:
        if msg.type != "error" or ANSWER_4XX.match(msg.text):
            return
        where = f"{msg.location.get('url')}:{msg.location.get('lineNumber')}"
        sink.append(f"{who}: console error at {where}: {msg.text}")

    def response(resp: Any) -> None:
        if resp.status >= 400 and resp.request.resource_type not in ("document", "xhr", "fetch"):
            sink.append(f"{who}: {resp.request.resource_type} {resp.url} answered {resp.status}")

    page.on("pageerror", lambda exc: sink.append(f"{who}: pageerror: {exc}"))
    page.on("console", console)
    page.on("response", response)
    page.expose_binding("__browserError", lambda _source, text: sink.append(f"{who}: {text}"))
    page.add_init_script(WATCH_HTMX)


@pytest.fixture
def expected_browser_errors() -> list[str]:
    """A test that provokes browser errors on purpose (a 500, a lost request) adds a
    pattern (a regular expression, searched) for each it expects: those do not fail it."""
    return []


def fail_on_errors(errors: list[str], request: pytest.FixtureRequest, expected: list[str]) -> None:
    """At a fixture's teardown: the test fails on any browser error (issue 44) but the
    ones it expects (``expected_browser_errors``), unless it failed already (the errors
    are printed then)."""
    errors = [e for e in errors if not any(re.search(p, e) for p in expected)]
    if not errors:
        return
    listed = "\n  ".join(dict.fromkeys(e[:1500] for e in errors))
    report = getattr(request.node, "rep_call", None)
    if report is not None and report.failed:
        print(f"browser errors:\n  {listed}")
        return
    pytest.fail(f"browser errors (console, page or htmx):\n  {listed}", pytrace=False)


@pytest.fixture
def watched_page(
    request: pytest.FixtureRequest, expected_browser_errors: list[str]
) -> Iterator[Callable[[BrowserContext], Page]]:
    """``watched_page(context)``: a new page of a context a test made itself, watched
    for browser errors as the page-making fixtures' pages are (the test fails on any)."""
    errors: list[str] = []

    def _new(context: BrowserContext) -> Page:
        page = context.new_page()
        watch_errors(context, page, errors, "page")
        return page

    yield _new
    fail_on_errors(errors, request, expected_browser_errors)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    setattr(item, f"rep_{report.when}", report)
    return report


def log_in(page: Page, name: str, password: str = PASSWORD) -> None:
    page.goto("/accounts/login/")
    form = page.locator("form").filter(has=page.locator('input[name="password"]'))
    form.locator('input[name="username"]').fill(name)
    form.locator('input[name="password"]').fill(password)
    form.locator('[type="submit"]').click()
    expect(page).not_to_have_url(re.compile(r"/accounts/login/"))


def sign_up(page: Page, name: str, password: str = PASSWORD) -> None:
    page.goto("/accounts/signup/")
    form = page.locator("form").filter(has=page.locator('input[name="password1"]'))
    form.locator('input[name="username"]').fill(name)
    form.locator('input[name="password1"]').fill(password)
    form.locator('input[name="password2"]').fill(password)
    form.locator('[type="submit"]').click()
    expect(page).not_to_have_url(re.compile(r"/accounts/signup/"))


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


@pytest.fixture
def open_player(
    browser: Browser,
    server: Server,
    artifacts: Path,
    request: pytest.FixtureRequest,
    expected_browser_errors: list[str],
) -> Iterator[Callable[..., Player]]:
    """``open_player(name, login=True)``: a fresh browser context (own cookies), logged in."""
    players: list[Player] = []

    def _open(name: str, *, login: bool = True) -> Player:
        # English pages (issue 13: the language follows Accept-Language): tests that
        # read English words get English whatever the machine's locale.
        context = browser.new_context(
            base_url=server.url, viewport={"width": 1280, "height": 900}, locale="en-US"
        )
        context.set_default_timeout(ACTION_TIMEOUT_MS)
        context.set_default_navigation_timeout(ACTION_TIMEOUT_MS)
        page = context.new_page()
        player = Player(name=name, context=context, page=page)
        watch_errors(context, page, player.errors, name)
        players.append(player)
        if login:
            log_in(page, name)
        return player

    yield _open

    report = getattr(request.node, "rep_call", None)
    if report is not None and report.failed:
        for player in players:
            try:
                player.page.screenshot(
                    path=artifacts / f"failed-{request.node.name}-{player.name}.png",
                    full_page=True,
                )
            except Exception as error:  # a closed page must not hide the real failure
                print(f"screenshot of {player.name} failed: {error}")
        print("server log (tail):\n" + server.log_tail())
    for player in players:
        player.context.close()
    errors = [e for player in players for e in player.errors]
    fail_on_errors(errors, request, expected_browser_errors)


# ---------------------------------------------------------------------------
# tables set up on the server, opened as one of their players
# ---------------------------------------------------------------------------


@dataclass
class Setup:
    table_id: int
    cookies: dict[str, str]  # username -> sessionid, host first

    @property
    def names(self) -> list[str]:
        return list(self.cookies)


@pytest.fixture
def open_as(
    browser: Browser,
    server: Server,
    request: pytest.FixtureRequest,
    expected_browser_errors: list[str],
) -> Iterator[Callable[..., Page]]:
    """``open_as(setup, name, viewport)``: that player's table page, live, at that size.

    ``route_socket``: a Playwright handler that relays (and may reorder) the page's
    socket messages.
    """
    contexts: list[BrowserContext] = []
    errors: list[str] = []

    def _open(
        setup: Setup,
        name: str,
        viewport: dict[str, int],
        *,
        route_socket: Callable[[WebSocketRoute], None] | None = None,
        **options: Any,
    ) -> Page:
        options.setdefault("locale", "en-US")  # English pages, as open_player's
        context = browser.new_context(base_url=server.url, viewport=viewport, **options)
        if route_socket is not None:
            # The test stands between the page and the server's socket (test_live_order).
            context.route_web_socket(re.compile(r"/ws/"), route_socket)
        context.set_default_timeout(ACTION_TIMEOUT_MS)
        context.add_cookies(
            [{"name": "sessionid", "value": setup.cookies[name], "url": server.url}]
        )
        contexts.append(context)
        page = context.new_page()
        # The socket's first message is a full snapshot that replaces every region:
        # measure only after it (a replaced element has no computed style).
        page.add_init_script(
            "window.__pushes = 0; document.addEventListener('htmx:wsAfterMessage',"
            " () => { window.__pushes += 1; });"
        )
        watch_errors(context, page, errors, name)
        page.goto(f"/tables/{setup.table_id}/")
        expect(page.locator("#status")).to_be_visible()
        page.wait_for_function("() => window.__pushes >= 1")
        return page

    yield _open
    for context in contexts:
        context.close()
    fail_on_errors(errors, request, expected_browser_errors)


@dataclass(frozen=True)
class Seat:
    """One player to seat (tests/browser/invariant.py): a name prefix, the account's
    language ("" = the site's) and whether they play on a phone."""

    name: str
    language: str = ""
    phone: bool = False


#: Counts the page's XMLHttpRequests not yet answered and swapped (htmx sends every
#: action as one), and the socket's messages. ``loadend`` comes after htmx's
#: ``onload``, which swaps the answer.
COUNT_REQUESTS = """(() => {
    window.__inFlight = 0;
    const send = XMLHttpRequest.prototype.send;
    XMLHttpRequest.prototype.send = function (...args) {
        window.__inFlight += 1;
        this.addEventListener("loadend", () => setTimeout(() => { window.__inFlight -= 1; }, 0));
        return send.apply(this, args);
    };
    window.__pushes = 0;
    document.addEventListener("htmx:wsAfterMessage", () => { window.__pushes += 1; });
})();"""


DESKTOP = {"width": 1280, "height": 800}
#: A phone (390x844, as test_layout's), touch and mobile.
PHONE_CONTEXT: dict[str, Any] = {
    "viewport": {"width": 390, "height": 844},
    "is_mobile": True,
    "has_touch": True,
    "device_scale_factor": 2,
}


@pytest.fixture
def open_seats(
    browser: Browser,
    server: Server,
    request: pytest.FixtureRequest,
    expected_browser_errors: list[str],
) -> Iterator[Callable[[Setup, Sequence[Seat]], list[Player]]]:
    """``open_seats(setup, seats)``: each seat's page of the table, live, in a context
    of its own (its session cookie; a phone's size and touch for ``phone``). Fails the
    test on any browser error, as conftest's fixtures do."""
    players: list[Player] = []

    def _open(table: Setup, seats: Sequence[Seat]) -> list[Player]:
        opened = []
        for name, seat in zip(table.cookies, seats, strict=True):
            options = PHONE_CONTEXT if seat.phone else {"viewport": DESKTOP}
            # The browser asks for English; the account's language wins (accounts.language).
            context = browser.new_context(base_url=server.url, locale="en-US", **options)
            context.set_default_timeout(ACTION_TIMEOUT_MS)
            context.add_cookies(
                [{"name": "sessionid", "value": table.cookies[name], "url": server.url}]
            )
            page = context.new_page()
            player = Player(name=name, context=context, page=page, touch=seat.phone)
            watch_errors(context, page, player.errors, name)
            page.add_init_script(COUNT_REQUESTS)
            players.append(player)
            opened.append(player)
        for player in opened:
            player.page.goto(f"/tables/{table.table_id}/")
        for player in opened:
            # Live: the socket's first message (the snapshot) is in.
            player.page.wait_for_function("() => window.__pushes >= 1")
        for player in opened:
            # Everyone's socket is open (no seat marked offline, games.storage.presence).
            expect(player.page.locator("#seats .seat__offline")).to_have_count(0)
        return opened

    yield _open
    report = getattr(request.node, "rep_call", None)
    if report is not None and report.failed:
        print("server log (tail):\n" + server.log_tail())
    for player in players:
        player.context.close()
    fail_on_errors([e for p in players for e in p.errors], request, expected_browser_errors)


# ---------------------------------------------------------------------------
# tables made once and shared (set-up time: each ``manage.py shell`` starts Django)
# ---------------------------------------------------------------------------


class SharedTables:
    """A module's tables, each made once on first use and handed to every test that
    only looks at it (the desktop and phone runs of one test look at the same game).

    Only for tests that change nothing on the table: a test that plays takes a fresh
    table of its own (``RiggedTables``).
    """

    def __init__(self) -> None:
        self._made: dict[object, Any] = {}

    def get(self, key: object, make: Callable[[], Any]) -> Any:
        if key not in self._made:
            self._made[key] = make()
        return self._made[key]


@pytest.fixture(scope="module")
def shared_tables() -> SharedTables:
    return SharedTables()


#: Two players in round 2, hands rigged, both bid 1; seat 0 (by R3 the opener) to play.
#: Made ``{count}`` at a time in one ``manage.py shell``: the tests that play change
#: their table, so each takes a fresh one, but they need not each start Django.
RIGGED_ROUND_TWO = """
import random
from games.models import Table
from games.testing.driver import at_phase, play_until
from games.testing.factories import session_cookie, started_table
from tests.games.helpers import bid_all, rig_hands, state_of

for n in range({count}):
    table, users = started_table(2, ghost=False, seed=7, prefix=f"{prefix}{{n}}_")
    table = play_until(table, random.Random(7), at_phase(Table.Phase.BIDDING, 2))
    rig_hands(table, {{0: {first!r}, 1: {second!r}}})
    table = bid_all(table, 1)
    assert state_of(table).seat_to_play().user == users[0]
    print("TABLE", table.pk)
    for user in users:
        print("USER", table.pk, user.username, session_cookie(user).split("=", 1)[1])
"""


class RiggedTables:
    """Fresh two-player round-2 tables with the hands ``first`` (the opener's) and
    ``second``: ``take()`` hands each test one no other test has touched."""

    def __init__(self, server: Server, first: list[str], second: list[str], batch: int) -> None:
        self.server, self.first, self.second, self.batch = server, first, second, batch
        self._fresh: list[Setup] = []

    def _make(self) -> None:
        prefix = f"r{uuid.uuid4().hex[:5]}_"
        out = self.server.shell(
            RIGGED_ROUND_TWO.format(
                count=self.batch, prefix=prefix, first=self.first, second=self.second
            )
        )
        for table_id in re.findall(r"^TABLE (\d+)$", out, re.M):
            users = re.findall(rf"^USER {table_id} (\S+) (\S+)$", out, re.M)
            assert len(users) == 2, out
            self._fresh.append(Setup(int(table_id), dict(users)))
        assert len(self._fresh) == self.batch, out

    def take(self) -> Setup:
        if not self._fresh:
            self._make()
        return self._fresh.pop(0)
