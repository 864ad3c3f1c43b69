"""Whole games in real browsers, one context per player, against config.serve (see conftest).

Everything is done by clicking, as a player would; pages are never reloaded
except in the reload test, so every change a player sees on another player's
move arrived over the table's websocket (htmx ws extension, oob swaps).

How the tests keep in step with the table without sleeping: see helpers.py
(``settle``, ``wait_past``), where the moves are made.

Random choices (bids, cards, the Tigress) come from one seeded generator:
``BROWSER_SEED=<n>`` replays the same choices (the deal itself is the server's).
"""

from __future__ import annotations

import random
import re
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from playwright.sync_api import expect

from .conftest import Player, Server, sign_up
from .helpers import (
    SEED,
    assert_no_browser_errors,
    bid,
    button,
    hand_codes,
    host_presses,
    play,
    playable,
    region_text,
    settle,
    start,
)

pytestmark = pytest.mark.browser

ROUNDS = 10
PLAY_LABEL = re.compile(r"^Play ")  # a legal card, in words (the Tigress asks pirate/escape next)
TABLE_URL = re.compile(r"/tables/(\d+)/$")
GHOST_NAME = "Graybeard"

OpenPlayer = Callable[..., Player]


# ---------------------------------------------------------------------------
# reading the page (the rest: helpers.py)
# ---------------------------------------------------------------------------


#: A region's words, white space left out: a pushed region goes without the
#: templates' indentation (games.live.frames), which shows nowhere.
WORDS = "(region) => region ? region.textContent.replace(/\\s+/g, '') : null"
#: The same region's words in a fresh load of the page (the server's HTML, parsed).
FRESH_WORDS = f"""async (selector) => {{
    const html = await (await fetch(location.href)).text();
    const page = new DOMParser().parseFromString(html, "text/html");
    return ({WORDS})(page.querySelector(selector));
}}"""


def assert_as_a_reload(players: Sequence[Player], selector: str) -> None:
    """Each page's ``selector`` region reads as a fresh load of that page: what the
    pushes built is what the server would show (issue 44: the score sheet's pushed
    rows were dropped by the browser's parser and the sheet stayed empty)."""
    for p in players:
        fresh = p.page.evaluate(FRESH_WORDS, selector)
        live = p.page.locator(selector).evaluate(WORDS)
        assert live == fresh, f"{p.name}'s {selector}: live\n{live}\na reload shows\n{fresh}"


# ---------------------------------------------------------------------------
# doing things (the moves themselves: helpers.py)
# ---------------------------------------------------------------------------


def create_table(host: Player, *, ghost: bool = True) -> int:
    host.goto("/")
    checkbox = host.page.get_by_label("Ghost player (Graybeard)")
    checkbox.set_checked(ghost)
    button(host.page, "Create table").click()
    expect(host.page).to_have_url(TABLE_URL)
    match = TABLE_URL.search(host.page.url)
    assert match is not None
    expect(host.page.locator("#status")).to_be_visible()
    return int(match.group(1))


def invite_link(host: Player) -> str:
    link = host.page.locator("#invite-link").input_value()
    assert re.search(r"/join/[A-Za-z0-9_-]+/$", link), link
    return link


def join(player: Player, link: str, table_id: int) -> None:
    player.goto(link)
    button(player.page, "Join this table").click()
    expect(player.page).to_have_url(re.compile(rf"/tables/{table_id}/$"))
    expect(player.page.locator("#seats")).to_contain_text(player.name)


def seat_table(open_player: OpenPlayer, names: Sequence[str], *, ghost: bool = True):
    """Log everyone in, the first creates a table, the others join by the invite link."""
    players = [open_player(name) for name in names]
    host = players[0]
    table_id = create_table(host, ghost=ghost)
    link = invite_link(host)
    for player in players[1:]:
        join(player, link, table_id)
        # The host's page learns about the newcomer without a reload.
        expect(host.page.locator("#seats")).to_contain_text(player.name)
    return players, table_id


# ---------------------------------------------------------------------------
# a whole round / game
# ---------------------------------------------------------------------------


