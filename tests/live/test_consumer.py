"""The live table socket (games.live.consumers.TableConsumer) through the real ASGI stack.

Origin check and session authentication included: the sockets are opened on
config.asgi.application with a session cookie, as a browser would.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator

from config.asgi import application
from games.live import broadcast, consumers, push
from games.models import Play, Table
from games.play import actions
from games.storage import presence
from games.testing import driver
from tests.support.redis_server import private_redis_server

from .helpers import (
    QUIET,
    REGION_IDS,
    Game,
    card_codes,
    close_code,
    connections,
    drain,
    hand_of,
    has_seats,
    headers,
    make_game,
    make_user,
    mentions,
    open_socket,
    seat_block,
    session_cookie,
    shown_offline,
    versions,
)

pytestmark = pytest.mark.django_db(transaction=True)

db = database_sync_to_async


@pytest.fixture(autouse=True)
async def _fresh_layer() -> AsyncIterator[None]:
    layer = get_channel_layer()
    await layer.flush()
    yield
    await layer.flush()


def region_ids(html: str) -> list[str]:
    return re.findall(r'<[a-z]+ id="([a-z-]+)"[^>]*hx-swap-oob="(?:true|morph)"', html)


# -- who may connect ---------------------------------------------------------------


async def test_anonymous_socket_is_closed_with_4401() -> None:
    game = await db(make_game)()
    comm = await open_socket(game.table.pk, None)
    assert await close_code(comm) == 4401
    await comm.disconnect()


async def test_stranger_is_closed_with_4403_and_sees_nothing() -> None:
    game = await db(make_game)()
    stranger = await db(make_user)("mallory")
    comm = await open_socket(game.table.pk, await db(session_cookie)(stranger))
    assert await close_code(comm) == 4403
    await comm.disconnect()


async def test_unknown_table_is_closed_with_4404() -> None:
    game = await db(make_game)()
    comm = await open_socket(game.table.pk + 1000, game.cookies[0])
    assert await close_code(comm) == 4404
    await comm.disconnect()


async def test_foreign_origin_is_refused() -> None:
    game = await db(make_game)()
    comm = WebsocketCommunicator(
        application,
        f"/ws/tables/{game.table.pk}/",
        headers=headers(game.cookies[0], origin=b"https://evil.example"),
    )
    connected, _ = await comm.connect(timeout=3)
    assert not connected
    assert await db(connections)(game.table, game.users[0]) == 0


# -- what is sent ---------------------------------------------------------------------


async def test_snapshot_on_connect_holds_own_hand_and_no_other() -> None:
    game = await db(make_game)(("anne", "bert", "cleo"))
    table = game.table
    anne, bert, cleo = game.users
    comm = await open_socket(table.pk, game.cookies[0])
    frames = await drain(comm)
    snapshot = frames[0]
    assert region_ids(snapshot) == list(REGION_IDS)
    assert versions(snapshot) == {table.version}
    mine = await db(hand_of)(table, anne)
    assert mine and card_codes(snapshot) == mine
    for other in (bert, cleo):
        for code in await db(hand_of)(table, other):
            assert not mentions(snapshot, code)
    await comm.disconnect()


async def test_snapshot_request_returns_every_region_once_per_version() -> None:
    game = await db(make_game)()
    comm = await open_socket(game.table.pk, game.cookies[0])
    await drain(comm)
    # The connect snapshot holds this version already: asking again is ignored, silently.
    for _ in range(50):
        await comm.send_to(text_data=json.dumps({"type": "snapshot"}))
    assert await comm.receive_nothing(timeout=QUIET)
    # A newer version was pushed: one request is answered, the repeats are not.
    await db(actions.place_bid)(game.users[1], game.table.pk, game.table.version, 0)
    await drain(comm)
    for _ in range(50):
        await comm.send_to(text_data=json.dumps({"type": "snapshot"}))
    snapshots = await drain(comm)
    assert [region_ids(frame) for frame in snapshots] == [list(REGION_IDS)]
    # What htmx's ws-send sends: the form's values and a HEADERS object.
    await db(actions.place_bid)(game.users[2], game.table.pk, game.table.version, 0)
    await drain(comm)
    await comm.send_to(text_data=json.dumps({"snapshot": "1", "HEADERS": {"HX-Request": "true"}}))
    assert region_ids(await comm.receive_from(timeout=3)) == list(REGION_IDS)
    # Anything else is ignored.
    await comm.send_to(text_data="not json")
    await comm.send_to(text_data=json.dumps({"type": "play", "card": "SK"}))
    assert await comm.receive_nothing(timeout=QUIET)
    await comm.disconnect()


async def test_pushed_forms_are_htmx_posts_without_a_token_of_their_own() -> None:
    """Pushed forms post with htmx, whose X-CSRFToken header the page's <body> sets;
    a frame holds no CSRF token (its public part is the same for every player)."""
    game = await db(make_game)(start=False)
    comm = await open_socket(game.table.pk, f"{game.cookies[0]}; csrftoken={'a' * 32}")
    snapshot = (await drain(comm))[0]
    assert "csrfmiddlewaretoken" not in snapshot
    forms = re.findall(r"<form [^>]*>", snapshot)
    assert forms and all("hx-post=" in form for form in forms)
    await comm.disconnect()


# -- pushes after a move, per user ----------------------------------------------------


def bid_all(game: Game, values: list[int]) -> None:
    for user, value in zip(game.users, values, strict=True):
        table = Table.objects.get(pk=game.table.pk)
        actions.place_bid(user, table.pk, table.version, value)


def play_first_card(game: Game) -> tuple[Any, str, int]:
    """The player to move plays a legal card: (who, card, new version)."""
    from games.play.state import load_state

    table = Table.objects.get(pk=game.table.pk)
    state = load_state(table)
    seat = state.seat_to_play()
    assert seat is not None
    card = sorted(state.legal_cards(seat))[0]
    user = next(u for u in game.users if u.pk == seat.user_id)
    table = actions.play_card(
        user, table.pk, table.version, card, "pirate" if card == "TIG" else ""
    )
    return user, card, table.version


async def test_a_play_reaches_every_player_with_the_new_version_and_no_secret() -> None:
    game = await db(make_game)(("anne", "bert", "cleo"))
    table = game.table
    socks = [await open_socket(table.pk, cookie) for cookie in game.cookies]
    for sock in socks:
        await drain(sock)
    hands = {u.pk: await db(hand_of)(table, u) for u in game.users}

    # R4: the first two bids stay secret from the others until the last one.
    await db(actions.place_bid)(game.users[0], table.pk, table.version, 1)
    for i, sock in enumerate(socks):
        for frame in await drain(sock):
            if i != 0:
                block = (
                    await db(seat_block)(frame, game.users[0], table) if has_seats(frame) else ""
                )
                assert not re.search(r"Bid \d", block)
    await db(actions.place_bid)(game.users[1], table.pk, table.version + 1, 0)
    for i, sock in enumerate(socks):
        for frame in await drain(sock):
            for j in (0, 1):
                if i != j and has_seats(frame):
                    block = await db(seat_block)(frame, game.users[j], table)
                    assert not re.search(r"Bid \d", block), (i, j)
    await db(actions.place_bid)(game.users[2], table.pk, table.version + 2, 1)
    for sock in socks:
        frames = [frame for frame in await drain(sock) if has_seats(frame)]
        revealed = await db(seat_block)(frames[-1], game.users[0], table)
        assert "Bid 1" in revealed

    _mover, card, version = await db(play_first_card)(game)
    for user, sock in zip(game.users, socks, strict=True):
        frames = await drain(sock, first_timeout=1)
        assert any(version in versions(frame) for frame in frames)
        for frame in frames:
            assert max(versions(frame), default=version) == version
            assert card_codes(frame) <= (hands[user.pk] | {card})
            for other in game.users:
                if other.pk != user.pk:
                    for code in hands[other.pk] - {card}:
                        assert not mentions(frame, code), (user, other, code)
    assert await db(Play.objects.filter(card=card).exists)()
    for sock in socks:
        await sock.disconnect()


async def test_chat_is_pushed_without_a_version_bump() -> None:
    game = await db(make_game)(("anne", "bert"))
    socks = [await open_socket(game.table.pk, cookie) for cookie in game.cookies]
    for sock in socks:
        await drain(sock)
    await db(actions.post_chat)(game.users[1], game.table.pk, "ahoy <b>mates</b>")
    for sock in socks:
        frames = [f for f in await drain(sock, first_timeout=1) if 'id="presence-' not in f]
        # The chat log alone, escaped; nothing else re-rendered, no version.
        assert [region_ids(frame) for frame in frames] == [["chat-log"]]
        assert "ahoy &lt;b&gt;mates&lt;/b&gt;" in frames[0]
        assert versions(frames[0]) == set()
        await sock.disconnect()
    table = await db(Table.objects.get)(pk=game.table.pk)
    assert table.version == game.table.version


async def test_cancelled_game_still_shows_its_final_state() -> None:
    game = await db(make_game)(("anne", "bert"))
    sock = await open_socket(game.table.pk, game.cookies[0])
    await drain(sock)
    await db(actions.leave_table)(game.users[1], game.table.pk, confirmed=True)
    frames = await drain(sock, first_timeout=1)
    assert "cancelled" in frames[-1]
    await sock.disconnect()
    # A socket opened later still gets the final state.
    late = await open_socket(game.table.pk, game.cookies[1])
    assert "cancelled" in (await drain(late))[0]
    await late.disconnect()


# -- presence -------------------------------------------------------------------------


async def test_presence_follows_connect_and_disconnect() -> None:
    game = await db(make_game)(("anne", "bert"), start=False)
    table, (anne, bert) = game.table, game.users
    anne_sock = await open_socket(table.pk, game.cookies[0])
    seen = await drain(anne_sock)
    assert await db(shown_offline)(seen, bert, table)
    assert not await db(shown_offline)(seen, anne, table)
    assert await db(connections)(table, anne) == 1

    bert_sock = await open_socket(table.pk, game.cookies[1])
    await drain(bert_sock)
    seen += await drain(anne_sock, first_timeout=1)
    assert not await db(shown_offline)(seen, bert, table)
    assert await db(connections)(table, bert) == 1

    # A second tab: two connections; closing one keeps bert online.
    bert_tab = await open_socket(table.pk, game.cookies[1])
    await drain(bert_tab)
    assert await db(connections)(table, bert) == 2
    await bert_tab.disconnect()
    assert await anne_sock.receive_nothing(timeout=QUIET)  # nothing changed for anne
    assert not await db(shown_offline)(seen, bert, table)

    await bert_sock.disconnect()
    seen += await drain(anne_sock, first_timeout=1)
    assert await db(shown_offline)(seen, bert, table)
    assert await db(connections)(table, bert) == 0
    await anne_sock.disconnect()
    assert await db(connections)(table, anne) == 0


async def test_player_who_leaves_a_waiting_table_is_disconnected() -> None:
    game = await db(make_game)(("anne", "bert", "cleo"), start=False)
    bert_sock = await open_socket(game.table.pk, game.cookies[1])
    await drain(bert_sock)
    await db(actions.leave_table)(game.users[1], game.table.pk)
    assert await close_code(bert_sock) == 4403
    await bert_sock.disconnect()


async def test_presence_marks_follow_the_seat_list_the_page_shows() -> None:
    """R11: cleo leaves the waiting table. A presence update that still names her seat (a
    socket that had not yet seen her go, racing the frame) marks only the seats anne's
    page shows: a mark for a seat no longer there is an htmx error (oobErrorNoTarget).
    A player who joins gets a mark with the frame that seats them."""
    game = await db(make_game)(("anne", "bert", "cleo"), start=False)
    table, cleo = game.table, game.users[2]
    cleo_seat = await db(lambda: table.seats.get(user=cleo).pk)()
    anne_sock = await open_socket(table.pk, game.cookies[0])
    await drain(anne_sock)

    await db(actions.leave_table)(cleo, table.pk)
    left = await drain(anne_sock)
    assert not any(f"presence-seat-{cleo_seat}" in f for f in left)
    seat_ids = [s.pk for s in await db(lambda: list(table.seats.all()))()]
    stale = sorted([*seat_ids, cleo_seat])
    await get_channel_layer().group_send(
        broadcast.group_name(table.pk),
        {"type": "table.presence", "online": stale, "seat_ids": stale},
    )
    marks = await drain(anne_sock)
    assert marks and not any(f"presence-seat-{cleo_seat}" in f for f in marks)
    assert all(f"presence-seat-{pk}" in "".join(marks) for pk in seat_ids)

    dora = await db(make_user)("dora")
    await db(actions.join_table)(dora, table.invite_token)
    joined = "".join(await drain(anne_sock))
    dora_seat = await db(lambda: table.seats.get(user=dora).pk)()
    assert f'id="presence-seat-{dora_seat}"' in joined
    await get_channel_layer().group_send(
        broadcast.group_name(table.pk),
        {"type": "table.presence", "online": [*seat_ids, dora_seat]},
    )
    assert f'id="presence-seat-{dora_seat}"' in "".join(await drain(anne_sock))
    await anne_sock.disconnect()


async def test_huge_table_ids_close_with_4404_like_any_unknown_table() -> None:
    """Issue 15: an id of 2**63 or more overflowed the database driver (1011, retried)."""
    game = await db(make_game)()
    for table_id in (2**63 - 1, 2**63, 10**30):
        comm = await open_socket(table_id, game.cookies[0])
        assert await close_code(comm) == 4404
        await comm.disconnect()


async def test_presence_of_a_killed_process_expires_and_heals_by_itself(settings: Any) -> None:
    """A socket whose process died never says goodbye: its entry stops being refreshed,
    expires after three heartbeats, and the other players' heartbeat shows it offline."""
    game = await db(make_game)(("anne", "bert"), start=False)
    table, (anne, bert) = game.table, game.users
    bert_seat = await db(lambda: table.seats.get(user=bert).pk)()
    # bert's socket lived on a process that was SIGKILLed: an entry nobody refreshes.
    # Written with a 2 s heartbeat (it lives 6 s), so that anne's first snapshot sees it
    # even on a loaded machine; anne's socket then beats every 0.2 s.
    settings.PRESENCE_HEARTBEAT_SECONDS = 2.0
    await db(presence.touch)(bert_seat, "specific.killed-process!bert")
    settings.PRESENCE_HEARTBEAT_SECONDS = 0.2
    anne_sock = await open_socket(table.pk, game.cookies[0])
    seen = await drain(anne_sock, first_timeout=3)
    assert not await db(shown_offline)(seen, bert, table)  # looks connected at first
    # The heartbeats after the expiry show bert offline (waiting on frames, not on a clock).
    deadline = asyncio.get_running_loop().time() + 20
    while not await db(shown_offline)(seen, bert, table):
        assert asyncio.get_running_loop().time() < deadline, "bert never shown offline"
        seen += [await anne_sock.receive_from(timeout=10)]
    assert await db(connections)(table, bert) == 0
    # anne's own socket keeps itself alive all along.
    assert await db(connections)(table, anne) == 1
    await anne_sock.disconnect()
    assert await db(connections)(table, anne) == 0


