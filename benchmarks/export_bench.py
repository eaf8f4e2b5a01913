"""How long and how much memory does each export take on a big database? Builds one, then runs
`pingpong export` in each format in a fresh process and prints its wall time and peak RSS.

Builds (once, with executemany inside one transaction) N finished PingPong conversations of 5 turns
for 8 players, judged by 2 judges, with the players' and the interrogator's model calls; one in
fifty also rated as a whole by a person (annotations), one in a hundred judged against the next one
(pairwise verdicts with their calls). Then:

    /work/venv/bin/python benchmarks/export_bench.py [--sessions N] [--home DIR] [--formats jsonl,pingpong,annotations]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

PLAYERS = 8
JUDGES = ("judge-a", "judge-b")
TURNS = 5
METRICS = ("in_character", "entertaining", "fluency")
STAMP = "2025-01-01T00:00:00.000+00:00"


def build(path: Path, n: int, seed: int = 1) -> None:
    sys.path.insert(0, str(ROOT))
    from pingpong.sessions.store import Store

    rng = random.Random(seed)
    store = Store(path)
    char = json.dumps({"name": "bench", "char_name": "Bench", "lang": "en", "summary": "A bench to sit on.",
                       "persona": "You are a park bench. " * 20, "greeting": "Sit down."})
    sit = json.dumps({"name": "bench", "lang": "en", "text": "Ask the bench about its day.", "num_turns": TURNS})
    words = "the a bench park sun rain bird old wood paint people sit talk day night".split()
    with store.transaction() as db:
        conn = db.conn
        sessions, messages, calls, scores, pairs = [], [], [], [], []
        for sid in range(1, n + 1):
            player = f"player-{sid % PLAYERS}"
            spec = json.dumps({"character": "bench", "situation": "bench", "player": player,
                               "interrogator": "asker", "judges": list(JUDGES), "lang": "en"})
            sessions.append((sid, "finished", "pingpong", "en", "bench", "bench", player, "asker",
                             json.dumps(list(JUDGES)), TURNS, char, sit, spec, STAMP, STAMP, STAMP))
            for t in range(1, TURNS + 1):
                reply = " ".join(rng.choices(words, k=rng.randint(20, 120)))
                messages.append((sid, 2 * t - 2, t, "user", None, "asker", f"How was turn {t}?", STAMP))
                messages.append((sid, 2 * t - 1, t, "assistant", None, player, reply, STAMP))
                for role, model in (("interrogator", "asker"), ("player", player)):
                    calls.append((sid, role, model, t, 1, "ok", 300, 80, 0, 120.0, STAMP, None))
            for judge in JUDGES:
                calls.append((sid, "judge", judge, None, 1, "ok", 2000, 200, 0, 900.0, STAMP, None))
                for t in range(1, TURNS + 1):
                    scores.append((sid, "judge", judge, t, "is_refusal", 0.0, "0-1", STAMP))
                    for metric in METRICS:
                        scores.append((sid, "judge", judge, t, metric, float(rng.randint(1, 5)), "1-5", STAMP))
            if sid % 50 == 0:
                for metric in METRICS:
                    scores.append((sid, "human", "dana", None, metric, float(rng.randint(1, 5)), "1-5", STAMP))
            if sid % 100 == 0 and sid < n:
                pairs.append((len(pairs) + 1, sid, sid + 1, "ab", "pairwise", 1.0, "0-1", "judge", JUDGES[0],
                              "ok", STAMP))
                calls.append((sid, "judge", JUDGES[0], None, 1, "ok", 4000, 100, 0, 800.0, STAMP, len(pairs)))
        conn.executemany(
            "insert into sessions (id, status, method, lang, character, situation, player, interrogator,"
            " judges, num_turns, character_snapshot, situation_snapshot, spec, created_at, updated_at,"
            " finished_at) values (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", sessions)
        conn.executemany("insert into messages (session_id, seq, turn, role, speaker, author, text, created_at)"
                         " values (?,?,?,?,?,?,?,?)", messages)
        conn.executemany("insert into pair_scores (id, session_a, session_b, shown, metric, value, scale, source,"
                         " by, status, created_at) values (?,?,?,?,?,?,?,?,?,?,?)", pairs)
        conn.executemany(
            "insert into model_calls (session_id, role, model, turn, attempt, status, prompt_tokens,"
            " completion_tokens, tokens_estimated, latency_ms, created_at, pair_score_id)"
            " values (?,?,?,?,?,?,?,?,?,?,?,?)", calls)
        conn.executemany("insert into scores (session_id, source, by, turn, metric, value, scale, status, created_at)"
                         " values (?,?,?,?,?,?,?,'ok',?)", scores)
    store.close()


def timed(home: Path, *args: str) -> tuple[float, float, float, str]:
    """(wall seconds, CPU seconds, peak RSS in MB, the command's last line) of `pingpong ARGS` on the
    home, in a fresh process."""
    cmd = [sys.executable, "-m", "pingpong", "--home", str(home), *args]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, text=True, cwd=ROOT)
    assert proc.stdout is not None
    said = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    last = said.strip().splitlines()[-1] if said.strip() else f"exit {os.waitstatus_to_exitcode(status)}"
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, last


def bench_home(home: Path, sessions: int) -> Path:
    """The home, its database built with `sessions` sessions when it has none."""
    home.mkdir(parents=True, exist_ok=True)
    db = home / "pingpong.db"
    if not db.exists():
        # built in a process of its own: a child's peak RSS counts its parent's at the fork, and
        # this one stays small (it imports nothing of pingpong)
        t0 = time.perf_counter()
        subprocess.run([sys.executable, __file__, "--build-only", str(db), "--sessions", str(sessions)], check=True)
        print(f"built {sessions:,} sessions in {time.perf_counter() - t0:.1f} s; {db.stat().st_size / 1e6:.0f} MB")
    return home


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=10_000)
    ap.add_argument("--home", help="a pingpong home to use (its database is built if missing; default a temp folder)")
    ap.add_argument("--formats", default="jsonl,pingpong,annotations")
    ap.add_argument("--build-only", metavar="DB", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.build_only:
        build(Path(args.build_only), args.sessions)
        return
    tmp = tempfile.TemporaryDirectory()
    home = bench_home(Path(args.home) if args.home else Path(tmp.name) / "home", args.sessions)
    for fmt in args.formats.split(","):
        out = Path(tmp.name) / ("results" if fmt == "pingpong" else f"{fmt}.jsonl")
        wall, _, rss, last = timed(home, "export", "--format", fmt, "--out", str(out))
        print(f"export --format {fmt:<11} {wall:6.2f} s  peak RSS {rss:6.0f} MB  ({last})")
    tmp.cleanup()


if __name__ == "__main__":
    main()
