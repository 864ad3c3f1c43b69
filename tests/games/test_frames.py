"""A move's frames are rendered once, from the state the action wrote (games.live.broadcast).

That state must say exactly what the rows say: after every move of whole games,
the frames sent equal the same regions rendered from a fresh read of the table.
And what is rendered once for everyone (the public regions) is the same string in
every seat's frame and holds nothing of anyone in particular.
"""

from __future__ import annotations

import random
import re
from typing import Any
from unittest import mock

import pytest

from games import rules
from games.live import broadcast, frames, held, parts, push
from games.models import Table
from games.pages import presenter
from games.play import actions
from games.play.state import load_state
from games.storage import presence, state_cache
from games.testing.scripted import play_script, scripted_round
from tests.support.presence import every_seat_watching

from .helpers import random_move, started_table

pytestmark = pytest.mark.django_db

SEAT_REGION = re.compile(r'\n?<section id="(?:status|hand|controls)".*?</section>\n?', re.S)


class Recorder:
    def __init__(self) -> None:
        self.sent: list[tuple[str, dict[str, Any]]] = []

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        self.sent.append((group, message))


VERSION = re.compile(r'(data-version="|name="version" value=")\d+"')


def _own_regions_fresh(table: Table) -> dict[int, dict[str, str]]:
    """user id -> each of its own regions rendered from a fresh read, versions blanked."""
    fresh = Table.objects.select_related("host", "cancelled_by").get(pk=table.pk)
    state = load_state(fresh)
    regions: dict[int, dict[str, str]] = {}
    for seat in state.seats:
        context = {**presenter.seat_context(state, seat), **frames.PUSHED}
        regions[seat.user_id] = {
            region: VERSION.sub(r'\1"', frames.render_region(region, context))
            for region in frames.SEAT_REGIONS
        }
    return regions


def _public_fresh(state: Any) -> dict[str, parts.Split]:
    """Each public region rendered from ``state``, split into its parts (versions left out)."""
    context = {**presenter.public_context(state), **frames.PUSHED}
    return {r: parts.split(frames.render_region(r, context).strip()) for r in frames.PUBLIC_REGIONS}


def _swap(page: dict[str, parts.Split], frame: str) -> None:
    """Swap a frame's public regions and parts into ``page`` by id, as htmx does."""
    for ident, element in parts.elements(frame):
        if ident in frames.SEAT_REGIONS:
            continue
        if ident in page:
            page[ident] = parts.split(element)
            continue
        # A part goes without its mark (games.live.parts.pushed): the page's copy of the
        # region is split as the server splits its renders, so it gets it back.
        element = element.replace(' hx-swap-oob="morph"', " data-part", 1)
        holders = [region for region, held in page.items() if ident in held.parts]
        assert len(holders) == 1, f"part {ident!r} is in no region of the page"
        held = page[holders[0]]
        # The part and the parts inside it replace the old one and what was inside it.
        gone = _inside(held, ident)
        kept = {k: v for k, v in held.parts.items() if k not in gone}
        within = {k: v for k, v in held.inside.items() if k not in gone}
        swapped = parts.split(element)
        page[holders[0]] = parts.Split(
            held.skeleton, {**kept, **swapped.parts}, {**within, **swapped.inside}
        )


def _inside(region: parts.Split, ident: str) -> set[str]:
    """The parts inside part ``ident``, at any depth."""
    found: set[str] = set()
    while True:
        more = {k for k, holder in region.inside.items() if holder in found | {ident}} - found
        if not more:
            return found
        found |= more


def _choose_a_next_card(table: Table, rng: random.Random) -> bool:
    """Sometimes a waiting player chooses their next card in advance (played on their
    turn if legal, else dropped: R5), so the moves include the plays made for them."""
    if table.phase not in (Table.Phase.PLAYING, Table.Phase.TRICK_DONE) or rng.random() < 0.6:
        return False
    state = load_state(table)
    waiting = [s for s in state.seats if s != state.seat_to_play() and state.hand_of(s)]
    if not waiting:
        return False
    seat = rng.choice(waiting)
    card = rng.choice(state.hand_of(seat))
    as_ = rng.choice(["pirate", "escape"]) if card.code == "TIG" else ""
    if state.preselected(seat) == rules.Play(card, as_=as_ or None):
        return False
    actions.preselect_card(seat.user, table.pk, table.version, card.code, as_)
    return True


