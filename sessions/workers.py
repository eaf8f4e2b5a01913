"""`pingpong run --workers N`: one run spread over N worker processes on the same database.

One process's event loop caps a run at about a thousand requests a second; a fast local
server (vLLM, llama.cpp) answers more. Each worker runs the same plan through its own
BatchRunner: the runner's claim (check and create under one write transaction) already keeps
two processes from running the same pair, so no work is split up front and a worker that
finishes early simply finds the remaining pairs taken (or takes over those of a worker that died).

The command's own process only coordinates: it checks the input, prepares the plan and shows
one display for all, from the counters each worker sends every quarter second. Its first act
is to launch the fork server that the workers are forked from, so that their imports (openai
alone takes about a second) overlap the command's own checking and preparing instead of
following them; the command never imports openai.
Workers (and the fork server) ignore Ctrl-C; the parent, which gets it, sets a shared stop
flag, and each worker then interrupts its conversations the way a single run does (saved as
`interrupted`).
"""

from __future__ import annotations

import contextlib
import copy
import multiprocessing
import queue as queue_module
import signal
import threading
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import wait as wait_for_ends
from multiprocessing.context import ForkServerContext, SpawnContext
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pingpong.core.errors import UserError

# asyncio, too, is imported where used: the command imports this module before anything
# else that takes time, to launch the fork server (start_fork_server).
if TYPE_CHECKING:
    from pingpong.core.domain import ModelSpec
    from pingpong.sessions.runner import RunProgress, RunSetup

REPORT_EVERY = 0.25
STOP_WAIT = 10.0
"""Seconds a command stopped before its workers began waits for each to end (they end at once)."""
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
    or until the parent sets ``stop`` (a None job: the run ended before it began). An error ends
    the worker with its one line sent to the parent, which reports it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)   # the parent decides when to stop: a terminal's
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # Ctrl-C or a SIGTERM to the whole group reaches it too
    _import_run_modules()
    try:
        while not jobs.poll(REPORT_EVERY):
            if parent_gone():
                return
        job = jobs.recv()
    except (EOFError, OSError):  # the command died while it handed the job over: a part of it came
        return
    if job is None:
        return
    import asyncio

    from pingpong.sessions.runner import loop_factory

    try:
        with asyncio.Runner(loop_factory=loop_factory()) as runner:
            runner.run(_work(index, job, reports, stop))
    except Exception as exc:  # any error: the parent says it in one line, without a traceback
        reports.put((index, str(exc) if isinstance(exc, UserError) else f"{type(exc).__name__}: {exc}"))
        reports.close()
        reports.join_thread()
        raise SystemExit(1) from None


RUN_MODULES = ("pingpong.core.openai_client", "pingpong.core.prompts", "pingpong.sessions.store",
               "pingpong.sessions.workers", "jinja2.sandbox", "uvloop", "pingpong.sessions.fork_preload")
"""What a worker imports before its job comes (about 1.3 s, most of it openai), the last one
freezing what the others made (sessions/fork_preload.py). Not sqlite_utils: the command has
migrated the database, and a run writes through the store's bare connection."""


def _import_run_modules() -> None:
    """Import RUN_MODULES (already there in a worker forked from the preloaded fork server)."""
    import importlib

    for name in RUN_MODULES:
        with contextlib.suppress(ImportError):   # uvloop is optional
            importlib.import_module(name)


