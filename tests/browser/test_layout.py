"""The table as it looks, at a desktop size (1280x800) and a phone size (390x844).

Tables are set up on the server with the shared factories and driver (a few
``manage.py shell`` lines: no clicking through rounds), and every player's
browser gets a logged-in session cookie. What is checked is what a player sees,
read from the browser's computed styles and boxes:

- the seats drawn around the table, each trick card in front of who played it,
  the viewer at the bottom, the seat to move marked (R5: seat order);
- the hand at full strength when it is not your move; when it is, the playable
  cards (R5) stand out and the others are dimmed, every card's text at >= 4.5:1;
- card faces: an SVG symbol (static/img/cards/) on every card, every colour pair
  at >= 4.5:1 (R1: all 72 cards);
- a card landing and a trick taken animate, not under prefers-reduced-motion;
- phones: the score sheet of 8 players with a sticky first column and a focusable,
  labelled scroller, the whole round summary, the header on one line, names never
  cut without their title;
- chat: times in ``<time datetime>``, the viewer's own messages set apart, marked
  by the page (table.js), never by the shared HTML.

Screenshots go to the test-artifact directory.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from .conftest import Server, Setup, SharedTables

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
SIZES = [pytest.param(DESKTOP, id="desktop"), pytest.param(PHONE, id="phone")]
AA = 4.5  # WCAG AA contrast for normal text

# ---------------------------------------------------------------------------
# setting a table up on the server
# ---------------------------------------------------------------------------

SETUP = """
import random
from games.play import actions
from games.models import Table
from games.play.state import load_state
from games.testing.driver import play_until
from games.testing.factories import session_cookie, started_table

table, users = started_table({players}, ghost=False, seed={seed}, prefix={prefix!r})

def done(t):
    {done}

table = play_until(table, random.Random({seed}), done=done)
for author, text in {chat!r}:
    actions.post_chat(users[author], table.pk, text)
print("TABLE", table.pk)
for user in users:
    print("USER", user.username, session_cookie(user).split("=", 1)[1])
