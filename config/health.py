"""/healthz: can this process reach its database and its channel layer?

200 {"status": "ok", ...} when both answer, 503 {"status": "unavailable",
"failed": [...], ...} naming what did not. For load balancers, container
health checks and monitoring: no login, no session, no template; one
``SELECT 1`` and one Redis PING (0.5 s timeout, no retry), so it answers within
about a second even with Redis gone. Not in the request log
(config.middleware.QUIET_PATHS) nor in nginx's access log.

The reason given for a failure is the exception's class only: the page is
public, the details (host names, ports) go to the log.
"""

from __future__ import annotations

import asyncio
import logging
from functools import cache
from typing import Any

import redis
from asgiref.sync import async_to_sync
from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.utils.module_loading import import_string
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe
from redis.backoff import NoBackoff
from redis.retry import Retry

from config import delivery

TIMEOUT = 0.5  # seconds for each Redis connect and PING

log = logging.getLogger(__name__)


def check_database() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")


@cache
def _redis(address: str) -> redis.Redis:
    # One small pool per address and process; no retry, so a dead Redis costs one timeout.
    return redis.Redis.from_url(
        address,
        socket_timeout=TIMEOUT,
        socket_connect_timeout=TIMEOUT,
        retry=Retry(NoBackoff(), 0),
        max_connections=4,
    )


def redis_addresses(layer: dict[str, Any]) -> list[str]:
    """The Redis URLs of a channels_redis layer's settings (none for other backends)."""
    backend = import_string(str(layer.get("BACKEND", "")))
    if not any(base.__module__.startswith("channels_redis.") for base in backend.__mro__):
        return []
    hosts = layer.get("CONFIG", {}).get("hosts") or ["redis://localhost:6379"]
    return [host["address"] if isinstance(host, dict) else str(host) for host in hosts]


def check_channel_layer() -> None:
    layer = settings.CHANNEL_LAYERS["default"]
    addresses = redis_addresses(layer)
    for address in addresses:
        _redis(address).ping()
    if not addresses:
        # Another backend (the in-memory one): a message round trip through it.
        from channels.layers import get_channel_layer

        async def round_trip() -> None:
            channel_layer = get_channel_layer()
            channel = await channel_layer.new_channel()
            await channel_layer.send(channel, {"type": "health.check"})
            await asyncio.wait_for(channel_layer.receive(channel), TIMEOUT)

        async_to_sync(round_trip)()


CHECKS = {
    "database": check_database,
    "channel_layer": check_channel_layer,
    # The last delivery of a move's frames from this process failed (config.delivery).
    "delivery": delivery.check,
}


@login_not_required
@never_cache
@require_safe
def healthz(request: HttpRequest) -> JsonResponse:
    checks: dict[str, str] = {}
    for name, check in CHECKS.items():
        try:
            check()
        except Exception as error:
            log.warning("health check %s failed: %r", name, error)
            checks[name] = type(error).__name__
        else:
            checks[name] = "ok"
    failed = [name for name, outcome in checks.items() if outcome != "ok"]
    body = {"status": "unavailable" if failed else "ok", "failed": failed, "checks": checks}
    return JsonResponse(body, status=503 if failed else 200)
