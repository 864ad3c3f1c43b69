"""How a pooled PostgreSQL connection is checked as the pool hands it out.

A connection whose backend was ended while it sat in the pool (a restart,
``pg_terminate_backend``, a failover) must be replaced, not handed to a request
that would then fail (issue 45). psycopg_pool's own ``check_connection`` asks the
server (an empty query): a round trip on every request, which cost the busiest
benchmark (50 tables) a tenth of its throughput and half again of its p99.

A connection at rest has nothing to read: the server speaks only when asked (the
site uses no LISTEN). An ended backend says so before it goes (a FATAL message,
then the end of the stream), and so does a server going down (the end of the
stream): the socket turns readable. So the check looks at the socket first, a
system call and no round trip, and asks the server only when something came.
What a look cannot see (a peer that vanished without a word: a cable cut, a
firewall dropping an idle flow) the move's retry on a broken connection covers
(games.play.actions), as it did before the check.
"""

from __future__ import annotations

import select

from psycopg import Connection
from psycopg_pool import ConnectionPool


def _has_something_to_read(connection: Connection) -> bool:
    poller = select.poll()
    poller.register(connection.fileno(), select.POLLIN | select.POLLPRI)
    return bool(poller.poll(0))


def check_connection(connection: Connection) -> None:
    """psycopg_pool's ``check`` callback: raise when ``connection`` is not usable."""
    if connection.closed or connection.broken or _has_something_to_read(connection):
        # Closed, broken or spoken to: the pool's own check asks the server (and
        # raises for a dead connection, which the pool replaces).
        ConnectionPool.check_connection(connection)
