"""Typed events the engine yields while it runs a session.

The TUI draws them, the recorder stores them, the batch runner counts them;
none of those consumers is known to the engine.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only: the TUI starts without the pydantic models
    from pingpong.core.domain import CallRecord, JudgeVerdict, Message, Role, SeatRole


@dataclass(frozen=True)
class TurnStarted:
    turn: int
    role: Role
    author: str
    speaker: str | None = None
    """The character about to speak in a group scene (None: the role says who)."""


@dataclass(frozen=True)
class Delta:
    """A piece of streamed text of the message being generated (not stored)."""

    turn: int
    role: Role
    text: str


@dataclass(frozen=True)
class MessageCompleted:
    message: Message


@dataclass(frozen=True)
class NotesChanged:
    """A completed message's notes were extended afterwards (DMT: a person ended the dialogue after
    this reply); ``message`` is the message as it now stands."""

    message: Message


@dataclass(frozen=True)
class SeatChanged:
    role: SeatRole
    author: str
    character: str | None = None
    """A group scene member whose seat changed (None: the role's own seat)."""


@dataclass(frozen=True)
class SpeakerWanted:
    """A group scene waits for the person in the narrator seat to choose who speaks next."""

    turn: int
    members: tuple[str, ...]


@dataclass(frozen=True)
class CallFinished:
    """One attempt of one request ended (ok, will be retried, or failed for good)."""

    call: CallRecord


@dataclass(frozen=True)
class JudgeStarted:
    judge: str
    turns: tuple[int, ...]


@dataclass(frozen=True)
class VerdictReady:
    verdict: JudgeVerdict


@dataclass(frozen=True)
class SessionFinished:
    pass


@dataclass(frozen=True)
class SessionFailed:
    error: str
    role: SeatRole | None = None
    model: str | None = None


Event = (
    TurnStarted | Delta | MessageCompleted | NotesChanged | SeatChanged | SpeakerWanted | CallFinished
    | JudgeStarted | VerdictReady | SessionFinished | SessionFailed
)