@pytest.mark.parametrize(
    ("players", "ghost", "seed", "last_round", "read_again"),
    [
        pytest.param(2, True, 11, 4, False, id="2-ghost"),
        pytest.param(4, False, 12, 3, False, id="4"),
        # Every move reads its game and has no record of what the pages hold, as after
        # another process's move or a restart: its parted regions go whole (games.live.held).
        pytest.param(4, False, 14, 2, True, id="4-read-again"),
        pytest.param(3, False, 13, 10, False, id="3-complete", marks=pytest.mark.thorough),
    ],
)
def test_frames_from_the_actions_state_equal_a_fresh_read_after_every_move(
    players: int,
    ghost: bool,
    seed: int,
    last_round: int,
    read_again: bool,
    django_capture_on_commit_callbacks: Any,
) -> None:
    """R4-R10 through the actions; what the sockets get is what a reload would show.

    A frame holds only the regions the move changed for that seat: each region it
    leaves out must read exactly as it did before the move (the page carries it on
    to the new version, static/js/live.js), and each region it holds must equal a
    fresh read's. A public region may come as only its parts that changed
    (games.live.parts): swapped into the page by id, every public region must then read
    as a fresh read's.
    """
    table, users = started_table(players, ghost=ghost, seed=seed)
    rng = random.Random(seed)
    layer = Recorder()
    every_seat_watching(table)
    before = _own_regions_fresh(table)
    first_state = load_state(Table.objects.select_related("host", "cancelled_by").get(pk=table.pk))
    pages = {user.pk: _public_fresh(first_state) for user in users}
    moves = left_out = by_parts = 0
    with mock.patch.object(broadcast, "get_channel_layer", return_value=layer):
        while not (table.round_number == last_round and table.phase == Table.Phase.ROUND_DONE):
            with django_capture_on_commit_callbacks(execute=True):
                if _choose_a_next_card(table, rng):
                    before = _own_regions_fresh(table)  # its own regions, pushed to it
            layer.sent.clear()
            if read_again:
                state_cache.forget_all()
                held.forget_all()
            with django_capture_on_commit_callbacks(execute=True):
                table = random_move(table, rng)
            moves += 1
            sent = {group: message for group, message in layer.sent}
            fresh = Table.objects.select_related("host", "cancelled_by").get(pk=table.pk)
            state = load_state(fresh)
            after = _own_regions_fresh(table)
            for user in users:
                message = sent[broadcast.user_group(table.pk, user.pk)]
                own = [r for r in message["regions"] if r in frames.SEAT_REGIONS]
                assert "status" in own, f"move {moves}: every seat reads whose move it is"
                seat = state.seat_of(user.pk)
                assert seat is not None
                changed = {seat.pk: tuple(own)}
                again = frames.render_frames(state, (), users={user.pk}, changed=changed)
                assert message["html"].endswith(again[user.pk]), f"move {moves}: {user.username}"
                _swap(pages[user.pk], message["html"])
                fresh_public = _public_fresh(state)
                for region in frames.PUBLIC_REGIONS:
                    assert pages[user.pk][region] == fresh_public[region], (
                        f"move {moves}: {user.username}'s {region}"
                    )
                by_parts += 'hx-swap-oob="morph" data-version' not in message["html"][:80]
                for region in set(frames.SEAT_REGIONS) - set(own):
                    left_out += 1
                    assert after[user.pk][region] == before[user.pk][region], (
                        f"move {moves}: {user.username}'s {region} changed but was not pushed"
                    )
            before = after
            shared = {SEAT_REGION.sub("", m["html"]) for m in sent.values()}
            assert len(shared) == 1, f"move {moves}: the public regions differ between seats"
            assert "data-my-bid" not in shared.pop()
    assert moves > 10 and left_out > 0  # some moves left a seat's hand alone
    # Some sent only the parts of a region that changed (with no record of what the
    # pages hold, whole regions: still equal to a fresh read, checked above).
    assert read_again or by_parts > 0


def test_a_play_inside_a_trick_pushes_the_hands_of_the_player_and_the_next_only(
    django_capture_on_commit_callbacks: Any,
) -> None:
    """R5: a card played inside a trick changes the hands of who played it and of who
    plays next (their legal cards); the others get the seats, the trick and their
    status line, not the earlier tricks, the scores or their hand again; nobody's
    controls change (no phase changes)."""
    table, users = started_table(4, ghost=False, seed=12)
    rng = random.Random(12)
    while table.phase != Table.Phase.PLAYING:
        table = random_move(table, rng)
    state = load_state(table)
    player = state.seat_to_play()
    assert player is not None
    layer = Recorder()
    every_seat_watching(table)
    with (
        mock.patch.object(broadcast, "get_channel_layer", return_value=layer),
        django_capture_on_commit_callbacks(execute=True),
    ):
        table = random_move(table, rng)
    next_player = load_state(table).seat_to_play()
    assert next_player is not None and table.phase == Table.Phase.PLAYING
    regions = {group: message["regions"] for group, message in layer.sent}
    for user in users:
        got = regions[broadcast.user_group(table.pk, user.pk)]
        if user.pk in (player.user_id, next_player.user_id):
            assert got == ["seats", "trick", "status", "hand"], user.username
        else:
            assert got == ["seats", "trick", "status"], user.username


