"""The suite deletes only its own cache keys: a shared Redis database is never flushed."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from django.core.cache import cache
from django.test.utils import override_settings

from tests.support.cache import clear_own_cache_keys, own_cache_prefix
from tests.support.redis_server import private_redis_server


@pytest.fixture
def redis_cache(tmp_path: Path) -> Iterator[redis.Redis]:
    """The cache on a private Redis (its database 1), under the prefix "tests-own"."""
    backend = {"BACKEND": "django.core.cache.backends.redis.RedisCache"}
    # The settings are undone before the server stops, so the suite's own clean-up
    # meets a live cache.
    with (
        private_redis_server(tmp_path) as server,
        override_settings(CACHES={"default": {**backend, "LOCATION": server.url(1)}}),
        own_cache_prefix("tests-own"),
    ):
        yield redis.Redis.from_url(server.url(1))


def test_clearing_deletes_our_keys_and_leaves_everybody_elses(redis_cache) -> None:
    redis_cache.set(":1:django.contrib.sessions.cache.someones-session", b"theirs")
    redis_cache.set("asgi:group:table-1", b"theirs too")
    cache.set("signup:127.0.0.1", 3)
    assert redis_cache.exists("tests-own:1:signup:127.0.0.1")

    clear_own_cache_keys()

    assert cache.get("signup:127.0.0.1") is None
    assert redis_cache.get(":1:django.contrib.sessions.cache.someones-session") == b"theirs"
    assert redis_cache.get("asgi:group:table-1") == b"theirs too"
