"""A database connection for a screen's thread workers, safe to close from the UI.

Closing an SQLite connection while another thread runs a query on it crashes the
whole process (a segmentation fault, not an exception). A screen that reads in
thread workers therefore never closes its store directly: it asks this holder,
which closes at once when idle, or else lets the query in flight finish and close
it on its way out. Queries take turns, so one connection never serves two threads.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pingpong.sessions.store import Store


class StoreClosed(Exception):
    """The screen that owned the store is gone; the worker has nothing left to do."""


class WorkerStore:
    """Opened on first use (in the worker's thread), closed by close() or by the last user."""

    def __init__(self, opener: Callable[[], Store]):
        self._opener = opener
        self._turn = threading.Lock()   # one user of the connection at a time
        self._state = threading.Lock()  # guards the three fields below
        self._store: Store | None = None
        self._busy = False
        self._closed = False

    @contextmanager
    def use(self) -> Iterator:
        """The open store, for the length of the block; raises StoreClosed after close()."""
        with self._turn:
            with self._state:
                if self._closed:
                    raise StoreClosed()
                self._busy = True
            try:
                if self._store is None:
                    self._store = self._opener()
                yield self._store
            finally:
                with self._state:
                    self._busy = False
                    if self._closed:
                        self._close_now()

    def close(self) -> None:
        """Close now if no query is running, else when the running one ends. Never blocks."""
        with self._state:
            self._closed = True
            if not self._busy:
                self._close_now()

    def _close_now(self) -> None:
        store, self._store = self._store, None
        if store is not None:
            store.close()
