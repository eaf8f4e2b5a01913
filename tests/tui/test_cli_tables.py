"""The list commands in an 80-column terminal (a real pty), piped, and as TSV."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest
from rich.cells import cell_len

from pingpong.tui.commands.table import Column, fit, print_table

ROOT = Path(__file__).resolve().parents[2]
NUMBER = re.compile(r"\d+\.\d\d\*?")
LIST_COMMANDS = (("sessions", "list"), ("leaderboard",), ("cards", "list"), ("models", "--no-check"),
                 ("situations", "list"))


def pingpong(home: Path, *args: str, columns: int | None = None) -> str:
    """Run the CLI; with `columns`, on a pseudo-terminal of that width (as a person at a terminal)."""
    argv = [sys.executable, "-m", "pingpong.tui.cli", "--home", str(home), *args]
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    if columns is None:
        done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=120, env=env)
        assert done.returncode == 0, done.stderr
        return done.stdout
    main, child = pty.openpty()
    fcntl.ioctl(child, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    proc = subprocess.Popen(argv, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=child, stderr=child, env=env)
    os.close(child)
    chunks = []
    while True:
        try:
            chunk = os.read(main, 65536)
        except OSError:  # the child closed its end
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(main)
    assert proc.wait(timeout=120) == 0
    return b"".join(chunks).decode().replace("\r\n", "\n")


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    """A home with a finished offline run (long run, card and situation names) and a configured model."""
    home = tmp_path_factory.mktemp("home")
    (home / "config.toml").write_text(
        '[models.a-rather-long-model-name-for-a-local-server]\nbase_url = "http://127.0.0.1:9/v1"\n'
        'model = "qwen2.5-7b-instruct-q4_k_m"\n')
    pingpong(home, "run", "--player", "offline", "--interrogator", "offline", "--judge", "offline",
             "--characters", "mirela-the-merchant,kaede-hoshino", "--situations",
             "comfort-after-a-bad-day,exam-and-a-crush")
    return home


@pytest.mark.parametrize("command", LIST_COMMANDS, ids=" ".join)
def test_every_list_fits_80_columns_without_cutting_a_number(home, command):
    wide = pingpong(home, *command, columns=400)
    narrow = pingpong(home, *command, columns=80)
    assert all(cell_len(line) <= 80 for line in narrow.splitlines()), narrow
    assert NUMBER.findall(narrow) == NUMBER.findall(wide)  # every score, whole, in the same order
    assert "…" not in "".join(NUMBER.findall(narrow))


def test_sessions_list_at_80_columns_keeps_the_final_and_says_what_it_left_out(home):
    out = pingpong(home, "sessions", "list", columns=80)
    header = out.splitlines()[1].split()
    assert header[:2] == ["id", "status"] and "final" in header and "judges" not in header
    assert "not shown at this width: run" in out
    assert len(NUMBER.findall(out)) == 4


@pytest.mark.parametrize("command", LIST_COMMANDS, ids=" ".join)
def test_piped_lists_print_one_line_per_row(home, command):
    out = pingpong(home, *command)
    tsv = pingpong(home, *command, "--format", "tsv")
    rows = tsv.splitlines()
    assert len({line.count("\t") for line in rows}) == 1  # every row has every column
    lines = out.splitlines()
    assert lines[-len(rows):][1:] and len(lines) == len(rows) + 1  # title, header, one line per row
    assert "…" not in out


def test_piped_sessions_list_is_aligned_plain_text(home):
    lines = pingpong(home, "sessions", "list").splitlines()[1:]
    assert "\x1b" not in "".join(lines)
    start = lines[0].index("final")
    assert all(NUMBER.fullmatch(line[start - 3:start + 5].strip()) for line in lines[1:])
    assert len(lines[1]) > 160  # long rows stay whole instead of wrapping
    assert lines[0].split()[:3] == ["id", "status", "method"]  # v1's 1-10 finals beside v2's 1-5 say so


def test_fit_drops_the_least_important_columns_first_and_never_narrows_a_number():
    columns = [Column("name", 10), Column("tags", 1), Column("note", 2), Column("score", 9, number=True)]
    rows = [["a-long-card-name-here", "one, two, three, four", "x" * 40, "4.125"]]
    shown, widths = fit(columns, rows, 40)
    assert [columns[i].title for i in shown] == ["name", "note", "score"]
    assert widths[-1] == len("score") and sum(widths) + 2 * (len(widths) - 1) <= 40
    shown, widths = fit(columns, rows, 24)
    assert [columns[i].title for i in shown] == ["name", "score"]


def test_print_table_short_titles_and_tsv(capsys):
    columns = [Column("Player", 10), Column("In character", 6, number=True, short="Char")]
    print_table(columns, [["offline", "4.93"]], width=14, terminal=True)
    assert capsys.readouterr().out.splitlines() == ["Player   Char", "offline  4.93"]
    print_table(columns, [["offline", "4.93"]], width=80, terminal=True)
    assert capsys.readouterr().out.splitlines()[0] == "Player   In character"
    print_table(columns, [["off\tline", "4.93"]], "tsv")
    assert capsys.readouterr().out == "Player\tIn character\noff line\t4.93\n"
