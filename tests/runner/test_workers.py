"""`pingpong run --workers N`: several processes share one run and never run a pair twice."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from tests.runner.conftest import ROOT, assert_complete_once, pingpong, rows, run_args, spawn


def running_processes(root) -> int:
    try:
        return rows(root, "SELECT count(DISTINCT pid) FROM sessions WHERE status = 'running'")[0][0]
    except sqlite3.OperationalError:   # the database is not created yet
        return 0


def two_workers_talking(root, args: list[str]):
    """`run ARGS --workers 2` in a child process, once both workers are in a conversation."""
    proc = spawn(root, *args, "--workers", "2")
    end = time.monotonic() + 30
    while running_processes(root) < 2:
        assert time.monotonic() < end and proc.poll() is None, "the workers never started a conversation"
        time.sleep(0.05)
    return proc


def test_two_workers_share_the_run_and_finish_every_pair_once(slow_home, fake):
    result = pingpong(slow_home, *run_args("--concurrency", "1", "--workers", "2"))

    assert result.rc == 0, result.err
    assert_complete_once(slow_home, turns=3)
    assert rows(slow_home, "SELECT count(*) FROM sessions") == [(8,)]
    assert "8/8 done" in result.out   # one display for the whole run, not this process's share
    assert ": 8 conversations planned" in result.out.splitlines()[0]


def test_bad_input_with_workers_is_one_line_and_the_waiting_workers_end(slow_home, fake):
    """Workers start before the input is checked; a bad name ends them without a trace."""
    proc = spawn(slow_home, *run_args("--workers", "2", players=("no-such-model",)))
    out, err = proc.communicate(timeout=60)

    assert proc.returncode == 2, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert "no-such-model" in err


def test_ctrl_c_stops_the_workers_too_and_the_next_run_resumes(slow_home, fake):
    fake.latency = 0.3   # the parent alone would take 17 s: the worker joins long before
    args = run_args("--concurrency", "1")
    proc = two_workers_talking(slow_home, args)
    proc.send_signal(signal.SIGINT)   # to the parent only: it must stop its workers itself
    out, err = proc.communicate(timeout=30)

    assert proc.returncode == 130, err
    assert "Traceback" not in err
    assert rows(slow_home, "SELECT count(*) FROM sessions WHERE status = 'running'") == [(0,)]
    fake.latency = 0.0
    assert pingpong(slow_home, *args).rc == 0
    assert_complete_once(slow_home, turns=3)


def fork_server_of(pid: int) -> int | None:
    """The pid of the multiprocessing fork server that process `pid` launched, if it runs yet."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                parent = int(f.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                command = f.read()
        except (OSError, ValueError, IndexError):
            continue
        if parent == pid and b"multiprocessing.forkserver" in command:
            return int(entry)
    return None


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="finds the fork server in /proc")
def test_ctrl_c_from_the_terminal_while_the_workers_start_is_one_line(slow_home, fake):
    """A terminal's Ctrl-C reaches every process of the command, the fork server too, which is
    still importing for its first second or so: it must not end with a traceback. Sent as soon
    as the fork server shows (no pause between looks), it often lands while the command is
    still launching it: the command must not lose it then and run on."""
    proc = spawn(slow_home, *run_args("--workers", "2"), start_new_session=True)
    end = time.monotonic() + 30
    while fork_server_of(proc.pid) is None:
        assert time.monotonic() < end and proc.poll() is None, "no fork server was started"
    os.killpg(proc.pid, signal.SIGINT)   # as the terminal does: to the whole process group
    out, err = proc.communicate(timeout=60)

    assert proc.returncode == 130, err
    assert "Traceback" not in err and "internal error" not in err
    assert err.strip().startswith("pingpong: interrupted")


def test_a_killed_worker_is_reported_and_the_other_finishes_its_conversations(slow_home, fake):
    fake.latency = 0.3
    proc = spawn(slow_home, *run_args("--concurrency", "1", "--workers", "2"))
    end = time.monotonic() + 30
    while running_processes(slow_home) < 2:
        assert time.monotonic() < end and proc.poll() is None, "the workers never both started"
        time.sleep(0.05)
    (victim,) = rows(slow_home, "SELECT pid FROM sessions WHERE status = 'running' LIMIT 1")[0]
    assert victim != proc.pid   # the conversations run in the workers; the command shows their progress
    os.kill(victim, signal.SIGKILL)
    fake.latency = 0.0
    out, err = proc.communicate(timeout=60)

    assert proc.returncode == 0, err
    assert "Traceback" not in err
    assert "killed by signal 9" in err
    assert_complete_once(slow_home, turns=3)


def test_never_more_workers_than_conversations(slow_home, fake):
    """One conversation with --workers 50 runs in the command's own process (fifty workers would
    each start, find nothing and keep the command alive long after its last answer)."""
    result = pingpong(slow_home, *run_args("--workers", "50", "--every", "8", players=("alpha",)))
    assert result.rc == 0, result.err
    assert rows(slow_home, "SELECT pid, status FROM sessions") == [(os.getpid(), "finished")]


