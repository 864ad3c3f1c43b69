"""Choosing your next card before your turn, in the browser (issue 12, R5).

Two players in round 2 with rigged hands (the server's own factories and driver,
through ``manage.py shell``): anne leads, bob chooses his card in advance on his
own page. When anne's lead makes it legal, bob's card lands in the same move,
with no click of his; when anne's lead makes it illegal, it is not played, the
choice is gone and bob is asked to play.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from .conftest import RiggedTables, Server
from .test_layout import DESKTOP, PHONE

pytestmark = pytest.mark.browser

#: anne (seat 0) leads with a green 5 or a yellow 3; bob holds a green 7 and a yellow 9.
HANDS = (["G5", "Y3"], ["G7", "Y9"])


@pytest.fixture(scope="module")
def tables(server: Server) -> RiggedTables:
    """One fresh table a test, the module's three made in one ``manage.py shell``."""
    return RiggedTables(server, *HANDS, batch=3)


def choose_next(page: Page, value: str) -> None:
    version = page.locator("#hand").get_attribute("data-version")
    page.locator("#next-card-choice").select_option(value)
    page.get_by_role("button", name="Keep for my turn").click()
    expect(page.locator(".next-card__chosen")).to_be_visible()
    assert page.locator("#hand").get_attribute("data-version") == version  # no new version


def play(page: Page, code: str) -> None:
    page.locator(f'#hand button[value="{code}"]').click()


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_r5_the_chosen_card_is_played_for_you_when_your_turn_comes(
    tables: RiggedTables,
    open_as: Callable[..., Page],
    artifacts: Path,
    viewport: dict[str, int],
) -> None:
    setup = tables.take()
    anne, bob = setup.names
    anne_page = open_as(setup, anne, viewport)
    bob_page = open_as(setup, bob, viewport)
    expect(bob_page.locator("#next-card-choice")).to_be_visible()
    expect(anne_page.locator("#next-card-choice")).to_have_count(0)  # it is her move
    choose_next(bob_page, "G7")
    expect(bob_page.locator(".next-card__chosen")).to_contain_text("Green 7")
    expect(bob_page.locator(".hand__card--next [data-card='G7']")).to_have_count(1)
    bob_page.screenshot(
        path=artifacts / f"next-card-chosen-{viewport['width']}.png", full_page=True
    )
    # Nothing of bob's choice reaches anne.
    expect(anne_page.locator(".hand__card--next")).to_have_count(0)
    expect(anne_page.locator("body")).not_to_contain_text("Next card")

    play(anne_page, "G5")
    # The same move: both cards on the table on both pages, bob never clicked.
    for page in (anne_page, bob_page):
        expect(page.locator("#trick [data-card='G5']")).to_have_count(1)
        expect(page.locator("#trick [data-card='G7']")).to_have_count(1)
    expect(bob_page.locator("#hand [data-card='G7']")).to_have_count(0)
    expect(bob_page.locator(".next-card__chosen")).to_have_count(0)


def test_r5_a_chosen_card_made_illegal_by_the_lead_is_not_played(
    tables: RiggedTables, open_as: Callable[..., Page], artifacts: Path
) -> None:
    setup = tables.take()
    anne, bob = setup.names
    anne_page = open_as(setup, anne, DESKTOP)
    bob_page = open_as(setup, bob, DESKTOP)
    choose_next(bob_page, "Y9")
    play(anne_page, "G5")  # green led: bob must follow with his green 7
    expect(bob_page.locator("#trick [data-card='G5']")).to_have_count(1)
    expect(bob_page.locator("#trick [data-card='Y9']")).to_have_count(0)
    expect(bob_page.locator("#hand [data-card='Y9']")).to_have_count(1)
    expect(bob_page.locator(".next-card__chosen")).to_have_count(0)
    expect(bob_page.locator("#hand button[value='G7']")).to_be_enabled()  # his move now
    # Issue 44: the dropped choice is said, in bob's status only (R4).
    dropped = "Your chosen card (Yellow 9) could not be played: you must follow green."
    expect(bob_page.locator("#status")).to_contain_text(dropped)
    expect(anne_page.locator("body")).not_to_contain_text("chosen card")
    bob_page.screenshot(path=artifacts / "next-card-illegal.png", full_page=True)
    play(bob_page, "G7")
    expect(anne_page.locator("#trick [data-card='G7']")).to_have_count(1)
    expect(bob_page.locator("#status")).not_to_contain_text("chosen card")
