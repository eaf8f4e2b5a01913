"""A run killed midway (SIGKILL) or stopped with Ctrl-C (SIGINT) completes every pair exactly once."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time

from tests.runner.conftest import ROOT, assert_complete_once, pingpong, rows, run_args, spawn

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
    assert result.rc == 0, result.err
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
    assert result.rc == 0, result.err
    assert_complete_once(slow_home, turns=TURNS)
    assert rows(slow_home, "SELECT count(*) FROM sessions") == [(8,)]


def test_pairs_of_a_run_killed_beside_a_surviving_run_are_taken_over_by_it(slow_home, fake):
    """One process runs alpha's pairs; a second one of the same run finds them running there and
    does beta's. The first is killed (-9): the survivor resumes its pairs instead of ending with
    'run elsewhere', so nothing is left behind."""
    fake.latency = 3.0   # every call outlasts the survivor's start-up, however busy the machine
    first = spawn(slow_home, *run_args("--run", "shared", "--concurrency", "4", players=("alpha",)))
    wait_for(slow_home, lambda counts, talking: counts.get("running", 0) >= 4, first)
    survivor = spawn(slow_home, *run_args("--run", "shared", "--concurrency", "4"))
    beta_running = "SELECT count(*) FROM sessions WHERE player = 'beta' AND status = 'running'"
    wait_for(slow_home, lambda counts, talking: rows(slow_home, beta_running)[0][0] >= 1, survivor)
    first.send_signal(signal.SIGKILL)
    first.wait()
    orphaned = rows(slow_home, "SELECT id FROM sessions WHERE player = 'alpha' AND status = 'running'")
    assert orphaned  # the killed process left pairs behind
    fake.latency = 0.0
    out, err = survivor.communicate(timeout=120)
    assert survivor.returncode == 0, err
    assert_complete_once(slow_home, turns=TURNS)
    assert rows(slow_home, "SELECT count(*) FROM sessions") == [(8,)]  # resumed in place, not started again
    for (sid,) in orphaned:
        assert rows(slow_home, "SELECT status, pid FROM sessions WHERE id = ?", [sid]) == [("finished", survivor.pid)]


CTRL_C_WHILE_IMPORTING = """
import sys

from pingpong.tui import cli


class CtrlCWhileImporting:
    \"\"\"Ctrl-C lands while the run command imports, inside code run from a string (as when
    dataclasses build an __init__), which CPython remembers even once the interrupt is caught.\"\"\"

    def find_spec(self, name, path=None, target=None):
        if name == "pingpong.sessions.runner":
            exec("raise KeyboardInterrupt")


sys.meta_path.insert(0, CtrlCWhileImporting())
sys.exit(cli.entry())
"""


def test_a_ctrl_c_while_the_command_imports_exits_with_130_not_by_the_signal(slow_home, tmp_path):
    """Run with -m, as the tests spawn the CLI: CPython then checks that flag after our exit."""
    (tmp_path / "interrupted.py").write_text(CTRL_C_WHILE_IMPORTING, encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(tmp_path)]))
    proc = subprocess.run([sys.executable, "-m", "interrupted", "--home", str(slow_home), *run_args()],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)

    assert proc.returncode == 130, proc.stderr   # not -2, as when CPython re-raises the signal
    assert proc.stderr == "pingpong: interrupted\n"


def test_sigterm_stops_sessions_resume_as_ctrl_c_does(slow_home, fake):
    """kill, systemd and `timeout` send SIGTERM: `sessions resume` died at once, leaving its session
    marked running until another command noticed; now it is saved as interrupted, exit 130."""
    args = run_args("--concurrency", "1", players=("alpha",))
    first = spawn(slow_home, *args)
    wait_for(slow_home, lambda c, talking: talking >= 1, first)
    first.send_signal(signal.SIGINT)
    first.communicate(timeout=30)
    ((sid,),) = rows(slow_home, "SELECT id FROM sessions WHERE status = 'interrupted' LIMIT 1")
    said = rows(slow_home, "SELECT count(*) FROM messages WHERE session_id = ?", [sid])[0][0]
    resume = spawn(slow_home, "sessions", "resume", str(sid))
    end = time.monotonic() + 30
    while rows(slow_home, "SELECT count(*) FROM messages WHERE session_id = ?", [sid])[0][0] == said:
        assert resume.poll() is None and time.monotonic() < end, resume.communicate()
        time.sleep(0.02)
    resume.send_signal(signal.SIGTERM)
    out, err = resume.communicate(timeout=30)
    assert resume.returncode == 130 and "interrupted" in err and "Traceback" not in err, err
    assert rows(slow_home, "SELECT status FROM sessions WHERE id = ?", [sid]) == [("interrupted",)]
