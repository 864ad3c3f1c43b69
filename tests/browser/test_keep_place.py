"""Pushes keep your place (issue 12; R5 plays, R11 chat).

A push updates the page in place (htmx's idiomorph, ``hx-swap-oob="morph"``): it
never closes the Tigress choice you opened, never drops the chat message you are
typing and never takes the focus away from the card you are on; after your own
move focus lands on the next sensible control (static/js/focus.js).

Two players in round 2 with rigged hands: anne opens (R3) holding the Tigress.
The push is the server sending every region of the table again
(``games.live.broadcast.publish``: what a snapshot or a crossed frame does), from a
``manage.py shell`` process, so it needs the shared channel layer (Redis).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.conftest import CI

from .conftest import RiggedTables, Server, Setup
from .test_layout import DESKTOP, PHONE

pytestmark = pytest.mark.browser

PUSH_ALL = """
from games.live import broadcast, frames
from games.models import Table
table = Table.objects.get(pk={table_id})
broadcast.publish(table, None, frames.PUBLIC_REGIONS, True, ())
"""


@pytest.fixture(autouse=True)
def shared_layer() -> None:
    if not os.environ.get("REDIS_URL"):
        if CI:
            pytest.fail("REDIS_URL is needed: the test's push crosses processes")
        pytest.skip("no REDIS_URL: a push from another process needs the Redis channel layer")


#: anne (seat 0) opens holding the Tigress and a green 3; bob holds a green 5 and a yellow 2.
HANDS = (["TIG", "G3"], ["G5", "Y2"])


@pytest.fixture(scope="module")
def tables(server: Server) -> RiggedTables:
    """One fresh table a test, the module's five made in one ``manage.py shell``."""
    return RiggedTables(server, *HANDS, batch=5)


def push_everything(server: Server, setup: Setup, *pages: Page) -> None:
    """Every region sent again to every seat; returns once each page has swapped it."""
    counts = [page.evaluate("() => window.__pushes") for page in pages]
    server.shell(PUSH_ALL.format(table_id=setup.table_id))
    for page, count in zip(pages, counts, strict=True):
        page.wait_for_function("(n) => window.__pushes > n", arg=count)


def tigress_choice(page: Page, choice: str) -> object:
    return page.get_by_role("button", name=f"Play the Tigress as {choice}", exact=True)


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_r5_a_push_leaves_the_open_tigress_choice_open(
    server: Server,
    tables: RiggedTables,
    open_as: Callable[..., Page],
    artifacts: Path,
    viewport: dict[str, int],
) -> None:
    setup = tables.take()
    anne, bob = setup.names
    page = open_as(setup, anne, viewport)
    bob_page = open_as(setup, bob, viewport)
    page.locator("#play-TIG").click()
    pirate = tigress_choice(page, "a pirate")
    expect(pirate).to_be_visible()

    push_everything(server, setup, page, bob_page)
    expect(page.locator("#tigress-choice")).to_have_attribute("open", "")
    expect(pirate).to_be_visible()
    page.screenshot(path=artifacts / f"keep-place-tigress-{viewport['width']}.png", full_page=True)
    pirate.click()  # and it still plays (R5)
    expect(bob_page.locator('#trick [data-card="TIG"][data-as="pirate"]')).to_have_count(1)


def test_r11_half_typed_chat_survives_pushes_and_your_own_move(
    server: Server, tables: RiggedTables, open_as: Callable[..., Page]
) -> None:
    setup = tables.take()
    anne, bob = setup.names
    page = open_as(setup, anne, DESKTOP)
    bob_page = open_as(setup, bob, DESKTOP)
    page.locator("#chat-text").fill("Ahoy, half a sente")

    bob_page.locator("#chat-text").fill("from bob")
    bob_page.locator("#chat-text").press("Enter")
    expect(page.locator("#chat-log")).to_contain_text("from bob")  # a chat push
    push_everything(server, setup, page, bob_page)  # every region
    expect(page.locator("#chat-text")).to_have_value("Ahoy, half a sente")

    page.locator("#play-G3").click()  # her own move's answer (R5)
    expect(bob_page.locator('#trick [data-card="G3"]')).to_have_count(1)
    expect(page.locator('#hand [data-card="G3"]')).to_have_count(0)
    expect(page.locator("#chat-text")).to_have_value("Ahoy, half a sente")


def test_r5_focus_stays_on_your_card_through_a_push(
    server: Server, tables: RiggedTables, open_as: Callable[..., Page]
) -> None:
    setup = tables.take()
    anne, bob = setup.names
    page = open_as(setup, anne, DESKTOP)
    bob_page = open_as(setup, bob, DESKTOP)
    page.locator("#play-G3").focus()
    expect(page.locator("#play-G3")).to_be_focused()
    push_everything(server, setup, page, bob_page)
    expect(page.locator("#play-G3")).to_be_focused()
    # Still the same card, and still yours to play (R5).
    expect(page.locator("#play-G3")).to_have_attribute("aria-label", "Play Green 3")
    page.keyboard.press("Enter")
    expect(bob_page.locator('#trick [data-card="G3"]')).to_have_count(1)


def test_r11_after_your_move_focus_lands_on_the_next_sensible_control(
    server: Server, tables: RiggedTables, open_as: Callable[..., Page]
) -> None:
    setup = tables.take()
    anne, bob = setup.names
    page = open_as(setup, anne, DESKTOP)
    bob_page = open_as(setup, bob, DESKTOP)
    page.locator("#play-G3").focus()
    page.keyboard.press("Enter")  # anne plays (R5); bob is next
    expect(page.locator("#hand")).to_be_focused()  # not <body>: Tab goes on to her cards
    # Bob's card is his to play once anne's push has reached his page (focusing a
    # still-disabled card does nothing, and Enter would then be lost under load).
    expect(bob_page.locator("#play-G5")).to_be_enabled()
    bob_page.locator("#play-G5").focus()
    expect(bob_page.locator("#play-G5")).to_be_focused()
    bob_page.keyboard.press("Enter")  # the trick is done: anne, the host, moves on (R11)
    next_trick = page.get_by_role("button", name="Next trick")
    expect(next_trick).to_be_focused()  # the push brought her next control
    expect(bob_page.locator("#hand")).to_be_focused()  # bob waits for the host
    page.keyboard.press("Enter")
    expect(bob_page.locator("#trick .play")).to_have_count(0)  # trick 2 begins
