"""How long `pingpong --help` takes compared with a bare `python -c pass` (median of N runs each).

Issue 2 asks for --help in no more than about three bare interpreter starts.
Run: python benchmarks/help_startup.py [runs]
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def median_seconds(argv: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    bare = median_seconds([sys.executable, "-c", "pass"], runs)
    helps = {
        "pingpong --help": [sys.executable, "-m", "pingpong.tui.cli", "--help"],
        "pingpong cards --help": [sys.executable, "-m", "pingpong.tui.cli", "cards", "--help"],
    }
    print(f"python -c pass          {bare * 1000:7.1f} ms (median of {runs})")
    for label, argv in helps.items():
        t = median_seconds(argv, runs)
        print(f"{label:<23} {t * 1000:7.1f} ms  ratio {t / bare:.2f}x")


if __name__ == "__main__":
    main()
