"""The production server idles quietly and still stops at once (config.serve.QuietServer).

Issue 9: uvicorn's main loop wakes ten times a second to see whether it should stop;
an idle server spent 1 ms of CPU for each move at one table on those wake-ups.
"""

from __future__ import annotations

import asyncio
import signal

import pytest
import uvicorn

from config.serve import QuietServer


def _server() -> QuietServer:
    return QuietServer(uvicorn.Config("config.asgi:application", lifespan="off"))


def test_an_idle_server_looks_about_once_a_second(monkeypatch: pytest.MonkeyPatch) -> None:
    ticks: list[int] = []

    async def on_tick(self: QuietServer, counter: int) -> bool:
        ticks.append(counter)
        return self.should_exit

    monkeypatch.setattr(QuietServer, "on_tick", on_tick)
    server = _server()

    async def scenario() -> None:
        loop = asyncio.create_task(server.main_loop())
        await asyncio.sleep(1.5)
        server.should_exit = True
        await asyncio.wait_for(loop, timeout=5)

    asyncio.run(scenario())
    assert 2 <= len(ticks) <= 4  # uvicorn's own loop: 16 in 1.5 s
    # Every tick refreshes the Date header (uvicorn does on every 10th of its own).
    assert all(counter % 10 == 0 for counter in ticks)


def test_a_stop_signal_wakes_the_server_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """SIGTERM starts the graceful stop (websockets closed with 1012) without waiting for
    the next tick, however long the tick."""
    monkeypatch.setattr(QuietServer, "TICK", 3600.0)
    server = _server()

    async def scenario() -> None:
        loop = asyncio.create_task(server.main_loop())
        await asyncio.sleep(0.2)
        assert not loop.done()
        server.handle_exit(signal.SIGTERM, None)
        await asyncio.wait_for(loop, timeout=10)

    asyncio.run(scenario())
    assert server.should_exit
