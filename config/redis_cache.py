"""Django's Redis cache with one client, and so one connection pool, per process.

Django keeps a cache object per asyncio context (``django.core.cache.caches`` is an
asgiref ``Local``), and under ASGI every request runs in a context of its own. With
the stock ``RedisCache`` each of those objects builds its own client, its own
connection pool and so a new TCP connection to Redis: every request paid for a
connect and for redis-py's driver-info lookup (``importlib.metadata``), about a
tenth of a move's CPU in the live benchmark. Here the client is built once per
process for each (servers, options) and shared; redis-py's pools are thread-safe
and reset themselves in a forked child.

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


class SharedRedisCache(RedisCache):
    """``django.core.cache.backends.redis.RedisCache`` whose client is shared per process."""

    @cached_property
    def _cache(self) -> Any:
        key = (tuple(self._servers), repr(sorted(self._options.items())))
        with _lock:
            client = _clients.get(key)
            if client is None:
                client = _clients[key] = self._class(self._servers, **self._options)
        return client
