"""The table's server for scripts/bench_live.py: config.serve (or uvicorn), counting SQL.

    python scripts/bench/server.py --port 8801 --counter FILE [--server daphne|uvicorn]

Every SQL statement any thread of this process runs is counted (a Django
``execute_wrapper`` on every new connection) and the count is written to FILE
twice a second, so the benchmark can divide it by the moves it made. Nothing
here changes what the server does.
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


def install_counter(path: Path) -> None:
    from django.db.backends.signals import connection_created

    def wrap(sender: Any, connection: Any, **kwargs: Any) -> None:
        if _count not in connection.execute_wrappers:
            connection.execute_wrappers.append(_count)

    connection_created.connect(wrap, weak=False)

    def write() -> None:
        while True:
            path.write_text(str(_last[0]))
            time.sleep(0.5)

    threading.Thread(target=write, daemon=True).start()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--counter", type=Path, required=True)
    parser.add_argument("--server", choices=("daphne", "uvicorn"), default="daphne")
    args = parser.parse_args()
    import django

    django.setup()
    install_counter(args.counter)
    if args.server == "uvicorn":
        import uvicorn

        uvicorn.run(
            "config.asgi:application",
            host="127.0.0.1",
            port=args.port,
            log_level="warning",
            ws="websockets",
            lifespan="off",
        )
    else:
        from config import serve

        serve.main(["--bind", "127.0.0.1", "--port", str(args.port), "--verbosity", "0"])


if __name__ == "__main__":
    main()
