"""Frames that cross on the way never leave a page with stale forms (issue 10; R4, R5).

The server pushes each version's frame as soon as its move commits, so two moves
committed back to back can reach a socket in the other order (their publishes run
in two request threads). static/js/live.js then skips the older frame's regions and
carries the regions the frame left out on to its version. Carrying forward must
touch only the regions still at the version before it: here a late frame once moved
the whole page's forms back to its own version, and the round's leader, shown a
playable hand, had their first card refused as stale (409).

The test stands between the leader's page and the server's socket (Playwright's
``route_web_socket``) and delivers the second bid's frame after the third's.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable

import pytest
from playwright.sync_api import Page, WebSocketRoute, expect

from .conftest import Server
from .test_explain import scripted
from .test_layout import DESKTOP

pytestmark = pytest.mark.browser

VERSION = re.compile(r'data-version="(\d+)"')


def frame_version(message: str | bytes) -> int | None:
    """The version a socket message carries (None: a presence mark, no version)."""
    text = message if isinstance(message, str) else message.decode(errors="replace")
    match = VERSION.search(text)
    return int(match.group(1)) if match else None


class Relay:
    """One page's socket, relayed: every message passes, except the frames of the
    versions in ``late`` (kept until ``release``) and, while ``hold_requests`` is set,
    the page's snapshot requests (so only the crossed frames decide what it shows)."""

    def __init__(self) -> None:
        self.late: set[int] = set()
        self.kept: list[str | bytes] = []
        self.hold_requests = False
        self.requests: list[str | bytes] = []
        self.delivered: list[int] = []
        self.page: WebSocketRoute | None = None
        self.server: WebSocketRoute | None = None

    def route(self, page: WebSocketRoute) -> None:
        server = page.connect_to_server()
        self.page, self.server = page, server
        page.on_message(self._from_page)
        server.on_message(self._from_server)

    def _from_server(self, message: str | bytes) -> None:
        assert self.page is not None
        version = frame_version(message)
        if version in self.late:
            self.kept.append(message)
            return
        self.page.send(message)
        if version is not None:
            self.delivered.append(version)

    def _from_page(self, message: str | bytes) -> None:
        assert self.server is not None
        text = message if isinstance(message, str) else message.decode(errors="replace")
        if self.hold_requests and "snapshot" in text:
            self.requests.append(message)
            return
        self.server.send(message)

    def release(self) -> None:
        """Deliver the frames kept back, in the order they came."""
        assert self.page is not None
        kept, self.kept, self.late = self.kept, [], set()
        for message in kept:
            self.page.send(message)


def settle(page: Page, done: Callable[[], bool], timeout: float = 8.0) -> None:
    """Wait until ``done()``: the relay's callbacks run while Playwright waits."""
    deadline = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < deadline, "the relay never got there"
        page.wait_for_timeout(20)


def pushes(page: Page) -> int:
    return int(page.evaluate("() => window.__pushes"))


def test_r5_a_frame_overtaken_by_the_next_one_leaves_the_leaders_cards_playable(
    server: Server, open_as: Callable[..., Page]
) -> None:
    setup, order = scripted(server)
    relay = Relay()
    leader = open_as(setup, order[0], DESKTOP, route_socket=relay.route)
    others = [open_as(setup, name, DESKTOP) for name in order[1:]]
    base = int(leader.locator("#hand").get_attribute("data-version") or "")

    # R4: the leader bids first (base + 1): its answer and its own frame both arrive.
    leader.get_by_role("button", name="Bid 1", exact=True).click()
    expect(leader.locator("#hand")).to_have_attribute("data-version", str(base + 1))
    settle(leader, lambda: base + 1 in relay.delivered)

    # The second bid's frame (base + 2) reaches the leader only after the third's
    # (base + 3, the tricks start: the leader's hand becomes playable).
    relay.late.add(base + 2)
    relay.hold_requests = True
    for n, page in enumerate(others, start=2):
        page.get_by_role("button", name="Bid 1", exact=True).click()
        expect(page.locator("#status")).to_have_attribute("data-version", str(base + n))
    expect(leader.locator("#hand")).to_have_attribute("data-version", str(base + 3))
    expect(leader.locator('#hand button[value="G5"]')).to_be_enabled()

    count = pushes(leader)
    relay.release()
    leader.wait_for_function("n => window.__pushes > n", arg=count)

    # The late frame changed nothing that is newer than itself.
    expect(leader.locator("#hand")).to_have_attribute("data-version", str(base + 3))
    for field in leader.locator('#table-content input[name="version"]').all():
        expect(field).to_have_value(str(base + 3))

    # R5: the leader's first card is played, not refused as stale.
    leader.locator('#hand button[value="G5"]').click()
    for page in (leader, *others):
        expect(page.locator("#trick .play--winning [data-card='G5']")).to_have_count(1)
    expect(leader.locator("#error")).to_have_text("")
