"""The table explains every move, in the browser (issue 11; R4, R5, R6.5, R11).

Three players in round 2 with scripted hands (games.testing.scripted, through
``manage.py shell``). After the reveal the bid sum shows; as the cards land the lead
suit and the winning-card mark follow them on every page; the reason shows when the
trick is complete; after the host's "Next trick" the last trick stays viewable.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from .conftest import Server, Setup
from .test_layout import DESKTOP

pytestmark = pytest.mark.browser

# Hands in the first trick's play order; the opener (seat 2) leads.
SCRIPTED = """
from games.testing.factories import make_users, session_cookie
from games.testing.scripted import scripted_round

users = make_users(3, prefix={prefix!r})
table, users = scripted_round(
    [["G5", "P2"], ["B3", "Y3"], ["G12", "P4"]], round_number=2, users=users, seed=9
)
print("TABLE", table.pk)
for user in users:
    print("USER", user.username, session_cookie(user).split("=", 1)[1])
from games.play.state import load_state
state = load_state(table)
opener = state.player_index(state.round.opener_id)
for i in range(3):
    print("ORDER", state.seats[(opener + i) % 3].user.username)
"""


def scripted(server: Server) -> tuple[Setup, list[str]]:
    out = server.shell(SCRIPTED.format(prefix=f"x{uuid.uuid4().hex[:5]}_"))
    table_id = int(re.search(r"^TABLE (\d+)$", out, re.M).group(1))  # type: ignore[union-attr]
    setup = Setup(table_id, dict(re.findall(r"^USER (\S+) (\S+)$", out, re.M)))
    return setup, re.findall(r"^ORDER (\S+)$", out, re.M)


def winning_card(page: Page) -> str | None:
    return page.locator("#trick .play--winning [data-card]").get_attribute("data-card")


def test_lead_suit_winning_mark_reason_last_trick_and_bid_sum(
    server: Server, open_as: Callable[..., Page], artifacts: Path
) -> None:
    setup, order = scripted(server)
    pages = {name: open_as(setup, name, DESKTOP) for name in setup.names}
    first, second, third = (pages[name] for name in order)
    host = pages[setup.names[0]]

    # R4: every player bids 1; only then the bid sum shows, on every page.
    for page in pages.values():
        expect(page.locator("#seats .seats__bid-sum")).to_have_count(0)
    for page in pages.values():
        page.get_by_role("button", name="Bid 1", exact=True).click()
    for page in pages.values():
        expect(page.locator("#seats .seats__bid-sum")).to_have_text("Bids: 3 for 2 tricks")
        expect(page.locator("#seats [data-won-of-bid='0/1']")).to_have_count(3)
    first.screenshot(path=artifacts / "explain-bid-sum.png", full_page=True)

    # R5/R6.6: the green 5 leads and is winning.
    first.locator('#hand button[value="G5"]').click()
    for page in pages.values():
        expect(page.locator("#trick .trick__lead")).to_have_text("Lead: green")
        expect(page.locator("#trick .play--winning [data-card='G5']")).to_have_count(1)

    # R6.5: the black 3 trumps: the mark moves to it.
    second.locator('#hand button[value="B3"]').click()
    for page in pages.values():
        expect(page.locator("#trick .play--winning [data-card='B3']")).to_have_count(1)
        expect(page.locator("#trick .play--winning")).to_have_count(1)
        expect(page.locator("#trick .trick__winning")).to_contain_text("Black 3 is winning")
    # R5: the third player holds green: their purple 4 cannot be played, and says why.
    expect(third.locator("#hand .hand__why")).to_have_text("You must follow green")
    expect(third.locator('#hand button[id="play-P4"]')).to_have_accessible_description(
        "You must follow green"
    )
    for page in (first, second):
        expect(page.locator("#hand .hand__why")).to_have_count(0)
    third.screenshot(path=artifacts / "explain-during-trick.png", full_page=True)

    # The trick completes: the winner's card marked and the reason on every page.
    third.locator('#hand button[value="G12"]').click()
    for page in pages.values():
        expect(page.locator("#trick .trick__reason").first).to_have_text("Black 3 trumps")
        expect(page.locator("#trick .play--winner [data-card='B3']")).to_have_count(1)
    expect(second.locator("#seats [data-won-of-bid='1/1']")).to_have_count(1)
    first.screenshot(path=artifacts / "explain-after-trick.png", full_page=True)

    # R11: after "Next trick" the last trick stays viewable, outside the current trick.
    host.get_by_role("button", name="Next trick").click()
    for page in pages.values():
        expect(page.locator("#trick [data-card]")).to_have_count(0)
        last = page.locator("#last-trick-details")
        expect(last.locator("summary")).to_have_text("Last trick (trick 1)")
    last = first.locator("#last-trick-details")
    last.locator("summary").click()
    expect(last.locator(".trick__reason").first).to_have_text("Black 3 trumps")
    expect(last.locator("[data-card]")).to_have_count(3)
    # The opened list stays open when the next push replaces its region.
    version = first.locator("#trick").get_attribute("data-version")
    leader = second  # the black 3 won and leads trick 2
    leader.locator("#hand button[value]").first.click()
    expect(first.locator("#trick")).not_to_have_attribute("data-version", version or "")
    expect(first.locator("#last-trick-details .trick__reason").first).to_be_visible()
    first.screenshot(path=artifacts / "explain-last-trick.png", full_page=True)


# Each R6/R7 case, dealt on purpose and played in full server-side (one shell call for
# all of them): (cards in play order, the reason the page must show).
CASES = {
    "r6-2-skull-king-beats-pirates": (
        ["SK", "PIR1", "G5"],
        "Skull King takes the trick: it beats the pirates",
    ),
    "r6-1-mermaid-captures-skull-king": (
        ["PIR1", "SK", "MER1"],
        "Mermaid captures the Skull King, even with pirates in the trick",
    ),
    "r6-5-black-trumps": (["G5", "B3", "G12"], "Black 3 trumps"),
    "r6-6-highest-of-lead-suit": (["G5", "G12", "Y14"], "Highest green wins: Green 12"),
    "r6-7-escapes-only": (["ESC1", "ESC2", "ESC3"], "Only escapes: the first one played wins"),
    "r7-white-whale": (["G5", "WHA", "P10"], "White Whale: the highest number wins, Purple 10"),
    "r7-kraken": (["Y12", "KRA", "B3"], "Kraken destroys the trick;"),
    "r7-kraken-and-whale": (
        ["Y12", "B3", "WHA", "KRA"],
        "Kraken and White Whale: only the one played last counts, the Kraken",
    ),
}

PLAYED_CASES = """
from games.testing.factories import make_users, session_cookie
from games.testing.scripted import play_script, scripted_round

