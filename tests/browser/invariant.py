"""The browser invariant of issue 44: a live page reads as a fresh load of itself.

Whole games are played in Chromium through the page's own controls (helpers.py).
After EVERY move, once every page shows the new version, each region of each
player's live page (what the pushes and answers made of it) is compared with the
same region of a fresh load of that player's page: from inside the page,
``fetch(location.href)`` (its own cookies) parsed with DOMParser (nothing runs).

Both sides are written out the same way (``CANON``): one line per tag, text and
attribute, attributes in name order, whitespace between tags dropped, runs of
whitespace in text made one space. Only what legitimately differs between a live
page and a fresh load is normalised, each for the reason given in ``CANON``;
anything else that differs fails with the player, the move, the region and both
texts (a diff first). Focus is not part of an element's HTML. The comparison waits
until the page is quiet (no request in flight, no swap settling), so htmx's marks of
a request under way (the htmx-request class, hx-disabled-elt's ``disabled``) are not
normalised but must be gone. What the page's other scripts change is compared as it
is: static/js/turn.js writes only outside the regions (the title, the favicon,
#announce), and static/js/live.js's carry forward moves each region root's data-
version and its forms' version fields on to the version a frame brings, which must
then read as the fresh load's.

Every page also reports its browser errors (conftest.watch_errors: console errors,
page errors, htmx's error events such as htmx:oobErrorNoTarget): the harness fails
on the first move after which any page has one.
"""

from __future__ import annotations

import difflib
import os
import random
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from playwright.sync_api import expect

from .conftest import EXPECT_TIMEOUT_MS, Player, Seat, Server, Setup
from .helpers import (
    action_button,
    bid,
    bid_button,
    hand_codes,
    host_presses,
    play,
    playable,
    press,
    settle,
    start,
    version,
    wait_past,
)

#: The regions of the table page (templates/games/table.html, games.live.frames.ALL_REGIONS),
#: and its error line: after a move that was made, it is as empty as in a fresh load.
COMPARED = (
    "status",
    "seats",
    "trick",
    "hand",
    "controls",
    "scores",
    "tricks-history",
    "chat-log",
    "error",
)

#: True once every live region shows version ``v`` (helpers.AT_VERSION), no request
#: is in flight (conftest.COUNT_REQUESTS) and no swap is settling (htmx's settle
#: step, after which focus.js and table.js have done their part): the page is quiet.
SETTLED = """(v) => ["status", "trick", "hand", "controls"].every(
        (r) => document.getElementById(r)?.getAttribute("data-version") === String(v))
    && window.__inFlight === 0
    && !document.querySelector(".htmx-request, .htmx-settling, .htmx-swapping, .htmx-added")"""
#: What a page that did not settle shows: each region's version, the requests in flight.
SHOWN = """(ids) => ({inFlight: window.__inFlight, versions: Object.fromEntries(
    ids.map((r) => [r, document.getElementById(r)?.getAttribute("data-version")]))})"""

