"""How long the TUI stops drawing when a screen that lists the card library opens, with a big library.

Writes a home with --cards cards of one's own (plus the bundled ones), starts the real app headless
in a fresh process, and opens the card screen, switches its language, then opens the new-session
form. A task beside the app wakes every 5 ms; the script prints, for each step, the longest gap
between two of its wake-ups (the longest time the screen could not redraw or take a key) and the
time until the step's list was shown. Prints figures, asserts nothing.

    python benchmarks/tui_cards_bench.py [--cards 1000] [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.loop_ticker import LoopTicker  # noqa: E402


def write_cards(home: Path, n: int) -> None:
    import yaml

    folder = home / "characters"
    folder.mkdir(parents=True)
    for i in range(n):
        card = {"name": f"bench-card-{i:04d}", "char_name": f"Bench Card {i}", "lang": "en",
                "summary": "A card written for timing, with a summary of an ordinary length.",
                "persona": "A paragraph of persona, repeated to an ordinary length. " * 12,
                "greeting": "Hello there.", "tags": ["bench"],
                "example_dialogue": [{"user": f"Question {j}?", "char": f"Answer {j}."} for j in range(3)]}
        (folder / f"bench-card-{i:04d}.yaml").write_text(yaml.safe_dump(card), encoding="utf-8")


async def walk(pilot) -> dict[str, dict[str, float]]:
    from pingpong.tui.screens.characters import CharactersScreen
    from pingpong.tui.screens.home import HomeScreen
    from pingpong.tui.screens.new_session import NewSessionScreen
    from tests.tui.helpers import form_filled

    def listed() -> bool:   # the screen's list is filled (a release that read on the loop had it at once)
        return getattr(app.screen, "loaded", True)

    app = pilot.app
    ticker = LoopTicker()

    async def until(ready, limit: float = 60.0) -> None:
        end = time.perf_counter() + limit
        while not ready() and time.perf_counter() < end:
            await pilot.pause(0.01)

    async def step(keys: tuple[str, ...], ready) -> dict[str, float]:
        ticker.clear()
        started = time.perf_counter()
        await pilot.press(*keys)
        await until(ready)
        shown = time.perf_counter() - started
        await pilot.pause(0.3)   # what the step still has to draw
        return {"longest_ms": ticker.longest() * 1000, "shown_ms": shown * 1000}

    await until(lambda: isinstance(app.screen, HomeScreen) and app.screen.loaded)
    ticker.start()
    out = {
        "open the card screen": await step(("c",), lambda: isinstance(app.screen, CharactersScreen) and listed()),
        "switch its language": await step(("g",), lambda: listed() and app.screen.cards
                                          and all(c.lang == "en" for c in app.screen.cards)),
        "open the new-session form": await step(("escape", "n"), lambda: isinstance(app.screen, NewSessionScreen)
                                                and form_filled(app.screen)),
    }
    await ticker.stop()
    return out


def child(home: str) -> None:
    from pingpong.core.home import Home
    from pingpong.tui.app import create_app

    app = create_app(Home(Path(home)))
    result: dict = {}

    async def auto(pilot) -> None:
        result.update(await walk(pilot))
        pilot.app.exit()

    app.run(headless=True, size=(120, 40), auto_pilot=auto)
    print(json.dumps(result))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cards", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--child", help=argparse.SUPPRESS)
    opts = ap.parse_args()
    if opts.child:
        child(opts.child)
        return
    with tempfile.TemporaryDirectory() as tmp:
        write_cards(Path(tmp), opts.cards)
        print(f"{opts.cards} cards of one's own, 120x40, {opts.runs} runs (longest stall of the loop; list shown after)")
        runs = []
        for _ in range(opts.runs):
            out = subprocess.run([sys.executable, __file__, "--child", tmp], capture_output=True, text=True,
                                 check=True).stdout
            runs.append(json.loads(out.strip().splitlines()[-1]))
        for name in runs[0]:
            stalls = ", ".join(f"{r[name]['longest_ms']:.0f}" for r in runs)
            shown = ", ".join(f"{r[name]['shown_ms']:.0f}" for r in runs)
            print(f"{name:28} stall {stalls} ms; shown after {shown} ms")


if __name__ == "__main__":
    main()
