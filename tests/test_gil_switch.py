"""The server process hands the GIL between its threads every millisecond (config.asgi).

Issue 9: a request thread that waits on PostgreSQL or Redis gets the GIL back only
when the switch interval ends; at Python's default 5 ms, 10 tables on one process
queued every move behind the others. Checked in a fresh interpreter, as a server
starts: importing the ASGI application is what sets it.
"""

from __future__ import annotations

import os

import pytest

from tests.support.servers import python_said

READ_INTERVAL = "import config.asgi, sys; print(sys.getswitchinterval())"


def interval_in_server(**env: str) -> float:
    environment = {k: v for k, v in os.environ.items() if k != "GIL_SWITCH_INTERVAL_MS"}
    environment.update(DJANGO_SETTINGS_MODULE="config.settings", **env)
    return float(python_said(READ_INTERVAL, environment))


def test_the_server_switches_threads_every_millisecond() -> None:
    assert interval_in_server() == pytest.approx(0.001)


def test_the_interval_can_be_set_in_the_environment() -> None:
    assert interval_in_server(GIL_SWITCH_INTERVAL_MS="0.5") == pytest.approx(0.0005)