def play_round(
    players: Sequence[Player],
    number: int,
    rng: random.Random,
    *,
    ghost: bool = False,
    on_trick: Callable[[int, int], None] | None = None,
) -> list[str]:
    """Bid and play round ``number`` up to its summary; returns who led each trick."""
    host = players[0]
    settle(players)
    for p in players:
        expect(button(p.page, f"Bid {number}"), f"{p.name}: no 'Bid {number}'").to_be_visible()
        expect(button(p.page, f"Bid {number + 1}")).to_have_count(0)
        assert len(hand_codes(p)) == number, f"{p.name} holds {hand_codes(p)} in round {number}"
    for p in rng.sample(list(players), len(players)):  # bids are in any order (R4)
        bid(p, rng.randint(0, number), players)

    seats = len(players) + (1 if ghost else 0)
    leaders: list[str] = []
    for trick in range(1, number + 1):
        settle(players)
        for p in players:
            expect(p.page.locator("#trick")).to_contain_text(f"Trick {trick} of {number}")
        first = True
        while (
            not button(host.page, "Next trick").count()
            and not button(host.page, "Next round").count()
        ):
            if host.page.locator("#status").get_by_text("Final standings").count():
                break
            settle(players)
            # Exactly one page offers playable cards: the player whose turn it is.
            offers = {p.name: playable(p) for p in players}
            actors = [p for p in players if offers[p.name]]
            assert len(actors) == 1, f"playable cards per player: {offers}"
            actor = actors[0]
            for other in players:
                if other is not actor:
                    expect(other.page.locator("#hand").get_by_label(PLAY_LABEL)).to_have_count(0)
            if first:
                leaders.append(actor.name)
                first = False
            if on_trick is not None:
                on_trick(number, trick)
            play(actor, rng.choice(offers[actor.name]), rng, players)
        settle(players)
        for p in players:
            expect(p.page.locator("#trick [data-card]")).to_have_count(seats)
        if trick < number:
            previous = hand_codes(host)
            host_presses(host, "Next trick", players)
            assert hand_codes(host) == previous
    for p in players:
        expect(p.page.locator("#scores"), f"{p.name}: no round summary").to_contain_text(
            f"Round {number} summary"
        )
    assert_as_a_reload(players, "#scores")  # R9: the score sheet, pushed live
    return leaders


# ---------------------------------------------------------------------------
# the tests
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "rounds",
    [
        # Rounds 1-3 in the quick run; the complete game (R10: final standings) in CI's
        # thorough pass (pytest -m "browser and thorough").
        pytest.param(3, id="rounds-1-3"),
        pytest.param(ROUNDS, id="complete", marks=pytest.mark.thorough),
    ],
)
def test_three_players_play_a_complete_game(
    open_player: OpenPlayer, server: Server, artifacts: Path, rounds: int
) -> None:
    rng = random.Random(SEED)
    print(f"BROWSER_SEED={SEED}")
    # The host signs up through the page; the others log in (conftest created them).
    host = open_player(f"hana{uuid.uuid4().hex[:6]}", login=False)
    sign_up(host.page, host.name)
    players = [host, open_player("bob"), open_player("cid")]
    table_id = create_table(host, ghost=True)  # 3 players: the ghost never plays (R8)
    link = invite_link(host)
    for player in players[1:]:
        join(player, link, table_id)
        expect(host.page.locator("#seats")).to_contain_text(player.name)
    start(players)
    expect(host.page.locator("#seats")).not_to_contain_text(GHOST_NAME)

    shot: dict[str, bool] = {"taken": False}

    def mid_game(number: int, trick: int) -> None:
        if not shot["taken"] and number == min(5, rounds) and trick == min(3, number):
            host.page.screenshot(
                path=artifacts / "table-mid-game.png", full_page=True, caret="initial"
            )
            shot["taken"] = True

    for number in range(1, rounds + 1):
        play_round(players, number, rng, on_trick=mid_game)
        if number < rounds:
            host_presses(host, "Next round", players)
    assert shot["taken"]

    settle(players)
    if rounds < ROUNDS:
        # Every page shows the same score sheet, with the host's button to go on.
        sheets = {p.name: region_text(p, "#scores") for p in players}
        assert len(set(sheets.values())) == 1, sheets
        expect(button(host.page, "Next round")).to_be_visible()
        assert_no_browser_errors(players)
        return
    for p in players:
        expect(p.page.locator("#status")).to_contain_text("Final standings")
        expect(p.page.locator("#status")).to_contain_text("Game over")
        expect(button(p.page, "Next round")).to_have_count(0)
    host.page.screenshot(path=artifacts / "final-standings.png", full_page=True, caret="initial")
    # The final standings read the same on every page (each status line also holds
    # its player's own bid, which is theirs alone).
    standings = {p.name: region_text(p, "#status .standings") for p in players}
    sheets = {p.name: region_text(p, "#scores") for p in players}
    assert len(set(standings.values())) == 1, standings
    assert len(set(sheets.values())) == 1, sheets

    # The pages agree with the rows: each player's final total as stored.
    totals = server.shell(
        "from games.models import RoundScore\n"
        f"for s in RoundScore.objects.filter(round__table_id={table_id}, round__number=10)"
        ".select_related('seat__user'):\n"
        "    print(s.seat.user.username, s.running_total)\n"
    )
    final = dict(line.split() for line in totals.strip().splitlines())
    assert set(final) == {p.name for p in players}
    shown = standings[host.name]
    for name, total in final.items():
        assert re.search(rf"{re.escape(name)}\s+{total} points", shown), (name, total, shown)

    assert_no_browser_errors(players)


