"""Run a stored session from where it stopped, recording every event as it passes by.

The TUI, `sessions resume` and the batch runner all drive sessions through
`run_session`, so resuming, claiming and marking interruptions happen in one place.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from contextlib import aclosing

from pingpong.core.domain import Character, SessionSpec, Situation
from pingpong.core.errors import UserError
from pingpong.core.events import Event, SessionFailed, SessionFinished
from pingpong.sessions.recorder import Recorder
from pingpong.sessions.store import Store


def start_session(store: Store, spec: SessionSpec, character: Character, situation: Situation,
                  run_id: int | None = None) -> int:
    """Create the session row (snapshots of card and situation); run it with run_session."""
    return store.create_session(spec, character, situation, run_id)


async def run_session(store: Store, pool, session_id: int, control=None, *,
                      renderer=None, offload: bool = False) -> AsyncGenerator[Event, None]:
    """Claim the session, run the engine after the last stored message, record and yield each event.

    A finished session or one alive in another process raises UserError. offload: commit in a
    worker thread (the TUI: its event loop keeps drawing while SQLite syncs), in event order. If the
    consumer is cancelled or stops iterating before the end, the session becomes
    `interrupted`; an unexpected error marks it `failed` and propagates.
    """
    from pingpong.core.engine import SessionEngine  # the engine pulls in the model layer
    from pingpong.core.methods import get_method

    stored = store.session(session_id)
    if stored.status == "finished":
        raise UserError(f"session {session_id}: already finished")
    store.claim(session_id)
    kwargs = {"renderer": renderer} if renderer is not None else {}
    method = get_method(stored.spec.method)
    engine = SessionEngine(
        spec=stored.spec, character=stored.character, situation=stored.situation, pool=pool,
        control=control, history=stored.messages, verdicts=method.done_verdicts(stored.verdicts),
        method=method, seats={role: stored.seat(role) for role in ("interrogator", "player")}, **kwargs,
    )
    recorder = Recorder(store, session_id)
    ended = False
    try:
        async with aclosing(engine.run()) as events:
            async for event in events:
                if offload and recorder.writes(event):
                    await asyncio.to_thread(recorder.handle, event)
                else:
                    recorder.handle(event)
                if isinstance(event, (SessionFinished, SessionFailed)):
                    ended = True
                yield event
    except (asyncio.CancelledError, KeyboardInterrupt, GeneratorExit):
        if not ended:
            store.set_status(session_id, "interrupted")
        raise
    except Exception as exc:
        if not ended:
            store.set_status(session_id, "failed", error=f"{type(exc).__name__}: {exc}")
        raise
    if not ended:  # the engine stopped without an end (cancelled through its control)
        store.set_status(session_id, "interrupted")


async def judge_session(store: Store, pool, session_id: int, judges: list[str]) -> AsyncGenerator[Event, None]:
    """Score a stored session with ``judges`` (added to its judges), or retry their failed turns;
    record and yield each event. The player and interrogator are never called."""
    from pingpong.core.engine import SessionEngine
    from pingpong.core.methods import get_method

    stored = store.session(session_id)
    method = get_method(stored.spec.method)
    spec = stored.spec.model_copy(update={"judges": list(dict.fromkeys([*stored.spec.judges, *judges]))})
    for judge in judges:
        store.add_judge(session_id, judge)
    engine = SessionEngine(spec=spec.model_copy(update={"judges": judges}), character=stored.character,
                           situation=stored.situation, pool=pool, history=stored.messages,
                           verdicts=method.done_verdicts(stored.verdicts), method=method, judge_only=True)
    recorder = Recorder(store, session_id)
    async with aclosing(engine.run()) as events:
        async for event in events:
            if isinstance(event, SessionFinished):
                continue  # the session's own status stays as it was
            recorder.handle(event)
            yield event
