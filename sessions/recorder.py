"""Turns the engine's events into rows, each completed thing in its own transaction.

Streamed deltas are never written: a message exists in the database only once it
is whole, so a crash can lose at most the message being generated.
"""

from __future__ import annotations

from pingpong.core.domain import CallRecord
from pingpong.core.events import (
    CallFinished,
    Event,
    MessageCompleted,
    NotesChanged,
    SessionFailed,
    SessionFinished,
    VerdictReady,
)
from pingpong.sessions.store import Store

STORED = (MessageCompleted, NotesChanged, CallFinished, VerdictReady, SessionFinished, SessionFailed)
"""The events that become rows; the others (deltas, turn starts, seat changes) are for screens."""


class Recorder:
    """Consumes the events of one session and commits what they carry as it happens.

    A model call's record waits for the next thing committed (the message or verdict it
    produced, or the session's end) and goes into the same transaction: half the commits,
    and nothing a later call depends on is ever left uncommitted.
    """

    def __init__(self, store: Store, session_id: int):
        self.store = store
        self.session_id = session_id
        self._calls: list[CallRecord] = []

    def handle(self, event: Event) -> None:
        if isinstance(event, CallFinished):
            self._calls.append(event.call)
            return
        if not isinstance(event, STORED):
            return
        with self.store.transaction():
            self._write_calls()
            if isinstance(event, MessageCompleted):
                self.store.add_message(self.session_id, event.message)
            elif isinstance(event, NotesChanged):
                self.store.set_message_notes(self.session_id, event.message)
            elif isinstance(event, VerdictReady):
                self.store.add_verdict(self.session_id, event.verdict)
            elif isinstance(event, SessionFinished):
                self.store.set_status(self.session_id, "finished")
            elif isinstance(event, SessionFailed):
                who = f"{event.role} {event.model}: " if event.role and event.model else ""
                self.store.set_status(self.session_id, "failed", error=f"{who}{event.error}")
        self._calls = []   # committed

    def flush(self) -> None:
        """Commit the call records still waiting (the session stopped between two messages)."""
        if self._calls:
            with self.store.transaction():
                self._write_calls()
            self._calls = []

    def _write_calls(self) -> None:
        if self._calls:
            self.store.add_calls(self.session_id, self._calls)
