"""Hooking your next card by a tap before your turn, in the browser (issues 12, 49; R5).

Two players in round 2 with rigged hands (the server's own factories and driver,
through ``manage.py shell``): anne leads, bob taps a card of his own hand while she
plays (seed 002's hook). When anne's lead makes it legal, bob's card lands in the
same move, with no click of his; when her lead makes it illegal, it is not played,
the hook is gone and bob is asked to play. A second tap unhooks, a tap on another
card moves the hook, the Tigress asks pirate or escape (R1). A tap (a hook, a card
played, a bid) shows at once that it is on its way, until its answer; a refusal puts
the card back with the reason.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Page, Route, expect

from .conftest import RiggedTables, Server, Setup
from .test_layout import DESKTOP, PHONE

pytestmark = pytest.mark.browser

#: anne (seat 0) leads with a green 5 or a yellow 3; bob holds a green 7 and a yellow 9.
HANDS = (["G5", "Y3"], ["G7", "Y9"])
#: bob holds the Tigress instead of the green 7.
TIGRESS_HANDS = (["G5", "Y3"], ["TIG", "Y9"])

#: Reads, in the first animation frame after a tap on one of the hand's cards, what the
#: hand shows then (the page's other scripts have run the tap's submit by then).
FIRST_FRAME = """() => {
  window.__firstFrame = null;
  document.addEventListener("click", (event) => {
    const tapped = event.target.closest("#hand .hook-button, #hand .card-button");
    if (!tapped) return;
    requestAnimationFrame(() => {
      const others = [...document.querySelectorAll("#hand button")];
      window.__firstFrame = {
        pending: tapped.classList.contains("is-pending"),
        busy: document.getElementById("hand").getAttribute("aria-busy"),
        disabled: others.every((b) => b.disabled),
      };
    });
  }, { once: true });
}"""


@pytest.fixture(scope="module")
def tables(server: Server) -> RiggedTables:
    """One fresh table a test, the module's made in one ``manage.py shell``."""
    return RiggedTables(server, *HANDS, batch=8)


#: A two-player table in round 2's bidding (R4), made in one ``manage.py shell``.
BIDDING = """
import random
from games.models import Table
from games.testing.driver import at_phase, play_until
from games.testing.factories import session_cookie, started_table

table, users = started_table(2, ghost=False, seed=7, prefix="{prefix}")
table = play_until(table, random.Random(7), at_phase(Table.Phase.BIDDING, 2))
for user in users:
    print("USER", user.username, session_cookie(user).split("=", 1)[1])
print("TABLE", table.pk)
"""


@pytest.fixture(scope="module")
def tigress_tables(server: Server) -> RiggedTables:
    return RiggedTables(server, *TIGRESS_HANDS, batch=1)


def card(page: Page, code: str):  # type: ignore[no-untyped-def]
    """The hand's hook button of a card (games.templatetags.cards.hook_button)."""
    return page.locator(f"#hand #hook-{code}")


def hook(page: Page, code: str, name: str) -> None:
    """Tap a card (not hooked yet) and see it hooked; a hook changes no version."""
    version = page.locator("#hand").get_attribute("data-version")
    card(page, code).click()
    expect(card(page, code)).to_have_attribute("aria-pressed", "true")
    expect(page.locator(".next-card__chosen")).to_have_text(f"Next card: {name}.")
    assert page.locator("#hand").get_attribute("data-version") == version


def hooked(page: Page) -> list[str]:
    return page.locator('#hand .hook-button[aria-pressed="true"]').evaluate_all(
        "els => els.map(e => e.id)"
    )


def play(page: Page, code: str) -> None:
    page.locator(f'#hand button[value="{code}"]').click()


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_r5_the_hooked_card_is_played_for_you_when_your_turn_comes(
    tables: RiggedTables,
    open_as: Callable[..., Page],
    artifacts: Path,
    viewport: dict[str, int],
) -> None:
    setup = tables.take()
    anne, bob = setup.names
    anne_page = open_as(setup, anne, viewport)
    bob_page = open_as(setup, bob, viewport)
    # While anne plays, bob's cards are hook buttons, none hooked; anne's are to play.
    expect(card(bob_page, "G7")).to_have_attribute("aria-pressed", "false")
    expect(bob_page.locator("#hand")).to_contain_text("Tap a card to hook it")
    expect(anne_page.locator("#hand .hook-button")).to_have_count(0)  # it is her move
    expect(bob_page.locator("#next-card-choice")).to_have_count(0)  # no drop-down
    hook(bob_page, "G7", "Green 7")
    # Marked by a hook and a word, which is also in the button's name (WCAG 2.5.3).
    expect(card(bob_page, "G7").locator(".hook-mark")).to_be_visible()
    expect(card(bob_page, "G7")).to_have_accessible_name("Green 7 hooked")
    assert hooked(bob_page) == ["hook-G7"]
    bob_page.screenshot(path=artifacts / f"next-card-hooked-{viewport['width']}.png")
    # Nothing of bob's hook reaches anne (R4).
    expect(anne_page.locator(".hand__card--next")).to_have_count(0)
    expect(anne_page.locator("body")).not_to_contain_text("Next card")

    play(anne_page, "G5")
    # The same move: both cards on the table on both pages, bob never clicked.
    for page in (anne_page, bob_page):
        expect(page.locator("#trick [data-card='G5']")).to_have_count(1)
        expect(page.locator("#trick [data-card='G7']")).to_have_count(1)
    expect(bob_page.locator("#hand [data-card='G7']")).to_have_count(0)
    expect(bob_page.locator(".next-card__chosen")).to_have_text("")
    assert hooked(bob_page) == []


