"""The human seat: text typed by a person, handed to the engine when it asks.

The UI never awaits the engine; it calls ``submit`` whenever the person presses
enter. The engine awaits ``take`` only while a human sits in the seat whose
turn it is, and can stop waiting when the seat changes to a model.
"""

from __future__ import annotations

import asyncio

from pingpong.core.domain import Role


class HumanSeat:
    """One per session, shared by both seats (only one of them waits at a time)."""

    def __init__(self) -> None:
        self._queue: asyncio.Queue[str] = asyncio.Queue()
        self.waiting: bool = False
        """True while the engine waits for text."""
        self.role: Role | None = None
        """Which message the engine waits for ("user" or "assistant"), None when not waiting."""
        self.turn: int | None = None
        self.speaker: str | None = None
        """The group scene member the person writes for (None: the role's own seat)."""

    async def submit(self, text: str) -> None:
        """Hand over the person's text (kept until the engine asks, if it is not waiting yet)."""
        self.submit_nowait(text)

    def submit_nowait(self, text: str) -> None:
        """Same as ``submit`` for callers outside a coroutine (same event loop thread)."""
        self._queue.put_nowait(text)

    @property
    def pending(self) -> int:
        """Texts submitted but not yet taken."""
        return self._queue.qsize()

    def withdraw(self) -> list[str]:
        """Take back the texts submitted but not yet taken, oldest first (the seat went to a model:
        they must never become a later turn's message)."""
        texts: list[str] = []
        while not self._queue.empty():
            texts.append(self._queue.get_nowait())
        return texts

    async def take(self, role: Role, turn: int, speaker: str | None = None) -> str:
        """Engine side: wait for the next submitted text."""
        self.waiting, self.role, self.turn, self.speaker = True, role, turn, speaker
        try:
            return await self._queue.get()
        finally:
            self.waiting, self.role, self.turn, self.speaker = False, None, None, None
