"""How long pingpong takes to start, next to a bare `python -c pass` (medians of N runs each).

Times, in a temporary home: `pingpong --help`, `pingpong cards --help`, `pingpong cards list`,
`pingpong leaderboard` on an empty database (created by a first run, as a user's second command
finds it) and on none at all (the very first command, which creates and migrates it), and the TUI:
the real `pingpong` in a pseudo-terminal (120x40) from launch to its first paint (the first frame
drawn: Home with its table still loading) and, in another run, until Home has listed the empty
database ("No sessions yet" written), then ctrl+q; beside it, the first paint of a minimal Textual
app (a header, a line, a footer): the floor any Textual app starts from on this machine.
The commands take turns, so a busy machine slows them alike. Wall time is what a user waits; CPU
time (user + system of the child, for the TUI including its exit) moves less when other processes
share the cores. A first untimed run of each writes its bytecode (even under
PYTHONDONTWRITEBYTECODE), as an installed pingpong has it.

Issue 17's goals: `cards list` and `leaderboard` (empty database) each under 100 ms over the bare
start, the TUI to its first screen under 300 ms.

Run: python benchmarks/startup_bench.py [--runs N] [--only NAME[,NAME]]
"""

from __future__ import annotations

import argparse
import fcntl
import os
import pty
import re
import select
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "pingpong.tui.cli"]
FIRST_PAINT = re.compile(rb"\x1b\[\d+;\d+H")  # the first cursor move: a frame is being drawn
HOME_LISTED = re.compile(rb"No sessions yet")  # Home's empty state (tui/screens/home.py)
QUIT = b"\x11"  # ctrl+q
TUI_TIMEOUT = 60.0

TEXTUAL_ALONE = """
from textual.app import App
from textual.widgets import Footer, Header, Static

class Alone(App):
    def compose(self):
        yield Header()
        yield Static("Nothing here yet")
        yield Footer()

Alone().run()
"""

Sample = tuple[float, float]
"""(wall seconds, CPU seconds of the child)."""


def _cpu(usage) -> float:
    return usage.ru_utime + usage.ru_stime


def run_command(argv: list[str], env: dict[str, str]) -> Sample:
    """Wall and CPU time of one run of argv to its exit; it must succeed."""
    start = time.perf_counter()
    child = subprocess.Popen(argv, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    assert child.stderr is not None
    with child.stderr:
        err = child.stderr.read().decode(errors="replace")
    if child.returncode != 0:
        raise SystemExit(f"{' '.join(argv)}: exit {child.returncode}\n{err}")
    return wall, _cpu(usage)


def run_tui(argv: list[str], env: dict[str, str], until: re.Pattern[bytes]) -> Sample:
    """Wall time from launch until the app has written `until` to its terminal, and the CPU time it
    used in all (to then, and quitting)."""
    start = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:  # the child: the real command on a terminal of its own
        os.chdir(REPO)
        os.execve(argv[0], argv, {**env, "TERM": "xterm-256color"})
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    tail, shown = b"", None
    try:
        while True:
            ready, _, _ = select.select([fd], [], [], TUI_TIMEOUT)
            if not ready:
                os.kill(pid, 9)
                raise SystemExit(f"the app wrote no {until.pattern!r} within {TUI_TIMEOUT:.0f} s")
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # the terminal closed: the app has exited
                break
            if not chunk:
                break
            if shown is None:
                window = tail + chunk
                if until.search(window):
                    shown = time.perf_counter() - start
                    os.write(fd, QUIT)
                tail = window[-64:]
    finally:
        _, status, usage = os.wait4(pid, 0)
        os.close(fd)
    if shown is None or os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"the app exited with status {os.waitstatus_to_exitcode(status)} before writing "
                         f"{until.pattern!r}")
    return shown, _cpu(usage)


def fresh_home(parent: Path) -> list[str]:
    """--home of a new, empty folder (a first start: no database yet)."""
    return ["--home", tempfile.mkdtemp(dir=parent)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15, help="runs of each command (default 15)")
    parser.add_argument("--only", default="", help="comma-separated names of the rows to time (default all)")
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="pingpong-startup-") as scratch:
        root = Path(scratch)
        home = root / "home"
        # bytecode is written by the untimed first run and read after, as an installed pingpong has it
        env = {k: v for k, v in os.environ.items() if k not in ("PINGPONG_HOME", "PYTHONDONTWRITEBYTECODE")}
        at = ["--home", str(home)]
        rows: dict[str, Callable[[], Sample]] = {
            "python -c pass": lambda: run_command([sys.executable, "-c", "pass"], env),
            "pingpong --help": lambda: run_command([*CLI, "--help"], env),
            "pingpong cards --help": lambda: run_command([*CLI, "cards", "--help"], env),
            "pingpong cards list": lambda: run_command([*CLI, "cards", "list", *at], env),
            "leaderboard (empty db)": lambda: run_command([*CLI, "leaderboard", *at], env),
            "leaderboard (no db yet)": lambda: run_command([*CLI, "leaderboard", *fresh_home(root)], env),
            "TUI first paint": lambda: run_tui([*CLI, *at], env, FIRST_PAINT),
            "TUI Home listed": lambda: run_tui([*CLI, *at], env, HOME_LISTED),
            "Textual alone 1st paint": lambda: run_tui([sys.executable, "-c", TEXTUAL_ALONE], env, FIRST_PAINT),
        }
        chosen = [n.strip() for n in opts.only.split(",") if n.strip()]
        unknown = [n for n in chosen if n not in rows]
        if unknown:
            raise SystemExit(f"--only: unknown {', '.join(unknown)} (one of: {', '.join(rows)})")
        names = ["python -c pass", *(n for n in rows if n in chosen and n != "python -c pass")] if chosen \
            else list(rows)
        for name in names:  # once untimed: the database exists and bytecode is compiled
            rows[name]()
        samples: dict[str, list[Sample]] = {name: [] for name in names}
        for _ in range(opts.runs):
            for name in names:
                samples[name].append(rows[name]())
    wall = {n: statistics.median(s[0] for s in samples[n]) * 1000 for n in names}
    cpu = {n: statistics.median(s[1] for s in samples[n]) * 1000 for n in names}
    bare = wall["python -c pass"]
    print(f"medians of {opts.runs} runs, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    print(f"{'':<24} {'wall':>8} {'over bare':>10} {'CPU':>8}")
    for name in names:
        over = "" if name == "python -c pass" else f"{wall[name] - bare:+8.0f} ms"
        print(f"{name:<24} {wall[name]:5.0f} ms {over:>10} {cpu[name]:5.0f} ms")


if __name__ == "__main__":
    main()