def test_two_players_with_the_ghost(open_player: OpenPlayer) -> None:
    rng = random.Random(SEED + 2)
    players, _table_id = seat_table(open_player, ["ann", "dee"], ghost=True)
    start(players)
    for p in players:
        expect(p.page.locator("#seats")).to_contain_text(GHOST_NAME)
    openers = []
    for number in (1, 2, 3):
        leaders = play_round(players, number, rng, ghost=True)
        # The ghost never opens a round: a human leads trick 1 (R3, R8).
        openers.append(leaders[0])
        if number < 3:
            host_presses(players[0], "Next round", players)
    # Round 1 is dealt by the host, so the other human opens; then they alternate (R3).
    assert openers == ["dee", "ann", "dee"], openers
    for p in players:
        # The ghost bids nothing and scores nothing: no column in the score sheet.
        expect(p.page.locator("#scores")).not_to_contain_text(GHOST_NAME)
    assert_no_browser_errors(players)


def deal_round_one(server: Server, table_id: int, seat: int, card: str, humans: int) -> None:
    """Give the table a seed whose round-1 deal hands ``card`` to human ``seat`` (0-based).

    The deal is the server's (a seed per table); this picks a seed with the engine's own
    functions and stores it before the start, so that a test can rely on one card.
    """
    from games import rules
    from games.play.actions import _round_seed  # the seed of round n, derived from the table's

    for seed in range(1, 100_000):
        round_seed = _round_seed(SimpleNamespace(seed=seed), 1)
        if card in {str(c) for c in rules.deal(round_seed, 1, humans, False).hands[seat]}:
            break
    else:
        pytest.fail(f"no seed deals {card} to seat {seat}")
    server.shell(
        "from games.models import Table\n"
        f"assert Table.objects.filter(pk={table_id}, status='waiting').update(seed={seed}) == 1\n"
    )


