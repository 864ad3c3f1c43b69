"""Django's own Redis cache, with one connection pool per process and a circuit breaker.

**One pool per process.** Django keeps a cache object per asyncio context
(``django.core.cache.caches`` is an asgiref ``Local``), and under ASGI every request
runs in a context of its own. Each of those objects builds its own client, and with
redis-py's stock pool each client its own pool and so a new TCP connection to Redis:
every request paid for a connect and for redis-py's driver-info lookup, about a
tenth of a move's CPU in the live benchmark. ``SharedConnectionPool`` is the pool
class Django's ``RedisCache`` is given (its documented ``pool_class`` option): its
``from_url`` hands out one pool per (URL, options) per process. redis-py's pools
are thread-safe and reset themselves in a forked child.

(Django's client still builds a ``redis.Redis`` object around the pool on each
call, about a tenth of a millisecond; the subclass that kept them used seven
private names of Django's backend, issue 46.)

**Fail fast.** A cache call on a request's path (the session, presence, the rate
limits) must not wait for a Redis that is gone or stalled: the settings give the
pool short socket timeouts (``socket_timeout``, ``socket_connect_timeout``), and
``CircuitBreakerRedisCache`` stops calling a Redis that failed for
``CIRCUIT_OPEN_SECONDS``: each call then raises ``CacheUnavailable`` at once, and
each caller falls back as it does on any cache error (sessions from the database,
presence shown as unknown, rate limits counted in the process). The first call
after that time tries Redis again.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import redis
from django.core.cache.backends.redis import RedisCache

#: How long a process stops calling a Redis whose call failed (seconds).
CIRCUIT_OPEN_SECONDS = 5.0

_pools: dict[tuple[str, str], redis.ConnectionPool] = {}
_pools_lock = threading.Lock()


class SharedConnectionPool(redis.ConnectionPool):
    """redis-py's pool, one per (URL, options) in a process (Django's ``pool_class``)."""

    @classmethod
    def from_url(cls, url: str, **kwargs: Any) -> Any:
        key = (url, repr(sorted(kwargs.items(), key=lambda item: item[0])))
        with _pools_lock:
            pool = _pools.get(key)
            if pool is None:
                pool = _pools[key] = super().from_url(url, **kwargs)
            return pool


class CacheUnavailable(redis.ConnectionError):
    """Redis failed a moment ago: not called again yet."""


class Circuit:
    """Open (calls refused at once) for ``open_for`` seconds after a connection error
    or a timeout; closed again by the first call that succeeds after that."""

    def __init__(self, open_for: float = CIRCUIT_OPEN_SECONDS) -> None:
        self.open_for = open_for
        self.open_until = 0.0

    def call[R](self, func: Callable[..., R], *args: Any, **kwargs: Any) -> R:
        if time.monotonic() < self.open_until:
            raise CacheUnavailable("Redis failed a moment ago: not called")
        try:
            result = func(*args, **kwargs)
        except (redis.ConnectionError, redis.TimeoutError):
            self.open_until = time.monotonic() + self.open_for
            raise
        self.open_until = 0.0
        return result

    def is_open(self) -> bool:
        return time.monotonic() < self.open_until


_circuits: dict[str, Circuit] = {}
_circuits_lock = threading.Lock()


def circuit_for(location: str) -> Circuit:
    """The process's circuit for one Redis (its URL)."""
    with _circuits_lock:
        return _circuits.setdefault(location, Circuit())


class CircuitBreakerRedisCache(RedisCache):
    """Django's ``RedisCache``; each of its public calls goes through the circuit of
    its server (shared by every cache object of the process)."""

    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self.circuit = circuit_for(server if isinstance(server, str) else ",".join(server))

    def add(self, *args: Any, **kwargs: Any) -> Any:
        return self.circuit.call(super().add, *args, **kwargs)

    def get(self, *args: Any, **kwargs: Any) -> Any:
        return self.circuit.call(super().get, *args, **kwargs)

    def set(self, *args: Any, **kwargs: Any) -> Any:
        return self.circuit.call(super().set, *args, **kwargs)

    def touch(self, *args: Any, **kwargs: Any) -> Any:
        return self.circuit.call(super().touch, *args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> Any:
        return self.circuit.call(super().delete, *args, **kwargs)

    def get_many(self, *args: Any, **kwargs: Any) -> Any:
        return self.circuit.call(super().get_many, *args, **kwargs)

    def has_key(self, *args: Any, **kwargs: Any) -> Any:
        return self.circuit.call(super().has_key, *args, **kwargs)

    def incr(self, *args: Any, **kwargs: Any) -> Any:
        return self.circuit.call(super().incr, *args, **kwargs)

    def set_many(self, *args: Any, **kwargs: Any) -> Any:
        return self.circuit.call(super().set_many, *args, **kwargs)

    def delete_many(self, *args: Any, **kwargs: Any) -> Any:
        return self.circuit.call(super().delete_many, *args, **kwargs)

    def clear(self) -> Any:
        return self.circuit.call(super().clear)
