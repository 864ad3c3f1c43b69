"""The production server's own options (config.serve): pinning a process to one CPU.

Issue 9: a process's threads take turns on one GIL; pinned to one core, every turn
stays there (config/serve.py says what it measured). A real server process is started
and its threads read from /proc, as the kernel schedules them.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.servers import PYTHON, ROOT, free_port, start_server, stop_process

pytestmark = pytest.mark.skipif(
    not hasattr(os, "sched_getaffinity"), reason="CPU pinning is Linux's (sched_setaffinity)"
)


def _environment(tmp_path: Path) -> dict[str, str]:
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        # Nothing is read at startup: an empty SQLite file and the in-memory layer do.
        "DATABASE_URL": f"sqlite:///{tmp_path / 'pinned.sqlite3'}",
        "REDIS_URL": "",
        "DJANGO_DEBUG": "0",
    }


def _allowed_cpus_of_threads(pid: int) -> dict[int, str]:
    """thread id -> the CPUs the kernel lets it run on ("0", "0-1", ...)."""
    found = {}
    for thread in (Path("/proc") / str(pid) / "task").iterdir():
        for line in (thread / "status").read_text().splitlines():
            if line.startswith("Cpus_allowed_list:"):
                found[int(thread.name)] = line.split(":", 1)[1].strip()
    return found


@pytest.fixture
def pinned_server(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    cpu = max(os.sched_getaffinity(0))
    process = start_server(
        free_port(), _environment(tmp_path), tmp_path / "server.log", options=["--cpu", str(cpu)]
    )
    try:
        yield process, cpu
    finally:
        stop_process(process)


def test_every_thread_of_a_pinned_server_runs_on_its_cpu(
    pinned_server: tuple[subprocess.Popen[bytes], int],
) -> None:
    process, cpu = pinned_server
    threads = _allowed_cpus_of_threads(process.pid)
    # The event loop's thread and the threads started after the pinning (the move
    # queue's, the request pool's as they come): all on the one CPU.
    assert len(threads) > 1
    assert set(threads.values()) == {str(cpu)}


def test_a_server_not_pinned_runs_where_it_may(tmp_path: Path) -> None:
    process = start_server(free_port(), _environment(tmp_path), tmp_path / "server.log")
    try:
        allowed = _allowed_cpus_of_threads(process.pid)
    finally:
        stop_process(process)
    mine = _allowed_cpus_of_threads(os.getpid())[os.getpid()]
    assert set(allowed.values()) == {mine}


def test_a_cpu_the_process_may_not_use_is_refused_with_the_ones_it_may() -> None:
    refused = max(os.sched_getaffinity(0)) + 1
    done = subprocess.run(
        [PYTHON, "-m", "config.serve", "--port", str(free_port()), "--cpu", str(refused)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    allowed = ", ".join(str(cpu) for cpu in sorted(os.sched_getaffinity(0)))
    assert f"--cpu {refused}: this process may only run on CPUs {allowed}" in done.stderr
