"""The Redis pub/sub channel layer, able to send several group messages in one round trip.

A move sends one frame to each seated user's own group (games.live.broadcast: a hand
never travels to anyone else), four to eight messages at once. Through
``group_send`` each is a PUBLISH of its own: a pool checkout, a write and a
wait for Redis's answer, one after the other under the shard's lock; about a
tenth of the server's CPU per move went there. ``group_send_many`` publishes
them in one pipeline per Redis shard: one checkout, one write, one answer.
Receiving is unchanged: every subscriber gets each message as from
``group_send``.

A move is made in a request thread, not on the event loop. ``group_send_many``
from there takes a hop to the loop and back (``async_to_sync``), queued behind
whatever the loop is doing. ``publish_many`` works from the calling thread,
through a synchronous Redis client (redis-py's, thread-safe, one per shard): no
hop, no coroutine (see below for what it sends).

Receiving waits longer between idle wake-ups (``_QuietShard``): channels_redis's
receiver asks Redis for a message with a 0.1 s timeout, so a process with sockets
woke ten times a second with nothing to do. A message that arrives wakes it at
once whatever the timeout; the timeout only decides how often an idle process
turns its event loop (and the GIL) for nothing. It is a second here.

A move's frames reach the sockets of the process that made it without Redis on
the way (``publish_many``): the table's players are on that process (the deployment
routes a table to one process), and through Redis each frame cost a round trip and
a parse by the process's receiver before its socket had it, about a sixth of the
time from a move's POST to its last frame. So each message is put straight into
the queues of this process's sockets in its group (on their event loop, as the
receiver would), and published only where another process listens: one script
per shard asks Redis how many subscribers each group has (``PUBSUB NUMSUB``, which
counts this process's own subscription) and publishes those with more. Each
message carries this process's origin (``ORIGIN_KEY``, its first key, so that the
origin's random bytes open its serialized form), and this process's receiver drops
what it sent itself when it comes back (``_QuietShard``). Other processes, a release
older than this one included (the deployment restarts its processes one by one),
read the message as any other: a consumer reads only the keys it knows.

A socket of this process may take its messages straight from the delivery
(``listen_here``): its callback is called on its event loop with the message as
it was sent, instead of the message going through the socket's queue, where
channels' receive task took it out, decoded it and woke the consumer's dispatch
loop (an ``asyncio.wait`` per message): about a tenth of the server's CPU at 50
tables. The callback owns the order from there (games.live.consumers).

It leans on channels_redis's own pieces (the group's channel name, the shard of
a name, the shard's lock and client). Written against channels-redis 4.3.0
(pinned in requirements.lock): tests/test_library_internals.py fails when that
version or the source of a function mirrored here changes (docs/upgrading.md
says what to check); tests/test_channel_layers.py checks delivery against a real
Redis.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import os
import threading
from collections import defaultdict
from collections.abc import Callable
from typing import Any

import redis
from channels_redis.pubsub import (
    RedisPubSubChannelLayer,
    RedisPubSubLoopLayer,
    RedisSingleShardConnection,
)
from django.conf import settings

from config.redis_cache import Circuit, circuit_for

logger = logging.getLogger(__name__)

#: Seconds the receiver waits for a message before it looks again (channels_redis: 0.1).
IDLE_WAIT = 1.0

#: The key of a published message that holds the 16 random bytes of the process that
#: sent it (and delivered it to its own sockets already).
ORIGIN_KEY = "__origin__"
#: How far into a serialized message its origin is looked for: the key comes first,
#: after msgpack's map and string headers (the layer is not configured to encrypt).
ORIGIN_WITHIN = 48

#: For each (channel, subscriptions this process has to it, message) of ARGV: PUBLISH
#: the message if anyone else subscribes.
PUBLISH_ELSEWHERE = """
for i = 1, #ARGV, 3 do
  local subscribers = redis.call('PUBSUB', 'NUMSUB', ARGV[i])[2]
  if subscribers > tonumber(ARGV[i + 1]) then
    redis.call('PUBLISH', ARGV[i], ARGV[i + 2])
  end
