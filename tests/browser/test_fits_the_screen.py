"""The game fits the screen (issue 49): on your move, what you act with is in the
first screen, without scrolling, at two desktop and two phone sizes, in every phase.

- bidding (R4): your hand and the bid buttons;
- playing your card (R5): your hand, and the trick you play to (the felt) beside it;
- the host between tricks and rounds (R11): "Next trick" / "Next round";
- the waiting room: the host's "Start game".

Eight players in round 10 (the most seats and the most cards, R2), so every other
table is smaller. The seats, the chat and the score sheet come after the game on a
phone, never above it, and the alerts' settings are folded away. Tables are set up
on the server (test_layout's way); each page is opened at its size and measured
where it loaded, scrolled nowhere.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from .conftest import Server, Setup, SharedTables

pytestmark = pytest.mark.browser

SIZES = [
    pytest.param({"width": 1280, "height": 800}, id="1280x800"),
    pytest.param({"width": 1366, "height": 768}, id="1366x768"),
    pytest.param({"width": 390, "height": 844}, id="390x844"),
    pytest.param({"width": 360, "height": 640}, id="360x640"),
]

#: A table of ``players`` played on until ``done``; prints who acts there.
SETUP = """
import random
from games.models import Table
from games.play.state import load_state
from games.testing.driver import play_until
from games.testing.factories import seated_table, session_cookie, started_table

def plays(t):
    return len(load_state(t).plays)

if {start}:
    table, users = started_table({players}, ghost=False, seed=11, prefix={prefix!r})
    table = play_until(table, random.Random(11), done=lambda t: {done})
else:
    table, users = seated_table({players}, ghost=False, seed=11, prefix={prefix!r})
state = load_state(table)
to_play = state.seat_to_play()
print("TABLE", table.pk)
bidding = {start} and table.phase == Table.Phase.BIDDING
acts = to_play.user if to_play else users[-1] if bidding else users[0]
print("ACTS", acts.username)
for user in users:
    print("USER", user.username, session_cookie(user).split("=", 1)[1])
