"""Run a stored session from where it stopped, recording every event as it passes by.

The TUI, `sessions resume` and the batch runner all drive sessions through
`run_session`, so resuming, claiming and marking interruptions happen in one place.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import AsyncGenerator, Sequence
from contextlib import aclosing
from dataclasses import dataclass

from pingpong.core.domain import Character, SessionSpec, Situation
from pingpong.core.errors import StorageError, UserError
from pingpong.core.events import Event, SessionFailed, SessionFinished
from pingpong.sessions.commits import CommitGroup
from pingpong.sessions.recorder import Recorder
from pingpong.sessions.store import Store


def start_session(store: Store, spec: SessionSpec, character: Character, situation: Situation,
                  run_id: int | None = None, cast: Sequence[Character] = ()) -> int:
    """Create the session row (snapshots of card, situation and a group scene's member cards);
    run it with run_session."""
    return store.create_session(spec, character, situation, run_id, cast=cast)


@dataclass(frozen=True)
class Started:
    """A session this process has just created and claimed, with the parts it was made of:
    run_session neither reads them back nor claims it again (a batch run's conversation
    starts one shared commit sooner)."""

    session_id: int
    spec: SessionSpec
    character: Character
    situation: Situation
    cast: tuple[Character, ...] = ()


def open_session(store: Store, pool, spec: SessionSpec, character: Character, situation: Situation,
                 run_id: int | None = None, cast: Sequence[Character] = ()) -> Started:
    """start_session and the seats that run_session's claim would record, in the caller's transaction."""
    session_id = start_session(store, spec, character, situation, run_id, cast)
    record_seats(store, pool, session_id, spec)
    return Started(session_id, spec, character, situation, tuple(cast))


def record_seats(store: Store, pool, session_id: int, spec: SessionSpec, judges: list[str] | None = None) -> None:
    """Write down how each model seat is set up (its params), once, for the PingPong results export."""
    from pingpong.core.domain import HUMAN
    from pingpong.core.llm import Task, seat_setup

    specs = getattr(pool, "specs", {})
    tester = spec.method == "pingpong-v1"  # one model asks and scores, at the tester's sampling
    interrogate: Task = "interrogator_judge" if tester else "interrogator"
    judge: Task = "interrogator_judge" if tester else "judge"
    wanted: list[tuple[str, str, Task]] = [("player", spec.player, "player"),
                                           ("interrogator", spec.interrogator, interrogate)]
    wanted += [(f"judge:{j}", j, judge) for j in (spec.judges if judges is None else judges)]
    seats = {key: seat_setup(specs[name], task) for key, name, task in wanted
             if name != HUMAN and name in specs and key not in spec.seats}
    store.add_setup(session_id, seats=seats)


def preload(pool, method: str, models: Sequence[str], prompting: str | None = None) -> None:
    """Import what sessions of `method` with these models will need for their calls, prompts and
    scores (openai, BM25 for fsd prompts, the method's scorer), so that no import on the way stops
    the event loop. Safe in a thread: the TUI runs it in one before a session starts, and its
    drawing goes on meanwhile (the first session of a RoleBench process then waits for Rouge
    before its question, not after its answer); a batch run, before its first conversation."""
    from pingpong.core.methods import get_method

    pool.preload(models)
    if prompting == "fsd":
        import rank_bm25  # noqa: F401  # with numpy
    get_method(method).warm()


def _models(spec: SessionSpec) -> list[str]:
    return [spec.player, spec.interrogator, *spec.judges]


def _engine(session_id: int, **kwargs):
    """The engine over a stored session; UserError when its messages are out of order (a
    database written by hand or by an old bug), so nothing is claimed or called."""
    from pingpong.core.engine import SessionEngine  # the engine pulls in the model layer

    try:
        return SessionEngine(**kwargs)
    except ValueError as exc:
        raise UserError(f"session {session_id}: its stored messages cannot be continued or judged ({exc})") from None


async def run_session(store: Store, pool, session: int | Started, control=None, *,
                      renderer=None, offload: bool = False, deltas: float | None = 0.0,
                      commits: CommitGroup | None = None) -> AsyncGenerator[Event, None]:
    """Claim the session, run the engine after the last stored message, record and yield each event.
    `session`: its id, or the Started that open_session gave (claimed already, nothing stored yet).

    A finished session or one alive in another process raises UserError. offload: import what the
    session needs (preload) and commit in a worker thread (the TUI: its event loop keeps drawing
    meanwhile), in event order. If the consumer is cancelled or stops iterating before the end,
    the session becomes `interrupted`; an unexpected error marks it `failed` and propagates.
    deltas: how streamed pieces reach the consumer (core.engine.SessionEngine: the batch runner
    takes them gathered, for the drafts another process's Watch screen shows). commits: share
    transactions with the other sessions on this loop (the batch runner; sessions/commits.py).
    """
    from pingpong.core.methods import get_method

    kwargs = {"renderer": renderer} if renderer is not None else {}
    if isinstance(session, Started):  # just created and claimed by this process: nothing stored yet
        stored = None
        session_id, spec, character, situation = session.session_id, session.spec, session.character, session.situation
        cast, history, done = list(session.cast), [], []
        seats = {"interrogator": spec.interrogator, "player": spec.player}
    else:
        session_id, stored = session, store.session(session)
        if stored.status == "finished":
            raise UserError(f"session {session_id}: already finished")
        spec, character, situation = stored.spec, stored.character, stored.situation
        cast, history, done = stored.cast, stored.messages, stored.verdicts
        seats = {role: stored.seat(role) for role in ("interrogator", "player")}
    try:  # before the claim: a stored session that cannot be resumed is left as it was
        method = get_method(spec.method)
        engine = _engine(session_id, spec=spec, character=character, situation=situation, pool=pool,
                         control=control, history=history, verdicts=method.done_verdicts(done), method=method,
                         deltas=deltas, cast=cast, seats=seats, **kwargs)
    except Exception as exc:
        if stored is None:  # ours and running already: it must not stay so
            store.set_status(session_id, "failed", error=f"{type(exc).__name__}: {exc}")
        raise
    if stored is not None:
        claim = _Claim(store, pool, session_id, spec)
        try:
            if commits is not None:
                await commits.write(claim)
            else:
                claim()
        except (asyncio.CancelledError, KeyboardInterrupt):
            claim.abandon()
            raise
    recorder = Recorder(store, session_id, pool.scrub_draft)
    ended = False
    try:
        if offload:
            await asyncio.to_thread(preload, pool, spec.method, _models(spec), spec.prompting)
        async with aclosing(engine.run()) as events:
            async for event in events:
                if commits is not None and recorder.writes(event):
                    await commits.write(functools.partial(recorder.handle, event))
                elif offload and recorder.writes(event):
                    await asyncio.to_thread(recorder.handle, event)
                else:
                    recorder.handle(event)
                if isinstance(event, (SessionFinished, SessionFailed)):
                    ended = True
                yield event
    except (asyncio.CancelledError, KeyboardInterrupt, GeneratorExit):
        recorder.flush()
        if not ended:
            store.set_status(session_id, "interrupted")
        raise
    except StorageError:  # not the conversation's fault: resumable, if the database takes that much
        if not ended:
            with contextlib.suppress(StorageError):
                store.set_status(session_id, "interrupted")
        raise
    except Exception as exc:
        recorder.flush()
        if not ended:
            store.set_status(session_id, "failed", error=f"{type(exc).__name__}: {exc}")
        raise
    recorder.flush()
    if not ended:  # the engine stopped without an end (cancelled through its control)
        store.set_status(session_id, "interrupted")


class _Claim:
    """The claim of a session as a shared commit runs it, and what a cancel while it waits does.

    A claim queued in a commit group runs at the group's next commit, and one already committed
    may still wake its session cancelled: either way the session must not stay `running`."""

    def __init__(self, store: Store, pool, session_id: int, spec: SessionSpec) -> None:
        self.store, self.pool, self.session_id, self.spec = store, pool, session_id, spec
        self.claimed = self.abandoned = False

    def __call__(self) -> None:
        if self.abandoned:
            return
        self.store.claim(self.session_id)
        record_seats(self.store, self.pool, self.session_id, self.spec)
        self.claimed = True

    def abandon(self) -> None:
        """Cancelled before the session started: undo a claim that was made, skip one still queued."""
        self.abandoned = True
        if self.claimed:
            self.store.set_status(self.session_id, "interrupted")


class JudgedElsewhere(UserError):
    """Every judge asked for is scoring the session in another live process now: calling them here
    too would pay for the same turns twice."""


async def judge_session(store: Store, pool, session_id: int, judges: list[str], *,
                        offload: bool = False) -> AsyncGenerator[Event, None]:
    """Score a stored session with ``judges`` (added to its judges), or retry their failed turns;
    record and yield each event. The player and interrogator are never called. offload: import
    what the judges need in a worker thread first (the TUI). Each judge is leased for the session
    while it scores (Store.lease_judges); JudgedElsewhere when another process holds them all."""
    from pingpong.core.methods import get_method

    stored = store.session(session_id)
    method = get_method(stored.spec.method)
    method.check_judgeable(session_id, judges, stored.spec.interrogator)
    leased = store.lease_judges(session_id, judges)
    if not leased:
        raise JudgedElsewhere(f"session {session_id}: another process is scoring it with {', '.join(judges)} now")
    try:
        judges = leased
        spec = stored.spec.model_copy(update={"judges": list(dict.fromkeys([*stored.spec.judges, *judges]))})
        engine = _engine(session_id, spec=spec.model_copy(update={"judges": judges}), character=stored.character,
                         situation=stored.situation, pool=pool, history=stored.messages,
                         verdicts=method.done_verdicts(stored.verdicts), method=method, judge_only=True,
                         cast=stored.cast)
        if offload:
            await asyncio.to_thread(preload, pool, spec.method, judges)
        for judge in judges:
            store.add_judge(session_id, judge)
        record_seats(store, pool, session_id, stored.spec, judges)
        recorder = Recorder(store, session_id, pool.scrub_draft)
        async with aclosing(engine.run()) as events:
            async for event in events:
                if isinstance(event, SessionFinished):
                    continue  # the session's own status stays as it was
                recorder.handle(event)
                yield event
        recorder.flush()
    finally:
        store.release_judges(session_id, leased)
