"""Tables of the list commands that fit the terminal, and plain text or TSV when piped.

In a terminal, a table wider than the screen first narrows its text columns (cut with "…"),
then drops whole columns, least important first; a number is never cut. Piped, every row is
one line of aligned plain text, however long; `--format tsv` gives tab-separated values.
"""

from __future__ import annotations

import shutil
import sys
from typing import NamedTuple, TextIO

GAP = 2  # spaces between columns


class Column(NamedTuple):
    """One column: `keep` says how long it stays as the screen narrows (higher stays longer)."""

    title: str
    keep: int = 5
    number: bool = False  # right-aligned and never cut
    short: str = ""  # the title when the column is narrower than `title`
    least: int = 10  # a text column is never cut below this many cells
    name: str = ""  # the TSV header, when the title alone is ambiguous ("±")


def cell_len(text: str) -> int:
    """The terminal cells text takes: its length when it is printable ASCII, else rich's measure
    (imported only then, so a table of plain text or no rows starts without it)."""
    if text.isascii() and text.isprintable():
        return len(text)
    from rich.cells import cell_len as cells

    return cells(text)


def cut(text: str, width: int) -> str:
    """`text` in at most `width` cells, ending in "…" when it had to be cut."""
    if cell_len(text) <= width:
        return text
    from rich.cells import set_cell_size

    return set_cell_size(text, max(0, width - 1)) + "…" if width > 0 else ""


def _one_line(text: str) -> str:
    from pingpong.tui.commands.output import one_line

    return one_line(" ".join(str(text).split()))


def _title(column: Column, width: int) -> str:
    if cell_len(column.title) <= width or not column.short:
        return column.title
    return column.short


def _natural(columns: list[Column], rows: list[list[str]], index: list[int], *, short: bool = True) -> list[int]:
    """Each column's width for its longest cell and its title (the short title, if `short`)."""
    widths = []
    for i in index:
        column = columns[i]
        head = cell_len(column.title)
        if short and column.short:
            head = min(head, cell_len(column.short))
        widths.append(max([head, *(cell_len(row[i]) for row in rows)]))
    return widths


def _widen_titles(columns: list[Column], index: list[int], widths: list[int], width: int) -> None:
    """Spend spare room on full titles of columns shown under their short ones, left first."""
    spare = width - sum(widths) - GAP * (len(widths) - 1)
    for k, i in enumerate(index):
        need = cell_len(columns[i].title) - widths[k]
        if 0 < need <= spare:
            widths[k] += need
            spare -= need


def fit(columns: list[Column], rows: list[list[str]], width: int) -> tuple[list[int], list[int]]:
    """(indexes of the columns shown, their widths) for a screen `width` cells wide."""
    index = list(range(len(columns)))
    while True:
        natural = _natural(columns, rows, index)
        widths = list(natural)
        excess = sum(widths) + GAP * (len(widths) - 1) - width
        if excess > 0:  # narrow the text columns, the widest first
            for _ in range(excess):
                room = [(widths[k] - columns[i].least, k) for k, i in enumerate(index)
                        if not columns[i].number and widths[k] > columns[i].least]
                if not room:
                    break
                widths[max(room)[1]] -= 1
                excess -= 1
        if excess <= 0 or len(index) == 1:
            _widen_titles(columns, index, widths, width)
            return index, widths
        droppable = [i for i in index if columns[i].keep < max(columns[j].keep for j in index)]
        if not droppable:
            return index, widths
        # the least important column goes; of equals, the rightmost
        index.remove(min(droppable, key=lambda i: (columns[i].keep, -i)))


def _line(cells: list[str], columns: list[Column], widths: list[int]) -> str:
    parts = []
    for text, column, width in zip(cells, columns, widths):
        text = cut(text, width)
        pad = " " * (width - cell_len(text))
        parts.append(pad + text if column.number else text + pad)
    return (" " * GAP).join(parts).rstrip()


def print_table(columns: list[Column], rows: list[list[str]], fmt: str = "table", out: TextIO | None = None, *,
                title: str = "", empty: str = "", width: int | None = None, terminal: bool | None = None) -> None:
    """Print `rows` (already text) under `columns`: fitted to the terminal, plain when piped, or TSV.

    width/terminal: the screen's width and whether it is one (default: ask `out`), for tests.
    """
    out = out or sys.stdout
    rows = [[_one_line(c) for c in row] for row in rows]
    if fmt == "tsv":
        out.write("\t".join(c.name or c.title for c in columns) + "\n")
        for row in rows:
            out.write("\t".join(c.replace("\t", " ") for c in row) + "\n")
        return
    if not rows and empty:
        out.write(empty + "\n")
        return
    if terminal is None:
        terminal = out.isatty()
    screen = (width or shutil.get_terminal_size().columns) if terminal else 0
    if not terminal:  # one line per row, whatever its length
        index = list(range(len(columns)))
        widths = _natural(columns, rows, index, short=False)
    else:
        index, widths = fit(columns, rows, screen)
    shown = [columns[i] for i in index]
    if title:
        out.write((cut(title, screen) if terminal else title) + "\n")
    out.write(_line([_title(c, w) for c, w in zip(shown, widths)], shown, widths) + "\n")
    for row in rows:
        out.write(_line([row[i] for i in index], shown, widths) + "\n")
    hidden = [c.title for i, c in enumerate(columns) if i not in index]
    if hidden:
        out.write(cut(f"(not shown at this width: {', '.join(hidden)}; --format tsv shows them)", screen) + "\n")
