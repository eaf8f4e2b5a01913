"""Sessions this app is running: each engine works in an app-level worker, not in a screen's.

So a person can leave a running session's screen and keep it going in the background (Home shows
it as live, and opening it again hands back its controls), or stop it. A screen that shows a run
is its listener: the run posts every engine event to it but the streamed pieces (Delta), which it
gathers into the message being written (its draft): the screen draws the draft at its own pace,
not once per token, and a screen that comes back can show it at once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from textual.message import Message as TMessage
from textual.message_pump import MessagePump

if TYPE_CHECKING:
    from textual.app import App
    from textual.worker import Worker

    from pingpong.core.control import SessionControl
    from pingpong.core.events import CallFinished


class EngineEvent(TMessage):
    """One engine event, delivered to the screen that shows the session."""

    def __init__(self, event: Any) -> None:
        super().__init__()
        self.event = event


class EngineStopped(TMessage):
    """The engine ended (error = an exception that escaped run_session)."""

    def __init__(self, error: str | None = None) -> None:
        super().__init__()
        self.error = error


@dataclass
class Draft:
    """The message being written, as far as it has come."""

    turn: int
    role: str
    author: str
    pieces: list[str] = field(default_factory=list)
    scrub: Callable[[str], str] = field(default=str, repr=False)  # ModelPool.scrub_draft: no key on screen

    @property
    def text(self) -> str:
        return self.scrub("".join(self.pieces))


def replaces_draft(event: CallFinished) -> bool:
    """A call writing the message failed or is asked again: what it streamed so far is void."""
    return event.call.status != "ok" and event.call.role != "judge"


class SessionRun:
    """One running session: its control, its worker and the screen listening to it (if any)."""

    def __init__(self, session_id: int, control: "SessionControl", scrub: Callable[[str], str] = str) -> None:
        self.session_id = session_id
        self.control = control
        self.scrub = scrub
        self.listener: MessagePump | None = None
        self.draft: Draft | None = None
        self.worker: "Worker | None" = None
        self.outcome = ""  # "finished", "failed" once the engine said so

    def deliver(self, event: Any) -> None:
        # imported here: the app starts (and shows Home) before any session runs
        from pingpong.core.events import (
            CallFinished,
            Delta,
            MessageCompleted,
            SessionFailed,
            SessionFinished,
            TurnStarted,
        )

        if isinstance(event, Delta):
            if self.draft is not None:
                self.draft.pieces.append(event.text)
            return
        if isinstance(event, TurnStarted):
            self.draft = Draft(event.turn, event.role, event.author, scrub=self.scrub)
        elif isinstance(event, CallFinished) and replaces_draft(event) and self.draft is not None:
            self.draft.pieces.clear()
        elif isinstance(event, (MessageCompleted, SessionFailed)):
            self.draft = None
        if isinstance(event, SessionFinished):
            self.outcome = "finished"
        elif isinstance(event, SessionFailed):
            self.outcome = "failed"
        if self.listener is not None:
            self.listener.post_message(EngineEvent(event))

    def stop(self) -> None:
        """Stop now; the message being written is dropped, the session can be resumed."""
        self.control.cancel()
        if self.worker is not None:
            self.worker.cancel()


class SessionRuns:
    """The app's running sessions by id."""

    def __init__(self, app: "App") -> None:
        self.app = app
        self._runs: dict[int, SessionRun] = {}
        self._unsent: dict[int, str] = {}  # what a person typed in a session's message box, not sent

    def keep_unsent(self, session_id: int, text: str) -> None:
        """What is in a session's message box when its screen goes: shown again when it comes back
        (for the app's lifetime; empty forgets it)."""
        if text:
            self._unsent[session_id] = text
        else:
            self._unsent.pop(session_id, None)

    def unsent(self, session_id: int) -> str:
        return self._unsent.get(session_id, "")

    def get(self, session_id: int) -> SessionRun | None:
        return self._runs.get(session_id)

    def ids(self) -> set[int]:
        return set(self._runs)

    def background(self) -> list[int]:
        """Sessions running with no screen showing them."""
        return [sid for sid, run in self._runs.items() if run.listener is None]

    def start(self, session_id: int, control: "SessionControl", listener: MessagePump) -> SessionRun:
        app: Any = self.app
        run = SessionRun(session_id, control, app.pool.scrub_draft)
        run.listener = listener
        self._runs[session_id] = run
        run.worker = self.app.run_worker(self._drive(run), group=f"engine-{session_id}", exit_on_error=False)
        return run

    def stop_all(self) -> None:
        for run in list(self._runs.values()):
            run.stop()

    async def close(self) -> None:
        """Stop every run and wait until each has marked its session interrupted (app exit)."""
        runs = list(self._runs.values())
        self.stop_all()
        for run in runs:
            if run.worker is not None:
                try:
                    await run.worker.wait()
                except Exception:  # cancelled or failed: either way it has ended
                    pass

    async def _drive(self, run: SessionRun) -> None:
        from pingpong.sessions.live import run_session

        app: Any = self.app
        error = None
        try:
            async for event in run_session(app.store, app.pool, run.session_id, run.control, offload=True):
                run.deliver(event)
        except Exception as exc:  # shown with a retry action, never a crash of the app
            error = str(exc) if type(exc).__name__ == "UserError" else f"{type(exc).__name__}: {exc}"
        finally:  # also when stopped (the control cancels this task)
            self._runs.pop(run.session_id, None)
            if run.listener is not None:
                run.listener.post_message(EngineStopped(error))
            elif run.outcome or error:
                what = run.outcome or f"failed: {error}"
                self.app.notify(f"session {run.session_id} {what} (it ran in the background)",
                                severity="error" if error or run.outcome == "failed" else "information")
