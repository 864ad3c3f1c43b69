"""Whether this process can deliver a move's frames: /healthz says so (issue 46).

A move is committed before its frames go (games.live.broadcast), so a channel layer
that fails must not turn a saved move into an error page: the pages heal by
themselves (a socket's heartbeat sends a snapshot to a page that missed a frame).
But a delivery that fails on every move (a library upgraded under
config/channel_layers.py, Redis refusing) leaves every table without live
updates, and must not pass for a warning: each failure is logged as an error,
and /healthz answers 503 ("delivery") from the first failure until a delivery
succeeds again.
"""

from __future__ import annotations

import threading
import time

_lock = threading.Lock()
_failing: tuple[float, str] | None = None  # (since when, the error's class)


class DeliveryFailing(Exception):
    pass


def failed(error: BaseException) -> None:
    global _failing
    with _lock:
        if _failing is None:
            _failing = (time.time(), type(error).__name__)


def succeeded() -> None:
    global _failing
    if _failing is not None:
        with _lock:
            _failing = None


def check() -> None:
    """Raise DeliveryFailing if this process's last delivery failed."""
    failing = _failing
    if failing is not None:
        since, error = failing
        raise DeliveryFailing(f"{error} since {time.strftime('%H:%M:%S', time.gmtime(since))}")
