"""Seed 002's score pad in the seat list, live (issue 49; R4, R6.1, R9).

Three players in round 2 with scripted hands (games.testing.scripted, through ``manage.py
shell``; round 1 played at random, so the points so far differ). While they bid, every
page shows each seat's points so far and no projection (R4); the last bid brings the
projections to every page; once the first trick lands (the Mermaid takes the Skull King,
R6.1) each page shows, without a reload, what the round would give if it ended now (R9,
the +40 only for an exact bid) and the total it makes.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from .conftest import Server, Setup
from .test_layout import DESKTOP

pytestmark = pytest.mark.browser

# Hands in the first trick's play order (the opener first), as tests/games/test_projected_score.py.
SCRIPTED = """
from games.models import RoundScore
from games.testing.factories import make_users, session_cookie
from games.testing.scripted import scripted_round
from games.play.state import load_state

users = make_users(3, prefix={prefix!r})
table, users = scripted_round(
    [["MER1", "G3"], ["SK", "G14"], ["G1", "G2"]], round_number=2, users=users, seed=5
)
print("TABLE", table.pk)
for user in users:
    print("USER", user.username, session_cookie(user).split("=", 1)[1])
state = load_state(table)
totals = {{s.seat_id: s.running_total for s in RoundScore.objects.filter(round__table=table)}}
opener = state.player_index(state.round.opener_id)
for i in range(3):
    seat = state.seats[(opener + i) % 3]
    print("ORDER", seat.user.username, seat.pk, totals[seat.pk])
"""

MINUS = "\u2212"


def scripted(server: Server) -> tuple[Setup, list[tuple[str, str, int]]]:
    out = server.shell(SCRIPTED.format(prefix=f"pad{uuid.uuid4().hex[:5]}_"))
    table_id = int(re.search(r"^TABLE (\d+)$", out, re.M).group(1))  # type: ignore[union-attr]
    setup = Setup(table_id, dict(re.findall(r"^USER (\S+) (\S+)$", out, re.M)))
    order = [
        (name, f"seat-{pk}", int(total))
        for name, pk, total in re.findall(r"^ORDER (\S+) (\d+) (-?\d+)$", out, re.M)
    ]
    return setup, order


def signed(points: int) -> str:
    return f"+{points}" if points > 0 else f"{MINUS}{-points}" if points < 0 else "0"


def test_r9_the_seat_list_shows_each_projection_live_after_a_trick(
    server: Server, open_as: Callable[..., Page]
) -> None:
    setup, order = scripted(server)
    pages = {name: open_as(setup, name, DESKTOP) for name in setup.names}
    (opener, opener_key, opener_so_far), (sk_name, sk_key, sk_so_far), (third, third_key, _) = order

    def entry(page: Page, key: str):  # type: ignore[no-untyped-def]
        return page.locator(f'#seats [data-seat="{key}"] .seat__points')

    # R4: the opener and the Skull King's player bid 1; with a bid missing, every page
    # shows the points so far and nothing that tells a bid.
    pages[opener].get_by_role("button", name="Bid 1", exact=True).click()
    pages[sk_name].get_by_role("button", name="Bid 1", exact=True).click()
    for page in pages.values():
        expect(entry(page, sk_key)).to_have_attribute("data-points", str(sk_so_far))
        expect(page.locator("#seats [data-has-bid]")).to_have_count(2)
        expect(page.locator("#seats [data-round-points]")).to_have_count(0)
    # The last bid reveals the bids and, with them, the projections: nothing won yet.
    pages[third].get_by_role("button", name="Bid 0", exact=True).click()
    for page in pages.values():
        expect(entry(page, opener_key)).to_have_attribute("data-round-points", "-10")
        expect(entry(page, third_key)).to_have_attribute("data-round-points", "20")

    # R6.1: Mermaid, Skull King, green 1: the Mermaid takes the trick and the Skull King.
    for name, card in zip((opener, sk_name, third), ("MER1", "SK", "G1"), strict=True):
        pages[name].locator(f'#hand button[value="{card}"]').click()
        for page in pages.values():
            expect(page.locator(f'#trick [data-card="{card}"]')).to_have_count(1)
    # R9: bid 1 made with the Skull King captured: 20 + 40, on every page, live.
    made = opener_so_far + 60
    for page in pages.values():
        shown = entry(page, opener_key)
        expect(shown.locator("[aria-hidden]")).to_have_text(f"Score: {opener_so_far} +60 ({made})")
        expect(shown.locator(".visually-hidden")).to_have_text(
            f"Score: {opener_so_far}; +60 from this round if it ended now, making {made}"
        )
        # R9: bid 1, no trick yet: -10.
        expect(entry(page, sk_key).locator("[aria-hidden]")).to_have_text(
            f"Score: {sk_so_far} {signed(-10)} ({sk_so_far - 10})"
        )
        expect(
            page.locator(f'#seats [data-seat="{opener_key}"] [data-won-of-bid="1/1"]')
        ).to_have_count(1)