#: In the page: fetch a fresh load of it and write out each region of both.
CANON = r"""async (ids) => {
    const answer = await fetch(location.href, {credentials: "same-origin"});
    const html = await answer.text();
    const fresh = new DOMParser().parseFromString(html, "text/html");

    // htmx's own transient classes (a request or a swap under way).
    const HTMX_CLASSES = new Set(["htmx-request", "htmx-settling", "htmx-swapping", "htmx-added"]);

    function attributes(el, isRoot) {
        const kept = [];
        for (const a of el.attributes) {
            let value = a.value;
            const name = a.name;
            // What a text box shows is its value, not its value attribute: a pushed
            // invite link is a path, which static/js/table.js (absoluteInvite) writes
            // out whole in the box, as a fresh load renders it.
            if (el.tagName === "INPUT" && name === "value" && el.type === "text") {
                value = el.value;
            }
            // The viewer's own: an open <details> (the Tigress choice, "Leave the game…",
            // an earlier trick) stays open across pushes (static/js/focus.js,
            // static/js/table.js); a fresh load has them closed.
            if (el.tagName === "DETAILS" && name === "open") continue;
            // The part marks of games.live.parts: ``data-part`` is the server's mark for
            // splitting a render (a pushed part goes without it: "the page never reads
            // it"), and a part keeps the version of the frame that last carried it
            // (static/js/live.js carries only the region roots on). Each region
            // root's data-version is compared.
            if (name === "data-part") continue;
            if (name === "data-version" && !isRoot) continue;
            // static/js/table.js turns the drawn table so that the viewer sits at the
            // bottom (data-rot, from data-me on the page root).
            if (name === "data-rot" && el.classList.contains("felt")) continue;
            // static/js/table.js shows a chat time in the viewer's own time zone, with
            // the whole date as its title.
            if (name === "title" && el.matches("time.chat__time")) continue;
            if (name === "class") {
                const classes = [...el.classList].filter((c) => {
                    if (HTMX_CLASSES.has(c)) return false;
                    // static/js/table.js marks the viewer's own seat and chat messages
                    // (the shared regions are the same HTML for every player).
                    if (c === "is-you" && (el.hasAttribute("data-seat")
                        || el.hasAttribute("data-author"))) return false;
                    return true;
                });
                if (!classes.length) continue;
                value = classes.join(" ");
            }
            kept.push([name, value]);
        }
        kept.sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));
        return kept.map(([n, v]) => (v === "" ? ` ${n}` : ` ${n}="${v.replace(/"/g, "&quot;")}"`))
            .join("");
    }

    function write(node, depth, lines, isRoot) {
        const pad = "  ".repeat(depth);
        if (node.nodeType === Node.TEXT_NODE) {
            const text = node.textContent.replace(/\s+/g, " ").trim();
            // The chat's times: static/js/table.js writes them in the viewer's time zone.
            if (text && !node.parentElement?.matches("time.chat__time")) lines.push(pad + text);
            return;
        }
        if (node.nodeType !== Node.ELEMENT_NODE) return;  // comments
        // A per-load secret: a page's forms carry its CSRF token, a pushed region's
        // none (games.live.frames.PUSHED: htmx sends the token from <body hx-headers>).
        if (node.matches('input[name="csrfmiddlewaretoken"]')) return;
        const tag = node.tagName.toLowerCase();
        lines.push(`${pad}<${tag}${attributes(node, isRoot)}>`);
        const children = tag === "template" ? node.content.childNodes : node.childNodes;
        for (const child of children) write(child, depth + 1, lines, false);
        lines.push(`${pad}</${tag}>`);
    }

    function canon(el) {
        if (!el) return null;
        const lines = [];
        write(el, 0, lines, true);
        return lines.join("\n");
    }

    const regions = {};
    for (const id of ids) {
        regions[id] = [canon(document.getElementById(id)), canon(fresh.getElementById(id))];
    }
    return {status: answer.status, regions};
}"""

#: Starts CANON in the page without waiting for it (its promise in ``window.__canon``).
START = f"(ids) => {{ window.__canon = ({CANON})(ids); }}"


def describe(player: str, move: str, region: str, live: str | None, fresh: str | None) -> str:
    live_text = live if live is not None else "(no such region on the live page)"
    fresh_text = fresh if fresh is not None else "(no such region in a fresh load)"
    diff = "\n".join(
        difflib.unified_diff(
            fresh_text.splitlines(),
            live_text.splitlines(),
            "fresh load",
            "live page",
            lineterm="",
            n=2,
        )
    )
    return (
        f"#{region} of {player}'s page after {move} differs from a fresh load:\n{diff}\n"
        f"--- the live page's #{region}:\n{live_text}\n"
        f"--- a fresh load's #{region}:\n{fresh_text}\n"
    )


#: ``INVARIANT_KEEP_GOING=1``: record each failing check and go on playing, and fail
#: at the end with all of them (to see every defect of a game at once).
KEEP_GOING = os.environ.get("INVARIANT_KEEP_GOING", "") not in ("", "0")


