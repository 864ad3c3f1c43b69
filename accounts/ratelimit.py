"""A small fixed-window counter in Django's cache, for sign-ups per IP.

Log-in throttling is django-axes's job; sign-up has no such library hook, and a
cache counter is all it needs. The cache is Redis when REDIS_URL is set, so the
limit holds across processes.
"""

from django.core.cache import cache
from django.http import HttpRequest


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
