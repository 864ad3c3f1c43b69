"""The score sheet for games played with real cards (seed 001, issue 47), in browsers.

ann keeps the score on a phone (390x844), created from the lobby; cid watches the
same sheet live on a second device (logged in, with the link, not on the sheet);
bob, a registered player on it, enters round 1's bids and results with JavaScript
off (plain POSTs, 303 back). The 5-round short game runs in the quick pass; the complete 10-round
game is marked ``thorough``. Every wait is on the page's state, never on time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from .conftest import ACTION_TIMEOUT_MS, Server, log_in

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}


@pytest.fixture
def device(browser: Browser, server: Server) -> Iterator[Callable[..., Page]]:
    """``device(name, viewport, javascript=True)``: a logged-in page of its own."""
    contexts: list[BrowserContext] = []
    errors: list[str] = []

    def _open(name: str, viewport: dict[str, int], *, javascript: bool = True) -> Page:
        context = browser.new_context(
            base_url=server.url,
            viewport=viewport,
            locale="en-US",
            java_script_enabled=javascript,
            has_touch=viewport["width"] < 500,
        )
        context.set_default_timeout(ACTION_TIMEOUT_MS)
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda exc: errors.append(f"{name}: {exc}"))
        page.on(
            "console",
            lambda msg: (
                errors.append(f"{name} at {page.url}: {msg.text}") if msg.type == "error" else None
            ),
        )
        log_in(page, name)
        return page

    yield _open
    for context in contexts:
        context.close()
    assert not errors, "script errors or CSP violations:\n" + "\n".join(errors)


def create_sheet(phone: Page, players: list[tuple[str, str]], *, short: bool) -> str:
    """From the lobby, on the phone: the sheet's path."""
    phone.goto("/")
    phone.get_by_role("link", name="New score sheet").click()
    for position, (kind, name) in enumerate(players, start=1):
        phone.locator(f'input[name="name-{position}"]').fill(name)
        phone.locator(f'select[name="kind-{position}"]').select_option(kind)
    if short:
        phone.get_by_label("Short game: 5 rounds").check()
    phone.get_by_role("button", name="Create the sheet").click()
    expect(phone.locator("#sheet-entry")).to_contain_text("Round 1: bids")
    return urlparse(phone.url).path


def live(page: Page) -> None:
    """Wait for the socket's first snapshot (every later entry comes the same way)."""
    page.wait_for_function(
        "() => document.querySelector('.sheet-page') && window.__sheetPushes >= 1"
    )


def watch(page: Page, path: str) -> None:
    page.add_init_script(
        "window.__sheetPushes = 0; document.addEventListener('htmx:wsAfterMessage',"
        " () => { window.__sheetPushes += 1; });"
    )
    page.goto(path)
    live(page)


def enter_bids(page: Page, number: int, bids: list[int], cards: int | None = None) -> None:
    entry = page.locator("#sheet-entry")
    expect(entry).to_contain_text(f"Round {number}: bids")
    if cards is not None:
        entry.locator('input[name="cards"]').fill(str(cards))
    for position, bid in enumerate(bids, start=1):
        entry.locator(f'input[name="bid-{position}"]').fill(str(bid))
    entry.get_by_role("button", name="Save the bids").click()
    expect(entry).to_contain_text(f"Round {number}: results")


def enter_results(
    page: Page, number: int, tricks: list[int], bonus: dict[str, dict[int, int]] | None = None
) -> None:
    entry = page.locator("#sheet-entry")
    expect(entry).to_contain_text(f"Round {number}: results")
    for position, won in enumerate(tricks, start=1):
        entry.locator(f'input[name="tricks-{position}"]').fill(str(won))
    for field, counts in (bonus or {}).items():
        for position, count in counts.items():
            box = entry.locator("li.sheet-result").nth(position - 1).locator("details")
            if box.get_attribute("open") is None:
                box.locator("summary").click()
            entry.locator(f'input[name="{field}-{position}"]').fill(str(count))
    entry.get_by_role("button", name="Save the results").click()
    expect(entry).not_to_contain_text(f"Round {number}: results")


def cell(page: Page, number: int, name: str) -> Any:
    return page.locator(f'#sheet-view tr[data-round="{number}"] td[data-player="{name}"]')


def fits(page: Page, selector: str) -> bool:
    return bool(
        page.evaluate(
            "(s) => { const e = document.querySelector(s);"
            " return e && e.getBoundingClientRect().right <= window.innerWidth + 0.5"
            " && e.scrollWidth <= e.clientWidth + 1; }",
            selector,
        )
    )


def page_fits(page: Page) -> bool:
    """Nothing wider than the screen: the page never scrolls sideways."""
    return bool(
        page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth + 0.5")
    )


def play(
    phone: Page,
    watcher: Page,
    rounds: list[tuple[list[int], list[int], dict[str, Any]]],
    first: int = 1,
) -> None:
    """Each round on the phone, from round ``first``; after each step the watcher shows
    it (pushed)."""
    for number, (bids, tricks, bonus) in enumerate(rounds, start=first):
        start = len(phone.locator(f'#sheet-view tr[data-round="{number}"] td[data-bid]').all())
        if not start:
            enter_bids(phone, number, bids)
        expect(cell(watcher, number, "ann")).to_have_attribute("data-bid", str(bids[0]))
        enter_results(phone, number, tricks, bonus)
        expect(cell(watcher, number, "ann")).to_have_attribute("data-tricks", str(tricks[0]))