def test_reload_in_the_middle_of_a_trick_restores_the_page(
    open_player: OpenPlayer, server: Server
) -> None:
    rng = random.Random(SEED + 3)
    players, table_id = seat_table(open_player, ["cid", "ann"], ghost=False)
    # ann (seat 2) opens round 1 and is dealt the Tigress: she must choose (R1, R5).
    deal_round_one(server, table_id, seat=1, card="TIG", humans=2)
    start(players)
    expect(players[0].page.locator("#seats")).not_to_contain_text(GHOST_NAME)
    for p in players:
        bid(p, rng.randint(0, 1), players)
    settle(players)
    actors = [p for p in players if playable(p)]
    assert [a.name for a in actors] == ["ann"]  # round 1: the player after the dealer opens
    actor = actors[0]
    assert playable(actor) == ["TIG"]
    played = play(actor, "TIG", rng, players)
    for p in players:
        expect(p.page.locator('#trick [data-card="TIG"]')).to_have_attribute(
            "data-as", played.removeprefix("TIG:")
        )

    # Mid-trick: one card on the table, the other player to move.
    settled = settle(players)
    before = {p.name: (region_text(p, "#trick"), region_text(p, "#hand")) for p in players}
    for p in players:
        p.page.reload()
        expect(p.page.locator("#status")).to_have_attribute("data-version", str(settled))
    settle(players)
    after = {p.name: (region_text(p, "#trick"), region_text(p, "#hand")) for p in players}
    assert after == before

    # The reloaded pages are live again: the trick finishes on both without a reload.
    other = next(p for p in players if p is not actor)
    play(other, rng.choice(playable(other)), rng, players)
    for p in players:
        expect(p.page.locator("#trick [data-card]")).to_have_count(2)
    expect(players[0].page.locator("#scores")).to_contain_text("Round 1 summary")
    assert_no_browser_errors(players)


def test_chat_is_live_and_for_seated_players_only(open_player: OpenPlayer) -> None:
    players, table_id = seat_table(open_player, ["dee", "bob"])
    host, guest = players
    hello = f"Ahoy {uuid.uuid4().hex[:8]}"
    reply = f"Arr {uuid.uuid4().hex[:8]}"

    def say(player: Player, text: str) -> None:
        player.page.locator("#chat-text").fill(text)
        button(player.page, "Send").click()

    say(host, hello)
    for p in players:
        expect(p.page.locator("#chat-log")).to_contain_text(hello)
    say(guest, reply)
    for p in players:
        expect(p.page.locator("#chat-log")).to_contain_text(reply)
    expect(host.page.locator("#chat-text")).to_have_value("")

    # A stranger: the table page is refused, and so is its websocket.
    stranger = open_player("fay")
    response = stranger.goto(f"/tables/{table_id}/")
    assert response is not None and response.status == 403
    expect(stranger.page.locator("body")).not_to_contain_text(hello)
    stranger.goto("/")
    outcome: dict[str, Any] = stranger.page.evaluate(
        """(path) => new Promise((resolve) => {
            const seen = [];
            const ws = new WebSocket(`ws://${location.host}${path}`);
            ws.onmessage = (e) => seen.push(String(e.data));
            ws.onclose = (e) => resolve({code: e.code, messages: seen});
            setTimeout(() => resolve({code: -1, messages: seen}), 5000);
        })""",
        f"/ws/tables/{table_id}/",
    )
    assert outcome["code"] == 4403, outcome
    assert not any(hello in m or reply in m for m in outcome["messages"]), outcome
    # A chat post by the stranger is refused and reaches nobody.
    status = stranger.page.evaluate(
        """async (url) => {
            const token = document.cookie.match(/csrftoken=([^;]+)/)?.[1] ?? "";
            const r = await fetch(url, {method: "POST", headers: {"X-CSRFToken": token},
                                        body: new URLSearchParams({text: "let me in"})});
            return r.status;
        }""",
        f"/tables/{table_id}/chat/",
    )
    assert status == 403
    expect(host.page.locator("#chat-log")).not_to_contain_text("let me in")
    assert_no_browser_errors(players)


def focused_as_if_in_front(player: Player) -> None:
    """The page behaves as the focused window, whatever the machine's load.

    The async clipboard refuses a document that is not focused, and headless chromium
    may leave a window unfocused (under stress-ng, bring_to_front() does not suffice):
    chromium's own focus emulation (DevTools) keeps this page focused, as the window
    is when a player clicks in it.
    """
    cdp = player.context.new_cdp_session(player.page)
    cdp.send("Emulation.setFocusEmulationEnabled", {"enabled": True})