async def test_a_socket_whose_presence_expired_takes_a_fresh_snapshot(settings: Any) -> None:
    """A stalled process let this socket's entry expire: moves made meanwhile rendered no
    frame for it (games.live.broadcast renders for watching seats only), so its next heartbeat
    sends a full snapshot of the current version."""
    settings.PRESENCE_HEARTBEAT_SECONDS = 0.3
    game = await db(make_game)(("anne", "bert"), start=True)
    anne_seat = await db(lambda: game.table.seats.get(user=game.users[0]).pk)()
    sock = await open_socket(game.table.pk, game.cookies[0])
    await drain(sock)
    # The entry expires (here: removed), as after three missed heartbeats.
    await db(lambda: presence.cache.delete(f"presence:seat:{anne_seat}"))()
    deadline = asyncio.get_running_loop().time() + 20
    while True:
        frame = await sock.receive_from(timeout=10)
        if 'id="hand"' in frame and 'id="scores"' in frame:  # every region: a snapshot
            break
        assert asyncio.get_running_loop().time() < deadline, "no snapshot after the expiry"
    assert await db(presence.open_sockets)(anne_seat) == 1  # and the entry is back
    await sock.disconnect()


async def test_a_pushed_frame_is_forwarded_without_a_hop_to_the_database_thread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Issue 9: every socket of the table receives every move; Channels would close
    # stale database connections (a thread hop) before each, for a handler that
    # reads nothing. The frame must still arrive, and other messages keep the clean-up.
    import channels.consumer

    hops: list[str] = []
    real = channels.consumer.aclose_old_connections

    async def counted() -> None:
        hops.append("close_old_connections")
        await real()

    monkeypatch.setattr(channels.consumer, "aclose_old_connections", counted)
    game = await db(make_game)(("anne", "bert"))
    table = game.table
    socks = [await open_socket(table.pk, cookie) for cookie in game.cookies]
    for sock in socks:
        await drain(sock)
    hops.clear()
    await db(actions.place_bid)(game.users[0], table.pk, table.version, 1)
    for sock in socks:
        assert any(table.version + 1 in versions(frame) for frame in await drain(sock))
    assert hops == []
    # A message from the browser (a snapshot request) still goes through the clean-up.
    await socks[1].send_to(text_data=json.dumps({"type": "snapshot"}))
    await drain(socks[1])
    assert hops == ["close_old_connections"]
    for sock in socks:
        await sock.disconnect()