def test_a_bid_pushes_the_bidders_controls_and_nobodys_hand(
    django_capture_on_commit_callbacks: Any,
) -> None:
    """R4: a bid that is not the last changes the seat list (who has bid), every
    status line, and the bidder's controls (its bid buttons go); no hand changes."""
    table, users = started_table(4, ghost=False, seed=12)
    state = load_state(table)
    bidder = next(seat for seat in state.seats if seat.pk not in state.bids)
    layer = Recorder()
    every_seat_watching(table)
    with (
        mock.patch.object(broadcast, "get_channel_layer", return_value=layer),
        django_capture_on_commit_callbacks(execute=True),
    ):
        table = actions.place_bid(bidder.user, table.pk, table.version, 1)
    assert table.phase == Table.Phase.BIDDING
    regions = {group: message["regions"] for group, message in layer.sent}
    for user in users:
        got = regions[broadcast.user_group(table.pk, user.pk)]
        if user.pk == bidder.user_id:
            assert got == ["seats", "trick", "status", "controls"], user.username
        else:
            assert got == ["seats", "trick", "status"], user.username


def test_a_new_deal_sends_the_round_summary_going_not_the_score_sheet_or_the_chat_again(
    django_capture_on_commit_callbacks: Any,
) -> None:
    """R9: dealing the next round does not change the score sheet; the new deal is read
    again after its commit, yet its frame carries the emptied summary, not the sheet.
    R11: nor does it change the chat, which a page keeps from the last message's push."""
    table, users = started_table(3, ghost=False, seed=12)
    rng = random.Random(12)
    every_seat_watching(table)
    layer = Recorder()
    with mock.patch.object(broadcast, "get_channel_layer", return_value=layer):
        while table.phase != Table.Phase.ROUND_DONE:
            with django_capture_on_commit_callbacks(execute=True):
                table = random_move(table, rng)
        with django_capture_on_commit_callbacks(execute=True):
            actions.post_chat(users[1], table.pk, "well played")
        layer.sent.clear()
        with django_capture_on_commit_callbacks(execute=True):
            table = actions.next_round(users[0], table.pk, table.version)
    assert len(layer.sent) == len(users)
    for _group, message in layer.sent:
        assert '<section id="scores"' not in message["html"]
        assert '<div id="round-summary" hx-swap-oob="morph"' in message["html"]
        assert "chat-log" not in message["regions"]
        assert 'id="chat-log"' not in message["html"]
        assert "well played" not in message["html"]


def test_a_move_renders_frames_only_for_the_seats_that_watch(
    django_capture_on_commit_callbacks: Any,
) -> None:
    """A seat with no socket open costs no render; once it opens one, its snapshot is the
    version the move made (push.snapshot), so nothing is missed (R4: still its own view)."""
    table, (anne, bert) = started_table(2, ghost=True, seed=11)
    presence.touch(table.seats.get(user=anne).pk, "anne-socket")
    layer = Recorder()
    with (
        mock.patch.object(broadcast, "get_channel_layer", return_value=layer),
        django_capture_on_commit_callbacks(execute=True),
    ):
        table = random_move(table, random.Random(11))
    assert [group for group, _ in layer.sent] == [broadcast.user_group(table.pk, anne.pk)]
    snapshot = push.snapshot(table.pk, bert)
    assert snapshot.version == table.version
    assert f'data-version="{snapshot.version}"' in snapshot.html


def test_a_cache_that_cannot_tell_who_watches_sends_every_seat_its_frame(
    django_capture_on_commit_callbacks: Any,
) -> None:
    """Presence is cosmetic: with the cache down, every seat gets its frame as before."""
    table, users = started_table(2, ghost=True, seed=11)
    broken = mock.Mock(get_many=mock.Mock(side_effect=ConnectionError("cache down")))
    layer = Recorder()
    with (
        mock.patch.object(broadcast, "get_channel_layer", return_value=layer),
        mock.patch.object(presence, "cache", broken),
        django_capture_on_commit_callbacks(execute=True),
    ):
        table = random_move(table, random.Random(11))
    groups = sorted(group for group, _ in layer.sent)
    assert groups == sorted(broadcast.user_group(table.pk, user.pk) for user in users)


