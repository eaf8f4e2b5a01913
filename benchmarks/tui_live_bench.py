"""How much later a long streamed reply is whole on the live screen than without the TUI.

Starts tests/fakeserver.py in a child process streaming the player's reply, one word a chunk, at
--rate words (tokens) a second. Runs the same one-turn session (interrogator offline, no judges)
twice in this process, each after one warm-up request:
- headless: sessions.live.run_session as the TUI drives it (offload=True), events consumed and
  dropped, until the reply is stored whole;
- on screen: the TUI headless (Textual renders every update, writes nothing to a terminal), from
  the moment the live screen opened on the session has started its engine, until its transcript
  shows the whole reply as a stored card.
Both runs take turns --repeat times (the machine's other load varies); prints the best time of
each, their ratio (goal <= 1.2), the median of the pairs' ratios and this process's CPU as a % of
one core in the best runs.

    .venv/bin/python benchmarks/tui_live_bench.py [--tokens 2000] [--rate 500] [--repeat 3] [--profile]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import os
import pstats
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.runner_bench import write_home  # noqa: E402

WORDS = ("the", "keeper", "climbed", "stairs", "lamp", "storm", "and", "salt", "glass", "of", "night",
         "a", "ship", "passed", "slowly", "beyond", "rocks", "wind", "answered", "her")


def reply_text(tokens: int) -> str:
    """`tokens` words, a new paragraph every 60 (the same text every time)."""
    words = [WORDS[(i * 7 + i // 3) % len(WORDS)] for i in range(tokens)]
    return "".join(w + ("\n\n" if i % 60 == 59 else " ") for i, w in enumerate(words)).strip()


def serve(tokens: int, rate: float) -> None:
    """Child process: the fake server until stdin closes; the player's reply streams one word a chunk."""
    from tests.fakeserver import FakeServer, default_responder, reply

    text = reply_text(tokens)

    def responder(body: dict):
        if body.get("model") == "player":
            return reply(text, words_per_chunk=1, chunk_delay=1 / rate)
        return default_responder(body)

    with FakeServer(responder=responder) as srv:
        print(srv.base_url, flush=True)
        sys.stdin.read()


def new_session(root: Path) -> int:
    from pingpong.characters.library import CardLibrary
    from pingpong.core.domain import SessionSpec
    from pingpong.core.home import Home
    from pingpong.sessions.live import start_session
    from pingpong.sessions.store import Store
    from pingpong.situations.library import SituationLibrary

    home = Home(root)
    card, situation = CardLibrary(home).get("bench-char-0"), SituationLibrary(home).get("bench-sit-0")
    spec = SessionSpec(character=card.name, situation=situation.name, player="player", interrogator="offline",
                       judges=[], num_turns=1, lang="en")
    with Store(home.db_path) as store:
        return start_session(store, spec, card, situation)


async def warm_up(pool) -> None:
    """One streamed request first: openai builds its types on first use, once per process."""
    from pingpong.core.llm import ChatRequest

    await pool.get("player").complete(ChatRequest("player", [{"role": "user", "content": "hello"}]),
                                      on_delta=lambda piece: None)


async def headless(root: Path, sid: int) -> tuple[float, float]:
    """(seconds until the reply is stored whole, CPU seconds meanwhile) without the TUI."""
    from pingpong.core.config import load_models
    from pingpong.core.events import MessageCompleted
    from pingpong.core.home import Home
    from pingpong.core.llm import ModelPool
    from pingpong.sessions.live import run_session
    from pingpong.sessions.store import Store

    home = Home(root)
    store, pool = Store(home.db_path), ModelPool(load_models(home))
    await warm_up(pool)
    wall0, cpu0 = time.perf_counter(), time.process_time()
    seconds = cpu = 0.0
    async for event in run_session(store, pool, sid, offload=True):
        if isinstance(event, MessageCompleted) and event.message.role == "assistant":
            seconds, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    await pool.aclose()
    store.close()
    return seconds, cpu


async def on_screen(root: Path, sid: int, text: str, profile: bool = False) -> tuple[float, float]:
    """(seconds until the live screen shows the whole reply as a stored card, CPU seconds meanwhile);
    profile: print where the time went."""
    from pingpong.core.home import Home
    from pingpong.tui.app import create_app
    from pingpong.tui.screens.home import HomeScreen
    from pingpong.tui.screens.live import LiveScreen
    from pingpong.tui.widgets.transcript import Transcript

    app = create_app(Home(root))
    async with app.run_test(headless=True, size=(100, 40)) as pilot:
        while not isinstance(app.screen, HomeScreen):
            await pilot.pause(0.05)
        await warm_up(app.pool)

        def whole() -> bool:
            screen = app.screen
            if not isinstance(screen, LiveScreen) or not screen.query(Transcript):
                return False
            return any(c.role == "assistant" and c.body == text for c in screen.query_one(Transcript).cards())

        prof = cProfile.Profile() if profile else None
        if prof is not None:
            prof.enable()
        app.open_live(sid)
        while not (isinstance(app.screen, LiveScreen) and app.screen.running):  # the engine has started
            await asyncio.sleep(0.005)
        wall0, cpu0 = time.perf_counter(), time.process_time()
        while not whole():
            await asyncio.sleep(0.02)
        await pilot.pause()  # drawn
        wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
        if prof is not None:
            prof.disable()
            pstats.Stats(prof).sort_stats(os.environ.get("BENCH_SORT", "cumtime")).print_stats(45)
        return wall, cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tokens", type=int, default=2000)
    ap.add_argument("--rate", type=float, default=500, help="words (tokens) a second the server streams")
    ap.add_argument("--repeat", type=int, default=3, help="pairs of runs (default 3)")
    ap.add_argument("--profile", action="store_true", help="cProfile the on-screen run, print the top functions")
    ap.add_argument("--serve", nargs=2, type=float, help=argparse.SUPPRESS)
    opts = ap.parse_args()
    if opts.serve:
        serve(int(opts.serve[0]), opts.serve[1])
        return
    os.environ["BENCH_KEY"] = "not-a-key"
    server = subprocess.Popen([sys.executable, __file__, "--serve", str(opts.tokens), str(opts.rate)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT)
    assert server.stdout is not None and server.stdin is not None
    base_url = server.stdout.readline().strip()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            write_home(root, base_url, 1, 1)
            pairs = []
            for _ in range(opts.repeat):
                bare = asyncio.run(headless(root, new_session(root)))
                shown = asyncio.run(on_screen(root, new_session(root), reply_text(opts.tokens), opts.profile))
                pairs.append((bare, shown))
    finally:
        server.stdin.close()
        server.wait(timeout=10)
    (bare, bare_cpu), (shown, shown_cpu) = min(p[0] for p in pairs), min(p[1] for p in pairs)
    ratios = sorted(s[0] / b[0] for b, s in pairs)
    print(f"reply                {opts.tokens} tokens streamed at {opts.rate:g} tokens/s, one a chunk; "
          f"best of {opts.repeat}")
    print(f"headless             {bare:.2f} s  (CPU {100 * bare_cpu / bare:.0f}% of a core)")
    print(f"on the live screen   {shown:.2f} s  (CPU {100 * shown_cpu / shown:.0f}% of a core)")
    print(f"ratio                {shown / bare:.2f}  (goal <= 1.2); median of the pairs {ratios[len(ratios) // 2]:.2f}")


if __name__ == "__main__":
    main()