end
"""


class PipelinedPubSubChannelLayer(RedisPubSubChannelLayer):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._scripts: dict[int, Any] = {}
        self._scripts_lock = threading.Lock()
        self.origin = os.urandom(16)
        # Channel name -> the callback of a socket of this process that takes its
        # messages from publish_many directly (listen_here). Channel names are unique
        # to the process, so one mapping serves every event loop.
        self._listeners: dict[str, Callable[[dict[str, Any]], None]] = {}

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

    def _script(self, shard: int) -> Any:
        """The shard's PUBLISH_ELSEWHERE (redis-py's Script: EVALSHA, loaded when missing)."""
        with self._scripts_lock:
            script = self._scripts.get(shard)
            if script is None:
                host = dict(self._names._shards[shard].host)
                # Called from a move's thread: a stalled Redis fails it fast (issue 45),
                # and the move's frames are healed by the next snapshot.
                timeout = float(getattr(settings, "REDIS_SOCKET_TIMEOUT", 0.25))
                host.setdefault("socket_timeout", timeout)
                host.setdefault("socket_connect_timeout", timeout)
                client = redis.Redis.from_url(host.pop("address"), **host)
                script = self._scripts[shard] = client.register_script(PUBLISH_ELSEWHERE)
            return script

    def _circuit(self, shard: int) -> Circuit:
        """The process's circuit for the shard's Redis (config.redis_cache)."""
        return circuit_for(str(self._names._shards[shard].host["address"]))

    def publish_many(self, messages: list[tuple[str, dict[str, Any]]]) -> None:
        """``group_send`` each (group, message) from a thread: to this process's sockets
        at once, then to other processes' with one script call per shard."""
        names = self._names
        here = list(self._layers.items())  # this process's event loops and their layers
        by_shard: dict[int, list[Any]] = defaultdict(list)
        local: list[tuple[str, bytes, dict[str, Any]]] = []
        for group, message in messages:
            channel = names._get_group_channel_name(group)
            data = self.serialize({ORIGIN_KEY: self.origin, **message})
            local.append((channel, data, message))
            shard = names._shards.index(names._get_shard(channel))
            by_shard[shard] += [channel, _subscriptions_here(here, channel), data]
        for loop, layer in here:
            with contextlib.suppress(RuntimeError):  # a loop closed since
                loop.call_soon_threadsafe(_deliver, layer, local, self._listeners)
        for shard, arguments in by_shard.items():
            self._circuit(shard).call(self._script(shard), args=arguments)

    def listen_here(self, channel: str, callback: Callable[[dict[str, Any]], None]) -> None:
        """Hand ``channel``'s messages from this process's ``publish_many`` to
        ``callback``, called on the channel's event loop with each message as it was
        sent (unserialized: read it, never change it). Messages from other processes
        and from ``group_send`` still arrive through ``receive``."""
        self._listeners[channel] = callback

    def stop_listening_here(self, channel: str) -> None:
        self._listeners.pop(channel, None)

    def listened_here(self, groups: list[str]) -> set[str]:
        """The ``groups`` that a socket of this process has joined (from any thread):
        whoever watches them here needs no word from Redis to be known."""
        names = self._names
        layers = [layer for _loop, layer in list(self._layers.items())]
        return {
            group
            for group in groups
            if any(layer.groups.get(names._get_group_channel_name(group)) for layer in layers)
        }

    async def group_send_many(self, messages: list[tuple[str, dict[str, Any]]]) -> None:
        """``group_send`` each (group, message), one pipeline per Redis shard."""
        layer = self._get_layer()
        by_shard: dict[Any, list[tuple[str, bytes]]] = defaultdict(list)
        for group, message in messages:
            channel = layer._get_group_channel_name(group)
            by_shard[layer._get_shard(channel)].append((channel, self.serialize(message)))
        await asyncio.gather(*(_publish(shard, items) for shard, items in by_shard.items()))


class _QuietShard(RedisSingleShardConnection):
    """A shard whose receiver waits IDLE_WAIT for a message, not 0.1 s, and drops the
    messages its process delivered itself (``publish_many``)."""

    def _receive_message(self, message: dict[str, Any] | None) -> None:
        if message is not None:
            origin = self.channel_layer.channel_layer.origin
            if origin in message["data"][:ORIGIN_WITHIN]:
                return  # sent by this process, which delivered it to its sockets
        super()._receive_message(message)

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


def _subscriptions_here(here: list[tuple[Any, RedisPubSubLoopLayer]], channel: str) -> int:
    """How many of the Redis subscriptions to ``channel`` are this process's: one for
    each event loop with a socket in the group whose subscription is made (a group
    still being joined or left counts as none, so that the message is published
    whenever another process may listen; what comes back is dropped)."""
    return sum(
        1
        for _loop, layer in here
        if layer.groups.get(channel) and channel in layer._get_shard(channel)._subscribed_to
    )


def _deliver(
    layer: RedisPubSubLoopLayer,
    messages: list[tuple[str, bytes, dict[str, Any]]],
    listeners: dict[str, Callable[[dict[str, Any]], None]],
) -> None:
    """On the layer's event loop: each (group channel, serialized message, message) to
    every socket of this process in the group: to its callback where it listens here,
    else into its queue, as channels_redis's receiver does."""
    for channel, data, message in messages:
        for name in layer.groups.get(channel, ()):
            callback = listeners.get(name)
            if callback is not None:
                try:
                    callback(message)
                except Exception:
                    logger.exception("a socket's callback refused a message")
                continue
            queue = layer.channels.get(name)
            if queue is not None:
                queue.put_nowait(data)


async def _publish(shard: Any, items: list[tuple[str, bytes]]) -> None:
    # As RedisSingleShardConnection.publish, for several messages: under its lock.
    async with shard._lock:
        shard._ensure_redis()
        async with shard._redis.pipeline(transaction=False) as pipeline:
            for channel, data in items:
                pipeline.publish(channel, data)
            await pipeline.execute()
