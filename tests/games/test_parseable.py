"""Every frame the server can push survives the HTML parser that htmx runs (issue 44).

htmx builds a frame by parsing ``<body><template>`` + the frame as an HTML5
document and taking the template's content (htmx 2's makeFragment). The HTML5
parser drops an element it finds where it cannot stand: a ``<tr>`` (a score
sheet's row) after a ``<section>`` is dropped whole, and its out-of-band swap is
lost with it (htmx:oobErrorNoTarget, an empty score sheet until a reload). The
strings the server sends are right; what the browser builds from them was not.

Here every frame of whole games (each move's pushes with their parts, each seat's
snapshot, a refused action's answer, the online marks, the chat, the rematch's
frames) goes through a real HTML5 parser (justhtml: the WHATWG algorithm,
template contents included), and every element the server marked
``hx-swap-oob`` must come out of it with its id, once.
"""

from __future__ import annotations

import random
import re
from typing import Any
from unittest import mock

import pytest
from justhtml import JustHTML

from games.live import broadcast, frames
from games.models import Table
from games.play import actions
from games.play.state import load_state
from tests.support.presence import every_seat_watching

from .helpers import random_move, started_table

pytestmark = pytest.mark.django_db

#: The opening tags the server marked for an out-of-band swap, as sent.
MARKED = re.compile(r"<[a-z0-9]+\b[^>]*\bhx-swap-oob=[^>]*>")
ID = re.compile(r'\sid="([^"]+)"')


class Recorder:
    """A channel layer that keeps what a move sends."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    async def group_send(self, _group: str, message: dict[str, Any]) -> None:
        self.sent.append(message)


def marked_ids(frame: str) -> list[str]:
    """The ids of the elements the server marked hx-swap-oob, in the string it sends."""
    found = []
    for tag in MARKED.findall(frame):
        ident = ID.search(tag)
        assert ident is not None, f"an out-of-band element without an id: {tag}"
        found.append(ident.group(1))
    return found


def parsed_ids(frame: str) -> list[str]:
    """The ids of the hx-swap-oob elements in what a browser builds of the frame, as htmx
    parses it (the content of a <template> in a <body>, nested templates opened)."""
    document = JustHTML(f"<body><template>{frame}</template></body>", sanitize=False)
    found: list[str] = []

    def walk(node: Any) -> None:
        for child in getattr(node, "children", None) or []:
            attrs = getattr(child, "attrs", None) or {}
            if "hx-swap-oob" in attrs:
                found.append(attrs.get("id") or "")
            content = getattr(child, "template_content", None)
            if content is not None:
                walk(content)
            walk(child)

    walk(document.query("template")[0].template_content)
    return found


def assert_parseable(frame: str, what: str) -> int:
    """Every out-of-band element of ``frame`` survives the parse with its id, once."""
    sent = marked_ids(frame)
    built = parsed_ids(frame)
    assert sorted(built) == sorted(sent), (
        f"{what}: the browser's parse lost {sorted(set(sent) - set(built))} "
        f"(sent {sent}, built {built})\n{frame[:3000]}"
    )
    return len(sent)


def test_the_parser_drops_a_bare_row_after_a_region() -> None:
    """The check itself: a score sheet's row sent bare after a region is lost, as it
    was on the page before the rows went in <template> (games.live.parts.pushed)."""
    frame = (
        '<section id="seats" hx-swap-oob="morph"><p>Ann</p></section>'
        '<tr id="sheet-round-1" hx-swap-oob="morph"><td>20</td></tr>'
    )
    assert marked_ids(frame) == ["seats", "sheet-round-1"]
    assert parsed_ids(frame) == ["seats"]
    wrapped = frame.replace("<tr", "<template><tr").replace("</tr>", "</tr></template>")
    assert parsed_ids(wrapped) == ["seats", "sheet-round-1"]


def _every_frame_of_the_state(table: Table, what: str) -> int:
    """Each seat's snapshot, its refusal answer and its online marks at ``table``'s version."""
    state = load_state(Table.objects.select_related("host", "cancelled_by").get(pk=table.pk))
    checked = 0
    for seat in state.seats:
        checked += assert_parseable(frames.render_snapshot(state, seat), f"{what} snapshot")
        refusal = frames.render_refusal(state, seat, "The table has moved on.")
        checked += assert_parseable(refusal, f"{what} refusal")
        checked += assert_parseable(frames.render_chat(state, seat), f"{what} chat")
    marks = frames.render_presence(
        {s.pk for s in state.seats[:1]}, [s.pk for s in state.seats], "en"
    )
    checked += assert_parseable(marks, f"{what} presence")
    return checked


@pytest.mark.parametrize(
    ("players", "ghost", "seed", "snapshot_every"),
    [
        # A complete game (R10: every round's end, the final standings) and its rematch.
        pytest.param(2, True, 31, 7, id="2-ghost-complete"),
        pytest.param(4, False, 32, 11, id="4-complete", marks=pytest.mark.thorough),
        pytest.param(8, False, 33, 13, id="8-complete", marks=pytest.mark.thorough),
    ],
)
def test_every_pushed_frame_of_whole_games_survives_the_browser_s_parse(
    players: int,
    ghost: bool,
    seed: int,
    snapshot_every: int,
    django_capture_on_commit_callbacks: Any,
) -> None:
    """R2-R10 through the actions, every move's frames (regions whole or as parts: the
    seats, the score sheet's rows, the earlier tricks) parsed as htmx parses them;
    every few moves each seat's snapshot and refusal answer too; then the rematch."""
    table, users = started_table(players, ghost=ghost, seed=seed)
    rng = random.Random(seed)
    layer = Recorder()
    every_seat_watching(table)
    moves = checked = rows = 0
    with mock.patch.object(broadcast, "get_channel_layer", return_value=layer):
        while table.status != Table.Status.FINISHED:
            layer.sent.clear()
            with django_capture_on_commit_callbacks(execute=True):
                table = random_move(table, rng)
            moves += 1
            for message in layer.sent:
                if message.get("type") == "table.frame":
                    checked += assert_parseable(message["html"], f"move {moves}")
                    rows += len(re.findall(r'<template><tr id="sheet-round-', message["html"]))
            if moves % snapshot_every == 0 or table.phase == Table.Phase.ROUND_DONE:
                checked += _every_frame_of_the_state(table, f"move {moves}")
        checked += _every_frame_of_the_state(table, "game over")
        # The rematch: proposed, declined, proposed again, accepted by every seat.
        proposer, *others = users
        for step in range(3 + len(others)):
            layer.sent.clear()
            with django_capture_on_commit_callbacks(execute=True):
                if step == 0:
                    rematch = actions.propose_rematch(proposer, table.pk, table.version)
                elif step == 1:
                    actions.decline_rematch(others[0], table.pk, rematch.pk)
                elif step == 2:
                    table.refresh_from_db()
                    rematch = actions.propose_rematch(others[0], table.pk, table.version)
                else:
                    who = [proposer, *others[1:]][step - 3]
                    actions.accept_rematch(who, table.pk, rematch.pk)
            for message in layer.sent:
                if message.get("type") == "table.frame":
                    checked += assert_parseable(message["html"], f"rematch step {step}")
            table.refresh_from_db()
            checked += _every_frame_of_the_state(table, f"rematch step {step}")
    assert table.status == Table.Status.FINISHED and moves > 100
    # The score sheet's rows went alone (as parts) at round ends, and were checked.
    assert rows > 0 and checked > moves
