"""Turns the engine's events into rows, each completed thing in its own transaction.

A message exists in the transcript only once it is whole, so a crash can lose at most the
message being generated. While a reply streams, what has come so far is kept apart as the
session's draft, rewritten at most every DRAFT_SECONDS, for other processes to show.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from pingpong.core.domain import CallRecord
from pingpong.core.events import (
    CallFinished,
    Delta,
    Event,
    MessageCompleted,
    NotesChanged,
    SeatChanged,
    SessionFailed,
    SessionFinished,
    TurnStarted,
    VerdictReady,
)
from pingpong.core.reasoning import answer_of
from pingpong.sessions.records import Draft
from pingpong.sessions.store import Store

DRAFT_SECONDS = 0.5
"""How often the message being written is saved as a draft (the Watch screen of another process shows it)."""

STORED = (MessageCompleted, NotesChanged, CallFinished, VerdictReady, SeatChanged, SessionFinished, SessionFailed)
"""The events that become rows; deltas become the draft now and then, turn starts never."""


class Recorder:
    """Consumes the events of one session and commits what they carry as it happens.

    A model call's record waits for the next thing committed (the message or verdict it
    produced, or the session's end) and goes into the same transaction: half the commits,
    and nothing a later call depends on is ever left uncommitted.
    """

    def __init__(self, store: Store, session_id: int, scrub: Callable[[str], str] | None = None):
        self.store = store
        self.session_id = session_id
        self._scrub = scrub  # takes the API keys out of a draft (ModelPool.scrub_draft)
        self._calls: list[CallRecord] = []
        self._draft: Draft | None = None
        self._draft_at = 0.0  # when the draft was last written (monotonic seconds)

    def writes(self, event: Event) -> bool:
        """Whether handle(event) writes to the database (callers may move that off their loop)."""
        if isinstance(event, Delta):
            return self._draft is not None and time.monotonic() - self._draft_at >= DRAFT_SECONDS
        return isinstance(event, STORED) and not isinstance(event, CallFinished)

    def handle(self, event: Event) -> None:
        if isinstance(event, TurnStarted):
            # The first save waits DRAFT_SECONDS too: a reply that comes whole (unstreamed, or
            # quick) is then never written twice, as a draft and as the message.
            self._draft, self._draft_at = Draft(turn=event.turn, role=event.role, author=event.author), time.monotonic()
            return
        if isinstance(event, Delta):
            if self._draft is not None:
                self._draft.text += event.text
                if time.monotonic() - self._draft_at >= DRAFT_SECONDS:
                    self._draft_at = time.monotonic()
                    self.store.save_draft(self.session_id, self._shown(self._draft))
            return
        if isinstance(event, CallFinished):
            if event.call.status == "retry" and self._draft is not None:
                self._draft.text = ""  # the attempt is redone from the start
            self._calls.append(event.call)
            return
        if not isinstance(event, STORED):
            return
        with self.store.writing():
            self._write_calls()
            if isinstance(event, MessageCompleted):
                self._draft = None
                self.store.add_message(self.session_id, event.message)
            elif isinstance(event, NotesChanged):
                self.store.set_message_notes(self.session_id, event.message)
            elif isinstance(event, VerdictReady):
                self.store.add_verdict(self.session_id, event.verdict)
            elif isinstance(event, SeatChanged):
                self.store.set_seat(self.session_id, event.role, event.author)
            elif isinstance(event, SessionFinished):
                self.store.set_status(self.session_id, "finished")
            elif isinstance(event, SessionFailed):
                who = f"{event.role} {event.model}: " if event.role and event.model else ""
                self.store.set_status(self.session_id, "failed", error=f"{who}{event.error}")
        self._calls = []   # committed

    def _shown(self, draft: Draft) -> Draft:
        """The draft as it may be stored: without a reasoning model's leading thinking (not the
        character's words, as the finished message will not hold it) and without API keys."""
        text = answer_of(draft.text)
        if self._scrub is not None:
            text = self._scrub(text)
        return Draft(turn=draft.turn, role=draft.role, author=draft.author, text=text)

    def flush(self) -> None:
        """Commit the call records still waiting (the session stopped between two messages)."""
        if self._calls:
            with self.store.writing():
                self._write_calls()
            self._calls = []

    def _write_calls(self) -> None:
        if self._calls:
            self.store.add_calls(self.session_id, self._calls)
