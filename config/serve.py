"""Production entry point: uvicorn serving config.asgi, closing websockets politely on shutdown.

    python -m config.serve --bind 127.0.0.1 --port 8001

Why uvicorn, on uvloop and httptools: every move crosses the event loop several
times (the POST's request and answer, the frames from Redis, one websocket send
per seat), and the loop shares the process's GIL with the request threads that
make the moves. daphne parses HTTP and frames websockets in Twisted's Python (and
its reactor cannot run on uvloop). Measured with scripts/bench_live.py at 10
tables, ``--server daphne`` against this in the same minutes, the event loop's
CPU a move went from 3.0 ms to 1.5 ms (the request threads' alike), and at 50
tables p99 fell from 471-517 ms to 398-404 ms.

On SIGTERM/SIGINT the server stops accepting connections, sends every open
websocket a close frame with code 1012 ("service restart"), waits until their
consumers have run their disconnect (presence counts, group exit) and the
requests in flight have answered, at most SHUTDOWN_GRACE seconds, then cancels
what is left and stops. Browsers (htmx's ws extension) reconnect after a 1012,
to another process or to the restarted one, and get a full snapshot on connect.

Pinned to one CPU (``--cpu N``): a process's threads (the event loop, the move
and request threads) take turns on one GIL, so the process runs Python on one
core at a time whatever the machine has. Left to the scheduler, the turn passes
from a thread on one core to a thread on the other, and each works on with caches
that the other core warmed. Pinned, every turn stays on one core, and the
machine's other cores are left to PostgreSQL, Redis and the other processes.
Measured with scripts/bench_live.py at 50 tables, pinned and not in turn, the
same minutes: one process, p99 76 and 67 ms against 118 and 138 ms (CPU a move
5.1-5.5 ms against 5.8-6.4 ms); two processes, each on its own core, p99 71 and
112 ms against 163 and 169 ms. At 1 and 10 tables the two were alike, within the
machine's noise. Run one process per core, each pinned to its own.

Presence after a crash: each socket keeps a cache entry alive with a heartbeat
(games.storage.presence), so the sockets of a process killed without this shutdown
(SIGKILL, OOM, power loss) stop counting by themselves within three heartbeats.

``QuietServer`` replaces uvicorn's ``Server.main_loop``. Written against
uvicorn 0.55.0: tests/test_library_internals.py fails when that version or that
method's source changes (docs/upgrading.md says what to check).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import signal
import sys
from types import FrameType

import uvicorn

SHUTDOWN_GRACE = 2.0  # seconds given to consumers and requests to finish
#: Seconds an idle keep-alive connection stays open: longer than nginx keeps its
#: idle upstream connections (60 s), so nginx never sends a request on a
#: connection this server is closing at that moment (a 502).
KEEP_ALIVE = 75
#: A ping every 20 s; a socket whose pong does not come within 20 s is closed
#: (1011), and the browser reconnects.
PING_INTERVAL = PING_TIMEOUT = 20.0


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m config.serve", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--bind", "-b", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--port", "-p", type=int, default=8001, help="port to listen on")
    parser.add_argument("--unix-socket", "-u", default=None, help="listen on a unix socket instead")
    parser.add_argument("--verbosity", "-v", type=int, default=1, choices=(0, 1, 2, 3))
    parser.add_argument("--access-log", default=None, help="'-' for stdout, or a file path")
    parser.add_argument(
        "--cpu",
        type=int,
        default=None,
        metavar="N",
        help="run on CPU N only (one process per core, each on its own; Linux)",
    )
    parser.add_argument(
        "--proxy-headers",
        action="store_true",
        help="trust X-Forwarded-For/-Proto (only behind your own proxy)",
    )
    args = parser.parse_args(argv)
    if args.cpu is not None:
        allowed = _allowed_cpus()
        if allowed is None:
            parser.error("--cpu: this system cannot pin a process to a CPU (Linux only)")
        if args.cpu not in allowed:
            listed = ", ".join(str(cpu) for cpu in sorted(allowed))
            parser.error(f"--cpu {args.cpu}: this process may only run on CPUs {listed}")
    return args


def _allowed_cpus() -> set[int] | None:
    """The CPUs this process may run on; None where the system cannot pin one."""
    getaffinity = getattr(os, "sched_getaffinity", None)
    return None if getaffinity is None else set(getaffinity(0))


def pin_to_cpu(cpu: int) -> None:
    """Run every thread of this process, and every thread it starts later, on ``cpu``."""
    # Linux pins a thread, not a process: each running thread (an import may have
    # started one), and new threads inherit their creator's CPU.
    for thread_id in os.listdir("/proc/self/task"):
        with contextlib.suppress(ProcessLookupError):  # a thread that has ended since
            os.sched_setaffinity(int(thread_id), {cpu})


def server_config(args: argparse.Namespace) -> uvicorn.Config:
    """What the server runs: the project's ASGI application on uvloop and httptools."""
    return uvicorn.Config(
        "config.asgi:application",
        host=args.bind,
        port=args.port,
        uds=args.unix_socket,
        loop="uvloop",
        http="httptools",
        ws="websockets-sansio",
        # Browsers offer per-message compression; deflating every frame for every
        # seat would cost more CPU than the move itself renders (frames are < 8 KB).
        ws_per_message_deflate=False,
        ws_ping_interval=PING_INTERVAL,
        ws_ping_timeout=PING_TIMEOUT,
        # Django has no lifespan events.
        lifespan="off",
        proxy_headers=args.proxy_headers,
        # Behind your own proxy, whatever address it connects from (another container).
        forwarded_allow_ips="*" if args.proxy_headers else None,
        timeout_keep_alive=KEEP_ALIVE,
        timeout_graceful_shutdown=SHUTDOWN_GRACE,
        # Logging is Django's (config.logs), set up when config.asgi loads; our own
        # line per request replaces an access log unless one is asked for.
        log_config=None,
        access_log=args.access_log is not None,
        server_header=False,
    )