@dataclass
class Harness:
    """The players of one table (host first) and the check after every move."""

    players: list[Player]
    moves: int = 0
    failures: list[str] = field(default_factory=list)
    seconds: float = 0.0  # spent in the checks (printed by finish)
    keep_going: bool = KEEP_GOING

    @property
    def host(self) -> Player:
        return self.players[0]

    def fail(self, text: str) -> None:
        if not self.keep_going:
            pytest.fail(text, pytrace=False)
        print(text)
        self.failures.append(text)

    def finish(self) -> None:
        """The end of a game (KEEP_GOING: fail now with every failure recorded)."""
        print(f"invariant: {self.moves} moves checked, {self.seconds:.1f} s in the checks")
        if self.failures:
            pytest.fail(
                f"{len(self.failures)} check(s) failed:\n\n" + "\n\n".join(self.failures),
                pytrace=False,
            )

    def errors(self, move: str) -> None:
        """Fail on any browser error of any page so far."""
        found = [e for p in self.players for e in p.errors]
        if found:
            listed = "\n  ".join(dict.fromkeys(e[:2000] for e in found))
            for p in self.players:
                p.errors.clear()  # each reported once (KEEP_GOING)
            self.fail(f"browser errors by {move}:\n  {listed}")

    def check(self, move: str) -> None:
        """After ``move``: every page at the same version, quiet, no browser error, and
        each region of each page as a fresh load of that page shows it."""
        self.moves += 1
        move = f"move {self.moves} ({move})"
        began = time.perf_counter()
        try:
            self._check(move)
        finally:
            self.seconds += time.perf_counter() - began

    def _check(self, move: str) -> None:
        target = max(version(p) for p in self.players)
        for p in self.players:
            try:
                p.page.wait_for_function(SETTLED, arg=target, timeout=EXPECT_TIMEOUT_MS)
            except PlaywrightTimeoutError:
                shown = p.page.evaluate(SHOWN, list(COMPARED))
                self.errors(move)
                pytest.fail(
                    f"{p.name}'s page did not settle at version {target} after {move}: {shown}",
                    pytrace=False,
                )
        self.errors(move)
        differences = []
        # Every page starts its fetch, then each answer is read: the pages load and
        # write out side by side.
        for p in self.players:
            p.page.evaluate(START, list(COMPARED))
        for p in self.players:
            seen: dict[str, Any] = p.page.evaluate("() => window.__canon")
            assert seen["status"] == 200, f"{p.name}: a fresh load answered {seen['status']}"
            for region in COMPARED:
                live, fresh = seen["regions"][region]
                if live != fresh:
                    differences.append(describe(p.name, move, region, live, fresh))
        # The comparison's own fetches and the reading made no error either.
        self.errors(move)
        if differences:
            self.fail(
                f"{len(differences)} region(s) differ from a fresh load:\n\n"
                + "\n".join(differences)
            )


# ---------------------------------------------------------------------------
# tables and players set up on the server (moves are then made in the pages)
# ---------------------------------------------------------------------------

#: Users (with their languages) and a waiting table seated by them, host first; the
#: deck's seed fixed (games.testing.factories.seated_table). Printed: the table and
#: each user's session.
SEATED = """
from games.testing.factories import make_user, seated_table, session_cookie

users = [make_user(name, language=language) for name, language in {people!r}]
table, users = seated_table(users, ghost={ghost}, seed={seed})
print("TABLE", table.pk)
for user in users:
    print("USER", user.username, session_cookie(user).split("=", 1)[1])
"""

#: The same, started and played by the engine's random driver (games.testing.driver)
#: until ``done(t)``: for a rematch, a game near its end.
PLAYED = """
import random
from games.models import Table
from games.play.state import load_state
from games.testing.driver import play_until
from games.testing.factories import make_user, session_cookie, started_table

users = [make_user(name, language=language) for name, language in {people!r}]
table, users = started_table(users, ghost={ghost}, seed={seed})

def done(t):
    return {done}

table = play_until(table, random.Random({seed}), done=done)
print("TABLE", table.pk)
for user in users:
    print("USER", user.username, session_cookie(user).split("=", 1)[1])
"""

#: ``done`` for PLAYED: the last trick of the last round (R2: round 10) on the table,
#: no card of it played yet.
LAST_TRICK = (
    "t.round_number == 10 and t.phase == Table.Phase.PLAYING"
    " and load_state(t).trick.number == load_state(t).round.cards_dealt"
    " and not load_state(t).plays"
)


