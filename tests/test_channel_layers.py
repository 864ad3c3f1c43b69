"""A move's frames leave in one round trip to Redis (config.channel_layers), each to its
own group only (R4: a hand goes to its owner's sockets, nobody else's)."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis.client
from redis.asyncio.client import Pipeline, Redis

from config.channel_layers import PipelinedPubSubChannelLayer
from tests.support.redis_server import private_redis_server


@pytest.fixture
def redis_url(tmp_path: Path) -> Iterator[str]:
    with private_redis_server(tmp_path) as server:
        yield server.url(0)


def test_a_move_s_messages_reach_each_group_only_in_one_pipeline(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """R4: each frame reaches its own group's sockets only; all of them in one round trip
    from the event loop (group_send_many)."""
    commands: list[str] = []
    pipelines: list[int] = []
    execute_command, execute = Redis.execute_command, Pipeline.execute

    async def counted_command(self: Any, *args: Any, **options: Any) -> Any:
        commands.append(str(args[0]))
        return await execute_command(self, *args, **options)

    async def counted_pipeline(self: Any, *args: Any, **kwargs: Any) -> Any:
        pipelines.append(len(self.command_stack))
        return await execute(self, *args, **kwargs)

    async def scenario() -> dict[str, list[str]]:
        layer = PipelinedPubSubChannelLayer(hosts=[redis_url], prefix="test")
        sockets = await _seat_sockets(layer)
        monkeypatch.setattr(Redis, "execute_command", counted_command)
        monkeypatch.setattr(Pipeline, "execute", counted_pipeline)
        await layer.group_send_many(HANDS)
        got = await _everything_received(layer, sockets)
        await layer.flush()
        return got

    assert asyncio.run(scenario()) == EACH_OWN_HAND
    assert pipelines == [3]  # the three PUBLISHes in one pipeline
    assert "PUBLISH" not in commands  # none of them alone


def test_a_move_s_frames_reach_this_process_s_sockets_without_a_trip_through_redis(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """R4: from a request thread (publish_many), each frame reaches its own group's
    sockets only, once; with no other process listening, Redis is asked once (the
    script that publishes where others listen) and nothing comes back from it."""
    commands: list[str] = []
    execute_command_sync = redis.Redis.execute_command

    def counted_command_sync(self: Any, *args: Any, **options: Any) -> Any:
        commands.append(str(args[0]))
        return execute_command_sync(self, *args, **options)

    came_back = _watch_receivers(monkeypatch)

    async def scenario() -> dict[str, list[str]]:
        layer = PipelinedPubSubChannelLayer(hosts=[redis_url], prefix="test")
        sockets = await _seat_sockets(layer)
        monkeypatch.setattr(redis.Redis, "execute_command", counted_command_sync)
        # An earlier move, to a table nobody here has open: Redis learns the script.
        await asyncio.to_thread(layer.publish_many, [("table-2-user-dan", {"html": ""})])
        commands.clear()
        await asyncio.to_thread(layer.publish_many, HANDS)
        got = await _everything_received(layer, sockets)
        await layer.flush()
        return got

    assert asyncio.run(scenario()) == EACH_OWN_HAND
    assert commands == ["EVALSHA"]
    assert came_back == []


def test_a_group_with_sockets_in_two_processes_gets_each_frame_once_in_each(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """R4 across processes (two layers, as two server processes would have): ann has the
    table open on both, bob on the mover's only, cid on the other's only. Each socket
    gets its own frame exactly once; what the mover delivered itself and published
    for the other process comes back to it and is dropped, and bob's frame, which no
    other process listens for, is not published at all."""
    came_back = _watch_receivers(monkeypatch)

    async def scenario() -> tuple[dict[str, list[str]], dict[str, list[str]]]:
        mover = PipelinedPubSubChannelLayer(hosts=[redis_url], prefix="test")
        other = PipelinedPubSubChannelLayer(hosts=[redis_url], prefix="test")
        here = {name: await mover.new_channel() for name in ("ann", "bob")}
        there = {name: await other.new_channel() for name in ("ann", "cid")}
        for layer, sockets in ((mover, here), (other, there)):
            for name, channel in sockets.items():
                await layer.group_add(f"table-1-user-{name}", channel)
        await asyncio.to_thread(mover.publish_many, HANDS)
        got_here = await _everything_received(mover, here)
        got_there = await _everything_received(other, there)
        assert mover.origin != other.origin
        await mover.flush()
        await other.flush()
        return got_here, got_there

    got_here, got_there = asyncio.run(scenario())
    assert got_here == {"ann": ["ann's hand"], "bob": ["bob's hand"]}
    assert got_there == {"ann": ["ann's hand"], "cid": ["cid's hand"]}
    # Back through Redis: ann's to both processes (the mover drops its own), cid's to the
    # other one; bob's nowhere.
    assert sorted(came_back) == ["test__group__table-1-user-ann"] * 2 + [
        "test__group__table-1-user-cid"
    ]


def test_a_socket_listening_here_takes_its_frames_from_its_callback_in_order(
    redis_url: str,
) -> None:
    """R4 on the direct path (listen_here): ann's socket gets her own frames only, each
    once, in the order they were published, through its callback and not its queue;
    her second tab, which does not listen here, still gets them through its queue; a
    socket that stopped listening gets them through its queue again."""

    async def scenario() -> tuple[list[Any], dict[str, list[str]], list[str]]:
        layer = PipelinedPubSubChannelLayer(hosts=[redis_url], prefix="test")
        sockets = await _seat_sockets(layer)
        taken: list[Any] = []
        layer.listen_here(sockets["ann"], taken.append)
        burst = [("table-1-user-ann", {"type": "table.frame", "html": f"v{n}"}) for n in (1, 2)]
        await asyncio.to_thread(layer.publish_many, HANDS)
        await asyncio.to_thread(layer.publish_many, burst)
        tab = sockets.pop("ann")
        got = await _everything_received(layer, sockets)
        assert layer._get_layer().channels[tab].empty()  # nothing went through the queue
        layer.stop_listening_here(tab)
        await asyncio.to_thread(layer.publish_many, HANDS[:1])
        after = await _everything_received(layer, {"ann": tab})
        await layer.flush()
        return [m["html"] for m in taken], got, after["ann"]

    taken, got, after = asyncio.run(scenario())
    assert taken == ["ann's hand", "v1", "v2"]
    assert got == {
        "ann, 2nd tab": ["ann's hand", "v1", "v2"],
        "bob": ["bob's hand"],
        "cid": ["cid's hand"],
    }
    assert after == ["ann's hand"]


def test_a_process_of_the_previous_release_reads_the_frames_it_is_sent(redis_url: str) -> None:
    """While the deployment restarts its processes one by one, a process still on
    channels_redis's own layer gets ann's frame (R4: hers only) and reads it as any."""
    from channels_redis.pubsub import RedisPubSubChannelLayer

    async def scenario() -> list[dict[str, Any]]:
        mover = PipelinedPubSubChannelLayer(hosts=[redis_url], prefix="test")
        older = RedisPubSubChannelLayer(hosts=[redis_url], prefix="test")
        ann = await older.new_channel()
        await older.group_add("table-1-user-ann", ann)
        await asyncio.to_thread(mover.publish_many, HANDS)
        got = [await asyncio.wait_for(older.receive(ann), 5)]
        with contextlib.suppress(TimeoutError):
            got.append(await asyncio.wait_for(older.receive(ann), 0.3))
        await mover.flush()
        await older.flush()
        return got

    (message,) = asyncio.run(scenario())
    assert (message["type"], message["html"]) == ("table.frame", "ann's hand")


def test_the_layer_knows_which_groups_have_a_socket_in_this_process(redis_url: str) -> None:
    """Joined here: known without Redis; left, or joined only in another process: not."""

    async def scenario() -> list[set[str]]:
        here = PipelinedPubSubChannelLayer(hosts=[redis_url], prefix="test")
        elsewhere = PipelinedPubSubChannelLayer(hosts=[redis_url], prefix="test")
        ann, bob = await here.new_channel(), await here.new_channel()
        await here.group_add("table-1-user-ann", ann)
        await here.group_add("table-1-user-bob", bob)
        await elsewhere.group_add("table-1-user-cid", await elsewhere.new_channel())
        groups = ["table-1-user-ann", "table-1-user-bob", "table-1-user-cid"]
        before = await asyncio.to_thread(here.listened_here, groups)
        await here.group_discard("table-1-user-bob", bob)
        after = await asyncio.to_thread(here.listened_here, groups)
        await here.flush()
        await elsewhere.flush()
        return [before, after]

    assert asyncio.run(scenario()) == [
        {"table-1-user-ann", "table-1-user-bob"},
        {"table-1-user-ann"},
    ]


HANDS = [
    ("table-1-user-ann", {"type": "table.frame", "html": "ann's hand"}),
    ("table-1-user-bob", {"type": "table.frame", "html": "bob's hand"}),
    ("table-1-user-cid", {"type": "table.frame", "html": "cid's hand"}),
]
EACH_OWN_HAND = {
    "ann": ["ann's hand"],
    "ann, 2nd tab": ["ann's hand"],
    "bob": ["bob's hand"],
    "cid": ["cid's hand"],
}


async def _seat_sockets(layer: PipelinedPubSubChannelLayer) -> dict[str, str]:
    """A socket for each of ann, bob and cid in their own groups, and ann's second tab."""
    sockets = {name: await layer.new_channel() for name in ("ann", "bob", "cid")}
    for name, channel in sockets.items():
        await layer.group_add(f"table-1-user-{name}", channel)
    sockets["ann, 2nd tab"] = await layer.new_channel()
    await layer.group_add("table-1-user-ann", sockets["ann, 2nd tab"])
    return sockets


