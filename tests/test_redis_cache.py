"""The Redis cache opens its connections once per process, not once per request.

Django keeps a cache object per asyncio context, and under ASGI each request has
its own: with the stock backend every request opened a new Redis connection
(sessions, presence). config.redis_cache.SharedRedisCache shares one client.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from asgiref.sync import sync_to_async
from django.core.cache import cache
from django.test.utils import override_settings

from tests.support.redis_server import RedisServer, private_redis_server


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[RedisServer]:
    with private_redis_server(tmp_path) as server:
        backend = {"BACKEND": "config.redis_cache.SharedRedisCache", "LOCATION": server.url(1)}
        with override_settings(CACHES={"default": backend}):
            yield server


def connected_clients(server: RedisServer) -> int:
    # Our own probe connection counts as one.
    return int(redis.Redis.from_url(server.url(0)).info("clients")["connected_clients"]) - 1


def test_requests_in_contexts_of_their_own_share_one_connection(private_redis) -> None:
    def one_request(number: int) -> object:
        # What a view does with the cache: a session read, a presence write.
        cache.set(f"seat:{number}", number)
        assert cache.get(f"seat:{number}") == number
        return cache._cache

    async def requests() -> list[object]:
        # Each task runs in a context of its own, as each ASGI request does.
        return await asyncio.gather(
            *(asyncio.create_task(sync_to_async(one_request)(n)) for n in range(40))
        )

    clients = asyncio.run(requests())
    assert len({id(client) for client in clients}) == 1
    # ... and one redis-py client over its pool, not a new one for every call.
    assert cache._cache.get_client() is cache._cache.get_client()
    # The requests ran one after the other on asgiref's thread: one connection did.
    assert connected_clients(private_redis) == 1
