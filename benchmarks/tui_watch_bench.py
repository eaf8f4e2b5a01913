"""How much CPU the TUI's Watch screen uses while it follows a big batch run.

Starts tests/fakeserver.py in a child process (100 ms per answer), writes a home
with 60 characters x 50 situations (3,000 conversations of 1 turn, 2 judges),
opens the TUI headless in a second child process on the Watch screen, then runs
`pingpong run` (a third child process) at concurrency 64. The watcher counts its
own CPU time (all its threads: the database polls run in one) from the moment
the Watch screen is mounted; prints its CPU as a % of one core during the run
(goal <= 10%) and for a few seconds after it, when nothing changes any more.
Headless, Textual renders every update but writes nothing to a terminal.

    .venv/bin/python benchmarks/tui_watch_bench.py [--characters 60] [--situations 50]
        [--latency 0.1] [--concurrency 64] [--after 5] [--profile]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.runner_bench import start_server, write_home  # noqa: E402


async def watch(root: Path, profile: bool = False) -> None:
    """Child process: the app headless on the Watch screen. Prints "ready" once it is mounted;
    each line read from stdin is answered with a JSON line of CPU seconds, wall seconds and the
    rows the sessions table shows; stdin closed ends it (profile: then prints where the time went)."""
    from textual.widgets import DataTable

    from pingpong.core.home import Home
    from pingpong.tui.app import create_app
    from pingpong.tui.screens.watch import WatchScreen

    app = create_app(Home(root))
    async with app.run_test(headless=True, size=(120, 40)) as pilot:
        app.action_watch()
        while not (isinstance(app.screen, WatchScreen) and app.screen.query("#run-sessions")):
            await pilot.pause(0.05)
        table = app.screen.query_one("#run-sessions", DataTable)
        print("ready", flush=True)
        prof = None
        if profile:
            import cProfile

            prof = cProfile.Profile()
            prof.enable()
        reader = asyncio.StreamReader()
        loop = asyncio.get_running_loop()
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
        while await reader.readline():
            print(json.dumps({"cpu": time.process_time(), "wall": time.perf_counter(), "rows": table.row_count}),
                  flush=True)
        if prof is not None:
            import pstats

            prof.disable()
            pstats.Stats(prof, stream=sys.stderr).sort_stats("cumtime").print_stats(40)


class Watcher:
    """The watching TUI process, asked for its CPU clock at the start and end of each phase."""

    def __init__(self, root: Path, profile: bool) -> None:
        code = ("import sys, asyncio; sys.path.insert(0, %r); from benchmarks.tui_watch_bench import watch; "
                "asyncio.run(watch(__import__('pathlib').Path(%r), %r))" % (str(ROOT), str(root), profile))
        self.proc = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, cwd=ROOT)
        assert self.proc.stdout is not None and self.proc.stdin is not None
        if self.proc.stdout.readline().strip() != "ready":
            raise SystemExit("the watching TUI did not start")

    def clock(self) -> dict:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write("\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


def share(start: dict, end: dict) -> str:
    cpu, wall = end["cpu"] - start["cpu"], end["wall"] - start["wall"]
    return f"{cpu:.2f} s CPU in {wall:.1f} s = {100 * cpu / wall:.1f}% of a core"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--characters", type=int, default=60)
    ap.add_argument("--situations", type=int, default=50)
    ap.add_argument("--latency", type=float, default=0.1)
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--after", type=float, default=5.0, help="seconds to keep watching once the run ends")
    ap.add_argument("--profile", action="store_true", help="cProfile the watcher, print its top functions")
    opts = ap.parse_args()
    os.environ["BENCH_KEY"] = "not-a-key"
    server, base_url = start_server(opts.latency)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            chars, sits = write_home(root, base_url, opts.characters, 1, stream=True, m=opts.situations)
            watcher = Watcher(root, opts.profile)
            try:
                args = [sys.executable, "-m", "pingpong.tui.cli", "--home", str(root), "run", "--player", "player",
                        "--interrogator", "asker", "--judge", "judge-a", "--judge", "judge-b",
                        "--characters", ",".join(chars), "--situations", ",".join(sits),
                        "--concurrency", str(opts.concurrency)]
                start = watcher.clock()
                done = subprocess.run(args, cwd=ROOT, capture_output=True, text=True)
                end = watcher.clock()
                if done.returncode != 0:
                    raise SystemExit(f"run failed: {done.stderr.strip()[-2000:]}")
                time.sleep(opts.after)
                idle = watcher.clock()
            finally:
                watcher.close()
    finally:
        assert server.stdin is not None
        server.stdin.close()
        server.wait(timeout=10)
    print(f"run                  {opts.characters * opts.situations} conversations (1 turn, 2 judges), "
          f"concurrency {opts.concurrency}, {opts.latency * 1000:.0f} ms per answer: {end['wall'] - start['wall']:.1f} s")
    print(f"Watch during the run {share(start, end)}  (goal <= 10%)")
    print(f"Watch after the run  {share(end, idle)}")
    print(f"rows shown           {idle['rows']}")


if __name__ == "__main__":
    main()
