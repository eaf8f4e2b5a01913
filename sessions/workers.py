"""`pingpong run --workers N`: one run spread over N processes on the same database.

One process's event loop caps a run at about a thousand requests a second; a fast local
server (vLLM, llama.cpp) answers more. Extra worker processes run the same plan through
their own BatchRunner: the runner's claim (check and create under one write transaction)
already keeps two processes from running the same pair, so no work is split up front and a
worker that finishes early simply finds the remaining pairs taken.

Workers ignore Ctrl-C; the parent, which gets it, sets a shared stop flag, and each worker
then interrupts its conversations the way a single run does (saved as `interrupted`). Every
quarter second a worker sends its counters to the parent, which shows one display for all.
Workers are started before the parent checks its input, so that their imports (openai takes
about a second) overlap the parent's own start instead of following it.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import multiprocessing
import queue as queue_module
import signal
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.context import SpawnProcess
from pathlib import Path
from typing import Any

from pingpong.core.domain import ModelSpec
from pingpong.sessions.runner import BatchRunner, PlayerCounts, RunProgress, RunSetup

REPORT_EVERY = 0.25
SUMMED = ("in_flight", "failed", "requests", "retries", "tokens", "player_latency_ms", "player_replies")
RUN_SUMMED = ("requests", "retries", "failed_requests", "prompt_tokens", "completion_tokens", "finished_here",
              "interrupted_sessions")


@dataclass(frozen=True)
class WorkerJob:
    """What a worker process needs to run its share (all picklable)."""

    db_path: Path
    templates_dir: Path | None
    setup: RunSetup
    specs: dict[str, ModelSpec]
    concurrency: int


def _worker(index: int, jobs: Any, reports: Any, stop: Any) -> None:
    """A worker process: import what a run needs, then run the plan the parent sends until done
    or until the parent sets ``stop`` (a None job: the run ended before it began)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)   # the parent decides when to stop
    _import_run_modules()
    job = jobs.get()
    if job is None:
        return
    from pingpong.sessions.runner import loop_factory

    with asyncio.Runner(loop_factory=loop_factory()) as runner:
        runner.run(_work(index, job, reports, stop))


def _import_run_modules() -> None:
    """The imports a worker needs (about a second, most of it openai), done while the parent
    still checks its input and prepares the plan, instead of after."""
    import pingpong.core.openai_client  # noqa: F401
    import pingpong.core.prompts  # noqa: F401
    import pingpong.sessions.store  # noqa: F401


async def _work(index: int, job: WorkerJob, reports: Any, stop: Any) -> None:
    from pingpong.core.llm import ModelPool
    from pingpong.core.prompts import PromptRenderer
    from pingpong.sessions.store import Store

    store = Store(job.db_path)
    pool = ModelPool(job.specs)
    batch = BatchRunner(store, pool, job.setup, concurrency=job.concurrency,
                        renderer=PromptRenderer(job.templates_dir))
    try:
        batch.prepare()
        task = asyncio.create_task(batch.run())
        while not task.done():
            await asyncio.wait([task], timeout=REPORT_EVERY)
            reports.put((index, copy.deepcopy(batch.progress)))
            if stop.is_set() and not task.done():
                task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        reports.put((index, copy.deepcopy(batch.progress)))
    finally:
        await pool.aclose()
        store.close()


class WorkerGroup:
    """The extra processes of a run, and the merged view of everyone's progress.

    Started first thing, they import while the parent prepares; ``begin`` hands them the job."""

    def __init__(self, extra: int) -> None:
        ctx = multiprocessing.get_context("spawn")   # never fork a process that holds SQLite and sockets
        self._jobs = ctx.Queue()
        self._reports = ctx.Queue()
        self._stop = ctx.Event()
        self._latest: dict[int, RunProgress] = {}
        self._handed = False
        self.processes: list[SpawnProcess] = [
            ctx.Process(target=_worker, args=(i, self._jobs, self._reports, self._stop),
                        name=f"pingpong-worker-{i + 1}", daemon=True)
            for i in range(extra)]

    def start(self) -> None:
        for process in self.processes:
            process.start()

    def begin(self, job: WorkerJob) -> None:
        """Give every worker the run to work on."""
        self._hand(job)

    def stop(self) -> None:
        """Ask every worker to interrupt its conversations and end (Ctrl-C in the parent, or the
        run ended before its workers were given anything)."""
        self._stop.set()
        self._hand(None)

    def _hand(self, job: WorkerJob | None) -> None:
        if not self._handed:
            self._handed = True
            for _ in self.processes:
                self._jobs.put(job)

    def alive(self) -> bool:
        return any(p.is_alive() for p in self.processes)

    async def wait(self) -> None:
        """Until every worker has ended, draining their reports meanwhile."""
        while self.alive():
            self.poll()
            await asyncio.sleep(REPORT_EVERY)
        for process in self.processes:
            process.join()
        self.poll()

    def poll(self) -> None:
        """Take the reports that arrived (the newest per worker wins)."""
        while True:
            try:
                index, progress = self._reports.get_nowait()
            except (queue_module.Empty, EOFError, OSError):
                return
            self._latest[index] = progress

    def merge(self, own: RunProgress, already: dict[str, int], into: RunProgress) -> RunProgress:
        """``into`` updated to the whole run: conversations finished before it began (``already``,
        per player) plus what each process finished, and every process's counters summed."""
        self.poll()
        everyone = [own, *self._latest.values()]
        for player, counts in into.players.items():
            parts = [p.players.get(player, PlayerCounts()) for p in everyone]
            counts.total = own.players[player].total
            counts.skipped = already.get(player, 0)
            counts.done = counts.skipped + sum(c.finished_here for c in parts)
            counts.finished_here = counts.done - counts.skipped
            counts.elsewhere = 0
            for name in SUMMED:
                setattr(counts, name, sum(getattr(c, name) for c in parts))
        for name in RUN_SUMMED:
            setattr(into, name, sum(getattr(p, name) for p in everyone))
        into.errors = [e for p in everyone for e in p.errors][:5]
        into.interrupted = any(p.interrupted for p in everyone)
        into.started = own.started
        return into


def merged_view(own: RunProgress, group: WorkerGroup) -> tuple[RunProgress, Callable[[], RunProgress]]:
    """A progress object for the whole run, and the function that brings it up to date.

    Call it after ``own`` was prepared: what was finished before the run began is read then."""
    already = {player: counts.done for player, counts in own.players.items()}
    view = RunProgress({player: PlayerCounts() for player in own.players})
    return view, lambda: group.merge(own, already, view)
