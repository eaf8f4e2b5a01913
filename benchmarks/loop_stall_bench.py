"""How long a session keeps the event loop from running anything else, run as the TUI runs it.

The TUI drives a session on its own event loop (sessions.live.run_session with offload=True), so
any stretch of work on that loop is a stretch in which the screen does not redraw or take keys.
This starts one session in a fresh process against benchmarks/lean_server.py (50 ms per answer),
with a task that wakes every 5 ms beside it, and prints the longest gap between two of its
wake-ups, and how many gaps were over 50 ms: for a PingPong session with two turns, a RoleBench
question (Rouge-L scored) and a RoleInteract probe. Each method runs in a fresh process, as a user's first
session of the day would: what a session imports on the way counts.

    .venv/bin/python benchmarks/loop_stall_bench.py [--method pingpong] [--method rolebench] [--method roleinteract]
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

from benchmarks.loop_ticker import LoopTicker  # noqa: E402
from benchmarks.runner_bench import start_server, write_home  # noqa: E402

CHARACTER = {"pingpong": None, "rolebench": "sherlock-holmes", "roleinteract": "sherlock-holmes"}
"""A bundled card with RoleBench questions and RoleInteract probes; PingPong uses the benchmark's own
card. (DMT's guided interrogator and stop check ask for answers the lean server does not give.)"""


async def one_session(root: Path, method: str) -> dict:
    """Run one session of `method` with a ticker beside it; the longest gap and the count over 50 ms."""
    from pingpong.core.home import Home
    from pingpong.core.llm import ModelPool
    from pingpong.sessions.live import run_session, start_session
    from pingpong.sessions.runner import prepare_run
    from pingpong.sessions.store import Store

    home = Home(root)
    character = CHARACTER[method]
    setup, specs = prepare_run(home, players=["player"], interrogator="asker", judges=["judge-a"],
                               characters=[character] if character else None, method=method)
    store, pool = Store(home.db_path), ModelPool(specs)
    item = setup.items[0]
    sid = start_session(store, setup.spec(item), item.character, item.situation)
    ticker = LoopTicker()
    ticker.start()
    started = time.perf_counter()
    async for _event in run_session(store, pool, sid, offload=True):
        pass
    took = time.perf_counter() - started
    await ticker.stop()
    await pool.aclose()
    return {"status": store.session(sid).status, "seconds": took, "longest": ticker.longest(),
            "over_50ms": sum(gap > 0.05 for gap in ticker.gaps)}


def child(method: str, base_url: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        write_home(root, base_url, 1, 2)
        print(json.dumps(asyncio.run(one_session(root, method))))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--method", action="append", choices=sorted(CHARACTER),
                    help="repeat for several (default: all)")
    ap.add_argument("--child", nargs=2, metavar=("METHOD", "URL"), help=argparse.SUPPRESS)
    opts = ap.parse_args()
    if opts.child:
        child(*opts.child)
        return
    os.environ["BENCH_KEY"] = "not-a-key"
    server, base_url = start_server(0.05, lean=True)
    try:
        for method in opts.method or sorted(CHARACTER):
            out = subprocess.run([sys.executable, __file__, "--child", method, base_url], capture_output=True,
                                 text=True, check=True).stdout
            r = json.loads(out.strip().splitlines()[-1])
            print(f"{method:10} session {r['seconds']:.2f} s ({r['status']}), longest stall of the loop "
                  f"{r['longest'] * 1000:.0f} ms, stalls over 50 ms: {r['over_50ms']}")
    finally:
        assert server.stdin is not None
        server.stdin.close()
        server.wait()


if __name__ == "__main__":
    main()
