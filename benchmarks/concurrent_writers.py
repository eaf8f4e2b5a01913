"""Several processes write one pingpong database for a while; prints what each managed.

    python benchmarks/concurrent_writers.py [--seconds 60] [--writers 2] [--db PATH]

The acceptance: two writers for a minute without "database is locked".
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pingpong.sessions.store import Store  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--writers", type=int, default=2)
    parser.add_argument("--db", help="database file (default: a fresh temporary one)")
    args = parser.parse_args()
    tmp = None
    if args.db:
        db = Path(args.db)
    else:
        tmp = tempfile.TemporaryDirectory()
        db = Path(tmp.name) / "bench.db"
    Store(db).close()
    started = time.perf_counter()
    procs = [subprocess.Popen([sys.executable, "-m", "tests.store.writer", str(db), str(args.seconds), f"w{i}"],
                              cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for i in range(args.writers)]
    failed = 0
    totals: dict[str, int] = {}
    for i, proc in enumerate(procs):
        out, err = proc.communicate()
        if proc.returncode != 0:
            failed += 1
            print(f"writer w{i}: FAILED (exit {proc.returncode})\n{err.strip()}")
            continue
        counts = json.loads(out)
        for k, v in counts.items():
            totals[k] = totals.get(k, 0) + v
        print(f"writer w{i}: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    elapsed = time.perf_counter() - started
    store = Store(db)
    check = store.db.execute("pragma integrity_check").fetchone()[0]
    store.close()
    print(f"total in {elapsed:.1f} s: " + ", ".join(f"{k} {v}" for k, v in totals.items()))
    if totals:
        print(f"messages per second: {totals['messages'] / args.seconds:.0f}; "
              f"sessions per second: {totals['sessions'] / args.seconds:.1f}")
    print(f"integrity_check: {check}; lock errors / failed writers: {failed}")
    if tmp:
        tmp.cleanup()
    return 1 if failed or check != "ok" else 0


if __name__ == "__main__":
    sys.exit(main())
