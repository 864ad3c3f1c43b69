"""Seed 002's score pad in the seat list (issue 49): each seat's points so far, what the
round would give if it ended now (R9, with the bonuses that would count) and the total
that makes, shown only once every bid is in (R4).

Round 2, three players, hands dealt on purpose (games.testing.scripted); round 1 was
played at random, so the points so far are not all 0. Each figure is checked against
R9 worked out by hand, and once the round is over against the score the engine wrote
for the sheet.
"""

from __future__ import annotations

import html as htmllib
import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from games.models import RoundScore, Table
from games.pages import presenter
from games.play import actions
from games.testing.scripted import play_script, scripted_round

from .helpers import started_table, state_of

pytestmark = pytest.mark.django_db

# In the first trick's play order (the opener first). Trick 1: the Mermaid captures the
# Skull King (R6.1, R9 +40 for its player). Trick 2: the opener leads green 3, the Skull
# King's player must follow with the green 14 and wins it (R9 +10).
HANDS = [["MER1", "G3"], ["SK", "G14"], ["G1", "G2"]]
TRICK_1 = ["MER1", "SK", "G1"]
TRICK_2 = ["G3", "G14", "G2"]


def page(user: Any, table: Table) -> str:
    client = Client()
    client.force_login(user)
    response = client.get(reverse("table", args=[table.pk]))
    assert response.status_code == 200
    return response.content.decode()


def seat_items(html: str) -> dict[str, str]:
    """data-seat key -> the HTML of that seat's entry in the seat list."""
    seats = re.search(r'<section id="seats".*?</section>', html, re.S)
    assert seats
    return dict(
        re.findall(r'<li id="seats-[^"]+"[^>]*data-seat="([^"]+)">(.*?)</li>', seats[0], re.S)
    )


def pad(item: str) -> tuple[int | None, int | None, int | None]:
    """(points so far, this round if it ended now, the total that makes) as the seat shows."""

    def number(name: str) -> int | None:
        found = re.search(rf'data-{name}="(-?\d+)"', item)
        return int(found.group(1)) if found else None

    return number("points"), number("round-points"), number("would-make")


def spoken(item: str) -> str:
    """The sentence a screen reader gets for the pad (visually hidden text)."""
    found = re.search(r'<span class="visually-hidden">(.*?)</span>', item, re.S)
    assert found, item
    return htmllib.unescape(found.group(1)).strip()


def table_in_round_two(bids_in_play_order: list[int] | None) -> tuple[Table, list[Any], list[Any]]:
    """The scripted round 2; with bids, everyone has bid. Returns the table, the users and
    the seats in the first trick's play order."""
    table, users = scripted_round(HANDS, round_number=2, seed=5)
    state = state_of(table)
    assert state.round is not None
    opener = state.player_index(state.round.opener_id)
    order = [state.seats[(opener + i) % 3] for i in range(3)]
    if bids_in_play_order is not None:
        for seat, bid in zip(order, bids_in_play_order, strict=True):
            table = actions.place_bid(seat.user, table.pk, table.version, bid)
    return table, users, order


def totals_after_round_one(table: Table) -> dict[int, int]:
    rows = RoundScore.objects.filter(round__table=table, round__number=1)
    return {row.seat_id: row.running_total for row in rows}