def test_r5_a_second_tap_unhooks_and_a_tap_on_another_card_moves_the_hook(
    tables: RiggedTables, open_as: Callable[..., Page]
) -> None:
    setup = tables.take()
    anne, bob = setup.names
    anne_page = open_as(setup, anne, DESKTOP)
    bob_page = open_as(setup, bob, DESKTOP)
    hook(bob_page, "G7", "Green 7")
    hook(bob_page, "Y9", "Yellow 9")  # moves the hook
    assert hooked(bob_page) == ["hook-Y9"]
    expect(card(bob_page, "Y9")).to_be_focused()  # the keyboard stays on the card
    card(bob_page, "Y9").click()  # unhooks
    expect(card(bob_page, "Y9")).to_have_attribute("aria-pressed", "false")
    expect(bob_page.locator(".next-card__chosen")).to_have_text("")
    assert hooked(bob_page) == []
    play(anne_page, "G5")
    # Nothing hooked: nothing played for bob, his move now.
    expect(bob_page.locator("#trick [data-card='G5']")).to_have_count(1)
    expect(bob_page.locator("#trick [data-card]")).to_have_count(1)
    expect(bob_page.locator("#hand #play-G7")).to_be_enabled()
    expect(bob_page.locator("#hand .hook-button")).to_have_count(0)


def test_r5_a_hooked_card_made_illegal_by_the_lead_is_not_played(
    tables: RiggedTables, open_as: Callable[..., Page], artifacts: Path
) -> None:
    setup = tables.take()
    anne, bob = setup.names
    anne_page = open_as(setup, anne, DESKTOP)
    bob_page = open_as(setup, bob, DESKTOP)
    hook(bob_page, "Y9", "Yellow 9")
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


def test_r1_the_tigress_asks_pirate_or_escape_when_hooked_and_is_played_so(
    tigress_tables: RiggedTables, open_as: Callable[..., Page]
) -> None:
    setup = tigress_tables.take()
    anne, bob = setup.names
    anne_page = open_as(setup, anne, DESKTOP)
    bob_page = open_as(setup, bob, DESKTOP)
    card(bob_page, "TIG").click()
    choice = bob_page.locator("#hand .tigress-choice__form")
    expect(choice).to_contain_text("Pirate or escape?")
    choice.get_by_role("button", name="As a pirate").click()
    expect(card(bob_page, "TIG")).to_have_attribute("aria-pressed", "true")
    expect(card(bob_page, "TIG").locator("[data-card='TIG']")).to_have_attribute(
        "data-as", "pirate"
    )
    expect(bob_page.locator(".next-card__chosen")).to_have_text("Next card: Tigress (as pirate).")
    play(anne_page, "G5")
    # Played for bob as a pirate (R6: it wins over the green 5).
    for page in (anne_page, bob_page):
        expect(page.locator("#trick [data-card='TIG']")).to_have_attribute("data-as", "pirate")


def test_a_tap_shows_pending_in_the_next_frame_until_its_answer(
    tables: RiggedTables, open_as: Callable[..., Page], artifacts: Path
) -> None:
    """Issue 49: the tapped card is pending (and the hand's controls out of reach) in
    the first frame after the tap, while its answer is held back; the answer ends it."""
    setup = tables.take()
    bob_page = open_as(setup, setup.names[1], DESKTOP)
    held: list[Route] = []

    def hold(route: Route) -> None:  # the tap's POST waits here
        held.append(route)

    bob_page.route("**/next-card/", hold)
    bob_page.evaluate(FIRST_FRAME)
    card(bob_page, "G7").click()
    bob_page.wait_for_function("() => window.__firstFrame !== null")
    first = bob_page.evaluate("() => window.__firstFrame")
    assert first == {"pending": True, "busy": "true", "disabled": True}, first
    assert len(held) == 1, "the answer has not come"
    expect(card(bob_page, "G7")).to_have_class("hook-button is-pending")
    bob_page.screenshot(path=artifacts / "next-card-pending.png")
    held[0].continue_()
    expect(card(bob_page, "G7")).to_have_attribute("aria-pressed", "true")
    expect(bob_page.locator("#hand .is-pending")).to_have_count(0)
    expect(bob_page.locator("#hand")).not_to_have_attribute("aria-busy", "true")
    expect(card(bob_page, "Y9")).to_be_enabled()
    bob_page.unroute("**/next-card/")