#: Counts the socket's messages: the first is the full snapshot, which replaces every
#: region (the Copy button too, with its label); click only after it.
COUNT_PUSHES = (
    "window.__pushes = 0; document.addEventListener('htmx:wsAfterMessage',"
    " () => { window.__pushes += 1; });"
)


def open_own_table(host: Player) -> None:
    """A new table of the host's, its page live (snapshot in, table.js listening)."""
    host.context.add_init_script(COUNT_PUSHES)
    create_table(host)
    host.page.wait_for_function("() => window.__pushes >= 1")


def test_copy_invite_link_button(open_player: OpenPlayer, server: Server) -> None:
    host = open_player("eve")
    host.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.url)
    focused_as_if_in_front(host)
    open_own_table(host)
    link = invite_link(host)
    # Something else on the clipboard first: the link must replace it.
    host.page.evaluate("() => navigator.clipboard.writeText('before the copy')")
    copy = button(host.page, "Copy invite link")
    copied_label = copy.get_attribute("data-copied")
    assert copied_label == "Copied!"
    copy.click()
    # The copy is asynchronous: the button says so once the clipboard holds the link.
    expect(copy).to_have_text(copied_label)
    copied = host.page.evaluate("() => navigator.clipboard.readText()")
    assert copied == link, f"the Copy button put {copied!r} on the clipboard, not {link!r}"
    assert_no_browser_errors([host])


# Both ways of copying refused, as by a browser that forbids page scripts the clipboard.
REFUSING_CLIPBOARD = """
Object.defineProperty(navigator, "clipboard", {value: {
    writeText: () => Promise.reject(new DOMException("Denied.", "NotAllowedError")),
}});
document.execCommand = () => false;
"""


def test_a_refused_copy_says_so_and_selects_the_link_to_copy_by_hand(
    open_player: OpenPlayer,
) -> None:
    host = open_player("eve")
    host.context.add_init_script(REFUSING_CLIPBOARD)
    open_own_table(host)
    link = invite_link(host)
    copy = button(host.page, "Copy invite link")
    copy.click()
    # Not a silent button, and not "Copied!": the player is told to copy it themselves...
    expect(copy).to_have_text("Not copied: copy the selected link by hand")
    # ...and the whole link is selected in the focused box, ready for Ctrl+C.
    field = host.page.locator("#invite-link")
    expect(field).to_be_focused()
    selected = host.page.evaluate(
        "() => { const i = document.getElementById('invite-link');"
        " return i.value.slice(i.selectionStart, i.selectionEnd); }"
    )
    assert selected == link, f"{selected!r} is selected, not the whole link {link!r}"
    assert_no_browser_errors([host])


def test_a_refused_move_says_why_and_the_next_move_clears_it(open_player: OpenPlayer) -> None:
    """R4: a bid from a form older than the deal is refused (409) with a reason in the error
    line; the next bid, from the page the refusal brought, is made and the line is empty,
    though the bid's push, which removes the bid form, may overtake its answer. The line
    stays one live region throughout (its content goes, not the element), so a screen
    reader announces the next reason."""
    players, _table_id = seat_table(open_player, ["fay", "eve"], ghost=True)
    start(players)
    fay = players[0]
    error = fay.page.locator("#error")
    # The form as it was before the deal: its version is the table's at the start.
    fay.page.locator('#controls input[name="version"]').first.evaluate("e => { e.value = '1' }")
    button(fay.page, "Bid 1").click()
    expect(error).not_to_have_text("")
    expect(error).to_have_attribute("aria-live", "assertive")
    before = settle(players)
    button(fay.page, "Bid 1").click()
    # (Not wait_past: the error line still holds the refusal until the bid's answer.)
    expect(fay.page.locator("#status")).to_have_attribute("data-version", str(before + 1))
    expect(error).to_have_text("")
    expect(error).to_have_attribute("aria-live", "assertive")
    expect(fay.page.locator("#seats")).to_contain_text("✓ has bid")
    assert_no_browser_errors(players)
