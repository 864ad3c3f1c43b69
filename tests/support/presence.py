"""Sockets as presence sees them, for tests that record frames without opening one.

A move renders frames only for the seats with an open socket (games.live.broadcast asks
games.storage.presence). Tests that check every seat's frame through a recording channel
layer mark every seat as watching first, with entries that outlive the test.
"""

from __future__ import annotations

from typing import Any

from django.test import override_settings

from games.storage import presence


def every_seat_watching(table: Any) -> None:
    """Record one open socket per seat of ``table``, alive for an hour."""
    with override_settings(PRESENCE_HEARTBEAT_SECONDS=1200):
        for seat_id in table.seats.values_list("pk", flat=True):
            presence.touch(seat_id, f"test-socket-{seat_id}")
