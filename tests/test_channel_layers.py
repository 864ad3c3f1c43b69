"""A move's frames leave in one round trip to Redis (config.channel_layers), each to its
own group only (R4: a hand goes to its owner's sockets, nobody else's)."""

from __future__ import annotations

import asyncio
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


@pytest.mark.parametrize("from_thread", [False, True], ids=["group_send_many", "publish_many"])
def test_a_move_s_messages_reach_each_group_only_in_one_pipeline(
    redis_url: str, monkeypatch: pytest.MonkeyPatch, from_thread: bool
) -> None:
    """R4: each frame reaches its own group's sockets only; all of them in one round trip,
    from the event loop (group_send_many) or from a request thread (publish_many)."""
    commands: list[str] = []
    pipelines: list[int] = []
    execute_command, execute = Redis.execute_command, Pipeline.execute
    execute_command_sync, execute_sync = redis.Redis.execute_command, redis.client.Pipeline.execute

    def counted_command_sync(self: Any, *args: Any, **options: Any) -> Any:
        commands.append(str(args[0]))
        return execute_command_sync(self, *args, **options)

    def counted_pipeline_sync(self: Any, *args: Any, **kwargs: Any) -> Any:
        pipelines.append(len(self.command_stack))
        return execute_sync(self, *args, **kwargs)

    async def counted_command(self: Any, *args: Any, **options: Any) -> Any:
        commands.append(str(args[0]))
        return await execute_command(self, *args, **options)

    async def counted_pipeline(self: Any, *args: Any, **kwargs: Any) -> Any:
        pipelines.append(len(self.command_stack))
        return await execute(self, *args, **kwargs)

    async def scenario() -> dict[str, list[str]]:
        layer = PipelinedPubSubChannelLayer(hosts=[redis_url], prefix="test")
        sockets = {name: await layer.new_channel() for name in ("ann", "bob", "cid")}
        for name, channel in sockets.items():
            await layer.group_add(f"table-1-user-{name}", channel)
        sockets["ann, 2nd tab"] = await layer.new_channel()
        await layer.group_add("table-1-user-ann", sockets["ann, 2nd tab"])
        monkeypatch.setattr(Redis, "execute_command", counted_command)
        monkeypatch.setattr(Pipeline, "execute", counted_pipeline)
        monkeypatch.setattr(redis.Redis, "execute_command", counted_command_sync)
        monkeypatch.setattr(redis.client.Pipeline, "execute", counted_pipeline_sync)
        messages = [
            ("table-1-user-ann", {"type": "table.frame", "html": "ann's hand"}),
            ("table-1-user-bob", {"type": "table.frame", "html": "bob's hand"}),
            ("table-1-user-cid", {"type": "table.frame", "html": "cid's hand"}),
        ]
        if from_thread:
            await asyncio.to_thread(layer.publish_many, messages)
        else:
            await layer.group_send_many(messages)
        got: dict[str, list[str]] = {}
        for name, channel in sockets.items():
            got[name] = [(await asyncio.wait_for(layer.receive(channel), 5))["html"]]

        async def nothing_more(channel: str) -> bool:
            try:
                await asyncio.wait_for(layer.receive(channel), 0.3)
            except TimeoutError:
                return True
            return False

        # Every socket at once: one wait, not one per socket.
        assert all(await asyncio.gather(*(nothing_more(c) for c in sockets.values())))
        await layer.flush()
        return got

    got = asyncio.run(scenario())
    assert got == {
        "ann": ["ann's hand"],
        "ann, 2nd tab": ["ann's hand"],
        "bob": ["bob's hand"],
        "cid": ["cid's hand"],
    }
    assert pipelines == [3]  # the three PUBLISHes in one pipeline
    assert "PUBLISH" not in commands  # none of them alone


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
    from games import broadcast

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
