"""How long does `pingpong report` take on a big database? Builds one as export_bench.py does (N
finished PingPong conversations of 5 turns, 8 players, 2 judges), then writes the report into a
fresh folder and into the same folder again (the case of a report kept up to date), each in a fresh
process, printing wall time, CPU time (user + system) and peak RSS.

    /work/venv/bin/python benchmarks/report_bench.py [--sessions N] [--home DIR] [--rounds R]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_report(home: Path, out: Path) -> tuple[float, float, float, str]:
    """(wall seconds, CPU seconds, peak RSS in MB, the command's last line) of one report."""
    cmd = [sys.executable, "-m", "pingpong", "--home", str(home), "report", "--out", str(out)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, text=True, cwd=ROOT)
    assert proc.stdout is not None
    said = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    last = said.strip().splitlines()[-1] if said.strip() else f"exit {os.waitstatus_to_exitcode(status)}"
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, last


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=1_000)
    ap.add_argument("--home", help="a pingpong home to use (its database is built if missing; default a temp folder)")
    ap.add_argument("--rounds", type=int, default=2, help="reports written into the same folder")
    args = ap.parse_args()
    tmp = tempfile.TemporaryDirectory()
    home = Path(args.home) if args.home else Path(tmp.name) / "home"
    home.mkdir(parents=True, exist_ok=True)
    db = home / "pingpong.db"
    if not db.exists():
        t0 = time.perf_counter()
        subprocess.run([sys.executable, str(ROOT / "benchmarks" / "export_bench.py"), "--build-only", str(db),
                        "--sessions", str(args.sessions)], check=True)
        print(f"built {args.sessions:,} sessions in {time.perf_counter() - t0:.1f} s; {db.stat().st_size / 1e6:.0f} MB")
    out = Path(tmp.name) / "site"
    for i in range(args.rounds):
        wall, cpu, rss, last = run_report(home, out)
        where = "a fresh folder" if i == 0 else "the same folder"
        print(f"report into {where:<15} {wall:6.2f} s wall  {cpu:6.2f} s CPU  peak RSS {rss:5.0f} MB  ({last})")
    tmp.cleanup()


if __name__ == "__main__":
    main()
