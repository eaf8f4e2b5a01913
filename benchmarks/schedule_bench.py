"""How close a batch run with mixed conversation lengths comes to its lower bound.

154 conversations (14 characters x 11 situations of 1 to 6 turns, 2 judges) at
concurrency 64 against benchmarks/lean_server.py in a child process (100 ms per
answer; --threaded-server: tests/fakeserver.py, which competes for the CPU).
No schedule can beat max(longest chain, sum of chains / concurrency), where a
conversation's chain is its dependent calls one after another (interrogator and
player per turn, then the slower of its judges, which run at once); the chains are
read back from the calls the run stored. Prints the wall time, the bound and their
ratio (goal <= 1.15), unstreamed and with streamed player replies (150 words at 50
words/s), and with --plan-order the same run started in plan order for comparison.
The one-time start (importing openai, building the clients, a first call of each kind) is
timed before the run and printed apart: it is the same whatever the order.

    .venv/bin/python benchmarks/schedule_bench.py [--latency 0.1] [--concurrency 64] [--plan-order]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.runner_bench import start_server, write_home  # noqa: E402

TURNS = [1, 2, 3, 4, 5, 6, 6, 5, 4, 3, 2]   # one count per situation


async def run_once(root: Path, chars: list[str], sits: list[str], concurrency: int,
                   plan_order: bool) -> tuple[float, float, float, int, float]:
    """(wall seconds, longest chain, sum of chains, conversations finished, seconds of the one-time
    start before the timer) of one run."""
    from pingpong.core.home import Home
    from pingpong.core.llm import ChatRequest, ModelPool
    from pingpong.core.prompts import PromptRenderer
    from pingpong.sessions import runner as runner_module
    from pingpong.sessions.runner import BatchRunner, prepare_run
    from pingpong.sessions.store import Store

    home = Home(root)
    setup, specs = prepare_run(home, players=["player"], interrogator="asker",
                               judges=["judge-a", "judge-b"], characters=chars, situations=sits)
    store = Store(home.db_path)
    pool = ModelPool(specs)
    batch = BatchRunner(store, pool, setup, concurrency=concurrency, renderer=PromptRenderer(home.templates_dir),
                        freeze=True)  # as `pingpong run` makes it
    batch.prepare()
    if plan_order:  # what the runner did before it sorted: the plan's own order
        runner_module.longest_first = lambda todo, method: list(todo)  # type: ignore[assignment]
    # The one-time start is timed apart, as in runner_bench.py: importing openai and building
    # the clients (the run's own warm-up), and the first whole and streamed call, on which openai
    # builds its types. It is the same whatever the order, and start-up has figures of its own.
    start0 = time.perf_counter()
    pool.warm(["player", "asker", "judge-a", "judge-b"])
    hello = [{"role": "user", "content": "hello"}]
    await pool.get("player").complete(ChatRequest("player", hello))
    await pool.get("asker").complete(ChatRequest("interrogator", hello))
    start = time.perf_counter() - start0
    wall0 = time.perf_counter()
    progress = await batch.run()
    wall = time.perf_counter() - wall0
    rows = store.db.execute(
        "SELECT session_id, role, turn, latency_ms FROM model_calls WHERE status = 'ok'").fetchall()
    chains: dict[int, float] = {}
    judges: dict[tuple[int, int | None], float] = {}
    for sid, role, turn, ms in rows:
        if role == "judge":
            judges[sid, turn] = max(judges.get((sid, turn), 0.0), ms / 1000)
        else:
            chains[sid] = chains.get(sid, 0.0) + ms / 1000
    for (sid, _turn), seconds in judges.items():
        chains[sid] = chains.get(sid, 0.0) + seconds
    await pool.aclose()
    store.close()
    return wall, max(chains.values()), sum(chains.values()), progress.done, start


def measure(label: str, opts: argparse.Namespace, stream: bool, chunk_delay: float, reply_words: int) -> None:
    server, base_url = start_server(opts.latency, chunk_delay, reply_words, lean=not opts.threaded_server)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            chars, sits = write_home(root, base_url, 14, TURNS, stream=stream, m=len(TURNS))
            from pingpong.sessions.runner import loop_factory

            with asyncio.Runner(loop_factory=loop_factory()) as r:
                wall, longest, total, done, start = r.run(
                    run_once(root, chars, sits, opts.concurrency, opts.plan_order))
    finally:
        assert server.stdin is not None
        server.stdin.close()
        server.wait(timeout=10)
    bound = max(longest, total / opts.concurrency)
    order = "plan order" if opts.plan_order else "longest first"
    print(f"{label:<10} {done} conversations, {order}: wall {wall:.2f} s, bound {bound:.2f} s "
          f"(longest chain {longest:.2f} s, sum of chains / {opts.concurrency} = {total / opts.concurrency:.2f} s), "
          f"wall / bound = {wall / bound:.2f}  (goal <= 1.15); before it, a one-time start of {start:.2f} s "
          f"(openai imported, clients built, a first call of each kind)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--latency", type=float, default=0.1)
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--plan-order", action="store_true", help="start conversations in plan order (the old way)")
    ap.add_argument("--only", choices=("unstreamed", "streamed"), help="run one setting only")
    ap.add_argument("--threaded-server", action="store_true", help="tests/fakeserver.py instead of the lean one")
    opts = ap.parse_args()
    os.environ["BENCH_KEY"] = "not-a-key"
    if opts.only != "streamed":
        measure("unstreamed", opts, False, 0.0, 0)
    if opts.only != "unstreamed":
        measure("streamed", opts, True, 0.06, 150)   # 50 chunks of 3 words, 60 ms apart: 50 words/s


if __name__ == "__main__":
    main()
