"""Helpers for Pilot tests: wait for a condition by letting the app run (bounded, not timed)."""

from __future__ import annotations

from collections.abc import Callable


async def wait_for(pilot, condition: Callable[[], bool], *, steps: int = 400, delay: float = 0.05) -> None:
    """Let the app run until condition() holds; fail after `steps` pauses."""
    for _ in range(steps):
        if condition():
            return
        await pilot.pause(delay)
    assert condition(), "condition never became true"
