"""One commit for the writes of every session that reaches a stored event in the same pass of
the event loop.

A batch run holds dozens of conversations on one event loop. Answers that arrive together
would each pay for a transaction of their own; here their writes are queued, and one
callback at the end of the loop's pass commits them all. Each session waits until its own
write is committed before it goes on, so nothing a later call depends on is ever left
uncommitted, and a write that fails is undone alone (a savepoint) and raised in its session. A
claim whose conversation was cancelled before the commit (Ctrl-C) is dropped: it would leave a
session marked running by a process that never learnt of it.
"""

from __future__ import annotations

import asyncio
import sqlite3
import weakref
from collections.abc import Callable

from pingpong.sessions.store import BUSY_TIMEOUT_MS, Busy, Store

RETRY_SECONDS = 0.001
"""How soon a commit that found another process writing tries again."""


class CommitGroup:
    """Queues writes (callables that write through the store) and commits each pass's together.

    While another process (a second worker of the run, the TUI) holds the write lock, the
    commit is tried again a moment later instead of waiting in SQLite's busy handler, which
    would stop this event loop and every conversation on it; writes that arrive meanwhile
    join the waiting commit. After the store's busy timeout it waits the usual way."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._queued: list[tuple[Callable[[], None], asyncio.Future[None]]] = []
        self._scheduled = False
        self._busy_since: float | None = None
        self.commits = 0   # transactions committed (for benchmarks and tests)
        self.writes = 0    # writes they carried
        self.busy = 0      # tries that found the database locked by another process
        self._droppable: weakref.WeakSet[asyncio.Future[None]] = weakref.WeakSet()  # claims (unless_cancelled)

    async def write(self, write: Callable[[], None], *, unless_cancelled: bool = False) -> None:
        """Run `write` inside the next shared transaction; return once that is committed.
        unless_cancelled: drop it when the caller is cancelled before the commit (a claim, whose
        caller would never learn of the session it made); other writes, a completed message among
        them, are committed whatever becomes of their caller."""
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()
        if unless_cancelled:
            self._droppable.add(done)
        self._queued.append((write, done))
        if not self._scheduled:
            self._scheduled = True
            loop.call_soon(self._commit)
        await done

    def _commit(self) -> None:
        self._scheduled = False
        queued, self._queued = self._queued, []
        loop = asyncio.get_running_loop()
        waited = 0.0 if self._busy_since is None else loop.time() - self._busy_since
        failed: dict[int, BaseException] = {}
        queued = [(write, done) for write, done in queued if not (done.cancelled() and done in self._droppable)]
        if not queued:
            return
        try:
            with self.store.writing(wait=waited * 1000 >= BUSY_TIMEOUT_MS):
                for i, (write, _done) in enumerate(queued):
                    try:
                        with self.store.savepoint():
                            write()
                    except sqlite3.OperationalError:  # the database's problem (full, read-only): everyone's
                        raise
                    except Exception as exc:  # that session's problem: the others' writes stand
                        failed[i] = exc
        except Busy:
            self.busy += 1
            if self._busy_since is None:
                self._busy_since = loop.time()
            self._queued = queued + self._queued
            self._scheduled = True
            loop.call_later(RETRY_SECONDS, self._commit)
            return
        except BaseException as exc:  # the commit itself failed: none of the writes is stored
            self._busy_since = None
            for _write, done in queued:
                if not done.done():
                    done.set_exception(exc)
            return
        self._busy_since = None
        self.commits += 1
        self.writes += len(queued) - len(failed)
        for i, (_write, done) in enumerate(queued):
            if done.done():
                continue
            if i in failed:
                done.set_exception(failed[i])
            else:
                done.set_result(None)
