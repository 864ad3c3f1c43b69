"""Django's Redis cache with one client, and so one connection pool, per process.

Django keeps a cache object per asyncio context (``django.core.cache.caches`` is an
asgiref ``Local``), and under ASGI every request runs in a context of its own. With
the stock ``RedisCache`` each of those objects builds its own client, its own
connection pool and so a new TCP connection to Redis: every request paid for a
connect and for redis-py's driver-info lookup (``importlib.metadata``), about a
tenth of a move's CPU in the live benchmark. Here the client is built once per
process for each (servers, options) and shared; redis-py's pools are thread-safe
and reset themselves in a forked child.

The client also keeps its ``redis.Redis`` objects: Django's builds a new one around
the pool on every call (``get_client``), and redis-py's constructor sets up its
response callbacks each time, about a tenth of a millisecond per cache call, two
or three calls a move (the session, the seats watching). A ``Redis`` object over a
pool is safe to share between threads.

(django-redis shares its pools the same way; for this one property a subclass of
Django's own backend keeps the serializer and behaviour the project tests with.)
"""

from __future__ import annotations

import threading
from typing import Any

from django.core.cache.backends.redis import RedisCache, RedisCacheClient
from django.utils.functional import cached_property

_clients: dict[tuple[tuple[str, ...], str], RedisCacheClient] = {}
_lock = threading.Lock()


class SharedRedisCacheClient(RedisCacheClient):
    """Django's client, with one ``redis.Redis`` per pool instead of one per call."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._redis: dict[int, Any] = {}

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        index = self._get_connection_pool_index(write)
        client = self._redis.get(index)
        if client is None:
            pool = self._get_connection_pool(write)
            client = self._redis.setdefault(index, self._client(connection_pool=pool))
        return client


class SharedRedisCache(RedisCache):
    """``django.core.cache.backends.redis.RedisCache`` whose client is shared per process."""

    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = SharedRedisCacheClient

    @cached_property
    def _cache(self) -> Any:
        key = (tuple(self._servers), repr(sorted(self._options.items())))
        with _lock:
            client = _clients.get(key)
            if client is None:
                client = _clients[key] = self._class(self._servers, **self._options)
        return client