# -- order -----------------------------------------------------------------------------


@pytest.fixture(params=["configured layer", "pub/sub layer"])
async def layer(
    request: pytest.FixtureRequest, tmp_path: Path, settings: Any
) -> AsyncIterator[Any]:
    """The layer the settings name (in memory without REDIS_URL), and the Redis pub/sub
    one, which hands this process's frames straight to its sockets (listen_here)."""
    if request.param == "configured layer":
        yield get_channel_layer()
        return
    with private_redis_server(tmp_path) as server:
        settings.CHANNEL_LAYERS = {
            "default": {
                "BACKEND": "config.channel_layers.PipelinedPubSubChannelLayer",
                "CONFIG": {"hosts": [server.url(0)]},
            }
        }
        pubsub = get_channel_layer()
        assert hasattr(pubsub, "listen_here")
        yield pubsub
        await pubsub.flush()


def frame_versions(frames: list[str]) -> list[int]:
    """The version of each frame that has one (presence marks have none)."""
    return [max(versions(frame)) for frame in frames if versions(frame)]


async def test_moves_made_back_to_back_reach_every_socket_each_once_and_in_order(
    layer: Any,
) -> None:
    # R4's frames go to each seat's own group; whichever way the layer takes them,
    # a burst of moves arrives whole: each version once, none before an older one.
    game = await db(make_game)(("anne", "bert", "cleo"))
    table = game.table
    socks = [await open_socket(table.pk, cookie) for cookie in game.cookies]
    for sock in socks:
        await drain(sock)
    played = await db(driver.play_until)(
        table.pk, random.Random(9), done=driver.at_phase("bidding", 3)
    )
    expected = list(range(table.version + 1, played.version + 1))
    assert len(expected) > 10  # two rounds' bids, plays, next tricks and next rounds
    for sock in socks:
        assert frame_versions(await drain(sock)) == expected
    for sock in socks:
        await sock.disconnect()


