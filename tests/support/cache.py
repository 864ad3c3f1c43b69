"""Tests keep to cache keys of their own.

With REDIS_URL set, the cache is a Redis database that other people's servers and
test runs may use too, so the suite never flushes it: every test process gets a
key prefix of its own (``own_cache_prefix``), and ``clear_own_cache_keys``
deletes only keys under that prefix. A process-local cache (locmem) is ours
alone and is simply cleared.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings
from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache
from django.test.utils import override_settings

PREFIX = f"tests-{os.getpid()}-{secrets.token_hex(4)}"


@contextmanager
def own_cache_prefix(prefix: str = PREFIX) -> Iterator[None]:
    configured = {name: {**conf, "KEY_PREFIX": prefix} for name, conf in settings.CACHES.items()}
    with override_settings(CACHES=configured):
        yield


def clear_own_cache_keys() -> None:
    for cache in caches.all():
        if isinstance(cache, RedisCache):
            client = cache._cache.get_client(write=True)
            keys = list(client.scan_iter(match=f"{cache.key_prefix}:*", count=1000))
            if keys:
                client.delete(*keys)
        else:
            cache.clear()
