"""A move's frames leave in one round trip to Redis (config.channel_layers), each to its
own group only (R4: a hand goes to its owner's sockets, nobody else's)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from redis.asyncio.client import Pipeline, Redis

from config.channel_layers import PipelinedPubSubChannelLayer
from tests.support.redis_server import private_redis_server


@pytest.fixture
def redis_url(tmp_path: Path) -> Iterator[str]:
    with private_redis_server(tmp_path) as server:
        yield server.url(0)


def test_group_send_many_delivers_each_message_to_its_group_only(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
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
        sockets = {name: await layer.new_channel() for name in ("ann", "bob", "cid")}
        for name, channel in sockets.items():
            await layer.group_add(f"table-1-user-{name}", channel)
        sockets["ann, 2nd tab"] = await layer.new_channel()
        await layer.group_add("table-1-user-ann", sockets["ann, 2nd tab"])
        monkeypatch.setattr(Redis, "execute_command", counted_command)
        monkeypatch.setattr(Pipeline, "execute", counted_pipeline)
        await layer.group_send_many(
            [
                ("table-1-user-ann", {"type": "table.frame", "html": "ann's hand"}),
                ("table-1-user-bob", {"type": "table.frame", "html": "bob's hand"}),
                ("table-1-user-cid", {"type": "table.frame", "html": "cid's hand"}),
            ]
        )
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


def test_a_move_s_frames_go_out_in_one_call_when_the_layer_can(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from games import broadcast

    class Layer:
        def __init__(self) -> None:
            self.calls: list[list[tuple[str, dict[str, Any]]]] = []

        async def group_send_many(self, messages: list[tuple[str, dict[str, Any]]]) -> None:
            self.calls.append(messages)

        async def group_send(self, group: str, message: dict[str, Any]) -> None:
            raise AssertionError("one message at a time")

    layer = Layer()
    monkeypatch.setattr(broadcast, "get_channel_layer", lambda: layer)
    messages = [(f"table-1-user-{n}", {"type": "table.frame", "html": str(n)}) for n in range(4)]
    broadcast.send(messages)
    assert layer.calls == [messages]
