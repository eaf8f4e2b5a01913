"""Small output helpers shared by the command handlers (kept free of heavy imports)."""

from __future__ import annotations

import sys

COST_FIELDS = ("cost", "player_cost", "tokens", "player_tokens", "estimated_tokens")
"""The `--costs` fields a CSV board carries (JSON has them all)."""


def print_json(data) -> None:
    """One JSON document on stdout, the `--format json` contract. JSON escapes the C0 controls; the
    C1 ones (\\x9b starts a terminal escape) and the line and direction controls are escaped too, the
    same strings to a parser and inert on a terminal."""
    import json
    import re

    text = json.dumps(data, ensure_ascii=False, indent=2)
    sys.stdout.write(re.sub("[\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]",
                            lambda m: f"\\u{ord(m.group()):04x}", text) + "\n")


def _escaped(text: object, keep: str = "") -> str:
    """The text with every control character but those in ``keep`` written out (\\x1b), never acted on."""
    text = str(text)
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() or ch in keep else repr(ch)[1:-1] for ch in text)


def one_line(text: object) -> str:
    """A message as one line: control characters that came from a file (a newline in a field
    name, a carriage return, a terminal escape) are shown escaped, never acted on."""
    return _escaped(text)


def shown(text: object) -> str:
    """Text from a card, a file or a model as a terminal should get it: lines and tabs kept, any other
    control character (an escape sequence, a NUL, a right-to-left override) written out escaped."""
    return _escaped(text, "\n\t")


def safe(text: object) -> str:
    """Text from a file, a model or the database put into a rich markup string: control characters
    written out (`shown`) and its square brackets never read as markup."""
    from rich.markup import escape

    return escape(shown(text))


def error(message: object) -> None:
    print(f"pingpong: error: {one_line(message)}", file=sys.stderr)


def warn(problems: list[str]) -> None:
    for problem in problems:
        print(f"pingpong: warning: {one_line(problem)}", file=sys.stderr)


def clip(text: str, width: int) -> str:
    """One line of at most `width` characters, with an ellipsis when cut."""
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def option_cell(row: dict, by: str | None) -> list[str]:
    """The `--by` option's cell of a row (none without --by); its default shows as 'default'."""
    if by is None:
        return []
    value = row.get(by)
    return ["default" if value is None else str(value)]


def fields_grid(pairs):
    """A two-column rich grid of `name value` lines, leaving out empty values."""
    from rich.table import Table
    from rich.text import Text

    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold")
    grid.add_column()
    for key, value in pairs:
        if value:
            grid.add_row(key, Text(one_line(value)))
    return grid


def console():
    """A rich console for the `show` commands; when piped, wide enough that nothing is squeezed.
    Never highlighting: its patterns colour numbers inside people's text, and take quadratic time
    on a long run of characters without a space (a 12,000-digit reply took 17 s to show)."""
    from rich.console import Console

    terminal = Console(highlight=False)
    return terminal if terminal.is_terminal else Console(width=200, highlight=False)


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


def judge_failures(failed: dict[str, tuple[int, str | None]]) -> str:
    """Who failed and why, for the one line a run or `pingpong judge` ends with: "j1: 2 (HTTP 401:
    Incorrect API key), j2: 1 (timed out after 60s)"."""
    return one_line(", ".join(f"{judge}: {n}" + (f" ({why})" if why else "") for judge, (n, why) in failed.items()))


def command_line(args, *words: str) -> str:
    """A pingpong command to print for the user to run next, with the --home, --db and --config this
    one was given (without them it would open the default home)."""
    import shlex

    given = [(flag, getattr(args, name, None)) for flag, name in (("--home", "home"), ("--db", "db"),
                                                                   ("--config", "config"))]
    return shlex.join(["pingpong", *(part for flag, value in given if value for part in (flag, str(value))), *words])
