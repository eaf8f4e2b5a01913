"""Requests per second of `pingpong run` in one process and in several (--workers).

Starts the fake server in a child process (5 ms per answer by default), writes a
home with a grid of characters x situations, then times the real CLI (`pingpong
run`, a child process) with --workers 1 and with --workers N on fresh databases.
Prints requests/s for the whole command and from the first answer to the last (the
start-up of each process, about 2 s here, half of it importing openai, is a fixed cost
that a longer run spreads thinner).
The server is benchmarks/lean_server.py (a bare asyncio protocol, a small share of a core); with
--threaded-server it is tests/fakeserver.py, which takes about as much CPU per request
as the runner and so, on a 2-core machine, the core a second worker would use. A real
local server (vLLM, llama.cpp) runs on its own cores or GPU.

    .venv/bin/python benchmarks/workers_bench.py [--latency 0.005] [--workers 2] [--grid 12]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.runner_bench import start_server, write_home  # noqa: E402


def timed_run(root: Path, chars: list[str], sits: list[str], workers: int,
              concurrency: int) -> tuple[float, float, int, float]:
    """(wall seconds, CPU seconds of the command and its workers, requests, seconds from the first
    stored call to the last) of one `pingpong run` on a fresh database."""
    (root / "pingpong.db").unlink(missing_ok=True)
    args = [sys.executable, "-m", "pingpong.tui.cli", "--home", str(root), "run", "--player", "player",
            "--interrogator", "asker", "--judge", "judge-a", "--judge", "judge-b",
            "--characters", ",".join(chars), "--situations", ",".join(sits),
            "--concurrency", str(concurrency), "--workers", str(workers)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(args, cwd=ROOT, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    if done.returncode != 0:
        raise SystemExit(f"run failed: {done.stderr.strip()}")
    conn = sqlite3.connect(root / "pingpong.db")
    requests, first, last = conn.execute(
        "SELECT count(*), min(created_at), max(created_at) FROM model_calls").fetchone()
    conn.close()
    span = (datetime.fromisoformat(last) - datetime.fromisoformat(first)).total_seconds()
    return wall, cpu, requests, span


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--latency", type=float, default=0.005)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--grid", type=int, default=12, help="characters = situations = N (default 12)")
    ap.add_argument("--turns", type=int, default=6)
    ap.add_argument("--concurrency", type=int, default=32)
    ap.add_argument("--threaded-server", action="store_true", help="tests/fakeserver.py instead of the lean one")
    opts = ap.parse_args()
    os.environ["BENCH_KEY"] = "not-a-key"
    server, base_url = start_server(opts.latency, lean=not opts.threaded_server)
    root = Path(tempfile.mkdtemp())
    try:
        chars, sits = write_home(root, base_url, opts.grid, opts.turns, stream=False)
        whole, steady = {}, {}
        for workers in (1, opts.workers):
            wall, cpu, requests, span = timed_run(root, chars, sits, workers, opts.concurrency)
            whole[workers], steady[workers] = requests / wall, requests / span
            # Workers forked by the fork server are not this process's children: their CPU is
            # not in its rusage, so it is given for the one-process run only.
            spent = f"{cpu / requests * 1000:.2f} ms CPU per request (start-up included), " if workers == 1 else ""
            print(f"--workers {workers}: {requests} requests in {wall:.2f} s = {whole[workers]:.0f} requests/s, "
                  f"{spent}{steady[workers]:.0f} requests/s from the first answer to the last ({span:.2f} s)")
        print(f"speed-up with {opts.workers} workers on {os.cpu_count()} cores: "
              f"{whole[opts.workers] / whole[1]:.2f}x for the whole command, "
              f"{steady[opts.workers] / steady[1]:.2f}x once started (goal >= 1.7x with 2 workers on 2 cores)")
    finally:
        assert server.stdin is not None
        server.stdin.close()
        server.wait(timeout=10)
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