def test_a_short_game_on_a_phone_watched_live_and_one_round_without_javascript(
    device: Callable[..., Page], artifacts: Path
) -> None:
    phone = device("ann", PHONE)
    path = create_sheet(phone, [("user", "ann"), ("user", "bob"), ("guest", "Grandpa")], short=True)
    phone.add_init_script("window.__sheetPushes = 0;")
    watcher = device("cid", {"width": 1280, "height": 900})
    watch(watcher, path)
    expect(watcher.locator(".sheet-head")).to_contain_text("You are watching")
    expect(watcher.locator("#sheet-entry form")).to_have_count(0)

    # The entry fits the phone: large number inputs, nothing wider than the screen.
    assert fits(phone, "#sheet-entry")
    height = phone.locator('#sheet-entry input[name="bid-1"]').bounding_box()
    assert height is not None and height["height"] >= 40

    # Round 1 by bob, JavaScript off: plain POSTs, 303 back to the sheet, the bonuses'
    # <details> opened without a script.
    nojs = device("bob", PHONE, javascript=False)
    nojs.goto(path)
    enter_bids(nojs, 1, [1, 0, 0])
    expect(cell(watcher, 1, "ann")).to_have_attribute("data-bid", "1")
    expect(phone.locator("#sheet-entry")).to_contain_text("Round 1: results")  # pushed
    enter_results(nojs, 1, [1, 0, 0], {"black_14": {1: 1}})  # ann 20 + 20
    expect(nojs.locator("#sheet-entry")).to_contain_text("Round 2: bids")
    expect(cell(watcher, 1, "ann")).to_have_attribute("data-total", "40")
    expect(watcher.locator(".sheet-leader")).to_have_attribute("data-leaders", "ann")

    # Round 2's results on the phone, every player's bonuses open: it still fits.
    enter_bids(phone, 2, [0, 1, 1])
    for summary in phone.locator("#sheet-entry details.sheet-bonus summary").all():
        summary.click()
    expect(phone.locator("#sheet-entry details.sheet-bonus[open]")).to_have_count(3)
    assert fits(phone, "#sheet-entry") and page_fits(phone)
    for box in phone.locator("#sheet-entry input.sheet-input").all():
        size = box.bounding_box()
        assert size is not None and size["height"] >= 40, size  # large number inputs
        assert size["x"] >= 0 and size["x"] + size["width"] <= PHONE["width"], size

    play(
        phone,
        watcher,
        [
            ([0, 1, 1], [0, 1, 1], {}),
            ([1, 1, 1], [1, 1, 0], {}),  # 2 of 3 tricks: a Kraken (warning)
            ([2, 0, 1], [2, 1, 1], {"colour_14s": {2: 1}}),  # bob's bonus: not counted
            ([2, 1, 2], [2, 1, 2], {"pirates_by_skull_king": {1: 1}}),  # ann 40 + 30
        ],
        first=2,
    )
    # R9: ann's round 1 counts 20 + 20; the 5th, 40 + 30.
    expect(cell(watcher, 1, "ann")).to_have_attribute("data-total", "40")
    expect(cell(watcher, 5, "ann")).to_have_attribute("data-total", "70")
    # The warning, not a refusal, on both devices.
    for page in (phone, watcher):
        expect(page.locator('tr[data-round="3"] [data-warning="tricks"]')).to_be_visible()
        expect(cell(page, 4, "bob").locator("[data-not-counted]")).to_be_visible()
    # Stopped after the 5th round; the winner shown live.
    expect(watcher.locator(".sheet-winners")).to_have_attribute("data-winners", "ann")
    expect(phone.locator("#sheet-entry")).to_contain_text("The game is over")
    assert fits(phone, "#sheet-entry") and page_fits(phone)
    phone.screenshot(path=artifacts / "sheet-phone-game-over.png", full_page=True)
    watcher.screenshot(path=artifacts / "sheet-desktop-watching.png", full_page=True)

    # A correction of round 2 from the phone; the watcher's totals follow.
    before = cell(watcher, 5, "bob").get_attribute("data-running")
    phone.locator('tr[data-round="2"]').get_by_role("link", name="correct the results").click()
    phone.locator('input[name="tricks-2"]').fill("2")
    phone.locator('input[name="tricks-3"]').fill("0")
    phone.get_by_role("button", name="Save the results").click()
    expect(phone.locator("#sheet-entry")).to_contain_text("The game is over")
    expect(cell(watcher, 2, "bob")).to_have_attribute("data-tricks", "2")
    expect(cell(watcher, 5, "bob")).not_to_have_attribute("data-running", before or "")
    watcher.locator(".sheet-changes summary").click()
    expect(watcher.locator(".sheet-changes")).to_contain_text("bob: tricks 1 → 2")


@pytest.mark.thorough
def test_a_complete_ten_round_game_on_a_phone_watched_live(device: Callable[..., Page]) -> None:
    phone = device("ann", PHONE)
    path = create_sheet(phone, [("user", "ann"), ("user", "dee"), ("guest", "Zoé")], short=False)
    watcher = device("dee", {"width": 390, "height": 844})
    watch(watcher, path)
    rounds = []
    for number in range(1, 11):
        # ann bids 1 and makes it; dee bids 0 and misses in even rounds; Zoé bids 0.
        dee_won = 1 if number % 2 == 0 else 0
        rounds.append(([1, 0, 0], [1, dee_won, number - 1 - dee_won], {}))
    play(phone, watcher, rounds)
    # R9: ann 20 a round = 200; a zero bid in round 10 is +-100.
    expect(cell(watcher, 10, "ann")).to_have_attribute("data-running", "200")
    expect(cell(watcher, 10, "dee")).to_have_attribute("data-total", "-100")
    expect(watcher.locator(".sheet-winners")).to_have_attribute("data-winners", "ann")
    expect(watcher.locator("#sheet-view tr[data-round]")).to_have_count(10)
    expect(phone.locator("#sheet-entry")).to_contain_text("The game is over")
    assert page_fits(phone) and page_fits(watcher)
