"""The Redis cache: one connection per process, not one per request, and it fails fast.

Django keeps a cache object per asyncio context, and under ASGI each request has
its own: with redis-py's stock pool every request opened a new Redis connection
(sessions, presence). config.redis_cache gives Django's RedisCache a pool shared
per process. A Redis that stalls fails a call within its socket timeout, and then
the process stops calling it for a few seconds (the circuit).
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from asgiref.sync import sync_to_async
from django.core.cache import cache
from django.test.utils import override_settings

from config import redis_cache
from tests.support.redis_server import RedisServer, private_redis_server


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[RedisServer]:
    with private_redis_server(tmp_path) as server:
        backend = {
            "BACKEND": "config.redis_cache.CircuitBreakerRedisCache",
            "LOCATION": server.url(1),
            "OPTIONS": {
                "pool_class": "config.redis_cache.SharedConnectionPool",
                "socket_timeout": 0.25,
                "socket_connect_timeout": 0.25,
            },
        }
        with override_settings(CACHES={"default": backend}):
            yield server
        redis_cache.circuit_for(server.url(1)).open_until = 0.0


def connected_clients(server: RedisServer) -> int:
    # Our own probe connection counts as one.
    return int(redis.Redis.from_url(server.url(0)).info("clients")["connected_clients"]) - 1


def test_requests_in_contexts_of_their_own_share_one_connection(private_redis) -> None:
    def one_request(number: int) -> object:
        # What a view does with the cache: a session read, a presence write.
        cache.set(f"seat:{number}", number)
        assert cache.get(f"seat:{number}") == number
        return cache._cache  # Django's client of this context's cache object

    async def requests() -> list[object]:
        # Each task runs in a context of its own, as each ASGI request does.
        return await asyncio.gather(
            *(asyncio.create_task(sync_to_async(one_request)(n)) for n in range(40))
        )

    asyncio.run(requests())
    # The requests ran one after the other on asgiref's thread: one connection did.
    assert connected_clients(private_redis) == 1


def test_a_stalled_redis_fails_fast_then_is_not_called_for_a_while(private_redis) -> None:
    """Fault: the Redis process is paused (SIGSTOP). The first call fails within its
    socket timeout, the next ones at once (the circuit is open); once Redis is back
    and the circuit's time is over, calls work again."""
    cache.set("before", 1)
    assert private_redis.process is not None
    os.kill(private_redis.process.pid, signal.SIGSTOP)
    try:
        started = time.monotonic()
        with pytest.raises(redis.TimeoutError):
            cache.get("before")
        assert time.monotonic() - started < 1
        started = time.monotonic()
        for _ in range(20):
            with pytest.raises(redis_cache.CacheUnavailable):
                cache.get("before")
        assert time.monotonic() - started < 0.2
    finally:
        os.kill(private_redis.process.pid, signal.SIGCONT)
    redis_cache.circuit_for(private_redis.url(1)).open_until = 0.0  # its time is over
    assert cache.get("before") == 1
