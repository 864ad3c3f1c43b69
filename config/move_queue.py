"""The executor of a process's moves: one at a time, in arrival order, until they queue up.

A move holds the GIL for nearly all of its time, so moves run side by side in
threads only take turns on it: each of a burst finishes about when the last one
does. Run one after another, the first is pushed after its own work alone. That
is what this executor does while the load is light: its first thread takes every
move, in the order they came.

One at a time, though, a move's waits for PostgreSQL and Redis (about a sixth of
its time) are not overlapped with another move's work, which caps what one
process serves. So when moves queue up, more threads join: the thread of rank k
takes a move only while more than k of them wait. Under a light load moves never
run side by side; under a heavy one up to ``threads`` do, as a plain pool would.

Measured with scripts/bench_live.py, one process (see config/http.py).
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import Executor, Future
from typing import Any

#: A submitted call: its future, the function, its arguments.
Job = tuple[Future[Any], Callable[..., Any], tuple[Any, ...], dict[str, Any]]


class MoveQueue(Executor):
    def __init__(self, threads: int, name: str = "move") -> None:
        self._waiting: deque[Job] = deque()
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
            self._waiting.append((future, fn, args, kwargs))
            self._changed.notify_all()
        return future

    def waiting(self) -> int:
        """How many moves wait for a thread."""
        return len(self._waiting)

    def _work(self, rank: int) -> None:
        while True:
            with self._changed:
                # Rank 0 takes any move; rank k only while more than k wait.
                while not self._closed and len(self._waiting) <= rank:
                    self._changed.wait()
                if not self._waiting:
                    return  # closed, nothing left
                future, fn, args, kwargs = self._waiting.popleft()
                self._changed.notify_all()
            if not future.set_running_or_notify_cancel():
                continue
            try:
                result = fn(*args, **kwargs)
            except BaseException as error:
                future.set_exception(error)
            else:
                future.set_result(result)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        with self._changed:
            self._closed = True
            if cancel_futures:
                while self._waiting:
                    self._waiting.popleft()[0].cancel()
            self._changed.notify_all()
        if wait:
            for thread in self._threads:
                thread.join()
