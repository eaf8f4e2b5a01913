"""How long `pingpong import` of our JSONL takes, and its peak memory, as files and databases grow.

Builds one offline run in a temporary home, exports it, and writes files of N sessions made of
copies of it, each copy moved to another day (every time in a line shifted alike, so each copy is a
new session and its forks and pairs still name their own copy). Then, each in a fresh process:
`import` of the file into an empty home, and of another file of the same size into the home that
the first filled. Prints wall time, sessions per second and the process's peak RSS. The second
figure is what the lookup of stored sessions costs: it used to grow with the database.

Run: python benchmarks/import_bench.py [--sessions 1000,10000]
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def pingpong(home: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "pingpong.tui.cli", "--home", str(home), *args],
                          env=env, capture_output=True, text=True, check=True)


def base_lines(work: Path) -> list[str]:
    home = work / "base"
    pingpong(home, "run", "--player", "offline", "--interrogator", "offline", "--judge", "offline", "--run", "base")
    out = work / "base.jsonl"
    pingpong(home, "export", "--format", "jsonl", "--out", str(out))
    return [line for line in out.read_text(encoding="utf-8").split("\n") if line]


def write_copies(lines: list[str], n: int, path: Path, first_day: int) -> None:
    """n sessions: the base lines again and again, copy k moved to day first_day + k."""
    day = json.loads(lines[0])["created_at"][:10]
    start = datetime.date(2001, 1, 1)
    with path.open("w", encoding="utf-8") as fh:
        for i in range(n):
            copy = (start + datetime.timedelta(days=first_day + i // len(lines))).isoformat()
            fh.write(lines[i % len(lines)].replace(f'"{day}T', f'"{copy}T') + "\n")


def timed_import(home: Path, path: Path) -> tuple[float, float]:
    """(seconds, peak RSS in MB) of one import in its own process."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "pingpong.tui.cli", "--home", str(home), "import", str(path)],
                            env=env, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise SystemExit(f"import failed ({proc.returncode})")
    return seconds, usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", default="1000,10000", help="file sizes, comma-separated")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        lines = base_lines(work)
        print(f"base run: {len(lines)} sessions")
        for n in (int(x) for x in args.sessions.split(",")):
            first, second = work / f"first-{n}.jsonl", work / f"second-{n}.jsonl"
            write_copies(lines, n, first, 0)
            write_copies(lines, n, second, 20_000)
            home = work / f"home-{n}"
            size = first.stat().st_size / 1e6
            seconds, peak = timed_import(home, first)
            print(f"{n} sessions ({size:.0f} MB) into an empty database: {seconds:.1f} s, "
                  f"{n / seconds:.0f} sessions/s, peak RSS {peak:.0f} MB")
            seconds, peak = timed_import(home, second)
            print(f"{n} more into the {n} stored: {seconds:.1f} s, {n / seconds:.0f} sessions/s, "
                  f"peak RSS {peak:.0f} MB")
            first.unlink()
            second.unlink()


if __name__ == "__main__":
    main()
