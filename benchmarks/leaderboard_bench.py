"""How fast is the leaderboard on a big database? Builds one, then times compute_leaderboard.

Builds (once, with executemany inside one transaction) 100,000 finished conversations of
5 turns judged by 2 judges (1,000,000 judged turns, 1,000,000 messages) for 20 players,
then reads the leaderboard from the database and prints wall time and peak memory.

    /work/venv/bin/python benchmarks/leaderboard_bench.py [--db PATH] [--conversations N]
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from pingpong.sessions.leaderboard import compute_leaderboard  # noqa: E402
from pingpong.sessions.store import Store  # noqa: E402

PLAYERS = 20
JUDGES = ("judge-a", "judge-b")
TURNS = 5
STAMP = "2025-01-01T00:00:00.000+00:00"


def build(path: Path, conversations: int, seed: int = 1) -> None:
    rng = np.random.default_rng(seed)
    store = Store(path)
    char = json.dumps({"name": "bench", "char_name": "Bench", "lang": "en", "summary": "s", "persona": "p"})
    sit = json.dumps({"name": "bench", "lang": "en", "text": "t", "num_turns": TURNS})
    pool = ["w" * n for n in range(2000)]
    quality = rng.uniform(2.5, 4.5, PLAYERS)
    length = rng.integers(150, 900, PLAYERS)
    with store.transaction() as db:
        conn = db.conn
        sessions, messages, scores = [], [], []
        for sid in range(1, conversations + 1):
            p = sid % PLAYERS
            player = f"player-{p:02d}"
            spec = json.dumps({"character": "bench", "situation": "bench", "player": player,
                               "interrogator": "asker", "judges": list(JUDGES)})
            sessions.append((sid, "finished", 2, "en", "bench", "bench", player, "asker",
                             json.dumps(list(JUDGES)), TURNS, char, sit, spec, STAMP, STAMP, STAMP))
            lens = np.clip(rng.normal(length[p], 80, TURNS).astype(int), 1, 1999)
            for t in range(1, TURNS + 1):
                messages.append((sid, 2 * t - 2, t, "user", "user", "asker", "question?", STAMP))
                messages.append((sid, 2 * t - 1, t, "assistant", "bench", player, pool[lens[t - 1]], STAMP))
            refusal = rng.random() < 0.03
            for j in JUDGES:
                vals = np.clip(np.rint(rng.normal(quality[p], 0.8, (TURNS, 3))), 1, 5).astype(int)
                for t in range(1, TURNS + 1):
                    flag = float(refusal and t == 2)
                    scores.append((sid, j, t, "is_refusal", flag, "0-1", STAMP))
                    for metric, value in zip(("in_character", "entertaining", "fluency"), vals[t - 1]):
                        scores.append((sid, j, t, metric, float(value), "1-5", STAMP))
        conn.executemany(
            "insert into sessions (id, status, version, lang, character, situation, player, interrogator,"
            " judges, num_turns, character_snapshot, situation_snapshot, spec, created_at, updated_at,"
            " finished_at) values (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", sessions)
        conn.executemany(
            "insert into messages (session_id, seq, turn, role, speaker, author, text, created_at)"
            " values (?,?,?,?,?,?,?,?)", messages)
        conn.executemany(
            "insert into scores (session_id, by, turn, metric, value, scale, source, status, created_at)"
            " values (?,?,?,?,?,?,'judge','ok',?)", scores)
    store.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", help="database to use (built if missing; default a temp file)")
    ap.add_argument("--conversations", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    tmp = None
    if args.db:
        path = Path(args.db)
    else:
        tmp = tempfile.TemporaryDirectory()
        path = Path(tmp.name) / "bench.db"
    if not path.exists():
        t0 = time.perf_counter()
        build(path, args.conversations)
        print(f"built {args.conversations:,} conversations ({args.conversations * TURNS * len(JUDGES):,} judged turns,"
              f" {PLAYERS} players, {len(JUDGES)} judges) in {time.perf_counter() - t0:.1f} s;"
              f" {path.stat().st_size / 1e6:.0f} MB")
    times = []
    for i in range(args.repeat):
        store = Store(path)  # a fresh open each time: the read is part of the figure
        if i == args.repeat - 1:
            tracemalloc.start()
        t0 = time.perf_counter()
        rows = compute_leaderboard(store, scores="merged")
        times.append(time.perf_counter() - t0)
        if i == args.repeat - 1:
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
        store.close()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"compute_leaderboard: {len(rows)} rows, {sum(r.conversations for r in rows):,} conversations")
    print("wall time per run: " + ", ".join(f"{t:.2f} s" for t in times) + f" (best {min(times):.2f} s)")
    print(f"peak traced Python memory during the last run (tracemalloc, slows it): {peak / 1e6:.0f} MB;"
          f" process max RSS {rss:.0f} MB")
    top = rows[0]
    print(f"top: {top.player} final {top.final:.3f} +- {top.final_ci:.3f}, length_norm {top.length_norm:.3f},"
          f" rank {top.rank}")
    if tmp:
        tmp.cleanup()


if __name__ == "__main__":
    main()
