"""config.move_queue: moves one at a time in arrival order, side by side only when they queue up.

Issue 9: moves that run side by side only take turns on the GIL, so each of a
burst is pushed about when the last one is; under a heavy load, though, their
database waits must overlap or one process serves fewer moves.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest

from config import move_queue
from config.move_queue import MoveQueue


@pytest.fixture
def queue() -> Iterator[MoveQueue]:
    lane = MoveQueue(3, name="test-move", join_after=0.5)
    yield lane
    lane.shutdown()


def test_a_move_arriving_while_another_runs_waits_for_it(queue: MoveQueue) -> None:
    events: list[str] = []
    first_started = threading.Event()

    def move(name: str, seconds: float) -> str:
        events.append(f"{name} starts")
        if name == "first":
            first_started.set()
        time.sleep(seconds)
        events.append(f"{name} ends")
        return name

    first = queue.submit(move, "first", 0.1)
    assert first_started.wait(5)
    second = queue.submit(move, "second", 0)  # one move waiting: no second thread
    assert (first.result(5), second.result(5)) == ("first", "second")
    assert events == ["first starts", "first ends", "second starts", "second ends"]


def test_moves_run_in_the_order_they_came(queue: MoveQueue) -> None:
    order: list[int] = []
    gate = threading.Event()
    blocker = queue.submit(gate.wait, 5)
    # The first thread is held: each move waits its turn, taken in the order it came.
    futures = []
    for number in range(5):
        futures.append(queue.submit(order.append, number))
        time.sleep(0.02)
    gate.set()
    for future in [blocker, *futures]:
        future.result(5)
    assert order == list(range(5))


def test_more_threads_join_once_the_oldest_move_has_waited() -> None:
    queue = MoveQueue(3, name="test-move", join_after=0.1)
    gate = threading.Event()
    running: list[str] = []
    lock = threading.Lock()

    def move() -> None:
        with lock:
            running.append(threading.current_thread().name)
        gate.wait(5)

    futures = [queue.submit(move) for _ in range(5)]
    time.sleep(0.05)
    assert running == ["test-move_0"]  # the others have not waited 0.1 s yet
    deadline = time.monotonic() + 5
    while len(running) < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    # The two other threads joined once the oldest had waited 0.1 s; two still wait.
    assert sorted(running) == ["test-move_0", "test-move_1", "test-move_2"]
    assert queue.waiting() == 2
    gate.set()
    for future in futures:
        future.result(5)
    assert len(running) == 5
    queue.shutdown()


def test_a_failing_move_reaches_its_caller_and_the_queue_goes_on(queue: MoveQueue) -> None:
    def fail() -> None:
        raise ValueError("not your turn")

    with pytest.raises(ValueError, match="not your turn"):
        queue.submit(fail).result(5)
    assert queue.submit(lambda: "next").result(5) == "next"


def test_shutdown_runs_what_was_submitted_then_refuses_more() -> None:
    lane = MoveQueue(2, name="test-move")
    done: list[int] = []
    futures = [lane.submit(done.append, number) for number in range(3)]
    lane.shutdown(wait=True)
    assert all(future.done() for future in futures)
    assert sorted(done) == [0, 1, 2]
    with pytest.raises(RuntimeError):
        lane.submit(done.append, 4)


def test_the_wait_before_other_threads_join_is_set_by_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import importlib

    from config import move_queue

    monkeypatch.setenv("MOVE_JOIN_AFTER_MS", "5")
    try:
        assert importlib.reload(move_queue).JOIN_AFTER == 0.005
    finally:
        monkeypatch.delenv("MOVE_JOIN_AFTER_MS")
        assert importlib.reload(move_queue).JOIN_AFTER == 0.020


def _submit_for(queue: MoveQueue, key: object, fn: object, *args: object) -> object:
    """Submit ``fn(*args)`` as a move of table ``key`` (the handler sets move_key)."""
    # (Through the module: a test above reloads it.)
    token = move_queue.move_key.set(key)
    try:
        return queue.submit(fn, *args)  # type: ignore[arg-type]
    finally:
        move_queue.move_key.reset(token)


def test_one_stuck_table_holds_up_only_its_own_moves() -> None:
    """Issue 45: moves of a table stuck behind its lock take one thread, one at a
    time; another table's move runs beside them at once (once it is due)."""
    queue = MoveQueue(3, name="test-move", join_after=0.01)
    release = threading.Event()
    running: list[str] = []

    def stuck(name: str) -> str:
        running.append(name)
        release.wait(10)
        return name

    try:
        stuck_moves = [_submit_for(queue, 1, stuck, f"a{n}") for n in range(5)]
        time.sleep(0.1)
        assert running == ["a0"]  # the table's next moves wait for its first
        other = _submit_for(queue, 2, lambda: "b")
        assert other.result(timeout=2) == "b"  # type: ignore[attr-defined]
        assert running == ["a0"]
        release.set()
        assert [m.result(timeout=5) for m in stuck_moves] == ["a0", "a1", "a2", "a3", "a4"]  # type: ignore[attr-defined]
    finally:
        release.set()
        queue.shutdown()


def test_a_move_that_waited_too_long_is_not_run() -> None:
    queue = MoveQueue(1, name="test-move", max_wait=0.1)
    ran: list[str] = []
    try:
        first = queue.submit(time.sleep, 0.3)
        late = queue.submit(ran.append, "late")
        first.result(timeout=5)
        with pytest.raises(move_queue.Expired):
            late.result(timeout=5)
        assert ran == []
    finally:
        queue.shutdown()
