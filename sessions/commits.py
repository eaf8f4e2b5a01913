"""One commit for the writes of every session that reaches a stored event in the same pass of
the event loop.

A batch run holds dozens of conversations on one event loop. Answers that arrive together
would each pay for a transaction of their own; here their writes are queued, and one
callback at the end of the loop's pass commits them all. Each session waits until its own
write is committed before it goes on, so nothing a later call depends on is ever left
uncommitted, and a write that fails is undone alone (a savepoint) and raised in its session.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable

from pingpong.sessions.store import Store


class CommitGroup:
    """Queues writes (callables that write through the store) and commits each pass's together."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._queued: list[tuple[Callable[[], None], asyncio.Future[None]]] = []
        self.commits = 0   # transactions committed (for benchmarks and tests)
        self.writes = 0    # writes they carried

    async def write(self, write: Callable[[], None]) -> None:
        """Run `write` inside the next shared transaction; return once that is committed."""
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()
        if not self._queued:
            loop.call_soon(self._commit)
        self._queued.append((write, done))
        await done

    def _commit(self) -> None:
        queued, self._queued = self._queued, []
        failed: dict[int, BaseException] = {}
        try:
            with self.store.transaction():
                for i, (write, _done) in enumerate(queued):
                    try:
                        with self.store.savepoint():
                            write()
                    except sqlite3.OperationalError:  # the database's problem (full, read-only): everyone's
                        raise
                    except Exception as exc:  # that session's problem: the others' writes stand
                        failed[i] = exc
        except BaseException as exc:  # the commit itself failed: none of the writes is stored
            for _write, done in queued:
                if not done.done():
                    done.set_exception(exc)
            return
        self.commits += 1
        self.writes += len(queued) - len(failed)
        for i, (_write, done) in enumerate(queued):
            if done.done():
                continue
            if i in failed:
                done.set_exception(failed[i])
            else:
                done.set_result(None)
