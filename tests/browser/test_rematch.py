"""The rematch controls read what they do, live, in each player's language (issue 44).

Three players at a finished table (a complete game played by the server's own
driver in ``manage.py shell``), one of them reading German. Each answer to a
rematch is clicked on its player's page; after every click, on every page, the
after-game controls (each button's words and where its form posts) must be those
of a fresh load of that page. Before the fix, a clicked button kept its old words
while its form became another: the proposer's only button read "Propose a rematch"
and withdrew the proposal, the German accepting player's read "Revanche
vorschlagen" and withdrew too.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from .conftest import Server, Setup
from .test_layout import DESKTOP

pytestmark = pytest.mark.browser

FINISHED = """
import random
from accounts.models import User
from games.testing.driver import play_until
from games.testing.factories import session_cookie, started_table
table, users = started_table(3, ghost=False, seed=21, prefix="{prefix}")
table = play_until(table, random.Random(21))
assert table.status == "finished", table.status
User.objects.filter(pk=users[1].pk).update(language="de")
print("TABLE", table.pk)
for user in users:
    print("USER", user.username, session_cookie(user).split("=", 1)[1])
"""

#: Each after-game button's words and the path its form posts to, as the page shows them.
CONTROLS = """(root) => Array.from(root.querySelectorAll("#after-game form")).map(
    (form) => [form.querySelector("button").textContent.trim(), form.getAttribute("action")])"""
#: The same, read from a fresh load of the page (the server's HTML, parsed).
FRESH = f"""async () => {{
    const html = await (await fetch(location.href)).text();
    const page = new DOMParser().parseFromString(html, "text/html");
    return ({CONTROLS})(page);
}}"""


def finished_table(server: Server) -> Setup:
    out = server.shell(FINISHED.format(prefix="rm_"))
    table = re.search(r"^TABLE (\d+)$", out, re.M)
    assert table is not None, out
    return Setup(int(table.group(1)), dict(re.findall(r"^USER (\S+) (\S+)$", out, re.M)))


def assert_controls_as_a_reload(pages: dict[str, Page]) -> None:
    for name, page in pages.items():
        fresh = page.evaluate(FRESH)
        live = page.evaluate(f"() => ({CONTROLS})(document)")
        assert live == fresh, f"{name}'s rematch controls: live {live}, a reload shows {fresh}"


def test_r11_rematch_buttons_say_what_they_do_on_every_page_live(
    server: Server, open_as: Callable[..., Page]
) -> None:
    setup = finished_table(server)
    host, german, third = setup.names
    pages = {name: open_as(setup, name, DESKTOP) for name in setup.names}
    for page in pages.values():
        expect(page.locator("#after-game")).to_be_visible()
    assert_controls_as_a_reload(pages)

    version = int(pages[host].locator("#controls").get_attribute("data-version") or 0)
    pages[host].get_by_role("button", name="Propose a rematch").click()
    for page in pages.values():
        expect(page.locator("#controls")).not_to_have_attribute("data-version", str(version))
    expect(pages[host].locator("#after-game button")).to_have_text(["Withdraw"])
    expect(pages[german].locator("#after-game button")).to_have_text(
        ["Revanche annehmen", "Ablehnen"]
    )
    assert_controls_as_a_reload(pages)

    pages[german].get_by_role("button", name="Revanche annehmen").click()
    expect(pages[german].locator("#after-game button")).to_have_text(["Zurückziehen"])
    expect(pages[host].locator("#after-game")).to_contain_text(f"{german}: ✓ in")
    assert_controls_as_a_reload(pages)

    pages[third].get_by_role("button", name="Accept the rematch").click()
    for name, page in pages.items():
        link = "Zur Revanche" if name == german else "Go to the rematch"
        expect(page.get_by_role("link", name=link)).to_be_visible()
    assert_controls_as_a_reload(pages)