def make_table(
    server: Server, seats: Sequence[Seat], *, ghost: bool, seed: int, done: str = ""
) -> Setup:
    tag = f"{seed % 100_000}{len(seats)}"
    people = [(f"{s.name}{tag}", s.language) for s in seats]
    code = (PLAYED if done else SEATED).format(people=people, ghost=ghost, seed=seed, done=done)
    out = server.shell(code)
    found = re.search(r"^TABLE (\d+)$", out, re.M)
    assert found is not None, out
    cookies = dict(re.findall(r"^USER (\S+) (\S+)$", out, re.M))
    assert list(cookies) == [name for name, _language in people], out
    return Setup(int(found.group(1)), cookies)


# ---------------------------------------------------------------------------
# playing, with the check after every move
# ---------------------------------------------------------------------------


def game_over(player: Player) -> bool:
    return player.page.locator("#status .standings").count() > 0


def to_act(h: Harness) -> Player:
    """The one player whose page offers playable cards (R5: one at a time, in turn)."""
    offers = {p.name: playable(p) for p in h.players}
    actors = [p for p in h.players if offers[p.name]]
    assert len(actors) == 1, f"playable cards per player: {offers}"
    return actors[0]


def play_round(h: Harness, number: int, rng: random.Random, *, bids: bool = True) -> None:
    """Round ``number``: every bid (R4, in any order), every trick (R5) with the
    host's "Next trick" between them (R11), up to the round's summary. ``bids=False``:
    from a round whose bids are made."""
    for p in h.players if bids else ():
        expect(bid_button(p.page, 0), f"{p.name}: no bids in round {number}").to_be_visible()
    for p in rng.sample(h.players, len(h.players)) if bids else ():
        value = rng.randint(0, len(hand_codes(p)))  # R4: 0 to the cards dealt
        bid(p, value, h.players)
        h.check(f"{p.name} bids {value} in round {number}")
    trick = 1
    while True:
        if action_button(h.host.page, "Next trick").count():
            host_presses(h.host, "Next trick", h.players)
            trick += 1
            h.check(f"Next trick (round {number}, trick {trick})")
            continue
        if action_button(h.host.page, "Next round").count() or game_over(h.host):
            return
        actor = to_act(h)
        played = play(actor, rng.choice(playable(actor)), rng, h.players)
        h.check(f"{actor.name} plays {played} in round {number}, trick {trick}")


def play_rounds(h: Harness, first: int, last: int, rng: random.Random) -> None:
    """Rounds ``first`` to ``last``, each followed by the host's "Next round" unless
    the game is over (R10)."""
    for number in range(first, last + 1):
        play_round(h, number, rng)
        for p in h.players:
            # The round's end pushed its row of the score sheet to everyone (R9).
            expect(p.page.locator(f"#scores #sheet-round-{number}")).to_be_visible()
        if game_over(h.host):
            return
        host_presses(h.host, "Next round", h.players)
        h.check(f"Next round (round {number + 1})")


def rematch(h: Harness) -> None:
    """After the game (R10): a rematch proposed and declined, proposed again and
    accepted by everyone, then the new table opened by each (its link) and started by
    the host."""
    for p in h.players:
        expect(p.page.locator("#after-game"), f"{p.name}: no rematch controls").to_be_visible()
    first, last = h.players[-1], h.players[1] if len(h.players) > 1 else h.players[0]

    def act(player: Player, action: str, move: str) -> None:
        before = settle(h.players)
        press(player, action_button(player.page, action))
        wait_past(player, before)
        h.check(move)

    act(first, "Propose a rematch", f"{first.name} proposes a rematch")
    act(last, "Decline", f"{last.name} declines the rematch")
    act(h.host, "Propose a rematch", f"{h.host.name} proposes a rematch again")
    for p in h.players[1:]:
        act(p, "Accept the rematch", f"{p.name} accepts the rematch")
    links = {
        p.name: p.page.locator("#after-game a.button--primary").get_attribute("href")
        for p in h.players
    }
    assert len(set(links.values())) == 1 and None not in links.values(), links
    for p in h.players:
        before = p.page.url
        press(p, p.page.locator("#after-game a.button--primary"))
        expect(p.page).not_to_have_url(before)
        p.page.wait_for_function("() => window.__pushes >= 1")
    for p in h.players:
        expect(p.page.locator("#seats .seat__offline")).to_have_count(0)
    h.check("everyone opened the rematch's table")
    start(h.players)
    h.check("the host starts the rematch")
