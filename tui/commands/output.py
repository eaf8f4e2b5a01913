"""Small output helpers shared by the command handlers (kept free of heavy imports)."""

from __future__ import annotations

import json
import sys


def print_json(data) -> None:
    """One JSON document on stdout, the `--format json` contract."""
    json.dump(data, sys.stdout, ensure_ascii=False, indent=2)
    sys.stdout.write("\n")


def warn(problems: list[str]) -> None:
    for problem in problems:
        print(f"pingpong: warning: {problem}", file=sys.stderr)


def fields_grid(pairs):
    """A two-column rich grid of `name value` lines, leaving out empty values."""
    from rich.table import Table
    from rich.text import Text

    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold")
    grid.add_column()
    for key, value in pairs:
        if value:
            grid.add_row(key, Text(str(value)))
    return grid


def console():
    """A rich console for the `show` commands; when piped, wide enough that nothing is squeezed."""
    from rich.console import Console

    terminal = Console()
    return terminal if terminal.is_terminal else Console(width=200)


def print_board(columns, body: list[list[str]], fmt: str, out, *, title: str, caption: str, empty: str) -> None:
    """A leaderboard's rows (already cells) under `columns` (table.Column) as Markdown, TSV or a
    table that fits the terminal; one line when there are none."""
    if fmt == "markdown":
        out.write("| " + " | ".join(c.title for c in columns) + " |\n|" + "|".join("---" for _ in columns) + "|\n")
        for line in body:
            out.write("| " + " | ".join(c.replace("|", "\\|") for c in line) + " |\n")
        return
    from pingpong.tui.commands.table import print_table

    print_table(columns, body, fmt, out, title=title, empty=empty)
    if body and fmt == "table" and out.isatty():
        out.write(caption + "\n")
