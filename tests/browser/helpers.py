"""Playing a table in browsers, by its page's own controls, in step with the pages.

Shared by the whole-game tests (test_game.py) and the invariant harness
(test_invariant*.py, invariant.py).

How the tests keep in step with the table without sleeping: every live region
carries the table version (``data-version``). After a click the actor's page
shows a newer version (the htmx response); ``settle`` then waits until every
page shows that same version, which only a push can bring to the others.

The controls are found by what they do, not by their words (a form's ``hx-post``,
a bid button's value, a card's id "play-<code>"), so that the same helpers play for
a player who reads the table in French or German; what the words say is checked
by the tests that read them.
"""

from __future__ import annotations

import os
import random
from collections import Counter
from collections.abc import Sequence

import pytest
from playwright.sync_api import Locator, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from .conftest import EXPECT_TIMEOUT_MS, Player

#: Random choices (bids, cards, the Tigress) come from generators seeded with this:
#: ``BROWSER_SEED=<n>`` replays the same choices (the deal itself is the server's).
SEED = int(os.environ.get("BROWSER_SEED", "20260401"))

# ---------------------------------------------------------------------------
# reading the page
# ---------------------------------------------------------------------------


def version(player: Player) -> int:
    value = player.page.locator("#status").get_attribute("data-version")
    assert value is not None and value.isdigit(), f"{player.name}: #status has no data-version"
    return int(value)


REGIONS = ("#status", "#trick", "#hand", "#controls")
# True once every live region of the page shows version ``v`` (one round trip a page).
AT_VERSION = """([regions, v]) => regions.every(
    (r) => document.querySelector(r)?.getAttribute("data-version") === String(v))"""
# True once the page shows a version newer than ``v``, or a refusal in #error.
PAST_VERSION = """(v) => {
    const error = document.querySelector("#error");
    if (error && error.textContent.trim()) return true;
    return Number(document.querySelector("#status")?.getAttribute("data-version")) > v;
}"""


def settle(players: Sequence[Player]) -> int:
    """Wait until every page shows the newest version any of them shows; return it."""
    target = max(version(p) for p in players)
    for p in players:
        try:
            p.page.wait_for_function(
                AT_VERSION, arg=[list(REGIONS), target], timeout=EXPECT_TIMEOUT_MS
            )
        except PlaywrightTimeoutError:
            shown = {r: p.page.locator(r).get_attribute("data-version") for r in REGIONS}
            pytest.fail(f"{p.name}'s page did not catch up live to version {target}: {shown}")
    return target


def wait_past(player: Player, before: int) -> int:
    """After a click: wait for the actor's own page to show a version newer than ``before``."""
    try:
        player.page.wait_for_function(PAST_VERSION, arg=before, timeout=EXPECT_TIMEOUT_MS)
    except PlaywrightTimeoutError:
        pytest.fail(f"{player.name}'s page still shows version {version(player)} after the click")
    error = player.page.locator("#error")
    if error.count() and error.inner_text().strip():
        pytest.fail(f"{player.name}'s move was refused: {error.inner_text().strip()}")
    return version(player)


def hand_codes(player: Player) -> list[str]:
    return player.page.locator("#hand [data-card]").evaluate_all(
        "els => els.map(e => e.dataset.card)"
    )


def playable(player: Player) -> list[str]:
    """Codes of the cards this player may play now: the hand's enabled card controls,
    each with the id "play-<code>" (games.templatetags.cards.hand_button; the Tigress's
    is the <summary> that opens its choice)."""
    ids = player.page.locator('#hand .card-button[id^="play-"]').evaluate_all(
        "els => els.filter(e => !e.disabled && e.getAttribute('aria-disabled') !== 'true')"
        ".map(e => e.id)"
    )
    return sorted({i.removeprefix("play-") for i in ids})


def region_text(player: Player, region: str) -> str:
    return player.page.locator(region).inner_text()


def assert_no_browser_errors(players: Sequence[Player]) -> None:
    """No browser error on any page so far (each distinct one listed once); the
    fixtures check again at the end of the test (conftest.fail_on_errors)."""
    seen: Counter[str] = Counter(f"{e[:300]}" for p in players for e in p.errors)
    assert not seen, "browser errors:\n" + "\n".join(f"{n}x {e}" for e, n in seen.items())


def button(page: Page, name: str) -> Locator:
    return page.get_by_role("button", name=name, exact=True)


#: The host's buttons and the others, by the URL their form posts to (games/urls.py).
ACTIONS = {
    "Start game": "start",
    "Next trick": "next-trick",
    "Next round": "next-round",
    "Propose a rematch": "rematch/propose",
    "Accept the rematch": "rematch/accept",
    "Decline": "rematch/decline",
}


def action_button(page: Page, action: str) -> Locator:
    """The submit button of the #controls form that posts ``action`` (a key of ACTIONS
    or the end of its URL), in any language."""
    path = ACTIONS.get(action, action)
    return page.locator(f'#controls form[hx-post$="/{path}/"] [type="submit"]')


def bid_button(page: Page, value: int) -> Locator:
    return page.locator(f'#controls .bid-button[value="{value}"]')


def press(player: Player, target: Locator) -> None:
    """Click, or tap on a touch screen."""
    if player.touch:
        target.tap()
    else:
        target.click()


# ---------------------------------------------------------------------------
# doing things
# ---------------------------------------------------------------------------


def start(players: Sequence[Player]) -> None:
    host = players[0]
    before = settle(players)
    press(host, action_button(host.page, "Start game"))
    wait_past(host, before)
    for p in players:
        expect(bid_button(p.page, 1), f"{p.name} got no bid buttons live").to_be_visible()
    settle(players)


def bid(player: Player, value: int, players: Sequence[Player]) -> None:
    before = settle(players)
    press(player, bid_button(player.page, value))
    wait_past(player, before)
    expect(player.page.locator("#controls .bid-button")).to_have_count(0)
    settle(players)


def play(player: Player, code: str, rng: random.Random, players: Sequence[Player]) -> str:
    """Click ``code`` in the player's hand; returns the card's notation as played."""
    page = player.page
    before = settle(players)
    if code == "TIG":
        # The Tigress asks: pirate or escape? (R1, R5)
        choice = rng.choice(("pirate", "escape"))
        choose = page.locator(f'#hand button[name="card"][value="TIG:{choice}"]')
        # A push never closes the open choice (morphing swaps, tests/browser/test_keep_place.py),
        # so one click opens it (a second would close it again).
        press(player, page.locator("#hand #play-TIG"))
        expect(choose).to_be_visible()
        press(player, choose)
        played = f"TIG:{choice}"
    else:
        target = page.locator(f"#hand #play-{code}")
        expect(target).to_be_enabled()
        press(player, target)
        played = code
    wait_past(player, before)
    expect(page.locator(f'#hand [data-card="{code}"]')).to_have_count(0)
    for p in players:
        # Everyone sees the card land in the trick, live.
        expect(
            p.page.locator(f'#trick [data-card="{code}"]'), f"{p.name} did not see {played}"
        ).to_have_count(1)
    settle(players)
    return played


def host_presses(host: Player, name: str, players: Sequence[Player]) -> None:
    before = settle(players)
    for p in players[1:]:
        # Nobody but the host moves the table on (R11).
        expect(action_button(p.page, name)).to_have_count(0)
    press(host, action_button(host.page, name))
    wait_past(host, before)
    settle(players)
