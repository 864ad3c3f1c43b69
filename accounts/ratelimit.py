"""Rate limits in Django's cache: a fixed-window counter (chat) and the sign-up limit.

Log-in throttling is django-axes's job; sign-up has no such library hook, and a
few cache entries are all it needs. The cache is Redis when REDIS_URL is set, so
the limits hold across processes.

Sign-up per IP is a sliding window with two sizes: at most SIGNUP_RATE_LIMIT
attempts in any hour (a club or a school behind one address signs up 30
people in an evening, typing mistakes included) and SIGNUP_DAILY_LIMIT in any
day (a script that keeps going is stopped for the day). Every POST counts.

With the cache unreachable (Redis down or stalled), the limits are counted in this
process's memory until it is back: sign-up and chat go on, still limited per
process, instead of failing (issue 45).
"""

import logging
import time
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.core.cache.backends.locmem import LocMemCache
from django.http import HttpRequest

log = logging.getLogger(__name__)
#: Where the limits are counted while the shared cache cannot be reached.
_local = LocMemCache("ratelimit-fallback", {"OPTIONS": {"MAX_ENTRIES": 10_000}})


def _shared_or_local(count: Any) -> Any:
    """``count(cache)`` on the shared cache; on the process's own when that fails."""
    try:
        return count(cache)
    except Exception:
        log.warning("rate limits: the cache failed, counted in this process", exc_info=True)
        return count(_local)


HOUR, DAY = 3600, 24 * 3600
clock = time.time  # the tests move it


def client_ip(request: HttpRequest) -> str:
    return str(request.META.get("REMOTE_ADDR") or "unknown")


def hit(scope: str, key: str, limit: int, window_seconds: int) -> bool:
    """Count one attempt; True while the caller is still under its limit."""
    cache_key = f"ratelimit:{scope}:{key}"

    def count(store: Any) -> int:
        store.add(cache_key, 0, timeout=window_seconds)
        try:
            return int(store.incr(cache_key))
        except ValueError:  # expired between add and incr
            store.set(cache_key, 1, timeout=window_seconds)
            return 1

    return bool(_shared_or_local(count) <= limit)


def allow_signup(ip: str) -> bool:
    """Count one sign-up attempt from ``ip``; False once either window is full."""
    now = clock()
    key = f"ratelimit:signup:{ip}"

    def count(store: Any) -> bool:
        # The attempts of the last day, oldest first. Two attempts at the same instant
        # from two processes may count once: a limit for abuse, not an exact ledger.
        attempts = [t for t in store.get(key, []) if t > now - DAY]
        last_hour = sum(1 for t in attempts if t > now - HOUR)
        if last_hour >= settings.SIGNUP_RATE_LIMIT or len(attempts) >= settings.SIGNUP_DAILY_LIMIT:
            return False
        attempts.append(now)
        store.set(key, attempts, timeout=DAY)
        return True

    return bool(_shared_or_local(count))