def _log_to(args: argparse.Namespace) -> None:
    level = {0: logging.WARNING, 1: logging.INFO}.get(args.verbosity, logging.DEBUG)
    logging.basicConfig(level=level, format="%(asctime)-15s %(levelname)-8s %(message)s")
    logging.getLogger("uvicorn.error").setLevel(level)
    if args.access_log is not None:
        access = logging.getLogger("uvicorn.access")
        access.setLevel(logging.INFO)
        access.propagate = False
        if args.access_log == "-":
            access.addHandler(logging.StreamHandler(sys.stdout))
        else:
            access.addHandler(logging.FileHandler(args.access_log))


class QuietServer(uvicorn.Server):
    """uvicorn's server, waking once a second when idle instead of ten times.

    uvicorn's main loop wakes every 0.1 s to see whether it should stop (and once a
    second of those to refresh the Date header). Each wake-up is a turn of the
    event loop and of the GIL for nothing: an idle server spent 2.5 ms of CPU a
    second, 1 ms for each move at one table (measured: ``/proc/<pid>/stat`` over
    20 s, 20 wake-ups a second under strace). Here the loop waits a second between
    ticks, and a stop signal wakes it at once, so a shutdown starts as soon as
    before.
    """

    TICK = 1.0  # seconds; uvicorn refreshes its Date header every 10th tick of 0.1 s

    async def main_loop(self) -> None:
        self._wake = asyncio.Event()
        self._loop = asyncio.get_running_loop()
        counter = 0
        should_exit = await self.on_tick(counter)
        while not should_exit:
            # A multiple of 10, so that on_tick refreshes the Date header every tick.
            counter = (counter + 10) % 864000
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self.TICK)
            should_exit = await self.on_tick(counter)

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        super().handle_exit(sig, frame)
        # A signal handler runs between two steps of the loop's own thread: hand the
        # wake-up to the loop as asyncio asks of signal.signal() handlers.
        loop = getattr(self, "_loop", None)
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._wake.set)


def _stop(signum: int, frame: FrameType | None) -> None:
    """SIGTERM/SIGINT outside uvicorn's own handling: exit 0.

    uvicorn handles both while it serves (the graceful stop above), then raises the
    signal again for the handler that was there before, so that a default handler
    kills the process. A stop asked for and done is a clean exit here, and a signal
    before uvicorn listens stops the process at once.
    """
    raise SystemExit(0)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.cpu is not None:
        pin_to_cpu(args.cpu)
    _log_to(args)
    for stop_signal in (signal.SIGTERM, signal.SIGINT):
        signal.signal(stop_signal, _stop)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    server = QuietServer(server_config(args))
    try:
        # uvicorn raises the stop signal again once it has stopped: _stop's SystemExit.
        server.run()
    finally:
        if server.started:
            exit_now()
    sys.exit(1)  # never started: the port was taken, or the application failed to load


def exit_now() -> None:
    """End the process at once, once the server has stopped (issue 45).

    uvicorn's graceful stop gives the requests in flight SHUTDOWN_GRACE seconds,
    then cancels them and returns; but a request runs in a thread (config.http),
    which nothing can cancel, and Python's exit waits for the request and move
    threads. A request stuck on a stalled Redis or a held lock kept the process
    alive well past its grace (14 s against 2). Its client has been disconnected
    already; its transaction, if any, is rolled back by PostgreSQL when the
    connection closes. So the logs are flushed and the process ends here.
    """
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
