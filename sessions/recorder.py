"""Turns the engine's events into rows, each completed thing in its own transaction.

Streamed deltas are never written: a message exists in the database only once it
is whole, so a crash can lose at most the message being generated.
"""

from __future__ import annotations

from pingpong.core.events import (
    CallFinished,
    Event,
    MessageCompleted,
    SeatChanged,
    SessionFailed,
    SessionFinished,
    VerdictReady,
)
from pingpong.sessions.store import Store

STORED = (MessageCompleted, CallFinished, VerdictReady, SeatChanged, SessionFinished, SessionFailed)
"""The events that become rows; the others (deltas, turn starts) are for screens."""


class Recorder:
    """Consumes the events of one session and commits what they carry as it happens."""

    def __init__(self, store: Store, session_id: int):
        self.store = store
        self.session_id = session_id

    def handle(self, event: Event) -> None:
        if isinstance(event, MessageCompleted):
            self.store.add_message(self.session_id, event.message)
        elif isinstance(event, CallFinished):
            self.store.add_call(self.session_id, event.call)
        elif isinstance(event, VerdictReady):
            self.store.add_verdict(self.session_id, event.verdict)
        elif isinstance(event, SeatChanged):
            self.store.set_seat(self.session_id, event.role, event.author)
        elif isinstance(event, SessionFinished):
            self.store.set_status(self.session_id, "finished")
        elif isinstance(event, SessionFailed):
            who = f"{event.role} {event.model}: " if event.role and event.model else ""
            self.store.set_status(self.session_id, "failed", error=f"{who}{event.error}")