for number, (name, cards) in enumerate({cases!r}.items()):
    users = make_users(len(cards), prefix=f"{prefix}c{{number}}_")
    table, users = scripted_round(
        [[c] for c in cards], users=users, bids=[0] * len(cards)
    )
    play_script(table, cards)
    print("CASE", name, table.pk, users[0].username, session_cookie(users[0]).split("=", 1)[1])
"""


def test_each_r6_r7_case_shows_its_reason_on_the_page(
    server: Server, open_as: Callable[..., Page], artifacts: Path
) -> None:
    """R6.1-R6.7 and R7: the trick's reason, from the engine, on a player's page."""
    cards = {name: cards for name, (cards, _) in CASES.items()}
    out = server.shell(PLAYED_CASES.format(cases=cards, prefix=f"r{uuid.uuid4().hex[:4]}"))
    played = re.findall(r"^CASE (\S+) (\d+) (\S+) (\S+)$", out, re.M)
    assert sorted(name for name, *_ in played) == sorted(CASES)
    for name, table_id, username, cookie in played:
        page = open_as(Setup(int(table_id), {username: cookie}), username, DESKTOP)
        expect(page.locator("#trick")).to_contain_text(CASES[name][1])
        page.locator("#trick").screenshot(path=artifacts / f"explain-{name}.png")
        page.context.close()