def test_r5_a_card_played_on_your_turn_shows_pending_in_the_next_frame_too(
    tables: RiggedTables, open_as: Callable[..., Page]
) -> None:
    """Issue 49: the same for the card anne plays on her turn, until its answer."""
    setup = tables.take()
    anne_page = open_as(setup, setup.names[0], DESKTOP)
    held: list[Route] = []

    def hold(route: Route) -> None:
        held.append(route)

    anne_page.route("**/play/", hold)
    anne_page.evaluate(FIRST_FRAME)
    anne_page.locator("#hand #play-G5").click()
    anne_page.wait_for_function("() => window.__firstFrame !== null")
    first = anne_page.evaluate("() => window.__firstFrame")
    assert first == {"pending": True, "busy": "true", "disabled": True}, first
    assert len(held) == 1, "the answer has not come"
    held[0].continue_()
    expect(anne_page.locator("#trick [data-card='G5']")).to_have_count(1)
    expect(anne_page.locator(".is-pending")).to_have_count(0)
    anne_page.unroute("**/play/")


def test_a_refused_tap_puts_the_card_back_and_says_why(
    tables: RiggedTables, open_as: Callable[..., Page]
) -> None:
    """Issue 49: a hook from a stale page (its version older than the deal) is refused
    (409): the card is no longer pending, not hooked, and the error line says why."""
    setup = tables.take()
    bob_page = open_as(setup, setup.names[1], DESKTOP)
    bob_page.locator('#hand input[name="version"]').evaluate("e => { e.value = '1' }")
    card(bob_page, "G7").click()
    expect(bob_page.locator("#error")).to_contain_text("The table has moved on")
    expect(bob_page.locator("#hand .is-pending")).to_have_count(0)
    expect(bob_page.locator("#hand")).not_to_have_attribute("aria-busy", "true")
    expect(card(bob_page, "G7")).to_have_attribute("aria-pressed", "false")
    expect(card(bob_page, "G7")).to_be_enabled()
    hook(bob_page, "G7", "Green 7")  # the page the refusal brought hooks it
    expect(bob_page.locator("#error")).to_be_empty()


def test_a_refusal_that_is_not_a_frame_also_ends_the_pending_state(
    tables: RiggedTables, open_as: Callable[..., Page]
) -> None:
    """An answer that brings no new hand (a rate limit's page, here) still ends the
    pending state: static/js/pending.js clears it on the answer, not on a re-render."""
    setup = tables.take()
    bob_page = open_as(setup, setup.names[1], DESKTOP)

    def limited(route: Route) -> None:
        body = '<p role="alert">Too many requests: wait a moment.</p>'
        route.fulfill(status=429, body=body, content_type="text/html")

    bob_page.route("**/next-card/", limited)
    card(bob_page, "G7").click()
    expect(bob_page.locator("#error")).to_contain_text("Too many requests")
    expect(bob_page.locator("#hand .is-pending")).to_have_count(0)
    expect(bob_page.locator("#hand")).not_to_have_attribute("aria-busy", "true")
    expect(card(bob_page, "G7")).to_have_attribute("aria-pressed", "false")
    bob_page.unroute("**/next-card/")


def test_r4_a_tapped_bid_shows_pending_in_the_next_frame_until_its_answer(
    server: Server, open_as: Callable[..., Page]
) -> None:
    """Issue 49: a bid button, as a card: pending and its controls waiting at once."""
    out = server.shell(BIDDING.format(prefix=f"b{uuid.uuid4().hex[:5]}_"))
    table_id = int(re.search(r"^TABLE (\d+)$", out, re.M).group(1))  # type: ignore[union-attr]
    setup = Setup(table_id, dict(re.findall(r"^USER (\S+) (\S+)$", out, re.M)))
    page = open_as(setup, setup.names[0], DESKTOP)
    held: list[Route] = []

    def hold(route: Route) -> None:
        held.append(route)

    page.route("**/bid/", hold)
    page.evaluate(
        """() => {
          window.__firstFrame = null;
          document.addEventListener("click", (event) => {
            const tapped = event.target.closest("#controls .bid-button");
            if (!tapped) return;
            requestAnimationFrame(() => {
              window.__firstFrame = {
                pending: tapped.classList.contains("is-pending"),
                busy: document.getElementById("controls").getAttribute("aria-busy"),
                disabled: [...document.querySelectorAll("#controls .bid-button")]
                  .every((b) => b.disabled),
              };
            });
          }, { once: true });
        }"""
    )
    page.get_by_role("button", name="Bid 1").click()
    page.wait_for_function("() => window.__firstFrame !== null")
    first = page.evaluate("() => window.__firstFrame")
    assert first == {"pending": True, "busy": "true", "disabled": True}, first
    assert len(held) == 1, "the answer has not come"
    held[0].continue_()
    expect(page.locator("#seats")).to_contain_text("✓ has bid")
    expect(page.locator(".is-pending")).to_have_count(0)
    expect(page.locator("#controls")).not_to_have_attribute("aria-busy", "true")
    page.unroute("**/bid/")