@pytest.mark.parametrize(
    ("opener_bid", "after_trick_1", "after_trick_2"),
    [
        # R9: bid 1 made, and its Mermaid took the Skull King: 20 + 40, then still 60.
        pytest.param(1, 60, 60, id="R9-exact-bid-with-skull-king-by-mermaid"),
        # R9: bid 2, one trick: -10, the +40 does not count (not exact).
        pytest.param(2, -10, -10, id="R9-missed-bid-no-bonus"),
        # R9: bid 0 and a trick won: -10 x 2 cards dealt.
        pytest.param(0, -20, -20, id="R9-bid-zero-missed"),
    ],
)
def test_r9_projection_follows_the_tricks_and_ends_as_the_engines_score(
    opener_bid: int, after_trick_1: int, after_trick_2: int
) -> None:
    # The Skull King's player bids 1, the third bids 0 (10 x 2 cards dealt if made).
    table, users, order = table_in_round_two([opener_bid, 1, 0])
    opener, skull_king, third = (seat_key(s) for s in order)
    before = totals_after_round_one(table)
    so_far = {seat_key(s): before[s.pk] for s in order}

    # Every bid in, no trick yet: as if nobody won anything.
    items = seat_items(page(users[0], table))
    nothing = {0: 20, 1: -10, 2: -20}[opener_bid]
    assert pad(items[opener]) == (so_far[opener], nothing, so_far[opener] + nothing)
    assert pad(items[third]) == (so_far[third], 20, so_far[third] + 20)

    table = play_script(table, TRICK_1)
    items = seat_items(page(users[0], table))
    assert pad(items[opener]) == (so_far[opener], after_trick_1, so_far[opener] + after_trick_1)
    assert pad(items[skull_king]) == (so_far[skull_king], -10, so_far[skull_king] - 10)
    assert pad(items[third]) == (so_far[third], 20, so_far[third] + 20)
    # The figures read as a sentence, with the won/bid beside them.
    minus = "\u2212"
    sign = "+" if after_trick_1 > 0 else minus
    assert spoken(items[opener]) == (
        f"Score: {so_far[opener]}; {sign}{abs(after_trick_1)} from this round if it ended now,"
        f" making {so_far[opener] + after_trick_1}"
    )
    assert f'data-won-of-bid="1/{opener_bid}"' in items[opener]
    # ...in the reader's language (the seat list is rendered once per language).
    users[1].language = "fr"
    users[1].save(update_fields=["language"])
    assert spoken(seat_items(page(users[1], table))[opener]).startswith(
        f"Score : {so_far[opener]} ; {sign}{abs(after_trick_1)} pour cette manche"
    )

    table = actions.next_trick(users[0], table.pk, table.version)
    table = play_script(table, TRICK_2)
    assert table.phase == Table.Phase.ROUND_DONE
    items = seat_items(page(users[0], table))
    # R9: the Skull King's player made 1 with the green 14 in it: 20 + 10.
    expected = {opener: after_trick_2, skull_king: 30, third: 20}
    for key, points in expected.items():
        assert pad(items[key]) == (so_far[key], points, so_far[key] + points)
    # ...which is what the engine scored for the sheet (games.play.actions).
    scored = RoundScore.objects.filter(round__table=table, round__number=2)
    for row in scored:
        key = presenter.seat_key(row.seat_id)
        assert pad(items[key]) == (so_far[key], row.total, row.running_total)


def seat_key(seat: Any) -> str:
    return presenter.seat_key(seat.pk)


def test_r4_no_projection_before_every_bid_is_in() -> None:
    """R4: a projection tells the bid: during the bidding the seat list shows the points so
    far only, in the page and in the shared context alike."""
    table, users, order = table_in_round_two(None)
    before = totals_after_round_one(table)
    for seat, bid in zip(order[:2], [1, 0], strict=True):
        table = actions.place_bid(seat.user, table.pk, table.version, bid)
    html = page(users[0], table)
    items = seat_items(html)
    for seat in order:
        assert pad(items[seat_key(seat)]) == (before[seat.pk], None, None)
    assert "data-round-points" not in html and "if it ended now" not in html
    players = presenter.public_context(state_of(table))["players"]()
    assert [(p.points, p.round_points) for p in players] == [
        (before[p.seat_id], None) for p in players
    ]
    # The last bid reveals them all, the projections with them.
    table = actions.place_bid(order[2].user, table.pk, table.version, 2)
    items = seat_items(page(users[0], table))
    assert pad(items[seat_key(order[2])]) == (
        before[order[2].pk],
        -20,
        before[order[2].pk] - 20,
    )


def test_r8_the_ghost_has_no_score() -> None:
    """R8: the ghost never scores: its entry shows no points; the two humans' do."""
    table, users = started_table(2, ghost=True, seed=3)
    for user in users:
        table = actions.place_bid(user, table.pk, table.version, 1)
    items = seat_items(page(users[0], table))
    assert pad(items["ghost"]) == (None, None, None)
    state = state_of(table)
    for seat in state.seats:
        assert pad(items[seat_key(seat)]) == (0, -10, -10)  # R9: bid 1, nothing won yet


def test_round_one_starts_from_no_points() -> None:
    table, users = started_table(3, ghost=False, seed=3)
    items = seat_items(page(users[0], table))
    assert [pad(item) for item in items.values()] == [(0, None, None)] * 3
