"""How long does `pingpong report` take on a big database? Builds one as export_bench.py does (N
finished PingPong conversations of 5 turns, 8 players, 2 judges), then writes the report into a
fresh folder and into the same folder again (the case of a report kept up to date), each in a fresh
process, printing wall time, CPU time (user + system) and peak RSS.

    /work/venv/bin/python benchmarks/report_bench.py [--sessions N] [--home DIR] [--rounds R]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from export_bench import bench_home, timed  # the same database, the same fresh-process timing


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=1_000)
    ap.add_argument("--home", help="a pingpong home to use (its database is built if missing; default a temp folder)")
    ap.add_argument("--rounds", type=int, default=2, help="reports written into the same folder")
    args = ap.parse_args()
    tmp = tempfile.TemporaryDirectory()
    home = bench_home(Path(args.home) if args.home else Path(tmp.name) / "home", args.sessions)
    out = Path(tmp.name) / "site"
    for i in range(args.rounds):
        wall, cpu, rss, last = timed(home, "report", "--out", str(out))
        where = "a fresh folder" if i == 0 else "the same folder"
        print(f"report into {where:<15} {wall:6.2f} s wall  {cpu:6.2f} s CPU  peak RSS {rss:5.0f} MB  ({last})")
    tmp.cleanup()


if __name__ == "__main__":
    main()