class LocalRecorder(Recorder):
    """A layer that knows which groups this process's sockets have joined."""

    def __init__(self, here: set[str]) -> None:
        super().__init__()
        self.here = here

    def listened_here(self, groups: list[str]) -> set[str]:
        return self.here & set(groups)


def test_seats_all_watching_in_this_process_get_their_frames_without_asking_the_cache(
    django_capture_on_commit_callbacks: Any,
) -> None:
    """When every seat has a socket in the process that moves (the deployment's routing),
    the move asks nobody who watches: each seat gets its own frame (R4) and the cache
    is not read."""
    table, users = started_table(2, ghost=True, seed=11)
    groups = {broadcast.user_group(table.pk, user.pk) for user in users}
    layer = LocalRecorder(groups)
    asked = mock.Mock(side_effect=AssertionError("the cache was asked"))
    with (
        mock.patch.object(broadcast, "get_channel_layer", return_value=layer),
        mock.patch.object(presence, "listening_seats", asked),
        django_capture_on_commit_callbacks(execute=True),
    ):
        table = random_move(table, random.Random(11))
    assert sorted(group for group, _ in layer.sent) == sorted(groups)
    assert not asked.called


def test_a_seat_watching_from_another_process_is_found_in_the_cache(
    django_capture_on_commit_callbacks: Any,
) -> None:
    """Anne's socket is in this process, Bert's in another (only its presence entry
    says so): the cache is asked, and both get their frames."""
    table, (anne, bert) = started_table(2, ghost=True, seed=11)
    presence.touch(table.seats.get(user=anne).pk, "anne-socket")
    presence.touch(table.seats.get(user=bert).pk, "bert-socket-elsewhere")
    layer = LocalRecorder({broadcast.user_group(table.pk, anne.pk)})
    with (
        mock.patch.object(broadcast, "get_channel_layer", return_value=layer),
        django_capture_on_commit_callbacks(execute=True),
    ):
        table = random_move(table, random.Random(11))
    assert sorted(group for group, _ in layer.sent) == sorted(
        broadcast.user_group(table.pk, user.pk) for user in (anne, bert)
    )


def test_each_language_reads_the_tricks_reason_in_its_own_words() -> None:
    """R6's reason is a sentence in words: the public regions are rendered once per
    language, each from a context built in that language (a German and a French seat)."""
    table, (german, french) = scripted_round([["TIG"], ["Y7"]], bids=[1, 0])
    for user, language in ((german, "de"), (french, "fr")):
        user.language = language
        user.save(update_fields=["language"])
    table = play_script(table, ["TIG:pirate", "Y7"])
    rendered = frames.render_frames(load_state(table), frames.PUBLIC_REGIONS)
    french_reason, german_reason = "un pirate bat les cartes", "ein Pirat schlägt die Zahlenkarten"
    assert french_reason in rendered[french.pk] and german_reason not in rendered[french.pk]
    assert german_reason in rendered[german.pk] and french_reason not in rendered[german.pk]


def test_each_language_reads_the_seat_list_in_its_own_words() -> None:
    """Each seat of the list is rendered once per language and reused (games.pages.regions.
    seat_body): a German and a French seat at one table each read its badges in their
    own words, rendered one after the other from the same seats."""
    table, (german, french) = scripted_round([["TIG"], ["Y7"]], bids=[1, 0])
    for user, language in ((german, "de"), (french, "fr")):
        user.language = language
        user.save(update_fields=["language"])
    rendered = frames.render_frames(load_state(table), ("seats",))
    for _ in range(2):  # and again, from what the first render kept
        again = frames.render_frames(load_state(table), ("seats",))
        assert again == rendered
    german_host, french_host = "Gastgeber", "hôte"
    assert french_host in rendered[french.pk] and german_host not in rendered[french.pk]
    assert german_host in rendered[german.pk] and french_host not in rendered[german.pk]


def test_a_presence_update_swaps_each_seat_s_mark_out_of_band_by_morphing() -> None:
    """A socket's presence push: one mark per seat, each morphed in place by its id."""
    html = frames.render_presence({1}, [1, 2], "en")
    marks = re.findall(r'<span id="presence-seat-(\d+)"[^>]*hx-swap-oob="morph"[^>]*>', html)
    assert marks == ["1", "2"]
    assert "offline" not in html.split('id="presence-seat-2"')[0]  # seat 1 is online
    assert "offline" in html.split('id="presence-seat-2"')[1]