"""

#: play_until conditions (the body of ``done(t)``).
MID_TRICK = (
    "return t.phase == Table.Phase.PLAYING and t.round_number == 3"
    " and len(load_state(t).plays) == {plays}"
)
ROUND_DONE = "return t.phase == Table.Phase.ROUND_DONE and t.round_number == {round}"
TRICK_DONE = "return t.phase == Table.Phase.TRICK_DONE"


def set_up(
    server: Server,
    players: int,
    done: str,
    *,
    prefix: str = "",
    seed: int = 5,
    chat: tuple[tuple[int, str], ...] = (),
) -> Setup:
    prefix = prefix or f"p{uuid.uuid4().hex[:5]}_"
    out = server.shell(
        SETUP.format(players=players, seed=seed, prefix=prefix, done=done, chat=chat)
    )
    table_id = int(re.search(r"^TABLE (\d+)$", out, re.M).group(1))  # type: ignore[union-attr]
    cookies = dict(re.findall(r"^USER (\S+) (\S+)$", out, re.M))
    assert len(cookies) == players, out
    return Setup(table_id, cookies)


def shoot(page: Page, artifacts: Path, name: str, viewport: dict[str, int]) -> Path:
    size = "phone" if viewport["width"] < 600 else "desktop"
    path = artifacts / f"layout-{name}-{size}.png"
    page.screenshot(path=path, full_page=True, caret="initial", animations="disabled")
    return path


# ---------------------------------------------------------------------------
# reading computed styles
# ---------------------------------------------------------------------------

# WCAG contrast of an element's text against the first opaque background behind it.
CONTRAST = """(el) => {
    const rgb = (s) => (s.match(/[\\d.]+/g) || []).map(Number);
    const lum = ([r, g, b]) => {
        const f = (c) => {
            c /= 255;
            return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
        };
        return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
    };
    let bg = null;
    for (let n = el; n; n = n.parentElement) {
        const c = rgb(getComputedStyle(n).backgroundColor);
        if (c.length === 3 || (c.length === 4 && c[3] === 1)) { bg = c.slice(0, 3); break; }
    }
    bg = bg || [255, 255, 255];
    const fg = rgb(getComputedStyle(el).color).slice(0, 3);
    const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
    return (a + 0.05) / (b + 0.05);
}"""

# The opacity an element is drawn with (its own times every ancestor's) and any filter.
STRENGTH = """(el) => {
    let opacity = 1, filters = [];
    for (let n = el; n; n = n.parentElement) {
        const s = getComputedStyle(n);
        opacity *= Number(s.opacity);
        if (s.filter !== "none") filters.push(s.filter);
    }
    return {opacity, filters};
}"""


def box(page: Page, selector: str) -> dict[str, float]:
    found = page.locator(selector).bounding_box()
    assert found is not None, f"{selector} is not drawn"
    return found


def inside(inner: dict[str, float], outer: dict[str, float], slack: float = 1) -> bool:
    return (
        inner["x"] >= outer["x"] - slack
        and inner["y"] >= outer["y"] - slack
        and inner["x"] + inner["width"] <= outer["x"] + outer["width"] + slack
        and inner["y"] + inner["height"] <= outer["y"] + outer["height"] + slack
    )


def overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return not (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


def card_texts(page: Page, scope: str) -> list[str]:
    """Selectors of every visible text of the cards in ``scope`` (rank, label)."""
    return [f"{scope} .card__face", f"{scope} .card__label"]


def contrasts(page: Page, selector: str) -> list[tuple[str, float]]:
    return page.locator(selector).evaluate_all(
        f"els => els.filter(e => e.offsetParent !== null)"
        f".map(e => [e.closest('[data-card]').dataset.card, ({CONTRAST})(e)])"
    )


# ---------------------------------------------------------------------------
# the table
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("viewport", SIZES)
def test_seats_sit_around_the_table_each_card_by_its_player(
    server: Server,
    shared_tables: SharedTables,
    open_as: Callable[..., Page],
    artifacts: Path,
    viewport: dict[str, int],
) -> None:
    # 8 players (R2), round 3, three cards on the table: seat order decides who plays (R5).
    # Only looked at: the desktop and the phone run share the table.
    setup = shared_tables.get(
        "seats",
        lambda: set_up(server, 8, MID_TRICK.format(plays=3), prefix=f"s{uuid.uuid4().hex[:4]}_"),
    )
    # Seen by the player whose move it is (their hand stands out too: the README's picture).
    host = open_as(setup, setup.names[0], viewport)
    viewer = host.locator("#trick .felt__seat--to-act .felt__name").inner_text().strip()
    page = open_as(setup, viewer, viewport)
    expect(page.locator("#hand.hand--to-play")).to_have_count(1)
    seats = page.locator("#trick .felt__seat")
    expect(seats).to_have_count(8)
    shoot(page, artifacts, "trick", viewport)
    # The picture in the README (docs/screenshots/) and on the home page: the first
    # screen as loaded, the trick and the hand in it (issue 49).
    page.screenshot(
        path=artifacts / f"readme-{'phone' if viewport is PHONE else 'desktop'}.png",
        animations="disabled",
    )
    felt = box(page, "#trick .felt")
    keys = seats.evaluate_all("els => els.map(e => e.dataset.seat)")
    boxes = {key: box(page, f'#trick .felt__seat[data-seat="{key}"]') for key in keys}
    for key, b in boxes.items():
        assert inside(b, felt, slack=2), f"seat {key} is drawn outside the table: {b} {felt}"
    for i, a in enumerate(keys):
        for b in keys[i + 1 :]:
            assert not overlap(boxes[a], boxes[b]), f"seats {a} and {b} overlap"

    # Each card lies in its player's place, under their name.
    plays = page.locator("#trick .play[data-seat]")
    expect(plays).to_have_count(3)
    for key in plays.evaluate_all("els => els.map(e => e.dataset.seat)"):
        seat = f'#trick .felt__seat[data-seat="{key}"]'
        card, name = box(page, f"{seat} [data-card]"), box(page, f"{seat} .felt__name")
        assert inside(card, boxes[key]), f"{key}'s card is not at its seat"
        assert name["y"] + name["height"] <= card["y"] + 1, f"{key}'s name is not above its card"

    # The viewer sits at the bottom of the table (table.js turns it), marked as "you".
    me = page.locator(".table-page").get_attribute("data-me")
    lowest = max(boxes, key=lambda k: boxes[k]["y"])
    assert lowest == me
    expect(page.locator(f'#trick .felt__seat[data-seat="{me}"]')).to_have_class(
        re.compile("is-you")
    )

    # Whose turn it is, at a glance: one seat, in the turn colour, its place outlined.
    to_act = page.locator("#trick .felt__seat--to-act")
    expect(to_act).to_have_count(1)
    colour = to_act.locator(".felt__who").evaluate("e => getComputedStyle(e).backgroundColor")
    assert colour == "rgb(242, 183, 5)", colour
    assert to_act.locator(".play").count() == 0  # the seat to play has no card down yet


@pytest.mark.parametrize("viewport", SIZES)
def test_hand_is_at_full_strength_and_playable_cards_stand_out_when_you_must_play(
    server: Server,
    shared_tables: SharedTables,
    open_as: Callable[..., Page],
    artifacts: Path,
    viewport: dict[str, int],
) -> None:
    # Only looked at: the desktop and the phone run share the table.
    setup = shared_tables.get("hand", lambda: set_up(server, 4, MID_TRICK.format(plays=1), seed=11))
    pages = {name: open_as(setup, name, viewport) for name in setup.names}
    actor = next(n for n, p in pages.items() if p.locator("#hand.hand--to-play").count())
    for name, page in pages.items():
        cards = page.locator("#hand .card")
        assert cards.count() in (2, 3), name  # round 3, the leader has played
        if name == actor:
            continue
        # Not your move: every card at full strength (no opacity, no filter), none dimmed.
        for i in range(cards.count()):
            drawn = cards.nth(i).evaluate(STRENGTH)
            assert drawn == {"opacity": 1, "filters": []}, (name, drawn)
        for code, ratio in contrasts(page, "#hand .card__face, #hand .card__label"):
            assert ratio >= AA, f"{name}: {code} at {ratio:.2f}:1"

    page = pages[actor]
    playable = page.locator("#hand .card-button:not([disabled]) .card")
    others = page.locator("#hand .card-button:disabled .card")
    assert playable.count() >= 1
    for i in range(playable.count()):
        style = playable.nth(i).evaluate(
            "e => [getComputedStyle(e).boxShadow, getComputedStyle(e).transform]"
        )
        assert "242, 183, 5" in style[0], style  # a ring in the turn colour
        assert style[1] != "none", style  # raised
    for i in range(others.count()):
        style = others.nth(i).evaluate(
            "e => [getComputedStyle(e).borderStyle, getComputedStyle(e).backgroundColor]"
        )
        assert style == ["dashed", "rgb(236, 230, 218)"], style  # dimmed: a pale tile
        assert others.nth(i).evaluate(STRENGTH)["opacity"] == 1
    for code, ratio in contrasts(page, "#hand .card__face, #hand .card__label"):
        assert ratio >= AA, f"{actor}: {code} at {ratio:.2f}:1 (dimmed or not)"
    shoot(page, artifacts, "your-move", viewport)


def test_every_card_face_has_its_symbol_and_readable_colours(
    server: Server,
    open_as: Callable[..., Page],
    browser: Browser,
    watched_page: Callable[[BrowserContext], Page],
) -> None:
    # R1: the rules page shows every kind of card; a hand shows cards full size.
    context = browser.new_context(base_url=server.url, viewport=DESKTOP, locale="en-US")
    try:
        page = watched_page(context)
        page.goto("/rules/")
        cards = page.locator(".rules [data-card]")
        kinds = set(
            cards.evaluate_all(
                "els => els.map(e => [...e.classList].find(c => c.startsWith('card--')"
                " && !['card--small', 'card--special'].includes(c)))"
            )
        )
        assert kinds >= {
            "card--green",
            "card--yellow",
            "card--purple",
            "card--black",
            "card--escape",
            "card--pirate",
            "card--mermaid",
            "card--tigress",
            "card--skull-king",
            "card--kraken",
            "card--whale",
        }, kinds
        # Every card draws an SVG symbol of static/ (a mask in its text colour).
        masks = cards.evaluate_all(
            "els => els.map(e => [e.dataset.card, getComputedStyle(e, '::before').maskImage])"
        )
        icons = set()
        for code, mask in masks:
            found = re.search(r'url\("?([^")]+\.svg)"?\)', mask)
            assert found, (code, mask)
            icons.add(found.group(1))
        assert len(icons) == 11, icons  # four suits, seven special cards
        for url in icons:
            response = page.request.get(url)
            assert response.ok and "svg" in response.headers["content-type"], url
        # Every colour pair, suits and specials, at 4.5:1 or more (white on green was 4.08).
        for code, ratio in contrasts(page, ".rules .card__face, .rules [data-card]"):
            assert ratio >= AA, f"{code}: {ratio:.2f}:1"
    finally:
        context.close()


def test_a_card_lands_and_a_trick_is_taken_with_motion_unless_reduced(
    server: Server, open_as: Callable[..., Page]
) -> None:
    setup = set_up(server, 3, MID_TRICK.format(plays=2), seed=7)
    page = open_as(setup, setup.names[0], DESKTOP)
    latest = page.locator("#trick .play--latest .card")
    expect(latest).to_have_count(1)
    animation = latest.evaluate(
        "e => [getComputedStyle(e).animationName, getComputedStyle(e).animationDuration]"
    )
    assert animation[0] == "card-land", animation
    assert 0 < float(animation[1].rstrip("s")) <= 0.5, animation  # short

    calm = open_as(setup, setup.names[1], DESKTOP, reduced_motion="reduce")
    name = calm.locator("#trick .play--latest .card").evaluate(
        "e => getComputedStyle(e).animationName"
    )
    assert name == "none"

    done = set_up(server, 3, TRICK_DONE, seed=7)
    page = open_as(done, done.names[0], DESKTOP)
    expect(page.locator("#trick .felt--taken")).to_have_count(1)
    names = page.locator("#trick .play .card").evaluate_all(
        "els => els.map(e => getComputedStyle(e).animationName)"
    )
    assert set(names) <= {"trick-won", "trick-lost"} and "trick-lost" in names, names
    calm = open_as(done, done.names[1], DESKTOP, reduced_motion="reduce")
    names = calm.locator("#trick .play .card").evaluate_all(
        "els => els.map(e => getComputedStyle(e).animationName)"
    )
    assert set(names) == {"none"}, names


# ---------------------------------------------------------------------------
# phones
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("viewport", SIZES)
def test_score_sheet_of_eight_and_round_summary_are_readable(
    server: Server,
    shared_tables: SharedTables,
    open_as: Callable[..., Page],
    artifacts: Path,
    viewport: dict[str, int],
) -> None:
    # Long names: nothing may cut them without a way to read them whole.
    # Only looked at: the desktop and the phone run share the table.
    setup = shared_tables.get(
        "scores",
        lambda: set_up(
            server, 8, ROUND_DONE.format(round=2), prefix=f"longbeard{uuid.uuid4().hex[:4]}_"
        ),
    )
    page = open_as(setup, setup.names[0], viewport)
    expect(page.locator("#scores")).to_contain_text("Round 2 summary")
    width = viewport["width"]

    scrollers = page.locator("#scores .scroll")
    expect(scrollers).to_have_count(2)
    for i in range(2):
        scroller = scrollers.nth(i)
        # Reachable by keyboard and named for a screen reader.
        expect(scroller).to_have_attribute("tabindex", "0")
        expect(scroller).to_have_attribute("role", "region")
        label = scroller.get_attribute("aria-labelledby")
        assert label and page.locator(f"#{label}").inner_text().strip()

    # The round summary shows all its columns without scrolling: Round and Total too.
    summary = page.locator("#scores .score-table").first
    headers = summary.locator("thead th")
    expect(headers).to_have_count(7)
    for i in range(7):
        b = headers.nth(i).bounding_box()
        assert b is not None and b["x"] >= 0 and b["x"] + b["width"] <= width, (
            headers.nth(i).inner_text(),
            b,
        )

    # The score sheet: 8 players' columns; scrolled to the far right, the round
    # numbers (first column) stay in view, at the scroller's left edge.
    sheet_scroller = scrollers.nth(1)
    sheet = page.locator("#scores .score-sheet")
    expect(sheet.locator("thead th")).to_have_count(9)
    sheet_scroller.focus()
    sheet_scroller.evaluate("e => { e.scrollLeft = e.scrollWidth; }")
    left = sheet_scroller.bounding_box()
    first = sheet.locator("tbody tr:first-child th").bounding_box()
    assert left is not None and first is not None
    assert abs(first["x"] - left["x"]) <= 2, (first, left)
    assert (
        sheet.locator("tbody tr:first-child th").evaluate("e => getComputedStyle(e).position")
        == "sticky"
    )
    last = sheet.locator("thead th").last.bounding_box()
    assert last is not None and last["x"] + last["width"] <= width + 1  # the 8th player reached
    # Compact: every cell's lines fit their cell (nothing clipped).
    clipped = sheet.locator("td span").evaluate_all(
        "els => els.filter(e => e.scrollWidth > e.clientWidth + 1).length"
    )
    assert clipped == 0
    sheet_scroller.evaluate("e => { e.scrollLeft = 0; }")

    # Names: wrapped, or cut with the whole name in a title.
    cut = page.locator(
        ".felt__name, #scores thead th[data-seat], #scores tbody th[title], .nav__user"
    ).evaluate_all(
        "els => els.filter(e => e.offsetParent !== null"
        " && (e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1)"
        " && e.getAttribute('title') !== e.textContent.trim()).map(e => e.textContent)"
    )
    assert cut == []
    shoot(page, artifacts, "scores", viewport)


#: How much of a drop-down's width its shown label leaves (its arrow and padding need it).
SELECT_ROOM = """e => {
    const probe = document.createElement("span");
    probe.style.cssText = "position:absolute;white-space:nowrap;visibility:hidden";
    probe.style.font = getComputedStyle(e).font;
    probe.textContent = e.selectedOptions[0].text;
    document.body.append(probe);
    const room = e.clientWidth - probe.getBoundingClientRect().width;
    probe.remove();
    return room;
}"""


def assert_site_header(page: Page, name: str, *, rows: int) -> None:
    """The header's links on one line; your name and your language shown whole (issue 49:
    "da…" and "EN ·" on a phone); the header ``rows`` lines high at most, nothing over."""
    items = page.locator(".site-header .brand, .site-header .nav > *")
    tops = items.evaluate_all("els => els.map(e => e.getBoundingClientRect().top)")
    bottoms = items.evaluate_all("els => els.map(e => e.getBoundingClientRect().bottom)")
    assert max(tops) - min(tops) <= 8, tops  # the links: one line
    line = max(bottoms) - min(tops)
    header = box(page, ".site-header")
    assert header["height"] <= rows * (line + 12) + 12, (header, line)
    assert page.locator(".site-header").evaluate("e => e.scrollWidth <= e.clientWidth")
    me = page.locator(".site-header .nav__user")
    expect(me).to_have_text(name)
    assert me.evaluate("e => e.scrollWidth <= e.clientWidth + 1"), "the name is cut"
    label = page.locator("#language-select").evaluate("e => e.selectedOptions[0].text")
    assert " · " in label and len(label.split(" · ")[1]) > 2, label  # "EN · English"
    assert page.locator("#language-select").evaluate(SELECT_ROOM) >= 16, "the language is cut"


@pytest.mark.parametrize(
    ("viewport", "rows"),
    [(DESKTOP, 1), (PHONE, 2), ({"width": 360, "height": 640}, 2)],
    ids=["desktop", "phone", "small-phone"],
)
def test_the_site_header_shows_the_links_your_name_and_language_whole(
    server: Server,
    shared_tables: SharedTables,
    open_as: Callable[..., Page],
    viewport: dict[str, int],
    rows: int,
) -> None:
    # Only looked at: the desktop and the phone run share the table.
    setup = shared_tables.get(
        "header",
        lambda: set_up(server, 2, MID_TRICK.format(plays=0), prefix=f"q{uuid.uuid4().hex[:4]}_"),
    )
    page = open_as(setup, setup.names[0], viewport)
    assert_site_header(page, setup.names[0], rows=rows)


# ---------------------------------------------------------------------------
# chat
# ---------------------------------------------------------------------------


def test_chat_shows_times_and_sets_your_own_messages_apart(
    server: Server, open_as: Callable[..., Page], artifacts: Path
) -> None:
    chat = ((0, "Ahoy, crew!"), (1, "Ahoy, captain."), (0, "Bid low, sail slow."))
    setup = set_up(server, 2, MID_TRICK.format(plays=0), chat=chat)
    host, other = setup.names
    page = open_as(setup, host, DESKTOP)
    messages = page.locator("#chat-log .chat__message")
    expect(messages).to_have_count(3)
    for i in range(3):
        when = messages.nth(i).locator("time").get_attribute("datetime")
        assert when and datetime.fromisoformat(when).tzinfo is not None, when
        assert re.search(r"\d", messages.nth(i).locator("time").inner_text())
    mine = page.locator("#chat-log .chat__message.is-you")
    expect(mine).to_have_count(2)
    looks = messages.evaluate_all(
        "els => els.map(e => [getComputedStyle(e).backgroundColor, getComputedStyle(e).marginLeft])"
    )
    assert looks[0] == looks[2] and looks[0] != looks[1], looks

    # The other player sees the same log with their one message set apart: the shared
    # HTML marks nobody, the page does.
    seen = open_as(setup, other, DESKTOP)
    expect(seen.locator("#chat-log .chat__message.is-you")).to_have_count(1)
    expect(seen.locator("#chat-log .chat__message.is-you")).to_contain_text("Ahoy, captain.")
    raw = page.request.get(f"/tables/{setup.table_id}/").text()
    log = re.search(r'<ol id="chat-log".*?</ol>', raw, re.S)
    assert log and "is-you" not in log.group(0)
    shoot(page, artifacts, "chat", DESKTOP)