def test_workers_of_a_killed_command_stop_and_leave_their_conversations_to_resume(slow_home, fake):
    """SIGKILL (or SIGTERM) of the command leaves no worker running the plan on with nobody
    watching: each stops as on Ctrl-C, its conversations saved as interrupted."""
    fake.latency = 0.5   # 8 conversations of 8 calls, two at a time: half a minute of work
    args = run_args("--concurrency", "1")
    proc = two_workers_talking(slow_home, args)
    proc.kill()
    proc.wait()
    end = time.monotonic() + 6   # a worker notices within a report interval, then saves and exits
    while rows(slow_home, "SELECT count(*) FROM sessions WHERE status = 'running'") != [(0,)]:
        assert time.monotonic() < end, "the orphaned workers ran on"
        time.sleep(0.1)
    assert rows(slow_home, "SELECT count(*) FROM sessions WHERE status = 'interrupted'")[0][0] >= 1
    started = rows(slow_home, "SELECT count(*) FROM sessions")
    time.sleep(1.5)
    assert rows(slow_home, "SELECT count(*) FROM sessions") == started  # nothing new is started
    assert rows(slow_home, "SELECT count(*) FROM sessions WHERE status = 'finished'")[0][0] < 8
    fake.latency = 0.0
    assert pingpong(slow_home, *args).rc == 0
    assert_complete_once(slow_home, turns=3)


def test_two_commands_with_workers_on_one_run_each_say_what_the_other_ran(slow_home, fake):
    """Each ended "4/8 done", exit 0, and never said the rest was run by the other command."""
    fake.latency = 0.3
    args = run_args("--run", "shared", "--concurrency", "1", "--workers", "2")
    first = spawn(slow_home, *args)
    second = spawn(slow_home, *args)
    outs = [proc.communicate(timeout=120) for proc in (first, second)]
    assert first.returncode == second.returncode == 0, [err for _, err in outs]
    assert_complete_once(slow_home, turns=3)
    for out, _ in outs:
        summary = next(line for line in out.splitlines() if "/8 done" in line)
        done = int(summary.split("/8 done")[0].split()[-1])
        assert done == 8 or f"{8 - done} run elsewhere" in summary, summary


def _ignore_sigint() -> None:
    """As bash starts a script's background job (`pingpong run ... &`): SIGINT ignored."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.mark.parametrize("how", ["one", "workers", "group", "background"])
def test_sigterm_stops_a_run_as_ctrl_c_does(slow_home, fake, how):
    """kill, systemd and `timeout` send SIGTERM, to the command or to its whole process group: the
    run stopped dead (its sessions left 'running', the workers exiting 255, and multiprocessing's
    "leaked semaphore objects" warning on the terminal), and so did a script's background job."""
    fake.latency = 0.5
    args = run_args("--concurrency", "1")
    if how == "one":
        proc = spawn(slow_home, *args)
    elif how == "background":
        proc = subprocess.Popen([sys.executable, "-m", "pingpong.tui.cli", "--home", str(slow_home), *args],
                                cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, preexec_fn=_ignore_sigint)
    else:
        proc = spawn(slow_home, *args, "--workers", "2", start_new_session=(how == "group"))
    end = time.monotonic() + 30
    while running_processes(slow_home) < (2 if how in ("workers", "group") else 1):
        assert time.monotonic() < end and proc.poll() is None
        time.sleep(0.05)
    if how == "group":
        os.killpg(proc.pid, signal.SIGTERM)
    else:
        proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "conversation(s) in flight were saved as interrupted" in err and "leaked" not in err, err
    assert "Traceback" not in err and "worker" not in err, err
    end = time.monotonic() + 5
    while rows(slow_home, "SELECT count(*) FROM sessions WHERE status = 'running'") != [(0,)]:
        assert time.monotonic() < end, "sessions left running"
        time.sleep(0.1)
    assert rows(slow_home, "SELECT count(*) FROM sessions WHERE status = 'interrupted'")[0][0] >= 1


def test_a_worker_handed_part_of_a_job_ends_instead_of_waiting_for_the_rest():
    """A command killed while it sends the job: its worker read part of it and, the queue's writing
    end being open in every worker, waited for the rest for ever (an orphan holding the output)."""
    import multiprocessing
    import struct

    from pingpong.sessions.workers import _worker

    ctx = multiprocessing.get_context("spawn")
    reading, writing = ctx.Pipe(duplex=False)
    reports, stop = ctx.Queue(), ctx.Event()  # held until the worker has them
    worker = ctx.Process(target=_worker, args=(0, reading, reports, stop), daemon=True)
    worker.start()
    reading.close()
    os.write(writing.fileno(), struct.pack("!i", 100_000) + b"\x80\x05" * 8)  # a header, then 16 of its bytes
    writing.close()  # the command is gone
    worker.join(timeout=60)
    alive = worker.is_alive()
    if alive:
        worker.kill()
    assert not alive and worker.exitcode == 0