async def _everything_received(
    layer: PipelinedPubSubChannelLayer, sockets: dict[str, str]
) -> dict[str, list[str]]:
    """Each socket's messages: the first, then whatever else comes within 0.3 s."""
    got: dict[str, list[str]] = {}
    for name, channel in sockets.items():
        got[name] = [(await asyncio.wait_for(layer.receive(channel), 5))["html"]]

    async def more(name: str, channel: str) -> None:
        while True:
            try:
                message = await asyncio.wait_for(layer.receive(channel), 0.3)
            except TimeoutError:
                return
            got[name].append(message["html"])

    # Every socket at once: one wait, not one per socket.
    await asyncio.gather(*(more(name, channel) for name, channel in sockets.items()))
    return got


def _watch_receivers(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The group channels of the messages any process's receiver gets from Redis."""
    from config.channel_layers import _QuietShard

    came_back: list[str] = []
    receive = _QuietShard._receive_message

    def watched(self: Any, message: dict[str, Any] | None) -> None:
        if message is not None:
            name = message["channel"]
            came_back.append(name.decode() if isinstance(name, bytes) else name)
        receive(self, message)

    monkeypatch.setattr(_QuietShard, "_receive_message", watched)
    return came_back


class ManyAtOnceLayer:
    """A layer that sends several messages in one call, from the event loop only."""

    def __init__(self) -> None:
        self.calls: list[list[tuple[str, dict[str, Any]]]] = []

    async def group_send_many(self, messages: list[tuple[str, dict[str, Any]]]) -> None:
        self.calls.append(messages)

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        raise AssertionError("one message at a time")


class FromThreadLayer(ManyAtOnceLayer):
    """A layer that can also publish from the calling thread."""

    def __init__(self) -> None:
        super().__init__()
        self.threads: list[str] = []

    def publish_many(self, messages: list[tuple[str, dict[str, Any]]]) -> None:
        self.threads.append(threading.current_thread().name)
        self.calls.append(messages)

    async def group_send_many(self, messages: list[tuple[str, dict[str, Any]]]) -> None:
        raise AssertionError("a hop to the event loop")


@pytest.mark.parametrize("layer_class", [ManyAtOnceLayer, FromThreadLayer])
def test_a_move_s_frames_go_out_in_one_call_when_the_layer_can(
    monkeypatch: pytest.MonkeyPatch, layer_class: type[ManyAtOnceLayer]
) -> None:
    from games.live import broadcast

    layer = layer_class()
    monkeypatch.setattr(broadcast, "get_channel_layer", lambda: layer)
    messages = [(f"table-1-user-{n}", {"type": "table.frame", "html": str(n)}) for n in range(4)]
    broadcast.send(messages)
    assert layer.calls == [messages]
    if isinstance(layer, FromThreadLayer):
        assert layer.threads == [threading.current_thread().name]  # no hop elsewhere


def test_an_idle_socket_s_receiver_wakes_rarely_and_a_frame_still_arrives_at_once(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process with open sockets and no moves asks Redis for messages about once a
    second (channels_redis asks ten times), and a frame sent after such a quiet spell
    still reaches its socket (a message wakes the receiver whatever it waits for)."""
    from redis.asyncio.client import PubSub

    looks: list[float] = []
    get_message = PubSub.get_message

    async def counted(self: Any, *args: Any, **kwargs: Any) -> Any:
        looks.append(1)
        return await get_message(self, *args, **kwargs)

    monkeypatch.setattr(PubSub, "get_message", counted)

    async def scenario() -> int:
        layer = PipelinedPubSubChannelLayer(hosts=[redis_url], prefix="test")
        channel = await layer.new_channel()
        await layer.group_add("table-1-user-ann", channel)
        await asyncio.sleep(0.3)  # the receiver is waiting now
        first = len(looks)
        await asyncio.sleep(1.5)
        quiet_looks = len(looks) - first
        await layer.group_send("table-1-user-ann", {"type": "table.frame", "html": "<p>"})
        message = await asyncio.wait_for(layer.receive(channel), timeout=5)
        assert message["html"] == "<p>"
        await layer.flush()
        return quiet_looks

    assert asyncio.run(scenario()) <= 3  # channels_redis's own receiver: 15 in 1.5 s
