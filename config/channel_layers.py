"""The Redis pub/sub channel layer, able to send several group messages in one round trip.

A move sends one frame to each seated user's own group (games.broadcast: a hand
never travels to anyone else), four to eight messages at once. Through
``group_send`` each is a PUBLISH of its own: a pool checkout, a write and a
wait for Redis's answer, one after the other under the shard's lock; about a
tenth of the server's CPU per move went there. ``group_send_many`` publishes
them in one pipeline per Redis shard: one checkout, one write, one answer.
Receiving is unchanged: every subscriber gets each message as from
``group_send``.

A move is made in a request thread, not on the event loop. ``group_send_many``
from there takes a hop to the loop and back (``async_to_sync``), queued behind
whatever the loop is doing. ``publish_many`` sends the same PUBLISHes from the
calling thread through a synchronous Redis client (redis-py's, thread-safe, one
pool per shard): no hop, no coroutine. (Interleaved at 10 tables, scripts/bench_live.py
measured the two the same within the machine's noise.)

Receiving waits longer between idle wake-ups (``_QuietShard``): channels_redis's
receiver asks Redis for a message with a 0.1 s timeout, so a process with sockets
woke ten times a second with nothing to do. A message that arrives wakes it at
once whatever the timeout; the timeout only decides how often an idle process
turns its event loop (and the GIL) for nothing. It is a second here.

It leans on channels_redis's own pieces (the group's channel name, the shard of
a name, the shard's lock and client), pinned at 4.3.0 in requirements.lock;
tests/test_channel_layers.py checks delivery against a real Redis.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import threading
from collections import defaultdict
from typing import Any

import redis
from channels_redis.pubsub import (
    RedisPubSubChannelLayer,
    RedisPubSubLoopLayer,
    RedisSingleShardConnection,
)

logger = logging.getLogger(__name__)

#: Seconds the receiver waits for a message before it looks again (channels_redis: 0.1).
IDLE_WAIT = 1.0


class PipelinedPubSubChannelLayer(RedisPubSubChannelLayer):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, redis.Redis] = {}
        self._clients_lock = threading.Lock()

    @functools.cached_property
    def _names(self) -> RedisPubSubLoopLayer:
        # The layer each event loop gets, for its naming only (the groups' channel
        # names, the shard of a name): it opens no connection until it is used.
        return RedisPubSubLoopLayer(*self._args, **self._kwargs, channel_layer=self)

    def _get_layer(self) -> RedisPubSubLoopLayer:
        layer: RedisPubSubLoopLayer = super()._get_layer()
        for shard in layer._shards:
            if type(shard) is RedisSingleShardConnection:
                shard.__class__ = _QuietShard
        return layer

    def _client(self, shard: int) -> redis.Redis:
        with self._clients_lock:
            client = self._clients.get(shard)
            if client is None:
                host = dict(self._names._shards[shard].host)
                client = redis.Redis.from_url(host.pop("address"), **host)
                self._clients[shard] = client
            return client

    def publish_many(self, messages: list[tuple[str, dict[str, Any]]]) -> None:
        """``group_send`` each (group, message) from a thread, in one pipeline per shard."""
        names = self._names
        by_shard: dict[int, list[tuple[str, bytes]]] = defaultdict(list)
        for group, message in messages:
            channel = names._get_group_channel_name(group)
            shard = names._shards.index(names._get_shard(channel))
            by_shard[shard].append((channel, self.serialize(message)))
        for shard, items in by_shard.items():
            with self._client(shard).pipeline(transaction=False) as pipeline:
                for channel, data in items:
                    pipeline.publish(channel, data)
                pipeline.execute()

    async def group_send_many(self, messages: list[tuple[str, dict[str, Any]]]) -> None:
        """``group_send`` each (group, message), one pipeline per Redis shard."""
        layer = self._get_layer()
        by_shard: dict[Any, list[tuple[str, bytes]]] = defaultdict(list)
        for group, message in messages:
            channel = layer._get_group_channel_name(group)
            by_shard[layer._get_shard(channel)].append((channel, self.serialize(message)))
        await asyncio.gather(*(_publish(shard, items) for shard, items in by_shard.items()))


class _QuietShard(RedisSingleShardConnection):
    """A shard whose receiver waits IDLE_WAIT for a message, not 0.1 s."""

    async def _do_receiving(self) -> None:
        # As channels_redis 4.3.0's, but for the wait. Before the first subscription
        # is made, it looks again after 0.1 s as before, so that a new socket's first
        # messages do not wait a second.
        while True:
            try:
                if self._pubsub and self._pubsub.subscribed:
                    message = await self._pubsub.get_message(
                        ignore_subscribe_messages=True, timeout=IDLE_WAIT
                    )
                    self._receive_message(message)
                else:
                    await asyncio.sleep(0.1)
            except (TimeoutError, asyncio.CancelledError, GeneratorExit):
                raise
            except BaseException:
                logger.exception("Unexpected exception in receive task")
                await asyncio.sleep(1)


async def _publish(shard: Any, items: list[tuple[str, bytes]]) -> None:
    # As RedisSingleShardConnection.publish, for several messages: under its lock.
    async with shard._lock:
        shard._ensure_redis()
        async with shard._redis.pipeline(transaction=False) as pipeline:
            for channel, data in items:
                pipeline.publish(channel, data)
            await pipeline.execute()