async def test_a_move_made_while_a_snapshot_is_on_its_way_follows_it(
    layer: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The snapshot is read at version V; a move (V + 1) commits before it is sent.
    # The socket must get the snapshot first and the move's frame after it, never
    # the frame and then the older snapshot over it.
    game = await db(make_game)(("anne", "bert"))
    table = game.table
    real_snapshot = push.snapshot
    moved: list[int] = []

    def snapshot_then_a_move(table_id: int, user: Any) -> push.Snapshot:
        answer = real_snapshot(table_id, user)
        if not moved:
            bid = actions.place_bid(game.users[1], table.pk, answer.version, 0)
            moved.append(bid.version)
        return answer

    monkeypatch.setattr(push, "snapshot", snapshot_then_a_move)
    sock = await open_socket(table.pk, game.cookies[0])
    frames = await drain(sock)
    assert frame_versions(frames) == [table.version, table.version + 1]
    assert region_ids(frames[0]) == list(REGION_IDS)  # the snapshot, whole, first
    assert moved == [table.version + 1]
    await sock.disconnect()


@pytest.mark.parametrize("layer", ["pub/sub layer"], indirect=True)
async def test_a_closed_socket_leaves_no_callback_in_the_layer(layer: Any) -> None:
    game = await db(make_game)(("anne", "bert"))
    sock = await open_socket(game.table.pk, game.cookies[0])
    await drain(sock)
    assert len(layer._listeners) == 1  # the socket takes its frames directly
    await sock.disconnect()
    assert layer._listeners == {}


# -- pages converge by themselves (issue 45) ------------------------------------------


async def wait_for_snapshot(sock: WebsocketCommunicator, *, holding: str = "") -> str:
    """The next full snapshot this socket gets (every region), holding ``holding``."""
    deadline = asyncio.get_running_loop().time() + 15
    while True:
        frame = await sock.receive_from(timeout=10)
        if 'id="hand"' in frame and 'id="scores"' in frame and holding in frame:
            return frame
        assert asyncio.get_running_loop().time() < deadline, "no snapshot came"


async def test_a_frame_lost_on_its_way_is_healed_by_the_next_heartbeat(
    settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Fault: a move's frames never reach the channel layer (Redis down or a process
    re-subscribing when it published). The table's version moved on; each socket's
    next heartbeat finds it never got that version and sends itself a snapshot (R4:
    each its own hand), so the player whose turn it is sees it within a heartbeat."""
    settings.PRESENCE_HEARTBEAT_SECONDS = 0.3
    monkeypatch.setattr(consumers, "FRAME_GRACE", 0.05)
    game = await db(make_game)(("anne", "bert"), start=True)
    socks = [await open_socket(game.table.pk, cookie) for cookie in game.cookies]
    for sock in socks:
        await drain(sock)
    with monkeypatch.context() as lost:
        lost.setattr(broadcast, "send", lambda messages: None)  # every frame is lost
        table = await db(actions.place_bid)(game.users[0], game.table.pk, game.table.version, 0)
    for user, sock in zip(game.users, socks, strict=True):
        frame = await wait_for_snapshot(sock)
        assert versions(frame) == {table.version}, user.username
        assert card_codes(frame) <= await db(hand_of)(table, user), user.username
    for sock in socks:
        await sock.disconnect()


async def test_a_rename_by_staff_reaches_every_open_page_of_the_table() -> None:
    """A change outside the moves (the admin saves a user with a new name): every
    socket of the tables the user sits at gets a snapshot with the new name."""
    game = await db(make_game)(("anne", "bert"), start=True)
    socks = [await open_socket(game.table.pk, cookie) for cookie in game.cookies]
    for sock in socks:
        await drain(sock)

    def rename() -> None:
        bert = type(game.users[1]).objects.get(pk=game.users[1].pk)
        bert.username = "bertrand"
        bert.save()  # as the admin's change form saves: every field

    await db(rename)()
    for sock in socks:
        await wait_for_snapshot(sock, holding="bertrand")
        await sock.disconnect()


async def test_a_language_switch_reaches_the_user_s_other_tab_only() -> None:
    """The header's selector saves the account's language: the user's other open tab
    reads the table in it at once (its chat, its status); the others' do not change."""
    game = await db(make_game)(("anne", "bert"), start=True)
    anne_tab, bert_tab = [await open_socket(game.table.pk, c) for c in game.cookies]
    await drain(anne_tab)
    await drain(bert_tab)

    def to_french() -> None:
        anne = type(game.users[0]).objects.get(pk=game.users[0].pk)
        anne.language = "fr"
        anne.save(update_fields=["language"])

    await db(to_french)()
    await wait_for_snapshot(anne_tab, holding="Votre main")
    assert await bert_tab.receive_nothing(timeout=0.5)
    for sock in (anne_tab, bert_tab):
        await sock.disconnect()
