"""A public region's parts (games.live.parts): what a move sends when only some changed.

The whole-game check (a page that swaps in every frame's regions and parts reads
as a fresh render after every move) is in tests/games/test_frames.py; here, how a
region is cut into parts, and that the templates' parts can be cut at all.
"""

from __future__ import annotations

import re

import pytest

from games.live import frames, parts
from games.pages import presenter
from games.play.state import load_state
from games.testing.scripted import play_script, scripted_round

pytestmark = pytest.mark.django_db

SEATS_BEFORE = (
    '<section id="seats" data-version="4" hx-swap-oob="morph"><h2>Players</h2><ol>'
    '<li id="seats-seat-1" data-part data-version="4"><div><div>Ann</div></div> 3 cards</li>\n'
    '<li id="seats-seat-2" data-part data-version="4"><div>Bob</div> 3 cards</li>'
    "</ol></section>"
)


def test_a_changed_part_alone_is_sent_with_its_version_and_swapped_by_id() -> None:
    after = parts.split(SEATS_BEFORE.replace('"4"', '"5"').replace("Bob</div> 3", "Bob</div> 2"))
    assert parts.changed_parts(parts.split(SEATS_BEFORE), after) == ["seats-seat-2"]
    sent = parts.pushed(after, ["seats-seat-2"], 5)
    assert sent == (
        '<template><li id="seats-seat-2" hx-swap-oob="morph" data-version="5">'
        "<div>Bob</div> 2 cards</li></template>"
    )


def test_a_new_version_alone_changes_no_part() -> None:
    before, after = parts.split(SEATS_BEFORE), parts.split(SEATS_BEFORE.replace('"4"', '"5"'))
    assert parts.changed_parts(before, after) == []


def test_a_change_around_the_parts_sends_the_whole_region() -> None:
    before = parts.split(SEATS_BEFORE)
    after = SEATS_BEFORE.replace("<h2>Players</h2>", "<h2>Players</h2><p>Bids: 3</p>")
    assert parts.changed_parts(before, parts.split(after)) is None
    # A part gone or a part more changes the skeleton too.
    gone = parts.split(SEATS_BEFORE.replace("seats-seat-2", "x"))
    assert parts.changed_parts(before, gone) is None


def test_a_part_ends_where_its_own_tag_balances_not_at_a_nested_one() -> None:
    split = parts.split(SEATS_BEFORE)
    assert split.parts["seats-seat-1"].endswith("<div><div>Ann</div></div> 3 cards</li>")
    assert "data-version" not in split.skeleton + "".join(split.parts.values())


HISTORY_BEFORE = (
    '<section id="tricks-history" data-version="7"><ol>'
    '<li id="past-trick-1" data-part data-version="7"><p>Trick 1: Ann wins</p>'
    '<p id="past-trick-1-bonus" data-part data-version="7">It counts if Ann makes it.</p></li>'
    '<li id="past-trick-2" data-part data-version="7"><p>Trick 2: Bob wins</p></li>'
    "</ol></section>"
)


def test_a_part_inside_a_part_goes_alone_when_only_it_changed() -> None:
    """R9: a later trick can change whether an earlier trick's bonus counts; that
    sentence goes alone, not the trick's whole story."""
    before = parts.split(HISTORY_BEFORE)
    assert before.inside == {"past-trick-1-bonus": "past-trick-1"}
    assert before.parts["past-trick-1"] == (
        '<li id="past-trick-1" data-part><p>Trick 1: Ann wins</p>\x00past-trick-1-bonus\x00</li>'
    )
    after = parts.split(
        HISTORY_BEFORE.replace('"7"', '"8"').replace("It counts if", "It will not count:")
    )
    assert parts.changed_parts(before, after) == ["past-trick-1-bonus"]
    assert parts.pushed(after, ["past-trick-1-bonus"], 8) == (
        '<template><p id="past-trick-1-bonus" hx-swap-oob="morph" data-version="8">'
        "It will not count: Ann makes it.</p></template>"
    )


def test_a_part_that_goes_whole_carries_the_parts_inside_it() -> None:
    before = parts.split(HISTORY_BEFORE)
    changed = HISTORY_BEFORE.replace("Trick 1: Ann", "Trick 1: Cid").replace("if Ann", "if Cid")
    after = parts.split(changed.replace('"7"', '"8"'))
    assert parts.changed_parts(before, after) == ["past-trick-1"]  # not its sentence again
    assert parts.pushed(after, ["past-trick-1"], 8) == (
        '<template><li id="past-trick-1" hx-swap-oob="morph" data-version="8">'
        "<p>Trick 1: Cid wins</p>"
        '<p id="past-trick-1-bonus" data-part data-version="8">It counts if Cid makes it.</p>'
        "</li></template>"
    )


def test_a_part_without_an_id_or_an_end_is_refused() -> None:
    with pytest.raises(ValueError, match="no id"):
        parts.split("<ol><li data-part>x</li></ol>")
    with pytest.raises(ValueError, match="never closed"):
        parts.split('<ol><li id="a" data-part>x</ol>')


def test_only_an_opening_tag_s_data_part_attribute_makes_a_part() -> None:
    """Text that reads " data-part" and attributes that start with it are not parts."""
    html = (
        '<ol data-parts="2"><li id="a" data-part-of="x">says data-part here</li>'
        '<li id="b" data-part>Bob</li><li class="x" id="c" data-part\n>Cid</li></ol>'
    )
    assert list(parts.split(html).parts) == ["b", "c"]


def test_every_public_region_of_a_table_in_play_cuts_into_parts() -> None:
    """R9: the score sheet has a row per round to come, so a round's end changes one
    row; R4: each seat of the list is a part of its own."""
    table, _users = scripted_round([["G5"], ["G7"], ["Y3"]], bids=[0, 1, 0])
    table = play_script(table, ["G5", "G7", "Y3"])
    state = load_state(table)
    context = {**presenter.public_context(state), **frames.PUSHED}
    seats = parts.split(frames.render_region("seats", context))
    assert sorted(seats.parts) == [f"seats-{presenter.seat_key(s.pk)}" for s in state.seats]
    scores = parts.split(frames.render_region("scores", context))
    rounds = [f"sheet-round-{n}" for n in range(1, 11)]
    assert list(scores.parts) == ["round-summary", "sheet-empty", *rounds, "sheet-totals"]
    # Only the regions frames.PARTED_REGIONS names are cut into parts.
    for region in set(frames.PUBLIC_REGIONS) - set(frames.PARTED_REGIONS):
        assert "data-part" not in frames.render_region(region, context), region
    # A part is swapped by its id: no id may be there twice.
    html = "".join(frames.render_region(r, context) for r in frames.PUBLIC_REGIONS)
    ids = re.findall(r'\sid="([^"]+)"', html)
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)


def test_parts_go_together_without_the_server_s_mark() -> None:
    """The page never reads ``data-part`` (the server splits its own renders with it):
    a pushed part leaves its own out, and parts go one after another."""
    after = parts.split(SEATS_BEFORE.replace('"4"', '"5"').replace("3 cards", "2 cards"))
    sent = parts.pushed(after, ["seats-seat-1", "seats-seat-2"], 5)
    assert "data-part" not in sent
    assert sent == (
        '<template><li id="seats-seat-1" hx-swap-oob="morph" data-version="5">'
        "<div><div>Ann</div></div> 2 cards</li></template>"
        '<template><li id="seats-seat-2" hx-swap-oob="morph" data-version="5">'
        "<div>Bob</div> 2 cards</li></template>"
    )
