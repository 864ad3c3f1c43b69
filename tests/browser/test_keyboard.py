"""A whole game with the keyboard alone (issue 12; R3, R4, R5, R10, R11).

Two players, each in a browser of their own, do everything with ``keyboard.press``
only (Tab, Shift+Tab, Enter, Space): the host starts the game, both bid (R4), each
plays a legal card on their turn (R5; the Tigress opens her choice with Enter and is
played as a pirate or an escape), the host moves on with "Next trick" and "Next
round" (R11), to the final standings (R10). Reading the page (what is focused,
which cards are playable) is not acting.

Focus does its part (static/js/focus.js): after your own action it lands on the
next sensible control, so no move needs more than a few Tabs (the issue counted 7
for every move). The quick run plays rounds 1 and 2; the complete game is
``thorough``.
"""

from __future__ import annotations

import random
import re
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from .conftest import Server, Setup
from .test_layout import DESKTOP

pytestmark = pytest.mark.browser

WAITING = """
from games.testing.factories import seated_table, session_cookie
table, users = seated_table(2, ghost=False, seed=11, prefix={prefix!r})
print("TABLE", table.pk)
for user in users:
    print("USER", user.username, session_cookie(user).split("=", 1)[1])
"""

#: Tabs one move may take, once focus.js has put focus near the next control.
MOST_TABS = 4

FOCUSED = """() => {
    const e = document.activeElement;
    return {id: e.id || "", label: e.getAttribute("aria-label") || "",
            text: (e.textContent || "").trim().slice(0, 60), tag: e.tagName};
}"""


def waiting_table(server: Server) -> Setup:
    out = server.shell(WAITING.format(prefix=f"kb{uuid.uuid4().hex[:4]}_"))
    table_id = int(re.search(r"^TABLE (\d+)$", out, re.M).group(1))  # type: ignore[union-attr]
    return Setup(table_id, dict(re.findall(r"^USER (\S+) (\S+)$", out, re.M)))


def tab_to(page: Page, wanted: Callable[[dict[str, Any]], bool], limit: int = 80) -> int:
    """Press Tab until the focused element is ``wanted``; the number of presses."""
    for presses in range(limit + 1):
        if wanted(page.evaluate(FOCUSED)):
            return presses
        page.keyboard.press("Tab")
    raise AssertionError(f"never reached by Tab; focused: {page.evaluate(FOCUSED)}")


def version(page: Page) -> str:
    return page.locator("#status").get_attribute("data-version") or ""


def count(page: Page, selector: str) -> int:
    return page.locator(selector).count()


def next_move(page: Page) -> str | None:
    """What this player can do now, read from the page."""
    if count(page, "#controls .button--primary") and count(page, ".standings") == 0:
        return "host"
    if count(page, "#controls .bid-button"):
        return "bid"
    if count(page, "#status.status--your-turn") and count(
        page, "#hand .card-button:not([disabled])"
    ):
        return "play"
    return None


def act(page: Page, move: str, rng: random.Random) -> int:
    """Make ``move`` with the keyboard; returns the Tabs it took to reach the control
    (or the row of controls: bids, cards) it needs."""
    if move == "host":
        label = page.locator("#controls .button--primary").first.inner_text().strip()
        tabs = tab_to(page, lambda f: f["tag"] == "BUTTON" and f["text"] == label)
        page.keyboard.press("Enter")
        return tabs
    if move == "bid":
        options = page.locator("#controls .bid-button").count()
        bid = rng.randrange(options)
        # Counted: the Tabs to the row of bids; then along the row to the bid chosen.
        tabs = tab_to(page, lambda f: f["label"].startswith("Bid "))
        tab_to(page, lambda f: f["label"] == f"Bid {bid}", limit=options)
        page.keyboard.press("Enter")
        return tabs
    # R5: any playable card (the page enables only the legal ones; Tab skips the others).
    tabs = tab_to(page, lambda f: f["id"].startswith("play-") and f["label"].startswith("Play "))
    steps = rng.randrange(3)
    for _ in range(steps):  # sometimes another legal card than the first
        page.keyboard.press("Tab")
        if not page.evaluate(FOCUSED)["id"].startswith("play-"):
            page.keyboard.press("Shift+Tab")
            break
    if page.evaluate(FOCUSED)["id"] == "play-TIG":
        page.keyboard.press("Enter")  # opens the choice (R1: pirate or escape)
        choice = rng.choice(("a pirate", "an escape"))
        tabs += tab_to(page, lambda f: f["label"] == f"Play the Tigress as {choice}", limit=4)
    page.keyboard.press("Enter")
    return tabs


def play_by_keyboard(pages: list[Page], rounds: int, rng: random.Random) -> list[list[int]]:
    """Play until round ``rounds`` is scored and moved past (or the game is over);
    the Tabs of each player's moves."""
    tab_counts: list[list[int]] = [[] for _ in pages]
    slow: list[str] = []
    for _ in range(2_000):
        if count(pages[0], ".standings"):
            print("\n".join(slow))
            return tab_counts
        meta = pages[0].locator("#status .status__meta").inner_text()
        number = re.search(r"Round (\d+) of", meta)
        if number and int(number.group(1)) > rounds:
            print("\n".join(slow))
            return tab_counts
        moves = [(page, next_move(page)) for page in pages]
        ready = [(page, move) for page, move in moves if move]
        if not ready:  # a push is on its way
            expect(pages[0].locator("#status")).not_to_have_attribute(
                "data-version", version(pages[0]), timeout=3_000
            )
            continue
        page, move = ready[0]
        before = version(page)
        start = page.evaluate(FOCUSED)
        tabs = act(page, move, rng)
        tab_counts[pages.index(page)].append(tabs)
        if tabs > MOST_TABS:
            slow.append(f"{move} from {start}: {tabs} Tabs")
        for p in pages:  # the move reached both players
            expect(p.locator("#status")).not_to_have_attribute("data-version", before)
    raise AssertionError("the game did not end")


@pytest.mark.parametrize(
    "rounds",
    [pytest.param(2, id="rounds-1-2"), pytest.param(10, id="complete", marks=pytest.mark.thorough)],
)
def test_a_game_played_with_the_keyboard_alone(
    server: Server, open_as: Callable[..., Page], artifacts: Path, rounds: int
) -> None:
    setup = waiting_table(server)
    host, guest = setup.names
    pages = [open_as(setup, host, DESKTOP), open_as(setup, guest, DESKTOP)]
    expect(pages[0].locator("#controls")).to_contain_text("Start game")

    tab_counts = play_by_keyboard(pages, rounds, random.Random(rounds))

    # Both bid and played: 2 bids and 1 + 2 + ... cards each, and the host's buttons.
    cards = sum(range(1, rounds + 1))
    assert sum(map(len, tab_counts)) >= 1 + rounds * 2 + cards * 2
    # After each player's first move, focus.js keeps every move within a few Tabs.
    assert max(max(moves[1:]) for moves in tab_counts) <= MOST_TABS, tab_counts
    if rounds == 10:
        for page in pages:
            expect(page.locator(".standings__row")).to_have_count(2)  # R10
    else:
        expect(pages[0].locator("#status .status__meta")).to_contain_text(f"Round {rounds + 1}")
    pages[0].screenshot(path=artifacts / f"keyboard-{rounds}-rounds.png", full_page=True)
