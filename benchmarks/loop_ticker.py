"""A task that wakes every 5 ms on an event loop and keeps the gaps between its wake-ups: the
longest gap is the longest time the loop could run nothing else (for the TUI: draw or take a key)."""

from __future__ import annotations

import asyncio
import contextlib
import time


class LoopTicker:
    """start() on the loop to watch, stop() when done; `gaps` in seconds, `clear()` between steps."""

    def __init__(self, every: float = 0.005) -> None:
        self.every = every
        self.gaps: list[float] = []
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    def clear(self) -> None:
        self.gaps.clear()

    def longest(self) -> float:
        return max(self.gaps, default=0.0)

    async def _run(self) -> None:
        last = time.perf_counter()
        while True:
            await asyncio.sleep(self.every)
            now = time.perf_counter()
            self.gaps.append(now - last)
            last = now
