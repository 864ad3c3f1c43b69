"""Issue 44: after every move, every region of every live page reads as a fresh load.

Complete games played in Chromium through the page's controls (invariant.py says
what is compared and what is normalised, and why). The quick run (``make test``)
plays the first rounds of each table, a round's end included (the score sheet's
push, R9), and a rematch after a game's last trick (R10); the thorough run
(``pytest -m "browser and thorough"``) plays each game to its end (R2: ten rounds)
and a rematch. The larger tables are in test_invariant_crowd.py (so that xdist
spreads them).

Choices come from one seeded generator: ``BROWSER_SEED=<n>`` replays them.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence

import pytest
from playwright.sync_api import expect

from .conftest import Player, Seat, Server, Setup
from .helpers import SEED, start
from .invariant import LAST_TRICK, Harness, make_table, play_round, play_rounds, rematch

pytestmark = pytest.mark.browser

OpenSeats = Callable[[Setup, Sequence[Seat]], list[Player]]

ROUNDS = 10


def play_table(
    server: Server, open_seats: OpenSeats, seats: Sequence[Seat], rounds: int, offset: int
) -> None:
    rng = random.Random(SEED + offset)
    print(f"BROWSER_SEED={SEED}")
    setup = make_table(server, seats, ghost=len(seats) == 2, seed=SEED + offset)
    h = Harness(open_seats(setup, seats))
    for player, seat in zip(h.players, seats, strict=True):
        # The account's language wins over the browser's English (accounts.language).
        expect(player.page.locator("html")).to_have_attribute("lang", seat.language or "en")
    h.check("the table opened")
    start(h.players)
    h.check("the host starts the game")
    play_rounds(h, 1, rounds, rng)
    if rounds == ROUNDS:
        rematch(h)
    h.finish()


@pytest.mark.parametrize(
    "rounds",
    [
        # R8: the ghost plays every trick; rounds 1-2 hold a round's end (R9).
        pytest.param(2, id="rounds-1-2"),
        pytest.param(ROUNDS, id="complete", marks=pytest.mark.thorough),
    ],
)
def test_two_players_and_the_ghost(server: Server, open_seats: OpenSeats, rounds: int) -> None:
    """R8: two humans and Graybeard; every page reads as its fresh load after every move."""
    play_table(server, open_seats, [Seat("ann"), Seat("bo")], rounds, 1)


@pytest.mark.parametrize(
    "rounds",
    [
        pytest.param(1, id="round-1"),
        pytest.param(ROUNDS, id="complete", marks=pytest.mark.thorough),
    ],
)
def test_three_players_one_on_a_phone(server: Server, open_seats: OpenSeats, rounds: int) -> None:
    """R5, R11: three players, the second on a 390x844 touch phone (taps)."""
    seats = [Seat("cy"), Seat("di", phone=True), Seat("ed")]
    play_table(server, open_seats, seats, rounds, 2)


def test_rematch_after_the_last_trick(server: Server, open_seats: OpenSeats) -> None:
    """R10 and the rematch: the engine plays a game up to its last trick, the pages play
    that trick, then a rematch is proposed, declined, proposed again, accepted by all,
    and the new table opened and started (one player on a phone)."""
    seats = [Seat("fe"), Seat("gu", phone=True), Seat("hy")]
    rng = random.Random(SEED + 5)
    setup = make_table(server, seats, ghost=False, seed=SEED + 5, done=LAST_TRICK)
    h = Harness(open_seats(setup, seats))
    h.check("the table opened at the last trick")
    play_round(h, ROUNDS, rng, bids=False)
    h.check("the game is over")
    rematch(h)
    h.finish()


def test_the_harness_fails_on_a_region_that_reads_otherwise_and_on_browser_errors(
    server: Server, open_seats: OpenSeats
) -> None:
    """The harness can fail: a live region changed by hand, an htmx error event and a
    console error each fail the next check, with the player and the region named."""
    seats = [Seat("vi"), Seat("wu")]
    setup = make_table(server, seats, ghost=True, seed=SEED + 6)
    h = Harness(open_seats(setup, seats), keep_going=False)
    h.check("the table opened")
    host, guest = h.players

    guest.page.evaluate("() => { document.querySelector('#seats h2').textContent += '!'; }")
    with pytest.raises(pytest.fail.Exception) as failed:
        h.check("a heading changed by hand")
    text = str(failed.value)
    assert f"#seats of {guest.name}'s page after move 2 (a heading changed by hand)" in text
    assert "+++ live page" in text and "!" in text and host.name not in text.split(":")[0]

    guest.page.reload()
    guest.page.wait_for_function("() => window.__pushes >= 1")
    h.check("the changed page reloaded")

    # An htmx error event (no console line of its own when fired so): the init script's
    # listener reports it and counts it.
    host.page.evaluate(
        "() => htmx.trigger(document.body, 'htmx:oobErrorNoTarget',"
        " {content: document.createElement('aside')})"
    )
    assert host.page.evaluate("() => window.__htmxErrors") == 1
    with pytest.raises(pytest.fail.Exception, match=r"htmx:oobErrorNoTarget: <aside>"):
        h.check("an htmx error event")

    guest.page.evaluate("() => console.error('a script went wrong')")
    with pytest.raises(pytest.fail.Exception, match=r"console error .*a script went wrong"):
        h.check("a console error")
    h.check("nothing new")


def test_the_waiting_room_after_a_player_leaves(server: Server, open_seats: OpenSeats) -> None:
    """Issue 45: in the waiting room, after a player left, the other pages' controls read
    otherwise than a fresh load (the pushed invite link was a path, the page's a whole
    address). R11: leaving before the start frees the seat; the others see it live."""
    seats = [Seat("wait"), Seat("stay"), Seat("go")]
    setup = make_table(server, seats, ghost=False, seed=SEED + 9)
    h = Harness(open_seats(setup, seats))
    h.check("the waiting table opened")
    leaver = h.players.pop()
    leaver.page.locator("#controls").get_by_role("button", name="Leave").click()
    expect(leaver.page).not_to_have_url(re.compile(rf"/tables/{setup.table_id}/$"))
    for player in h.players:
        expect(player.page.locator("#seats")).not_to_contain_text(leaver.name)
    h.check("a player left before the start")
    h.finish()
