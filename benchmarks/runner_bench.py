"""How much the batch runner adds on top of the model calls it cannot avoid.

Starts tests/fakeserver.py in a child process answering every request after a
fixed latency (100 ms by default), then runs the real runner in this process
against a temp database: 64 conversations (8 characters x 8 situations) of 6
turns with 2 judges, all at once. Prints:
- wall time, and its ratio to the critical path ((2 x turns + 1) x latency:
  one conversation's chain of dependent calls; goal <= 1.5);
- the sum of all request times and the ratio wall / sum (the parallelism won);
- the number of requests and this process's CPU time per request (the server
  runs in the child, so all CPU counted here is the runner's: engine, openai
  client, SQLite writes, event handling; goal <= 0.5 ms unstreamed, <= 1 ms streamed).

    /work/venv/bin/python benchmarks/runner_bench.py [--latency 0.1] [--profile]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def serve(latency: float, chunk_delay: float = 0.0, reply_words: int = 0) -> None:
    """Child process: the fake server until stdin closes. reply_words > 0: the player's replies
    are that many words long (streamed three words a chunk, chunk_delay apart)."""
    from tests.fakeserver import FakeServer, default_responder

    def responder(body: dict) -> str:
        if reply_words and body.get("model") == "player":
            return " ".join(f"word{i}" for i in range(reply_words))
        return default_responder(body)

    with FakeServer(latency=latency, chunk_delay=chunk_delay, responder=responder) as srv:
        print(srv.base_url, flush=True)
        sys.stdin.read()


def write_home(root: Path, base_url: str, n: int, turns: int | list[int],
               stream: bool = True, m: int | None = None) -> tuple[list[str], list[str]]:
    """n characters and m (default n) situations; turns: one count for all, or one per situation."""
    import yaml

    (root / "characters").mkdir(parents=True)
    (root / "situations").mkdir(parents=True)
    chars = [f"bench-char-{i}" for i in range(n)]
    sits = [f"bench-sit-{i}" for i in range(n if m is None else m)]
    per_sit = turns if isinstance(turns, list) else [turns] * len(sits)
    for name in chars:
        card = {"name": name, "char_name": name.title(), "lang": "en", "summary": f"{name}, for timing.",
                "persona": f"You are {name}. You answer briefly.", "greeting": "Hello."}
        (root / "characters" / f"{name}.yaml").write_text(yaml.safe_dump(card))
    for name, count in zip(sits, per_sit):
        sit = {"name": name, "lang": "en", "num_turns": count, "text": f"The user asks about {name}."}
        (root / "situations" / f"{name}.yaml").write_text(yaml.safe_dump(sit))
    models = "".join(
        f'[models.{m}]\nbase_url = "{base_url}"\nmodel = "{m}"\napi_key_env = "BENCH_KEY"\n'
        f"max_concurrency = 512\n" + ("" if stream else f"[models.{m}.params]\nstream = false\n") + "\n"
        for m in ("player", "asker", "judge-a", "judge-b"))
    (root / "config.toml").write_text(models)
    return chars, sits


async def bench(root: Path, chars: list[str], sits: list[str], concurrency: int, prof=None):
    from pingpong.core.home import Home
    from pingpong.core.llm import ModelPool
    from pingpong.core.prompts import PromptRenderer
    from pingpong.sessions.runner import BatchRunner, prepare_run
    from pingpong.sessions.store import Store

    home = Home(root)
    setup, specs = prepare_run(home, players=["player"], interrogator="asker",
                               judges=["judge-a", "judge-b"], characters=chars, situations=sits)
    store = Store(home.db_path)
    pool = ModelPool(specs)
    runner = BatchRunner(store, pool, setup, concurrency=concurrency,
                         renderer=PromptRenderer(home.templates_dir), freeze=True)  # as `pingpong run` makes it
    runner.prepare()
    # One streamed and one whole request first: openai builds its types lazily on
    # first use, a one-time cost that is not the runner's per-request cost.
    from pingpong.core.llm import ChatRequest

    hello = [{"role": "user", "content": "hello"}]
    await pool.get("player").complete(ChatRequest("player", hello))
    await pool.get("asker").complete(ChatRequest("interrogator", hello))
    if prof is not None:
        prof.enable()
    cpu0, wall0 = time.process_time(), time.perf_counter()
    progress = await runner.run()
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    if prof is not None:
        prof.disable()
    calls = store.db.execute("SELECT count(*), sum(latency_ms) FROM model_calls").fetchone()
    floor = min([await client_floor(pool, calls[0], concurrency) for _ in range(3)])
    await pool.aclose()
    store.close()
    print(f"commits              {runner.commits.commits} shared by {runner.commits.writes} writes of the recorder")
    return progress, wall, cpu, calls, floor


async def client_floor(pool, n: int, concurrency: int) -> float:
    """CPU seconds per call of the model layer alone (openai client + core/llm.py): the same
    number of calls, as many at once, one in seven streamed like the player's, no engine, no store.
    (The caller keeps the best of three: the figure is noisy on a busy machine.)"""
    from pingpong.core.llm import ChatRequest

    messages = [{"role": "system", "content": "You are a character. " * 60},
                {"role": "user", "content": "Tell me about yourself."}]
    gate = asyncio.Semaphore(concurrency)

    async def one(i: int) -> None:
        async with gate:
            if i % 7 == 0:
                await pool.get("player").complete(ChatRequest("player", messages), on_delta=lambda piece: None)
            else:
                await pool.get("judge-a").complete(ChatRequest("judge", messages))

    cpu0 = time.process_time()
    await asyncio.gather(*(one(i) for i in range(n)))
    return (time.process_time() - cpu0) / n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--latency", type=float, default=0.1)
    ap.add_argument("--grid", type=int, default=8, help="characters = situations = N (default 8)")
    ap.add_argument("--turns", type=int, default=6)
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--no-stream", action="store_true",
                    help="ask for whole answers (params stream = false) instead of streamed ones")
    ap.add_argument("--plain-loop", action="store_true", help="asyncio's own event loop instead of uvloop")
    ap.add_argument("--profile", action="store_true", help="cProfile the run, print the top functions")
    ap.add_argument("--lean-server", action="store_true",
                    help="serve from benchmarks/lean_server.py (less CPU) instead of tests/fakeserver.py")
    ap.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    opts = ap.parse_args()
    if opts.serve:
        serve(opts.latency)
        return
    main_bench(opts)


def start_server(latency: float, chunk_delay: float = 0.0, reply_words: int = 0,
                 lean: bool = False) -> tuple[subprocess.Popen, str]:
    """The fake server in a child process (its CPU is not the runner's); returns it and its URL.
    lean: benchmarks/lean_server.py (aiohttp, a fraction of the CPU) instead of tests/fakeserver.py."""
    if lean:
        argv = [sys.executable, str(ROOT / "benchmarks" / "lean_server.py"), "--latency", str(latency),
                "--chunk-delay", str(chunk_delay), "--reply-words", str(reply_words)]
    else:
        argv = [sys.executable, "-c",
                "import sys; sys.path.insert(0, %r); from benchmarks.runner_bench import serve; serve(%r, %r, %r)"
                % (str(ROOT), latency, chunk_delay, reply_words)]
    server = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert server.stdout is not None
    return server, server.stdout.readline().strip()


def main_bench(opts: argparse.Namespace) -> None:
    os.environ["BENCH_KEY"] = "not-a-key"
    server, base_url = start_server(opts.latency, lean=opts.lean_server)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            chars, sits = write_home(root, base_url, opts.grid, opts.turns, stream=not opts.no_stream)
            prof = None
            if opts.profile:
                import cProfile
                import pstats

                prof = cProfile.Profile()
            from pingpong.sessions.runner import loop_factory

            with asyncio.Runner(loop_factory=None if opts.plain_loop else loop_factory()) as r:
                progress, wall, cpu, (requests, latency_sum_ms), floor = r.run(
                    bench(root, chars, sits, opts.concurrency, prof))
    finally:
        server.stdin.close()
        server.wait(timeout=10)
    import resource

    child = resource.getrusage(resource.RUSAGE_CHILDREN)
    server_cpu = child.ru_utime + child.ru_stime
    critical = (2 * opts.turns + 1) * opts.latency
    total = latency_sum_ms / 1000
    print(f"conversations        {progress.done} finished, {progress.failed} failed "
          f"({opts.grid}x{opts.grid}, {opts.turns} turns, 2 judges, concurrency {opts.concurrency})")
    print(f"requests             {requests} (latency {opts.latency * 1000:.0f} ms each)")
    print(f"wall time            {wall:.2f} s")
    print(f"critical path        {critical:.2f} s   wall / critical path = {wall / critical:.2f}  (goal <= 1.5)")
    print(f"sum of request times {total:.1f} s   wall / sum = {wall / total:.3f}")
    goal = "0.5" if opts.no_stream else "1"
    print(f"runner CPU           {cpu:.2f} s = {cpu / requests * 1000:.2f} ms per request  (goal <= {goal} ms)")
    print(f"  of which the model layer alone (openai client + core/llm.py, measured apart) "
          f"{floor * 1000:.2f} ms; engine, recorder, store and runner {cpu / requests * 1000 - floor * 1000:.2f} ms")
    print(f"fake server CPU      {server_cpu:.2f} s (child process, not counted above)")
    if opts.profile:
        if os.environ.get("BENCH_DUMP"):
            prof.dump_stats(os.environ["BENCH_DUMP"])
        stats = pstats.Stats(prof).sort_stats(os.environ.get("BENCH_SORT", "tottime"))
        stats.print_stats(int(os.environ.get("BENCH_TOP", "25")))
        if os.environ.get("BENCH_CALLERS"):
            stats.print_callers(os.environ["BENCH_CALLERS"])


if __name__ == "__main__":
    main()