"""

PHASES: dict[str, tuple[bool, str]] = {
    # (started, play_until's condition)
    "bidding": (True, "t.phase == Table.Phase.BIDDING and t.round_number == 10"),
    "playing": (
        True,
        "t.phase == Table.Phase.PLAYING and t.round_number == 10 and plays(t) == 4",
    ),
    "trick-done": (True, "t.phase == Table.Phase.TRICK_DONE and t.round_number == 10"),
    "round-done": (True, "t.phase == Table.Phase.ROUND_DONE and t.round_number == 9"),
    "waiting": (False, "True"),
}


def set_up(server: Server, phase: str) -> tuple[Setup, str]:
    start, done = PHASES[phase]
    prefix = f"f{uuid.uuid4().hex[:5]}_"
    out = server.shell(
        SETUP.format(start=start, done=done, players=8 if start else 3, prefix=prefix)
    )
    table_id = int(re.search(r"^TABLE (\d+)$", out, re.M).group(1))  # type: ignore[union-attr]
    acts = re.search(r"^ACTS (\S+)$", out, re.M).group(1)  # type: ignore[union-attr]
    return Setup(table_id, dict(re.findall(r"^USER (\S+) (\S+)$", out, re.M))), acts


#: Each element's box in the window as loaded: top, bottom, left, right.
BOXES = """(selectors) => {
    const out = {};
    for (const [name, selector] of Object.entries(selectors)) {
        const els = [...document.querySelectorAll(selector)]
            .filter((e) => e.getClientRects().length);
        if (!els.length) { out[name] = null; continue; }
        const rects = els.map((e) => e.getBoundingClientRect());
        out[name] = {
            top: Math.min(...rects.map((r) => r.top)),
            bottom: Math.max(...rects.map((r) => r.bottom)),
            left: Math.min(...rects.map((r) => r.left)),
            right: Math.max(...rects.map((r) => r.right)),
        };
    }
    return out;
}"""

#: What the viewer acts with, by phase; and what must be in view beside it.
ACT_WITH = {
    "bidding": {"hand": "#hand .card", "bids": "#controls .bid-button"},
    "playing": {"hand": "#hand .card-button", "trick": "#trick .felt .play .card"},
    "trick-done": {"next": "#controls .button--primary", "trick": "#trick .felt .play .card"},
    "round-done": {"next": "#controls .button--primary"},
    "waiting": {"start": "#controls .button--primary"},
}


def in_view(found: dict[str, float], size: dict[str, int]) -> bool:
    return (
        found["top"] >= 0
        and found["left"] >= 0
        and found["bottom"] <= size["height"] + 0.5
        and found["right"] <= size["width"] + 0.5
    )


def covered(page: Page, selector: str) -> list[str]:
    """The elements of ``selector`` whose centre shows something else (the docked
    hand over the trick's cards, say)."""
    return page.locator(selector).evaluate_all(
        """(els) => els.filter((e) => {
            const r = e.getBoundingClientRect();
            const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
            return !hit || !(e === hit || e.contains(hit));
        }).map((e) => e.closest('[data-card]')?.dataset.card || e.textContent.trim())"""
    )


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("phase", list(PHASES))
def test_on_your_move_what_you_act_with_is_in_the_first_screen(
    server: Server,
    shared_tables: SharedTables,
    open_as: Callable[..., Page],
    artifacts: Path,
    phase: str,
    size: dict[str, int],
) -> None:
    setup, acts = shared_tables.get(("fits", phase), lambda: set_up(server, phase))
    page = open_as(setup, acts, size)
    if phase != "waiting":
        expect(page.locator("#status")).to_contain_text("Your move")
    assert page.evaluate("() => window.scrollY") == 0
    selectors = ACT_WITH[phase]
    boxes: dict[str, Any] = page.evaluate(BOXES, selectors)
    page.screenshot(path=artifacts / f"fits-{phase}-{size['width']}x{size['height']}.png")
    for name, found in boxes.items():
        assert found is not None, f"{phase}: no {name} ({selectors[name]}) on the page"
        assert in_view(found, size), f"{phase} at {size}: {name} is out of view: {found}"
        # In view and not under something else (the docked hand, a dropped-down menu).
        assert covered(page, selectors[name]) == [], f"{phase} at {size}: {name} is covered"
    # Nothing wider than the window: no sideways scrolling to reach a card.
    assert page.evaluate("() => document.documentElement.scrollWidth") <= size["width"]


@pytest.mark.parametrize("size", [SIZES[2], SIZES[3]])
def test_on_a_phone_the_seats_chat_and_score_sheet_come_after_the_game(
    server: Server,
    shared_tables: SharedTables,
    open_as: Callable[..., Page],
    size: dict[str, int],
) -> None:
    """Issue 49: secondary panels move out of the way on small screens, never above
    the game; the sound and notification settings are folded under "Alerts"."""
    setup, acts = shared_tables.get(("fits", "playing"), lambda: set_up(server, "playing"))
    page = open_as(setup, acts, size)
    game = page.evaluate(BOXES, {"game": "#status, #trick, #hand"})["game"]
    after = page.evaluate(BOXES, {"seats": "#seats", "chat": ".chat", "scores": "#scores"})
    for name, found in after.items():
        assert found is not None, name
        # Page coordinates: the docked hand sits at the window's bottom, the panels
        # below all of the game in the page.
        assert found["top"] >= game["bottom"] - 1 or found["top"] > size["height"], (
            f"{name} is above the game: {found} / {game}"
        )
    expect(page.locator("#turn-sound")).to_be_hidden()
    page.locator("#turn-alerts summary").click()
    expect(page.locator("#turn-sound")).to_be_visible()
    expect(page.locator("#turn-notify")).to_be_visible()
