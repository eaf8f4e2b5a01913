"""How light is the Home screen on a big database? First paint, idle CPU and memory of the real TUI.

Builds (once, kept in a temp dir or the --home given; about 5 minutes on 2 slow cores) a home whose
database holds 100,000 sessions of the bundled cards and situations: 2-6 turns each, two judges'
scores on every turn of the finished ones, a few people's scores and seats taken over by a person,
some failed and interrupted sessions. Then starts the real app headless (Textual's run_test) in a
fresh process on that home and prints the time to the first frame that shows Home with rows (from
the process start, and from the moment the app is up), the process CPU (all threads) until then
and in the --idle seconds after it, and the peak RSS. Prints figures, asserts nothing.

    python benchmarks/tui_home_bench.py [--home DIR] [--sessions N] [--idle SECONDS] [--runs N]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

PLAYERS = [f"player-{i:02d}" for i in range(12)]
JUDGES = ("judge-a", "judge-b")
INTERROGATOR = "asker"
METRICS = ("in_character", "entertaining", "fluency")


def build(home_dir: Path, sessions: int, seed: int = 7) -> None:
    """A home with `sessions` stored sessions, written with executemany in one transaction."""
    from pingpong.characters.library import CardLibrary
    from pingpong.core.home import Home
    from pingpong.sessions.store import Store
    from pingpong.situations.library import SituationLibrary

    home = Home(home_dir)
    home.ensure()
    rng = random.Random(seed)
    cards = [c for c in CardLibrary(home).all() if c.lang == "en"][:20]
    situations = [s for s in SituationLibrary(home).all() if s.lang == "en"][:30]
    card_json = {c.name: json.dumps(c.model_dump(mode="json")) for c in cards}
    sit_json = {s.name: json.dumps(s.model_dump(mode="json")) for s in situations}
    start = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)
    store = Store(home.db_path)
    rows, messages, scores = [], [], []
    for sid in range(1, sessions + 1):
        card, sit, player = rng.choice(cards), rng.choice(situations), rng.choice(PLAYERS)
        at = (start + timedelta(seconds=40 * sid)).isoformat(timespec="milliseconds")
        turns = rng.randint(2, 6)
        roll = rng.random()
        status = "failed" if roll < 0.03 else "interrupted" if roll < 0.06 else "finished"
        done = turns if status == "finished" else rng.randint(0, turns - 1)
        spec = {"character": card.name, "situation": sit.name, "player": player, "interrogator": INTERROGATOR,
                "judges": list(JUDGES), "num_turns": turns, "lang": "en", "method": "pingpong"}
        rows.append((sid, status, "pingpong", 2, "en", card.name, sit.name, player, INTERROGATOR,
                     json.dumps(list(JUDGES)), turns, card_json[card.name], sit_json[sit.name], json.dumps(spec),
                     "model error: timed out" if status == "failed" else None, at, at,
                     at if status == "finished" else None))
        person = rng.random() < 0.02  # a person took the interrogator seat for the later turns
        for t in range(1, done + 1):
            asker = "human" if person and t > 1 else INTERROGATOR
            messages.append((sid, 2 * t - 2, t, "user", "user", asker,
                             f"Turn {t}: tell me about the {sit.name.replace('-', ' ')}.", at))
            messages.append((sid, 2 * t - 1, t, "assistant", card.name, player,
                             "A reply in character " * rng.randint(5, 40), at))
        if status != "finished":
            continue
        quality = rng.uniform(2.0, 4.8)
        refused = rng.random() < 0.02
        for judge in JUDGES:
            for t in range(1, done + 1):
                scores.append((sid, t, "is_refusal", float(refused and t == 1), "0-1", "judge", judge, at))
                for metric in METRICS:
                    value = float(min(5, max(1, round(rng.gauss(quality, 0.7)))))
                    scores.append((sid, t, metric, value, "1-5", "judge", judge, at))
        if rng.random() < 0.01:  # a person changed a score
            scores.append((sid, 1, "in_character", 5.0, "1-5", "human", "alice", at))
    with store.transaction() as db:
        conn = db.conn
        conn.executemany(
            "insert into sessions (id, status, method, version, lang, character, situation, player, interrogator,"
            " judges, num_turns, character_snapshot, situation_snapshot, spec, error, created_at, updated_at,"
            " finished_at) values (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", rows)
        conn.executemany(
            "insert into messages (session_id, seq, turn, role, speaker, author, text, created_at)"
            " values (?,?,?,?,?,?,?,?)", messages)
        conn.executemany(
            "insert into scores (session_id, turn, metric, value, scale, source, by, status, created_at)"
            " values (?,?,?,?,?,?,?,'ok',?)", scores)
    store.close()
    print(f"built {sessions:,} sessions, {len(messages):,} messages, {len(scores):,} scores;"
          f" {home.db_path.stat().st_size / 1e6:.0f} MB", flush=True)


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def measure(home_dir: Path, spawned: float, idle: float) -> dict[str, float]:
    """In the fresh process: open the app on the home, wait for Home's first rows, then sit idle."""
    from textual.widgets import DataTable

    from pingpong.core.home import Home
    from pingpong.tui.app import create_app
    from pingpong.tui.screens.home import HomeScreen

    app = create_app(Home(home_dir))
    frames: list[tuple[float, float]] = []  # (time, CPU) of each frame drawn
    display = app._display  # headless, the frame is composed and then not written: time it there

    def timed_display(*args, **kwargs):
        frames.append((time.time(), cpu_seconds()))
        return display(*args, **kwargs)

    app._display = timed_display  # type: ignore[method-assign]
    async with app.run_test(size=(120, 40)):
        ready, cpu_ready = time.time() - spawned, cpu_seconds()  # the app runs, Home is pushed

        def has_rows() -> bool:
            screen = app.screen
            return isinstance(screen, HomeScreen) and screen.query_one(DataTable).row_count > 0
        while not has_rows():
            await asyncio.sleep(0.002)
        drawn = len(frames)
        while len(frames) == drawn:  # the next frame shows them
            await asyncio.sleep(0.002)
        first, cpu_first = frames[drawn][0] - spawned, frames[drawn][1]
        await asyncio.sleep(idle)  # the rest of the list is read, then nothing should happen
        cpu_idle = cpu_seconds() - cpu_first
        rows = app.screen.query_one(DataTable).row_count
    return {"ready": ready, "cpu_ready": cpu_ready, "first_paint": first, "cpu_first": cpu_first,
            "cpu_idle": cpu_idle, "rows": rows, "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def child(home_dir: Path, spawned: float, idle: float) -> None:
    print(json.dumps(asyncio.run(measure(home_dir, spawned, idle))), flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--home", help="home folder to use (built if it has no database; default a temp dir)")
    ap.add_argument("--sessions", type=int, default=100_000)
    ap.add_argument("--idle", type=float, default=5.0, help="seconds to sit idle on Home after the first paint")
    ap.add_argument("--runs", type=int, default=3, help="fresh processes to measure")
    ap.add_argument("--child", nargs=2, metavar=("HOME", "SPAWNED"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(Path(args.child[0]), float(args.child[1]), args.idle)
        return
    home_dir = Path(args.home) if args.home else Path(tempfile.gettempdir()) / f"pingpong-home-bench-{args.sessions}"
    if not (home_dir / "pingpong.db").exists():
        t0 = time.perf_counter()
        build(home_dir, args.sessions)
        print(f"(built in {time.perf_counter() - t0:.0f} s, kept in {home_dir})")
    from pingpong.sessions.store import Store

    Store(home_dir / "pingpong.db").close()  # a database built by an older version is upgraded here, not timed
    env = {**os.environ, "PINGPONG_HOME": str(home_dir)}
    for run in range(1, args.runs + 1):
        spawned = time.time()
        out = subprocess.run([sys.executable, __file__, "--idle", str(args.idle), "--child", str(home_dir),
                              str(spawned)], cwd=REPO, env=env, capture_output=True, text=True)
        if out.returncode:
            print(out.stderr.strip().splitlines()[-1] if out.stderr.strip() else f"child failed: {out.returncode}")
            continue
        r = json.loads(out.stdout.strip().splitlines()[-1])
        home_wall, home_cpu = r["first_paint"] - r["ready"], r["cpu_first"] - r["cpu_ready"] + r["cpu_idle"]
        print(f"run {run}: first paint of Home with rows {r['first_paint']:.2f} s after the process started,"
              f" {home_wall:.2f} s after the app was up ({r['ready']:.2f} s); CPU: {r['cpu_ready']:.2f} s to start"
              f" the app, {r['cpu_first'] - r['cpu_ready']:.2f} s more to the first paint,"
              f" {r['cpu_idle']:.2f} s in the {args.idle:.0f} s on Home after it (Home's own: {home_cpu:.2f} s;"
              f" process total {r['cpu_first'] + r['cpu_idle']:.2f} s); {r['rows']} rows in the table;"
              f" peak RSS {r['rss_mb']:.0f} MB", flush=True)


if __name__ == "__main__":
    main()