def _context() -> ForkServerContext | SpawnContext:
    """A fork server that imports RUN_MODULES once and forks every worker from itself, where
    the platform has one; else spawn, each worker importing on its own. Never a plain fork of
    the command's process, which holds SQLite and sockets."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(list(RUN_MODULES))
    return ctx


def start_fork_server() -> None:
    """Launch the fork server now, before the command checks its input: its imports (about
    1.5 s) then overlap the command's own instead of following them. A command that stops on
    bad input leaves it nothing to do: it ends once it sees its parent gone.

    A terminal's Ctrl-C reaches the fork server too, while it still imports: it is the
    command's to handle, and would end the fork server with a traceback. So the fork server
    starts with SIGINT blocked (a mask is inherited through exec), as are the workers it forks,
    which ignore it besides. Here it is blocked only while the fork server is launched, and a
    Ctrl-C meanwhile is held, then raised here, not lost. The resource tracker is started first:
    starting it unblocks SIGINT on its way out."""
    if not isinstance(_context(), ForkServerContext):
        return
    from multiprocessing import forkserver, resource_tracker

    resource_tracker.ensure_running()
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        forkserver.ensure_running()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def parent_gone() -> bool:
    """The command that started this worker has died (SIGKILL, SIGTERM, a crash) without setting
    the stop flag: its end of the connection the worker was started through is closed. The
    worker then stops as on Ctrl-C rather than run the plan on with nobody watching."""
    parent = multiprocessing.parent_process()
    return parent is not None and not parent.is_alive()


async def _work(index: int, job: WorkerJob, reports: Any, stop: Any) -> None:
    import asyncio

    from pingpong.core.llm import ModelPool
    from pingpong.core.prompts import PromptRenderer
    from pingpong.sessions.runner import BatchRunner
    from pingpong.sessions.store import Store

    store = Store(job.db_path)
    pool = ModelPool(job.specs)
    batch = BatchRunner(store, pool, job.setup, concurrency=job.concurrency,
                        renderer=PromptRenderer(job.templates_dir), freeze=True)
    try:
        batch.prepare()
        task = asyncio.create_task(batch.run())
        while not task.done():
            await asyncio.wait([task], timeout=REPORT_EVERY)
            reports.put((index, copy.deepcopy(batch.progress)))
            if (stop.is_set() or parent_gone()) and not task.done():
                task.cancel()   # its conversations are saved as interrupted: the same command resumes them
        with contextlib.suppress(asyncio.CancelledError):
            await task
        reports.put((index, copy.deepcopy(batch.progress)))
    finally:
        if parent_gone():   # nobody reads the reports now: exit without waiting to flush them
            reports.cancel_join_thread()
        await pool.aclose()
        store.close()


def _send(end: Any, job: WorkerJob | None) -> None:
    with contextlib.suppress(OSError):  # a worker that died: it reads nothing more
        end.send(job)


class WorkerGroup:
    """The worker processes of a run, and the merged view of everyone's progress.

    Started once the input is checked, they are forked as soon as the fork server has imported,
    while the parent prepares; ``begin`` hands them the job."""

    def __init__(self, workers: int) -> None:
        ctx = _context()
        # A pipe per worker that only this process writes to: a command killed while it sends the
        # job leaves its worker an end of file. A queue shared by all kept its writing end open in
        # every worker, and the worker reading a job cut short waited for the rest for ever.
        pipes = [ctx.Pipe(duplex=False) for _ in range(workers)]
        self._jobs = [sending for _, sending in pipes]
        self._reports = ctx.Queue()
        self._stop = ctx.Event()
        self._latest: dict[int, RunProgress] = {}
        self.failures: dict[int, str] = {}
        """Worker number (from 1) -> the error that ended it."""
        self._handed = False
        self.processes: list[BaseProcess] = [
            ctx.Process(target=_worker, args=(i, receiving, self._reports, self._stop),
                        name=f"pingpong-worker-{i + 1}", daemon=True)
            for i, (receiving, _) in enumerate(pipes)]
        self._starting: threading.Thread | None = None

    def start(self) -> None:
        """Start the workers without waiting for them: starting the first one waits until the
        fork server has imported RUN_MODULES, which this process does not wait for."""
        self._starting = threading.Thread(target=self._start_all, name="pingpong-workers-start", daemon=True)
        self._starting.start()

    def _start_all(self) -> None:
        for number, process in enumerate(self.processes, 1):
            try:
                process.start()
            except Exception as exc:  # the fork server is gone (killed): said as this worker's failure
                self.failures[number] = f"could not start ({type(exc).__name__}: {exc})"

    def _started(self) -> None:
        if self._starting is not None:
            self._starting.join()

    def begin(self, job: WorkerJob) -> None:
        """Give every worker the run to work on."""
        self._hand(job)

    def stop(self) -> None:
        """Ask every worker to interrupt its conversations and end (Ctrl-C in the parent, or the
        run ended before its workers were given anything: then only once they are all started, as
        a worker still starting when this process exits finds its queues gone and says so)."""
        self._stop.set()
        early = not self._handed
        if early:
            self._started()
        self._hand(None)
        if early:  # outlive their start: one still unpickling its queues found them gone (a traceback)
            for process in self.processes:
                if process.pid is not None:
                    process.join(timeout=STOP_WAIT)

    def _hand(self, job: WorkerJob | None) -> None:
        """Send each worker the job (None: nothing to do), each from a thread of its own: a job
        larger than a pipe holds waits until its worker, still importing, reads it."""
        if not self._handed:
            self._handed = True
            for end in self._jobs:
                threading.Thread(target=_send, args=(end, job), name="pingpong-workers-job", daemon=True).start()

    def alive(self) -> bool:
        return any(p.is_alive() for p in self.processes)

    async def wait(self) -> None:
        """Until every worker has ended, draining their reports meanwhile."""
        import asyncio

        if self._starting is not None:
            await asyncio.to_thread(self._starting.join)
        while self.alive():
            self.poll()
            # Woken by a worker's end as well as by the clock: the command ends with its last worker.
            running = [p.sentinel for p in self.processes if p.is_alive()]
            await asyncio.to_thread(wait_for_ends, running, REPORT_EVERY)
        for process in self.processes:
            if process.pid is not None:   # started
                process.join()
        self.poll()
        for number, process in enumerate(self.processes, 1):
            if process.exitcode and number not in self.failures:
                how = (f"killed by signal {-process.exitcode}" if process.exitcode < 0
                       else f"exited with status {process.exitcode}")
                self.failures[number] = how

    def poll(self) -> None:
        """Take the reports that arrived (the newest per worker wins)."""
        while True:
            try:
                index, progress = self._reports.get_nowait()
            except (queue_module.Empty, EOFError, OSError):
                return
            if isinstance(progress, str):
                self.failures[index + 1] = progress
            else:
                self._latest[index] = progress

    def merge(self, own: RunProgress, already: dict[str, int], into: RunProgress) -> RunProgress:
        """``into`` updated to the whole run: conversations finished before it began (``already``,
        per player) plus what each process finished, and every process's counters summed."""
        from pingpong.sessions.runner import PlayerCounts

        self.poll()
        everyone = [own, *self._latest.values()]
        # Each worker sees its siblings' conversations as run elsewhere, so that count means nothing
        # while they work; once all have ended whole, what none of them did was another command's.
        ended = bool(self.processes) and not self.alive() and not self.failures \
            and not any(p.interrupted for p in everyone)
        for player, counts in into.players.items():
            parts = [p.players.get(player, PlayerCounts()) for p in everyone]
            counts.total = own.players[player].total
            counts.skipped = already.get(player, 0)
            counts.done = counts.skipped + sum(c.finished_here for c in parts)
            counts.finished_here = counts.done - counts.skipped
            for name in SUMMED:
                setattr(counts, name, sum(getattr(c, name) for c in parts))
            counts.elsewhere = max(0, counts.total - counts.done - counts.failed) if ended else 0
        for name in RUN_SUMMED:
            setattr(into, name, sum(getattr(p, name) for p in everyone))
        into.errors = [e for p in everyone for e in p.errors][:5]
        into.interrupted = any(p.interrupted for p in everyone)
        into.started = own.started
        return into


def merged_view(own: RunProgress, group: WorkerGroup) -> tuple[RunProgress, Callable[[], RunProgress]]:
    """A progress object for the whole run, and the function that brings it up to date.

    Call it after ``own`` was prepared: what was finished before the run began is read then."""
    from pingpong.sessions.runner import PlayerCounts, RunProgress

    already = {player: counts.done for player, counts in own.players.items()}
    view = RunProgress({player: PlayerCounts() for player in own.players})
    return view, lambda: group.merge(own, already, view)
