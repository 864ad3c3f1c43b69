"""The HTML a table sends: its regions rendered into one frame per seated user.

A frame is a string of top-level elements, each a region of the table page
(games.pages.regions) with its id, ``hx-swap-oob="morph"`` (idiomorph, static/vendor/) and the table
version (``data-version``), so htmx morphs each in place and static/js/live.js
can drop a region older than the one on screen. Two kinds of region (see games.pages.presenter):

- PUBLIC regions are rendered once per version and language and shared by every
  seat: they hold nothing private.
- SEAT regions are rendered for each seat from that seat's own context.

A public region whose parts alone changed since the render the pages hold (one
seat of the list, one round's row of the score sheet) goes as those parts only,
each swapped by its id (games.live.parts).

Frames are rendered where the state already is: in the process that made the
move, from the state the action left, once its COMMIT is back (games.live.broadcast).
The actor's own HTTP answer is the frame its socket gets, not a second render.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from django.conf import settings
from django.utils import translation

from games.after.rematch import Proposal
from games.live import parts
from games.live.held import Record
from games.models import Seat, Table
from games.pages import presenter, regions
from games.play.state import GameState

PUBLIC_REGIONS: tuple[str, ...] = (
    "seats",
    "trick",
    "scores",
    "chat-log",
    "chat-compose",
    "tricks-history",
)
SEAT_REGIONS: tuple[str, ...] = ("status", "hand", "controls")
#: What staff watching a table see of it (issue 50): the public regions but the chat's
#: box (a form: a spectator sends nothing).
WATCHED_REGIONS: tuple[str, ...] = tuple(r for r in PUBLIC_REGIONS if r not in ("chat-compose",))
#: Every region a snapshot holds (the error line and the online marks are swapped alone).
ALL_REGIONS: tuple[str, ...] = tuple(
    r for r in regions.TEMPLATES if r not in ("error", "presence", "watching")
)

#: What every move changes for everyone: the seat list (turn, bids, cards left) and
#: the trick. The round's earlier tricks change only when a trick ends or the next
#: begins, the scores only when a round ends (see public_regions_after_move).
MOVE_REGIONS: tuple[str, ...] = ("seats", "trick")
CHAT_REGIONS: tuple[str, ...] = ("chat-log",)
#: The chat's box: open while the game is, closed once it is over (issue 50).
CHAT_BOX_REGIONS: tuple[str, ...] = ("chat-compose",)
#: What a new deal changes for everyone: every public region but the chat, which
#: only a message changes (its log carries the newest message's id, not the version),
#: and its box, which only the game's end closes.
NEW_DEAL_REGIONS: tuple[str, ...] = tuple(
    r for r in PUBLIC_REGIONS if r not in (*CHAT_REGIONS, *CHAT_BOX_REGIONS)
)
#: The public regions made of parts (games.live.parts): the others always go whole.
PARTED_REGIONS: tuple[str, ...] = ("seats", "scores", "tricks-history")
#: A seat's own regions that every move changes: its status line says whose move it is.
#: Its hand and controls change only for the seats own_regions_after_move names.
STATUS_REGIONS: tuple[str, ...] = ("status",)


def public_regions_after_move(state: GameState) -> tuple[str, ...]:
    """The public regions a bid, a play or "next trick" changes."""
    if not state.phase_changed:
        return MOVE_REGIONS
    # Another trick on the table (or none), or one just complete: whether each
    # earlier trick's bonus still counts (R9) may read otherwise now. Only the parts
    # that changed go (games.live.parts), mostly none.
    regions = (*MOVE_REGIONS, "tricks-history")
    table = state.table
    if table.is_over or table.phase == table.Phase.ROUND_DONE:
        regions += ("scores",)
    if table.is_over:
        regions += CHAT_BOX_REGIONS  # the game's end closes the chat (issue 50): the box goes
    return regions


def parted_regions_a_move_may_push(state: GameState) -> tuple[str, ...]:
    """The parted public regions that a bid, a play or "next trick" from ``state`` may
    push: the seats always, the earlier tricks when a trick starts or ends, the scores
    when a play can end the round (its last trick)."""
    last_trick = (
        state.round is not None
        and state.trick is not None
        and state.trick.number == state.round.cards_dealt
    )
    return ("seats", "tricks-history", *(("scores",) if last_trick else ()))


def remember(state: GameState, held: Record, regions: Iterable[str]) -> None:
    """Put into ``held`` (games.live.held) the ``regions`` (parted public regions) of
    ``state``'s version that it lacks, as every page at that version holds them.

    A region goes as its changed parts only against such a record; without one it
    goes whole. The frames of a version record what they sent, but not a region
    they did not send: the score sheet of a table this process first moved in the
    middle of a round (after a restart) is not in the record when the round's last
    play changes it. Rendered here from the state of the version the pages hold,
    once the version's frames are out, the record lets the next move send only the
    parts that changed (at a round's end, its row and the totals).

    The languages are those the table was last sent in (all its seats' when nothing
    was): a language whose readers closed the table is not rendered on every move.
    """
    languages = {language for language, _region in held} or {
        language_of(seat.user) for seat in state.seats
    }
    for language in languages:
        missing = [region for region in regions if (language, region) not in held]
        if not missing:
            continue
        with translation.override(language):
            context = {**presenter.public_context(state), **PUSHED}
            for region in missing:
                held[language, region] = parts.split(render_region(region, context))


def own_regions_after_move(state: GameState) -> dict[int, tuple[str, ...]] | None:
    """seat id -> the seat regions a move changed for it; None: all of them for everyone.

    Every seat's status line changes (whose move it is). Its hand changes when it
    plays (its own card, or the one it chose in advance) or when its turn to play
    comes: legality and "why not" are shown on your turn only (R5); a bid (R4) leaves
    every hand as it was. Every hand changes with a new deal, when the tricks start
    (the next-card choice appears) or when the game ends. Its controls change with
    its own bid (the bid buttons go) and with any change of phase (the host's "Next
    trick", the others' "Waiting for the host");
    a card played inside a trick changes nobody's controls. The pages carry the
    regions left out on to the new version (static/js/live.js), and
    tests/games/test_frames.py checks after whole games that each one left out reads
    as before.
    """
    status, phase, round_number, _trick = state.loaded_at
    table = state.table
    new_deal_or_end = status != table.status or round_number != table.round_number
    tricks_start = phase == Table.Phase.BIDDING and table.phase != Table.Phase.BIDDING
    if new_deal_or_end or tricks_start:
        return None
    movers = {seat_id for seat_id in state.moved if seat_id is not None}
    bidding = phase == Table.Phase.BIDDING
    hands = set() if bidding else set(movers)
    to_play = state.seat_to_play()
    if to_play is not None:
        hands.add(to_play.pk)
    controls = {seat.pk for seat in state.seats} if state.phase_changed else set()
    if bidding:
        controls |= movers
    return {
        seat.pk: (
            *STATUS_REGIONS,
            *(("hand",) if seat.pk in hands else ()),
            *(("controls",) if seat.pk in controls else ()),
        )
        for seat in state.seats
    }


def own_regions(seat: Seat, changed: dict[int, tuple[str, ...]] | None) -> tuple[str, ...]:
    """The seat regions a seat's frame holds, given own_regions_after_move's answer."""
    return SEAT_REGIONS if changed is None else changed.get(seat.pk, SEAT_REGIONS)


def language_of(user: Any) -> str:
    """The language a user reads the table in."""
    return getattr(user, "language", "") or settings.LANGUAGE_CODE


#: Pushed regions swap out of band. Their forms post through htmx, whose
#: X-CSRFToken header the page's <body> sets: a frame carries no token of its own.
PUSHED = {"oob": True}

#: The templates' indentation, a third of a frame's bytes, which shows nowhere.
INDENT = re.compile(r"\n\s+")
#: A line break before a block's tag (opening or closing) shows nowhere either; one
#: between inline elements is a space, which may show. The elements are blocks (or
#: table parts) wherever the regions use them (not ``form``: .inline-form is inline).
#: (A break after a block's opening tag stays: a regex that finds those as well
#: took ten times the CPU of these two passes, for 15% more bytes.)
BEFORE_BLOCK = re.compile(
    r"\n(?=</?(?:li|ol|ul|div|p|section|h[1-6]|table|thead|tbody|tfoot|tr|td|th|"
    r"details|summary|nav|header|footer|aside|dl|dt|dd|fieldset|legend)[\s>])"
)


def render_region(region: str, context: dict[str, Any]) -> str:
    html = regions.render(region, context)
    return BEFORE_BLOCK.sub("", INDENT.sub("\n", html))


def _render(regions: Iterable[str], context: dict[str, Any]) -> str:
    return "".join(render_region(region, context) for region in regions)


def render_frames(
    state: GameState,
    public: Iterable[str],
    *,
    seat_regions: bool = True,
    users: set[int] | None = None,
    changed: dict[int, tuple[str, ...]] | None = None,
    held: Record | None = None,
    online: set[int] | None = None,
    watchers: Iterable[str] = (),
    shared_out: dict[str, str] | None = None,
) -> dict[int, str]:
    """user id -> the frame for that seat: ``public`` regions, then its own regions.

    ``users``: only these users' frames (None: every seat's). ``changed``: seat id ->
    the seat regions rendered for it (None: all; see own_regions_after_move).
    ``held``: what the pages hold of the parted regions (games.live.held), against which
    only their changed parts go; updated to what this render sends. ``online``: the
    seats with a socket open, if just read. ``watchers``: the languages of the staff
    watching (issue 50), whose public regions are rendered too, into ``shared_out``
    (language -> the public regions as every page of the move gets them).
    """
    held = {} if held is None else held
    public = [r for r in PUBLIC_REGIONS if r in set(public)]
    shared: dict[str, str] = {}  # language -> the public regions, rendered once
    proposal = presenter.proposal_reader(state)  # a finished table's, read once for all
    seen = presenter.attendance_reader(state, online)  # presence, read at most once for all
    frames: dict[int, str] = {}

    watched: dict[str, str] = {}  # language -> the public regions staff watching get

    def render_shared(language: str) -> None:
        if language in shared:
            return
        # The context holds sentences already in words (the trick's reasons):
        # built again in each language, never shared across languages.
        shared_context = {**presenter.public_context(state, attendance=seen), **PUSHED}
        pieces = [
            (region, _public_region(state, held, language, region, shared_context))
            for region in public
        ]
        shared[language] = "".join(html for _region, html in pieces)
        watched[language] = "".join(html for r, html in pieces if r in WATCHED_REGIONS)

    for seat in state.seats:
        if users is not None and seat.user_id not in users:
            continue
        language = language_of(seat.user)
        with translation.override(language):
            render_shared(language)
            own = (
                _render_seat(state, seat, own_regions(seat, changed), proposal, seen)
                if seat_regions
                else ""
            )
        frames[seat.user_id] = shared[language] + own
    for language in watchers:
        with translation.override(language):
            render_shared(language)
    if shared_out is not None:
        shared_out.update(watched)
    # A language nobody read this time: its pages get a snapshot when they connect
    # again, so what was last sent in it no longer says what they hold.
    for language, region in list(held):
        if region in public and language not in shared:
            del held[language, region]
    return frames


def _public_region(
    state: GameState, held: Record, language: str, region: str, context: dict[str, Any]
) -> str:
    """A public region as this move sends it: whole, or only its parts that changed
    since the render the pages hold (games.live.parts), or nothing if none did."""
    html = render_region(region, context)
    if region not in PARTED_REGIONS:
        return html
    now = parts.split(html)
    before = held.get((language, region))
    held[language, region] = now
    ids = parts.changed_parts(before, now) if before is not None else None
    return html if ids is None else parts.pushed(now, ids, state.table.version)


def _render_seat(
    state: GameState,
    seat: Seat,
    regions: tuple[str, ...] = SEAT_REGIONS,
    proposal: Callable[[], Proposal] | None = None,
    attendance: Callable[[], presenter.Attendance] | None = None,
) -> str:
    context = {
        **presenter.seat_context(state, seat, proposal=proposal, attendance=attendance),
        **PUSHED,
    }
    return _render(regions, context)


def render_own_regions(state: GameState, seat: Seat) -> str:
    """One seat's own regions alone: a change only that seat sees (its next card)."""
    with translation.override(language_of(seat.user)):
        return _render_seat(state, seat)


def render_snapshot(state: GameState, seat: Seat) -> str:
    """Every region for one seat: what a socket gets on connect."""
    with translation.override(language_of(seat.user)):
        seen = presenter.attendance_reader(state)
        context = {
            **presenter.public_context(state, attendance=seen),
            **presenter.seat_context(state, seat, attendance=seen),
            **PUSHED,
        }
        return _render(ALL_REGIONS, context)


def render_watch_snapshot(state: GameState, language: str) -> str:
    """Every region staff watching the table see (issue 50): what their socket gets on
    connect. No seat's own region: no hand, no bid before the reveal (R4), no form."""
    with translation.override(language):
        return _render(WATCHED_REGIONS, {**presenter.public_context(state), **PUSHED})


def render_refusal(state: GameState, seat: Seat, message: str) -> str:
    """A refused action's answer to its actor: every region of the seat (a stale page
    catches up) and the error line saying why."""
    with translation.override(language_of(seat.user)):
        seen = presenter.attendance_reader(state)
        context = {
            **presenter.public_context(state, attendance=seen),
            **presenter.seat_context(state, seat, attendance=seen),
            **PUSHED,
            "error": message,
        }
        return _render((*ALL_REGIONS, "error"), context)


def render_chat(state: GameState, seat: Seat) -> str:
    """The chat log alone, for one seat (the answer to a chat message)."""
    with translation.override(language_of(seat.user)):
        return _render(CHAT_REGIONS, {**presenter.public_context(state), **PUSHED})


def marked_seat_ids(state: GameState) -> tuple[int, ...]:
    """The seats whose seat-list entry has a presence mark: the people's (a computer
    player has no page). A socket sends marks for these alone (games.live.consumers)."""
    return tuple(seat.pk for seat in state.seats if not seat.computer)


def render_presence(
    online: set[int], seat_ids: Iterable[int], language: str, watching: int | None = None
) -> str:
    """Each seat's online mark as an oob swap (a socket's presence update), and with
    ``watching`` (how many staff watch the table, issue 50) the seat list's line saying so."""
    with translation.override(language):
        marks = "".join(
            regions.render(
                "presence",
                {"p": {"key": presenter.seat_key(i), "online": i in online}, "oob": True},
            )
            for i in seat_ids
        )
        if watching is None:
            return marks
        return marks + regions.render("watching", {"staff_watching": watching, "oob": True})
