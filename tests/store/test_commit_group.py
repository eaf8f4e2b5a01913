"""Writes of several sessions that arrive together share one commit; each still stands alone."""

from __future__ import annotations

import asyncio
import sqlite3

import pytest

from pingpong.core.domain import Message
from pingpong.core.errors import StorageError
from pingpong.sessions.commits import CommitGroup
from tests.store.conftest import make_spec


def _sessions(store, character, situation, n: int) -> list[int]:
    return [store.create_session(make_spec(), character, situation) for _ in range(n)]


def _say(store, sid: int, text: str, turn: int = 1):
    return lambda: store.add_message(sid, Message(turn=turn, role="user", author="offline", text=text))


async def test_writes_of_one_pass_share_a_commit(store, character, situation):
    sids = _sessions(store, character, situation, 5)
    group = CommitGroup(store)
    await asyncio.gather(*(group.write(_say(store, sid, f"hello {sid}")) for sid in sids))
    assert (group.commits, group.writes) == (1, 5)
    assert [store.session(sid).messages[0].text for sid in sids] == [f"hello {sid}" for sid in sids]
    await group.write(_say(store, sids[0], "again", turn=2))  # a later pass: a commit of its own
    assert (group.commits, group.writes) == (2, 6)


async def test_a_failing_write_is_undone_alone_and_raised_in_its_session(store, character, situation):
    good, bad = _sessions(store, character, situation, 2)

    def half_then_fail() -> None:
        _say(store, bad, "half written")()
        raise ValueError("the recorder tripped")

    group = CommitGroup(store)
    results = await asyncio.gather(group.write(_say(store, good, "kept")), group.write(half_then_fail),
                                   return_exceptions=True)
    assert results[0] is None and isinstance(results[1], ValueError)
    assert [m.text for m in store.session(good).messages] == ["kept"]
    assert store.session(bad).messages == []  # its half was rolled back with its savepoint
    assert (group.commits, group.writes) == (1, 1)


async def test_a_full_disk_fails_every_write_of_the_commit(store, character, situation):
    one, two = _sessions(store, character, situation, 2)
    pages = store.db.execute("PRAGMA page_count").fetchone()[0]
    store.db.execute(f"PRAGMA max_page_count = {pages}")  # SQLITE_FULL, as a full disk gives
    big = "x" * 20_000  # needs new pages
    group = CommitGroup(store)
    results = await asyncio.gather(group.write(_say(store, one, "short")), group.write(_say(store, two, big)),
                                   return_exceptions=True)
    assert all(isinstance(r, StorageError) and "disk is full" in str(r) for r in results)
    assert store.session(one).messages == [] and store.session(two).messages == []
    assert group.commits == 0


async def test_a_cancelled_session_does_not_stop_the_others(store, character, situation):
    first, second = _sessions(store, character, situation, 2)
    group = CommitGroup(store)
    cancelled = asyncio.ensure_future(group.write(_say(store, first, "written anyway")))
    kept = asyncio.ensure_future(group.write(_say(store, second, "kept")))
    await asyncio.sleep(0)
    cancelled.cancel()
    await kept
    with pytest.raises(asyncio.CancelledError):
        await cancelled
    assert [m.text for m in store.session(second).messages] == ["kept"]


async def test_while_another_process_writes_the_loop_keeps_running(store, character, situation):
    (sid,) = _sessions(store, character, situation, 1)
    other = sqlite3.connect(store.path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another writer holds the lock, as a second worker would
    loop = asyncio.get_running_loop()
    # Released by this same loop: SQLite's own busy wait would stop the loop, so the lock would
    # never be released and the write would fail after the busy timeout.
    loop.call_later(0.05, other.execute, "COMMIT")
    group = CommitGroup(store)
    await group.write(_say(store, sid, "after the other writer"))
    other.close()
    assert group.busy > 0 and group.commits == 1
    assert [m.text for m in store.session(sid).messages] == ["after the other writer"]


async def test_a_session_cancelled_while_its_claim_waits_for_the_commit_is_not_left_running(
        store, character, situation):
    """Ctrl-C just as a batch run claims a session: the queued claim still commits, so the
    session must be marked interrupted, not stay `running` for a live process's pid."""
    from contextlib import aclosing

    from pingpong.core.llm import ModelPool
    from pingpong.sessions.live import run_session

    (sid,) = _sessions(store, character, situation, 1)
    group = CommitGroup(store)

    async def consume() -> None:
        async with aclosing(run_session(store, ModelPool({}), sid, commits=group)) as events:
            async for _event in events:
                pass

    task = asyncio.create_task(consume())
    await asyncio.sleep(0)   # the session has queued its claim; the commit comes on the next pass
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await asyncio.sleep(0.01)
    assert group.commits == 1   # the claim was committed after the cancel
    assert store.session(sid).status == "interrupted"


async def test_a_session_opened_by_this_process_starts_without_a_claim_of_its_own(store, character, situation):
    """The batch runner creates a session and records its seats in one shared commit, then runs
    it from what it created: one commit fewer before its first call than running it by id."""
    from contextlib import aclosing

    from pingpong.core.config import offline_spec
    from pingpong.core.llm import ModelPool
    from pingpong.sessions.live import open_session, run_session

    pool = ModelPool({"offline": offline_spec()})
    spec = make_spec(num_turns=1)
    commits: list[int] = []
    for by_id in (True, False):
        group = CommitGroup(store)
        opened = []
        await group.write(lambda: opened.append(open_session(store, pool, spec, character, situation)))
        async with aclosing(run_session(store, pool, opened[0].session_id if by_id else opened[0],
                                        commits=group)) as events:
            async for _event in events:
                pass
        commits.append(group.commits)
        stored = store.session(opened[0].session_id)
        assert stored.status == "finished" and [m.role for m in stored.messages] == ["user", "assistant"]
        assert set(stored.spec.seats) >= {"player", "interrogator"}
    assert commits[1] == commits[0] - 1
    await pool.aclose()


async def test_a_claim_cancelled_before_its_commit_is_dropped_but_a_message_never_is(store, character, situation):
    """Ctrl-C while workers claimed their first conversations left sessions marked running by a
    process that never learnt of them. A claim (unless_cancelled) whose caller is cancelled before the
    commit is dropped; a completed message is committed whatever becomes of its conversation."""
    sid, = _sessions(store, character, situation, 1)
    group = CommitGroup(store)
    claim = asyncio.ensure_future(group.write(_say(store, sid, "claimed"), unless_cancelled=True))
    message = asyncio.ensure_future(group.write(_say(store, sid, "said", turn=2)))
    await asyncio.sleep(0)   # both queued, the commit not run yet
    claim.cancel()
    message.cancel()
    await asyncio.gather(claim, message, return_exceptions=True)
    await asyncio.sleep(0)
    assert [m.text for m in store.session(sid).messages] == ["said"]
