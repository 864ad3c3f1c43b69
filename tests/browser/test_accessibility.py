"""axe-core finds nothing on any page or phase of a game (issue 12).

axe-core 4.14.1 (tests/browser/vendor/, never served by the site; its current release
when vendored, issue 49) runs in chromium
on the home page, the lobby, the waiting room, bidding (R4), playing (R5), a trick
done and a round done (R11, the host's buttons), and game over (R10), at 1280x800
and 390x844, with the WCAG 2.x A/AA rules and best practices, plus
label-content-name-mismatch (a card's control says the name the eye reads:
"Play Green 14", not "Play G14"). Each page must count 0 violations; the failure
message lists them. Screenshots of every page go to the test artifacts.

The tables come from the shared factories and random driver in one
``manage.py shell`` call for the module.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from .conftest import Server, Setup, sign_up
from .test_layout import DESKTOP, PHONE

pytestmark = pytest.mark.browser

AXE = Path(__file__).parent / "vendor" / "axe-core" / "axe.min.js"
#: The vendored release: a copy replaced without updating this is caught (run_axe).
AXE_VERSION = "4.14.1"

TABLES = """
import random
from games.models import Table
from games.play.state import load_state
from games.testing.driver import play_until, at_phase
from games.testing.factories import seated_table, session_cookie, started_table

def show(kind, table, users):
    print("TABLE", kind, table.pk, " ".join(
        u.username + "=" + session_cookie(u).split("=", 1)[1] for u in users))

rng = random.Random(3)
table, users = seated_table(3, ghost=False, seed=3, prefix="{p}w")
show("waiting", table, users)
table, users = started_table(3, ghost=False, seed=3, prefix="{p}b")
show("bidding", table, users)
table, users = started_table(3, ghost=False, seed=3, prefix="{p}p")
table = play_until(table, rng, done=lambda t: t.phase == Table.Phase.PLAYING
                   and t.round_number == 3 and len(load_state(t).plays) == 1)
