"""The executor of a process's moves: one at a time, in arrival order, unless they back up.

A move holds the GIL for nearly all of its time, so moves run side by side in
threads only take turns on it: each of a burst finishes about when the last one
does. Run one after another, the first is pushed after its own work alone. That
is what this executor does while moves come and go: its first thread takes every
move, in the order they came.

One at a time, though, a move's waits for PostgreSQL and Redis (about a sixth of
its time) are not overlapped with another move's work, which caps what one
process serves. So when moves back up, the other threads join: they take the
oldest waiting move once it has waited ``join_after`` seconds. A burst that one
thread clears within that time is served one move at a time; a load it cannot
keep up with gets up to ``threads`` moves side by side, as a plain pool would.
Measured with scripts/bench_live.py, one process, 30 s each:

- 10 tables (a burst now and then): p99 31.2 ms (24.5 and 31.6 ms in two runs where
  the third and fourth threads joined later still); one thread alone 26-42 ms;
  a pool of 4 (as before) 57-78 ms; joining as soon as two moves wait, 31-62 ms.
- 50 tables (more than one thread keeps up with): 112 moves a second, p99 183 ms;
  one thread alone 88 a second, p99 428 ms; a pool of 4 120 a second, p99 116 ms;
  the k-th thread joining after k times ``join_after``, 103 a second, p99 286 ms.

Measured again once moves took a third of that time (their frames rendered
while they commit), in turns on one machine: joining after 4-5 ms against 20 ms,
50 tables p99 50-68 ms against 68-88 ms, 10 tables 21-33 ms against 16-31 ms. A
shorter wait helps the heavy load and costs the light one; the default stays,
and ``MOVE_JOIN_AFTER_MS`` sets it.

One table never holds up another (issue 45): the moves of one table (their
``key``, the table's id, set by the caller in ``move_key``) run one at a time, so
moves stuck behind a table's lock take one thread, not all of them; the others
go on serving the other tables. (They would only wait for each other's lock in
PostgreSQL anyway.) And a move that has waited ``max_wait`` seconds for a thread
is not run: it fails with ``Expired`` (the table is busy), so that a backlog
answers at once instead of ever later.
"""

from __future__ import annotations

import os
import threading
import time
from collections import deque
from collections.abc import Callable, Hashable
from concurrent.futures import Executor, Future
from contextvars import ContextVar
from typing import Any, TypeVar

V = TypeVar("V", bound=Callable[..., Any])

#: The attribute ``queued_by`` puts on a view: which of its URL's arguments keys it.
QUEUE_KEY = "move_queue_key"


def queued_by(argument: str) -> Callable[[V], V]:
    """Mark a view as a move: its POSTs run in the move queue, one at a time per value
    of its URL's ``argument`` (a table's id). The mark survives the view's other
    decorators (functools.wraps copies it), and the ASGI handler (config.http) finds
    it by resolving the request's path."""

    def mark(view: V) -> V:
        setattr(view, QUEUE_KEY, argument)
        return view

    return mark


#: A submitted call: when it came (time.monotonic), its future, the function, its
#: arguments, its key (None: none).
Job = tuple[
    float, Future[Any], Callable[..., Any], tuple[Any, ...], dict[str, Any], Hashable | None
]

#: The key of the moves submitted from this context: one key's moves run one at a time.
move_key: ContextVar[Hashable | None] = ContextVar("move_key", default=None)

#: Seconds a move may wait for a thread before it fails with Expired (``MOVE_MAX_WAIT_MS``).
MAX_WAIT = float(os.environ.get("MOVE_MAX_WAIT_MS", "5000")) / 1000


class Expired(Exception):
    """The move waited too long for a thread (its table busy): it was not run."""


#: How long the oldest waiting move waits before a thread other than the first
#: takes it (``MOVE_JOIN_AFTER_MS``): about two moves' work.
JOIN_AFTER = float(os.environ.get("MOVE_JOIN_AFTER_MS", "20")) / 1000


class MoveQueue(Executor):
    def __init__(
        self,
        threads: int,
        name: str = "move",
        join_after: float = JOIN_AFTER,
        max_wait: float = MAX_WAIT,
    ) -> None:
        self._join_after = join_after
        self._max_wait = max_wait
        self._waiting: deque[Job] = deque()
        #: The keys of the moves running now.
        self._running: set[Hashable] = set()
        self._changed = threading.Condition()
        self._closed = False
        self._threads = [
            threading.Thread(target=self._work, args=(rank,), name=f"{name}_{rank}", daemon=True)
            for rank in range(max(1, threads))
        ]
        for thread in self._threads:
            thread.start()

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        future: Future[Any] = Future()
        with self._changed:
            if self._closed:
                raise RuntimeError("cannot submit a move after shutdown")
            job = (time.monotonic(), future, fn, args, kwargs, move_key.get())
            self._waiting.append(job)
            self._changed.notify_all()
        return future

    def waiting(self) -> int:
        """How many moves wait for a thread."""
        return len(self._waiting)

    def _work(self, rank: int) -> None:
        while (job := self._next(rank)) is not None:
            came, future, fn, args, kwargs, key = job
            try:
                if not future.set_running_or_notify_cancel():
                    continue
                if time.monotonic() - came > self._max_wait:
                    future.set_exception(Expired(f"waited over {self._max_wait} s"))
                    continue
                try:
                    result = fn(*args, **kwargs)
                except BaseException as error:
                    future.set_exception(error)
                else:
                    future.set_result(result)
            finally:
                if key is not None:
                    with self._changed:
                        self._running.discard(key)
                        self._changed.notify_all()

    def _next(self, rank: int) -> Job | None:
        """The move this thread runs next (None: shut down, nothing left)."""
        with self._changed:
            while True:
                job = self._oldest_free()
                if job is not None:
                    due_after = self._join_after if rank else 0.0
                    # The first thread takes any move; the others the oldest once it
                    # has waited long enough.
                    waited = time.monotonic() - job[0]
                    if waited >= due_after or self._closed:
                        self._waiting.remove(job)
                        if job[5] is not None:
                            self._running.add(job[5])
                        self._changed.notify_all()
                        return job
                    self._changed.wait(due_after - waited)
                elif self._closed and not self._waiting:
                    return None
                else:
                    self._changed.wait()

    def _oldest_free(self) -> Job | None:
        """The oldest waiting move whose table has no move running (under the lock)."""
        return next((job for job in self._waiting if job[5] not in self._running), None)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        with self._changed:
            self._closed = True
            if cancel_futures:
                while self._waiting:
                    self._waiting.popleft()[1].cancel()
            self._changed.notify_all()
        if wait:
            for thread in self._threads:
                thread.join()
