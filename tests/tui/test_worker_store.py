"""Closing a screen's store while its worker thread queries it must wait for the query (else SIGSEGV)."""

from __future__ import annotations

import sqlite3
import threading

import pytest

from pingpong.sessions.store import Store
from pingpong.tui.worker_store import StoreClosed, WorkerStore


def test_close_while_a_worker_queries_waits_for_the_query(tmp_path):
    opened: list[Store] = []

    def opener() -> Store:
        opened.append(Store(tmp_path / "db.sqlite"))
        return opened[-1]

    holder = WorkerStore(opener)
    inside, release, result = threading.Event(), threading.Event(), []

    def worker() -> None:
        with holder.use() as store:
            inside.set()
            release.wait(5)
            result.append(store.db.execute("select count(*) from sessions").fetchone()[0])

    thread = threading.Thread(target=worker)
    thread.start()
    assert inside.wait(5)
    holder.close()  # the UI leaves: must not close under the running query, must not block
    release.set()
    thread.join(5)
    assert result == [0]  # the query ran on an open connection
    with pytest.raises(sqlite3.ProgrammingError):  # and the worker closed it on its way out
        opened[0].db.execute("select 1")
    with pytest.raises(StoreClosed):
        with holder.use():
            pass


def test_idle_store_closes_at_once_and_is_opened_lazily(tmp_path):
    opened: list[Store] = []
    holder = WorkerStore(lambda: opened.append(Store(tmp_path / "db.sqlite")) or opened[-1])
    holder.close()
    assert opened == []  # never used, never opened
    holder = WorkerStore(lambda: opened.append(Store(tmp_path / "db.sqlite")) or opened[-1])
    with holder.use() as first:
        pass
    with holder.use() as second:
        assert second is first  # one connection, reused
    holder.close()
    with pytest.raises(sqlite3.ProgrammingError):
        first.db.execute("select 1")
