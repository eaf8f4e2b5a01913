"""A run killed midway (SIGKILL) or stopped with Ctrl-C (SIGINT) completes every pair exactly once."""

from __future__ import annotations

import signal
import sqlite3
import time

from tests.runner.conftest import assert_complete_once, pingpong, rows, run_args, spawn

TURNS = 3


def wait_for(root, predicate, proc, timeout: float = 30.0) -> None:
    """Poll the database (written by another process) until predicate(counts) holds."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        assert proc.poll() is None, proc.communicate()
        try:
            counts = dict(rows(root, "SELECT status, count(*) FROM sessions GROUP BY status"))
            talking = rows(root, "SELECT count(DISTINCT m.session_id) FROM messages m JOIN sessions s"
                                 " ON s.id = m.session_id WHERE s.status = 'running'")[0][0]
        except sqlite3.OperationalError:  # not created yet
            counts, talking = {}, 0
        if predicate(counts, talking):
            return
        time.sleep(0.02)
    raise AssertionError(f"timed out; sessions: {counts}")


def test_sigkill_midway_then_rerun_completes_every_pair_once(slow_home, fake):
    args = run_args("--concurrency", "3")
    proc = spawn(slow_home, *args)
    wait_for(slow_home, lambda c, talking: c.get("finished", 0) >= 1 and talking >= 1, proc)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    left_running = rows(slow_home, "SELECT id FROM sessions WHERE status = 'running'")
    assert left_running  # the killed process had sessions in flight

    fake.latency = 0.0
    result = pingpong(slow_home, *args)
    assert result.code == 0, result.err
    assert_complete_once(slow_home, turns=TURNS)
    # The killed sessions were resumed in place, not started again.
    assert rows(slow_home, "SELECT count(*) FROM sessions") == [(8,)]
    for (sid,) in left_running:
        assert rows(slow_home, "SELECT status FROM sessions WHERE id = ?", [sid]) == [("finished",)]


def test_ctrl_c_interrupts_in_flight_sessions_and_the_next_run_resumes_them(slow_home, fake):
    args = run_args("--concurrency", "3")
    proc = spawn(slow_home, *args)
    wait_for(slow_home, lambda c, talking: talking >= 1, proc)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err
    assert rows(slow_home, "SELECT count(*) FROM sessions WHERE status = 'running'") == [(0,)]
    stopped = rows(slow_home, "SELECT id FROM sessions WHERE status = 'interrupted'")
    assert stopped

    fake.latency = 0.0
    result = pingpong(slow_home, *args)
    assert result.code == 0, result.err
    assert_complete_once(slow_home, turns=TURNS)
    assert rows(slow_home, "SELECT count(*) FROM sessions") == [(8,)]
