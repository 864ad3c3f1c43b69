"""The pool's check of a connection as it is handed out (config.db_pool, issue 45).

An ended backend is found by a look at the socket and the connection replaced; a
quiet live connection is handed out without asking the server (a round trip on
every request cost the 50-table benchmark a tenth of its throughput). PostgreSQL
only: skipped on SQLite, failed under CI=true (tests/conftest.py).
"""

from __future__ import annotations

import time
from typing import Any
from unittest import mock

import psycopg
import pytest
from django.db import connection
from psycopg_pool import ConnectionPool

from config import db_pool

pytestmark = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="needs PostgreSQL (DATABASE_URL)"
)


def _connect() -> psycopg.Connection[Any]:
    params = connection.get_connection_params()
    params.pop("cursor_factory", None)
    params.pop("context", None)
    return psycopg.connect(**params, autocommit=True)


def test_a_quiet_live_connection_is_handed_out_without_a_round_trip() -> None:
    with _connect() as conn, mock.patch.object(ConnectionPool, "check_connection") as ask:
        db_pool.check_connection(conn)
        db_pool.check_connection(conn)
    ask.assert_not_called()


def test_a_connection_whose_backend_was_ended_is_refused() -> None:
    """pg_terminate_backend on a connection at rest (a restart, a failover): the check
    raises, so the pool replaces it instead of handing it to a request."""
    with _connect() as conn, _connect() as killer:
        pid = conn.info.backend_pid
        killer.execute("SELECT pg_terminate_backend(%s, 5000)", [pid])
        deadline = time.monotonic() + 5
        while not db_pool._has_something_to_read(conn) and time.monotonic() < deadline:
            time.sleep(0.01)  # the FATAL message is on its way to the socket
        with pytest.raises(psycopg.OperationalError):
            db_pool.check_connection(conn)


def test_a_closed_connection_is_refused() -> None:
    conn = _connect()
    conn.close()
    with pytest.raises(psycopg.OperationalError):
        db_pool.check_connection(conn)
