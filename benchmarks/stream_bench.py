"""CPU per chunk of a streamed reply: the model layer alone (openai client, transport, core/llm.py).

A reply streamed a token at a time arrives in hundreds of chunks, each of which wakes the
event loop and passes through the SSE reader and the JSON parser; runner_bench.py's
replies are a few words long, so it hardly sees this. Starts benchmarks/lean_server.py
(player replies of --words words, three a chunk, --chunk-delay seconds apart), then asks
for 16 streamed replies one at a time and 64 replies 16 at once, and prints this process's CPU per
reply and per chunk.

    .venv/bin/python benchmarks/stream_bench.py [--words 300] [--chunk-delay 0.002]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.runner_bench import start_server  # noqa: E402

REPLIES = {1: 16, 16: 64}
"""Replies asked for, by how many are streamed at once."""


async def measure(base_url: str, words: int) -> None:
    from pingpong.core.domain import ModelSpec
    from pingpong.core.llm import ChatRequest, ModelPool

    spec = ModelSpec(name="player", base_url=base_url, model="player", api_key_env="BENCH_KEY", max_concurrency=64)
    pool = ModelPool({"player": spec})
    model = pool.get("player")
    messages = [{"role": "user", "content": "Tell me a long story."}]
    await model.complete(ChatRequest("player", messages))  # openai builds its types on first use
    chunks = (words + 2) // 3
    for at_once, replies in REPLIES.items():
        gate = asyncio.Semaphore(at_once)

        async def one() -> None:
            async with gate:
                await model.complete(ChatRequest("player", messages), on_delta=lambda piece: None)

        cpu0, wall0 = time.process_time(), time.perf_counter()
        await asyncio.gather(*(one() for _ in range(replies)))
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
        print(f"{at_once:2} at once: {cpu / replies * 1000:.2f} ms CPU per reply of {chunks} chunks = "
              f"{cpu / replies / chunks * 1e6:.0f} µs per chunk ({replies} replies in {wall:.2f} s)")
    await pool.aclose()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--words", type=int, default=300)
    ap.add_argument("--chunk-delay", type=float, default=0.002)
    opts = ap.parse_args()
    os.environ["BENCH_KEY"] = "not-a-key"
    server, base_url = start_server(0.001, opts.chunk_delay, opts.words, lean=True)
    try:
        from pingpong.sessions.runner import loop_factory

        with asyncio.Runner(loop_factory=loop_factory()) as runner:
            runner.run(measure(base_url, opts.words))
    finally:
        assert server.stdin is not None
        server.stdin.close()
        server.wait(timeout=10)


if __name__ == "__main__":
    main()