# Seen by the player to play: their playable cards are named ("Play Green 3"), the
# others are described by why R5 forbids them.
seat = load_state(table).seat_to_play()
show("playing", table, sorted(users, key=lambda u: u.pk != seat.user_id))
# Another table: the one above stays in the middle of its trick.
table, users = started_table(3, ghost=False, seed=3, prefix="{p}d")
table = play_until(table, rng, done=at_phase(Table.Phase.TRICK_DONE))
show("trick-done", table, users)
table, users = started_table(3, ghost=True, seed=3, prefix="{p}r")
table = play_until(table, rng, done=at_phase(Table.Phase.ROUND_DONE, 2))
show("round-done", table, users)
table, users = started_table(2, ghost=True, seed=3, prefix="{p}o")
table = play_until(table, rng)
show("game-over", table, users)
"""

#: WCAG 2.0/2.1/2.2 A and AA, and axe's best practices.
AXE_OPTIONS = {
    "runOnly": {
        "type": "tag",
        "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"],
    },
    "rules": {"label-content-name-mismatch": {"enabled": True}},
}

PAGES = [
    "home",
    "lobby",
    # The lobby just after sign-up, with its welcome message (issue 49: a list item
    # given role="status" broke its list).
    "welcome",
    "waiting",
    "bidding",
    "playing",
    "trick-done",
    "round-done",
    "game-over",
]


@pytest.fixture(scope="module")
def tables(server: Server) -> dict[str, Setup]:
    code = TABLES.format(p=f"x{uuid.uuid4().hex[:4]}")
    out = server.manage("shell", "--no-imports", "-c", code, timeout=600)
    found: dict[str, Setup] = {}
    for kind, table_id, users in re.findall(r"^TABLE (\S+) (\d+) (.+)$", out, re.M):
        found[kind] = Setup(int(table_id), dict(u.split("=", 1) for u in users.split()))
    assert len(found) == 6, out
    return found


def run_axe(page: Page) -> dict[str, Any]:
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(AXE.read_text())  # through the DevTools protocol: no CSP applies
    assert page.evaluate("() => window.axe.version") == AXE_VERSION
    # The page's own motion (a card landing) must be over: axe reads final colours.
    result = page.evaluate(
        "async (options) => {"
        " const r = await window.axe.run(document, options);"
        " return {violations: r.violations, passes: r.passes.map(p => p.id)}; }",
        AXE_OPTIONS,
    )
    return dict(result)


def describe(found: list[dict[str, Any]]) -> str:
    return json.dumps(
        [
            {
                "rule": v["id"],
                "impact": v["impact"],
                "help": v["help"],
                "where": [n["target"] for n in v["nodes"][:5]],
                "why": [n.get("failureSummary", "")[:300] for n in v["nodes"][:2]],
            }
            for v in found
        ],
        indent=1,
    )


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
@pytest.mark.parametrize("where", PAGES)
def test_axe_counts_no_violation(
    browser: Browser,
    server: Server,
    tables: dict[str, Setup],
    artifacts: Path,
    where: str,
    viewport: dict[str, int],
    watched_page: Callable[[BrowserContext], Page],
) -> None:
    context = browser.new_context(base_url=server.url, viewport=viewport, reduced_motion="reduce")
    try:
        page = watched_page(context)
        if where == "home":
            page.goto("/")
        elif where == "welcome":
            sign_up(page, f"w{uuid.uuid4().hex[:8]}")
            expect(page.get_by_role("status").filter(has_text="Welcome aboard")).to_be_visible()
        else:
            setup = tables["bidding" if where == "lobby" else where]
            cookie = next(iter(setup.cookies.values()))  # the host (playing: the one to play)
            context.add_cookies([{"name": "sessionid", "value": cookie, "url": server.url}])
            if where == "lobby":
                page.goto("/")
            else:
                pushes = "window.__pushes = 0; document.addEventListener('htmx:wsAfterMessage', () => { window.__pushes += 1; });"  # noqa: E501
                page.add_init_script(pushes)
                page.goto(f"/tables/{setup.table_id}/")
                page.wait_for_function("() => window.__pushes >= 1")  # the live snapshot
                expect(page.locator("#status")).to_be_visible()
        page.wait_for_load_state("load")
        size = "phone" if viewport["width"] < 600 else "desktop"
        page.screenshot(path=artifacts / f"axe-{where}-{size}.png", full_page=True)
        result = run_axe(page)
        found = result["violations"]
        assert found == [], f"axe on {where} at {size}:\n{describe(found)}"
        if where == "playing":  # the playable cards: their names were checked, and pass
            assert "label-content-name-mismatch" in result["passes"]
    finally:
        context.close()


def _open_playing_table(
    browser: Browser,
    server: Server,
    tables: dict[str, Setup],
    watched_page: Callable[[BrowserContext], Page],
) -> tuple[BrowserContext, Page]:
    """The table in the middle of a trick, opened by the player whose move it is, at
    1280x800 (the caller closes the context)."""
    setup = tables["playing"]
    context = browser.new_context(base_url=server.url, viewport=DESKTOP)
    cookie = next(iter(setup.cookies.values()))
    context.add_cookies([{"name": "sessionid", "value": cookie, "url": server.url}])
    page = watched_page(context)
    page.goto(f"/tables/{setup.table_id}/")
    return context, page


def test_the_skip_link_is_the_first_tab_stop_and_skips_to_the_content(
    browser: Browser,
    server: Server,
    tables: dict[str, Setup],
    watched_page: Callable[[BrowserContext], Page],
) -> None:
    context, page = _open_playing_table(browser, server, tables, watched_page)
    try:
        page.keyboard.press("Tab")
        skip = page.get_by_role("link", name="Skip to the content")
        expect(skip).to_be_focused()
        expect(skip).to_be_in_viewport()  # shown when focused
        page.keyboard.press("Enter")
        expect(page.locator("main#main")).to_be_focused()
        page.keyboard.press("Tab")  # the next stop is in the table, past the header
        assert page.evaluate("() => !!document.activeElement.closest('main')")
    finally:
        context.close()


def test_the_rules_open_beside_the_table_and_say_so(
    browser: Browser,
    server: Server,
    tables: dict[str, Setup],
    watched_page: Callable[[BrowserContext], Page],
) -> None:
    """Issue 49: "Rules" on the table page left the game (same tab). It opens in a new
    tab, which its name says to a screen reader, and the table stays where it was."""
    context, page = _open_playing_table(browser, server, tables, watched_page)
    setup = tables["playing"]
    try:
        link = page.get_by_role("link", name="Rules (opens in a new tab)")
        with context.expect_page() as opened:
            link.click()
        rules = opened.value
        rules.wait_for_load_state()
        assert rules.url.endswith("/rules/")
        assert page.url.endswith(f"/tables/{setup.table_id}/")
        expect(page.locator("#status")).to_be_visible()
    finally:
        context.close()
