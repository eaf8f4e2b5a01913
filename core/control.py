"""Steering a running session from outside: pause, step, resume, change seats, choose a group
scene's next speaker, cancel.

The UI calls these plain methods from the event loop's thread; the engine
checks them between messages (never in the middle of one), so a pause or a
seat change can never leave half a message behind.
"""

from __future__ import annotations

import asyncio
from typing import Literal

from pingpong.core.seats import HumanSeat

Gate = Literal["user", "assistant", "judges"]


class SessionControl:
    """Shared between one engine run and its UI. ``paused=True`` starts held."""

    def __init__(self, *, paused: bool = False) -> None:
        self.human = HumanSeat()
        self._paused = paused
        self._stepping = False
        self._step_done = False       # the stepped turn's player message has been allowed
        self._in_reply = False        # a player message is under way (the last gate passed was its own)
        self._cancelled = False
        self._ending = False
        self._pending: dict[str, str] = {}
        self._pending_members: dict[str, str] = {}
        self._speaker: str | None = None
        self._changed = asyncio.Event()
        self._task: asyncio.Task | None = None

    # -- what the UI calls ---------------------------------------------

    @property
    def paused(self) -> bool:
        return self._paused

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    def pause(self) -> None:
        """Hold before the next message (the one being written is finished first)."""
        self._paused, self._stepping = True, False
        self._notify()

    def resume(self) -> None:
        self._paused, self._stepping = False, False
        self._notify()

    def step(self) -> None:
        """Run exactly one turn, then pause: the turn under way, when there is one (it ends with its
        player message), else the next. After the last turn, one step lets the judges run."""
        self._paused, self._stepping, self._step_done = False, True, self._in_reply
        self._notify()

    @property
    def ending(self) -> bool:
        """A person asked to end the dialogue: no further user message is written."""
        return self._ending

    def end_dialogue(self) -> None:
        """End the conversation before its next user message (a person waiting to type is released);
        the judges still run. A method that stops by itself (DMT) records that a person ended it."""
        self._ending = True
        self._notify()

    def set_seat(self, role: str, who: str) -> None:
        """Seat a model name or "human" in "player" or "interrogator" before the next message."""
        if role not in ("player", "interrogator"):
            raise ValueError(f"seat must be 'player' or 'interrogator', not {role!r}")
        if not who:
            raise ValueError("a seat needs a model name or 'human'")
        self._pending[role] = who
        self._notify()

    def set_member_seat(self, character: str, who: str) -> None:
        """Seat a model name or "human" as one member of a group scene, from its next line."""
        if not who:
            raise ValueError("a seat needs a model name or 'human'")
        self._pending_members[character] = who
        self._notify()

    def choose_speaker(self, character: str) -> None:
        """A group scene's next line goes to ``character`` (a card name), whoever would have been next."""
        self._speaker = character
        self._notify()

    @property
    def chosen_speaker(self) -> str | None:
        """The person's choice not yet used by the engine."""
        return self._speaker

    def cancel(self) -> None:
        """Stop now. The engine's run() raises CancelledError; no partial message is emitted."""
        self._cancelled = True
        if self._task is not None and not self._task.done():
            self._task.cancel()
        self._notify()

    # -- what the engine calls -----------------------------------------

    def _notify(self) -> None:
        self._changed.set()

    def _attach(self, task: asyncio.Task) -> None:
        self._task = task

    def _take_seat_changes(self) -> dict[str, str]:
        changes, self._pending = self._pending, {}
        return changes

    def _take_member_seat_changes(self) -> dict[str, str]:
        changes, self._pending_members = self._pending_members, {}
        return changes

    def _take_speaker(self) -> str | None:
        speaker, self._speaker = self._speaker, None
        return speaker

    def _allows(self, gate: Gate) -> bool:
        """Whether the message behind ``gate`` may start now (updates step bookkeeping)."""
        if self._paused:
            self._in_reply = False
            return False
        if self._stepping:
            if gate in ("user", "judges") and self._step_done:
                self._paused, self._stepping, self._in_reply = True, False, False
                return False
            if gate in ("assistant", "judges"):
                self._step_done = True
        self._in_reply = gate == "assistant"
        return True

    async def _wait_change(self) -> None:
        """Sleep until the UI changes something (callers re-check their condition)."""
        await self._changed.wait()
        self._changed.clear()
