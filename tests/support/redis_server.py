"""A private redis-server on a free loopback port, for tests that stop Redis.

The shared Redis (6379) is never touched: stopping it would break everyone else.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.support.servers import HOST, free_port, stop_process, wait_for_port


class RedisServer:
    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    def url(self, db: int = 0) -> str:
        return f"redis://{HOST}:{self.port}/{db}"

    def start(self) -> None:
        log = self.directory / f"redis-{self.port}.log"
        with log.open("ab") as out:
            self.process = subprocess.Popen(
                [
                    *("redis-server", "--port", str(self.port), "--bind", HOST, "--save", ""),
                    *("--appendonly", "no", "--daemonize", "no", "--dir", str(self.directory)),
                ],
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        wait_for_port(self.port, self.process, log)

    def stop(self) -> None:
        stop_process(self.process)
        self.process = None


def require_redis_server() -> None:
    """Skip without the redis-server binary; on CI (CI=true) fail instead."""
    if shutil.which("redis-server") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("redis-server is not installed")
        pytest.skip("no redis-server binary")


@contextmanager
def private_redis_server(directory: Path) -> Iterator[RedisServer]:
    """A private redis-server for the block (skipped, or failed on CI, without the binary)."""
    require_redis_server()
    server = RedisServer(directory)
    server.start()
    try:
        yield server
    finally:
        server.stop()
