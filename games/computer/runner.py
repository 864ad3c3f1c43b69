"""The thread of a server process that makes the computer's moves as they fall due.

It wakes when a committed move leaves a computer move due (games.play.outcome's
signal), when the next known due moment comes, and at least every
``COMPUTER_POLL_SECONDS``: a move whose process died before making it is found
from the database by any other process (or the same one restarted) that way.
Every process runs one (config.asgi); the actions keep two from making one move twice.
"""

from __future__ import annotations

import logging
import os
import threading
from typing import Any

from django.conf import settings
from django.db import close_old_connections
from django.utils import timezone

from games.computer import moves
from games.play import outcome

log = logging.getLogger(__name__)

_wake = threading.Event()
_started = threading.Lock()
_thread: threading.Thread | None = None


def enabled() -> bool:
    """COMPUTER_RUNNER=0 turns it off (a test process, which makes moves by itself)."""
    return os.environ.get("COMPUTER_RUNNER", "1") != "0"


def _on_commit(sender: Any, outcome: outcome.Outcome, **kwargs: Any) -> None:
    if outcome.table.computer_due_at is not None:
        _wake.set()


def _poll_seconds() -> float:
    return float(getattr(settings, "COMPUTER_POLL_SECONDS", 1.0))


def _loop() -> None:
    wait = 0.0
    while True:
        _wake.wait(wait)
        _wake.clear()
        try:
            now = timezone.now()
            due, later = moves.due_tables(now)
            for table_id in due:
                moves.make_due_moves(table_id)
            wait = _poll_seconds()
            if later is not None:
                wait = max(0.0, min(wait, (later - timezone.now()).total_seconds()))
        except Exception:
            log.exception("computer moves: a pass failed")
            wait = _poll_seconds()
        finally:
            close_old_connections()


def start() -> bool:
    """Start this process's runner once; whether it runs."""
    global _thread
    if not enabled():
        return False
    with _started:
        if _thread is None:
            outcome.committed.connect(_on_commit, dispatch_uid="games.computer.runner")
            _thread = threading.Thread(target=_loop, name="computer-moves", daemon=True)
            _thread.start()
    return True
