"""Acceptance: a recording process killed with SIGKILL leaves a consistent database,
and resuming finishes the session without duplicating a turn."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pingpong.core.config import offline_spec
from pingpong.core.events import MessageCompleted, SessionFinished
from pingpong.core.llm import ModelPool
from pingpong.sessions.live import run_session, start_session
from pingpong.sessions.store import Store

from .conftest import make_character, make_situation, make_spec

ROOT = Path(__file__).resolve().parents[2]
NUM_TURNS = 4


def _count_messages(db: Path) -> int:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
    try:
        return conn.execute("select count(*) from messages").fetchone()[0]
    finally:
        conn.close()


def _assert_complete(store: Store, sid: int) -> None:
    s = store.session(sid)
    assert s.status == "finished"
    assert len(s.messages) == NUM_TURNS * 2
    keys = [(m.turn, m.role) for m in s.messages]
    assert len(set(keys)) == len(keys)
    assert keys == [(t, r) for t in range(1, NUM_TURNS + 1) for r in ("user", "assistant")]
    (verdict,) = s.verdicts
    assert [t.turn for t in verdict.turns] == list(range(1, NUM_TURNS + 1))


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_sigkill_mid_session_then_resume_completes_without_duplicates(tmp_path):
    home = tmp_path / "home"
    db = home / "pingpong.db"
    Store(db).close()
    child = subprocess.Popen([sys.executable, "-m", "tests.store.record_child", str(db), str(NUM_TURNS), "3"],
                             cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        while _count_messages(db) < 3:
            assert child.poll() is None, child.stderr.read()
            time.sleep(0.02)
        time.sleep(0.1)  # let it write for a moment
        os.kill(child.pid, signal.SIGKILL)
    finally:
        if child.poll() is None:
            child.kill()
        child.wait()
    assert child.returncode == -signal.SIGKILL

    store = Store(db)
    try:
        assert store.db.execute("pragma integrity_check").fetchone()[0] == "ok"
        (summary,) = store.sessions()
        sid = summary.id
        s = store.session(sid)
        assert s.status == "running"
        assert [(m.turn, m.role) for m in s.messages] == [(1, "user"), (1, "assistant"), (2, "user")]
        before = [m.text for m in s.messages]
        assert store.mark_orphans_interrupted() == 1
        assert store.session(sid).status == "interrupted"
    finally:
        store.close()

    result = subprocess.run([sys.executable, "-m", "pingpong.tui.cli", "--home", str(home), "sessions", "resume", str(sid)],
                            cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert f"session {sid}: finished" in result.stdout

    store = Store(db)
    try:
        _assert_complete(store, sid)
        assert [m.text for m in store.session(sid).messages[:3]] == before
    finally:
        store.close()


async def test_run_session_records_a_whole_session(store):
    sid = start_session(store, make_spec(num_turns=NUM_TURNS), make_character(), make_situation())
    pool = ModelPool({"offline": offline_spec()})
    try:
        events = [e async for e in run_session(store, pool, sid)]
    finally:
        await pool.aclose()
    assert isinstance(events[-1], SessionFinished)
    _assert_complete(store, sid)
    assert store.calls(sid)  # every attempt is in the call log


async def test_stopping_the_consumer_marks_the_session_interrupted_and_resume_finishes_it(store):
    sid = start_session(store, make_spec(num_turns=NUM_TURNS), make_character(), make_situation())
    pool = ModelPool({"offline": offline_spec()})
    try:
        stream = run_session(store, pool, sid)
        async for event in stream:
            if isinstance(event, MessageCompleted) and event.message.turn == 2:
                break
        await stream.aclose()
        assert store.session(sid).status == "interrupted"
        done = len(store.messages(sid))
        assert done in (3, 4)
        async for _ in run_session(store, pool, sid):
            pass
    finally:
        await pool.aclose()
    _assert_complete(store, sid)


async def test_a_finished_session_cannot_be_run_again(store):
    from pingpong.core.errors import UserError

    sid = start_session(store, make_spec(num_turns=1), make_character(), make_situation())
    store.set_status(sid, "finished")
    with pytest.raises(UserError, match="already finished"):
        async for _ in run_session(store, ModelPool({"offline": offline_spec()}), sid):
            pass


def test_a_running_session_whose_pid_went_to_a_newer_process_is_an_orphan(tmp_path):
    """A crashed run's pid given to another process (the next container's PID 1, a process after a
    reboot) no longer keeps its sessions "running elsewhere" for ever: that process started after
    the session's last write, so it cannot be its owner. The owner itself still owns it."""
    store = Store(tmp_path / "p.db")
    try:
        sid = store.create_session(make_spec(), make_character(), make_situation())
        store.claim(sid)   # this process, which started before the claim
        assert store.mark_orphans_interrupted() == 0
        with subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"]) as newer:
            try:
                time.sleep(0.2)
                store.conn.execute("UPDATE sessions SET pid = ?, updated_at = '2001-01-01T00:00:00.000+00:00'"
                                   " WHERE id = ?", [newer.pid, sid])
                store.conn.commit()
                assert store.mark_orphans_interrupted() == 1
                assert store.session(sid).status == "interrupted"
                store.claim(sid)  # and it can be taken over
            finally:
                newer.kill()
    finally:
        store.close()


def test_a_session_of_another_host_is_left_to_it_until_an_hour_without_a_write(tmp_path):
    """A container's host name changes with every container, so its crashed run's sessions waited for
    ever as "running on host ...". Another host's session is left alone while it is being written."""
    store = Store(tmp_path / "p.db")
    try:
        sid = store.create_session(make_spec(), make_character(), make_situation())
        store.claim(sid)
        recent = store.conn.execute("SELECT strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now', '-10 minutes')").fetchone()[0]
        store.conn.execute("UPDATE sessions SET host = 'old-container', pid = 1, updated_at = ? WHERE id = ?",
                           [recent, sid])
        store.conn.commit()
        assert store.mark_orphans_interrupted() == 0
        with pytest.raises(Exception, match="running on host old-container"):
            store.claim(sid)
        store.conn.execute("UPDATE sessions SET updated_at = '2001-01-01T00:00:00.000+00:00' WHERE id = ?", [sid])
        store.conn.commit()
        assert store.mark_orphans_interrupted() == 1
        store.claim(sid)
    finally:
        store.close()
