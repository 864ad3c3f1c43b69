"""Real server processes for tests: ports, subprocesses, a scratch database.

The test process itself never opens the scratch database's schema: it is migrated
by ``manage.py migrate`` in a subprocess, and servers get its URL in their env.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parents[2]
VENV_PYTHON = ROOT / ".venv" / "bin" / "python"
PYTHON = str(VENV_PYTHON) if VENV_PYTHON.exists() else sys.executable
HOST = "127.0.0.1"
POSTGRES_SCHEMES = ("postgres://", "postgresql://", "pgsql://")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def log_tail(log: Path | None, chars: int = 3000) -> str:
    if log is None:
        return ""
    try:
        return log.read_text(errors="replace")[-chars:]
    except OSError:
        return ""


def wait_for_port(
    port: int, process: subprocess.Popen[bytes], log: Path | None = None, timeout: float = 30
) -> None:
    """Return once something listens on ``port``; fail early if ``process`` exits."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(
                f"process for port {port} exited ({process.returncode}):\n{log_tail(log)}"
            )
        try:
            with socket.create_connection((HOST, port), timeout=0.3):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on {port} after {timeout}s:\n{log_tail(log)}")


def start_server(
    port: int,
    env: Mapping[str, str],
    log: Path,
    *,
    wait: bool = True,
    timeout: float = 30,
    options: Sequence[str] = (),
) -> subprocess.Popen[bytes]:
    """``python -m config.serve`` on ``port`` (with ``options``), output appended to ``log``.

    With ``wait``, returns once the port listens (a server that does not is stopped).
    """
    args = ["-m", "config.serve", "--bind", HOST, "--port", str(port), *options]
    # A server makes the computer's moves (the test process does not: tests/conftest.py),
    # at once unless the test says otherwise.
    env = {
        "COMPUTER_MOVE_DELAY_MS": "0",
        **env,
        "COMPUTER_RUNNER": env.get("SERVER_COMPUTER_RUNNER", "1"),
    }
    with log.open("ab") as out:  # the child keeps its own handle
        process = subprocess.Popen(
            [PYTHON, *args], cwd=ROOT, env=dict(env), stdout=out, stderr=subprocess.STDOUT
        )
    if wait:
        try:
            wait_for_port(port, process, log, timeout)
        except BaseException:
            stop_process(process)
            raise
    return process


def stop_process(*processes: subprocess.Popen[Any] | None) -> None:
    """SIGTERM every process still running, then wait; SIGKILL after 10 s."""
    running = [p for p in processes if p is not None and p.poll() is None]
    for process in running:
        process.terminate()
    for process in running:
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


def manage(env: Mapping[str, str], *args: str, timeout: float = 180) -> str:
    """Run ``manage.py <args>`` with ``env``; its stdout, or RuntimeError with its output."""
    return _run([PYTHON, "manage.py", *args], env, timeout, f"manage.py {args[0]}")


def python_said(code: str, env: Mapping[str, str], timeout: float = 60) -> str:
    """The last line ``code`` printed, run by a fresh interpreter of the project with
    ``env``: what a server process sees as it starts."""
    return _run([PYTHON, "-c", code], env, timeout, "python -c").strip().splitlines()[-1]


def _run(command: list[str], env: Mapping[str, str], timeout: float, name: str) -> str:
    done = subprocess.run(
        command,
        cwd=ROOT,
        env=dict(env),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"{name} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return done.stdout


@contextlib.contextmanager
def scratch_database(
    base_url: str, directory: Path, label: str, env: Mapping[str, str] | None = None
) -> Iterator[str]:
    """The URL of a fresh, migrated database of its own, removed afterwards.

    PostgreSQL ``base_url``: a uniquely named database ``skullking_<label>_<pid>_<random>``
    on the same server, dropped WITH (FORCE) at the end. Anything else: a SQLite file
    ``<directory>/<label>.sqlite3``. ``env`` (default: os.environ) is the environment
    ``manage.py migrate`` runs in, with DATABASE_URL replaced.
    """
    if not base_url.startswith(POSTGRES_SCHEMES):
        url = f"sqlite:///{directory / f'{label}.sqlite3'}"
        _migrate(url, env)
        yield url
        return
    import psycopg
    from psycopg import sql

    parts = urlsplit(base_url)
    name = f"skullking_{label}_{os.getpid()}_{secrets.token_hex(4)}"
    candidates = [base_url, urlunsplit(parts._replace(path="/postgres"))]

    def execute(statement: str) -> None:
        last: Exception | None = None
        for candidate in candidates:
            try:
                conn = psycopg.connect(candidate, autocommit=True, connect_timeout=10)
            except psycopg.OperationalError as error:
                last = error
                continue
            with conn:
                conn.execute(sql.SQL(statement).format(sql.Identifier(name)))
            return
        raise RuntimeError(f"cannot reach PostgreSQL at {base_url}: {last}")

    execute("CREATE DATABASE {}")
    try:
        url = urlunsplit(parts._replace(path=f"/{name}"))
        _migrate(url, env)
        yield url
    finally:
        execute("DROP DATABASE IF EXISTS {} WITH (FORCE)")


def _migrate(url: str, env: Mapping[str, str] | None) -> None:
    environment = {
        "DJANGO_SETTINGS_MODULE": "config.settings",
        **(os.environ if env is None else env),
        "DATABASE_URL": url,
    }
    manage(environment, "migrate", "--noinput", "-v", "0")
