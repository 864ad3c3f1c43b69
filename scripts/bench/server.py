"""The table's server for scripts/bench_live.py: config.serve (or daphne), counting SQL.

    python scripts/bench/server.py --port 8801 --counter FILE [--server uvicorn|daphne]

``uvicorn`` is the production server, config.serve; ``daphne`` serves the same
application (config.asgi) with daphne, the server it replaced, to compare.

Every SQL statement any thread of this process runs is counted (a Django
``execute_wrapper`` on every new connection) and written to FILE twice a second,
with the number of database connections the process has opened so far (psycopg's
pool: ``connections_num``), so the benchmark can divide both by the moves it made,
and the id of the thread that writes it. That thread is the benchmark's, not the
server's: it spends about 1 ms of CPU a second (0.4 ms a move at one table), which
the benchmark leaves out of the server's CPU (``/proc/<pid>/task/<id>``).
Nothing here changes what the server does.
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

_counter = itertools.count()
_last = [0]


def _count(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
    _last[0] = next(_counter) + 1
    return execute(sql, params, many, context)


def _connections_opened() -> int:
    """Database connections this process has opened (PostgreSQL's pool), -1 if unknown."""
    from django.db import connections

    connection = connections["default"]
    try:
        stats = connection.pool.get_stats() if connection.pool is not None else None
    except Exception:
        stats = None
    finally:
        connections.close_all()  # this thread's wrapper: nothing borrowed stays out
    # psycopg leaves a counter out of its stats until it is not zero.
    return int(stats.get("connections_num", 0)) if stats is not None else -1


def install_counter(path: Path) -> None:
    from django.db.backends.signals import connection_created

    def wrap(sender: Any, connection: Any, **kwargs: Any) -> None:
        if _count not in connection.execute_wrappers:
            connection.execute_wrappers.append(_count)

    connection_created.connect(wrap, weak=False)

    def write() -> None:
        # Written aside and renamed: the benchmark never reads a half-written file.
        scratch = path.with_suffix(".new")
        me = threading.get_native_id()
        while True:
            scratch.write_text(f"{_last[0]} {_connections_opened()} {me}")
            os.replace(scratch, path)
            time.sleep(0.5)

    threading.Thread(target=write, daemon=True).start()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--counter", type=Path, required=True)
    parser.add_argument("--server", choices=("uvicorn", "daphne"), default="uvicorn")
    parser.add_argument("--cpu", type=int, default=None, help="as config.serve's --cpu")
    args = parser.parse_args()
    pinned = [] if args.cpu is None else ["--cpu", str(args.cpu)]
    import django

    from config import serve

    django.setup()
    install_counter(args.counter)
    if args.server == "daphne":
        # The server this project ran before config.serve moved to uvicorn: measured
        # against it with the same application (config.asgi).
        from daphne.cli import CommandLineInterface

        if args.cpu is not None:
            serve.pin_to_cpu(args.cpu)
        CommandLineInterface().run(
            ["-b", "127.0.0.1", "-p", str(args.port), "-v", "0", "config.asgi:application"]
        )
    else:
        serve.main(["--bind", "127.0.0.1", "--port", str(args.port), "--verbosity", "0", *pinned])


if __name__ == "__main__":
    main()
