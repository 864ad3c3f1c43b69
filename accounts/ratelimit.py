"""Rate limits in Django's cache: a fixed-window counter (chat) and the sign-up limit.

Log-in throttling is django-axes's job; sign-up has no such library hook, and a
few cache entries are all it needs. The cache is Redis when REDIS_URL is set, so
the limits hold across processes.

Sign-up per IP is a sliding window with two sizes: at most SIGNUP_RATE_LIMIT
attempts in any hour (a club or a school behind one address signs up 30
people in an evening, typing mistakes included) and SIGNUP_DAILY_LIMIT in any
day (a script that keeps going is stopped for the day). Every POST counts.
"""

import time

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest

HOUR, DAY = 3600, 24 * 3600
clock = time.time  # the tests move it


def client_ip(request: HttpRequest) -> str:
    return str(request.META.get("REMOTE_ADDR") or "unknown")


def hit(scope: str, key: str, limit: int, window_seconds: int) -> bool:
    """Count one attempt; True while the caller is still under its limit."""
    cache_key = f"ratelimit:{scope}:{key}"
    cache.add(cache_key, 0, timeout=window_seconds)
    try:
        count = cache.incr(cache_key)
    except ValueError:  # expired between add and incr
        cache.set(cache_key, 1, timeout=window_seconds)
        count = 1
    return count <= limit


def allow_signup(ip: str) -> bool:
    """Count one sign-up attempt from ``ip``; False once either window is full."""
    now = clock()
    key = f"ratelimit:signup:{ip}"
    # The attempts of the last day, oldest first. Two attempts at the same instant
    # from two processes may count once: a limit for abuse, not an exact ledger.
    attempts = [t for t in cache.get(key, []) if t > now - DAY]
    last_hour = sum(1 for t in attempts if t > now - HOUR)
    if last_hour >= settings.SIGNUP_RATE_LIMIT or len(attempts) >= settings.SIGNUP_DAILY_LIMIT:
        return False
    attempts.append(now)
    cache.set(key, attempts, timeout=DAY)
    return True
