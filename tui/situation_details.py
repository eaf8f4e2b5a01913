"""An item's details (situations.catalog) as one rich renderable: `pingpong situations show` prints it
and the TUI's situations screen shows it, so both say the same facts the same way."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from pingpong.situations.catalog import Details
from pingpong.tui.commands.output import clip, fields_grid, one_line, shown

CLIPPED = 100
"""Characters of a set's long column (instruction, question) shown per row; `show NAME-ID` has it whole."""


def details_view(details: Details) -> RenderableType:
    """The facts, each text in its titled box, then a set's table. Text from files is shown with its
    control characters written out (an escape sequence in a situation never acts on the terminal)."""
    parts: list[RenderableType] = [fields_grid(details.fields)]
    parts += [Panel(Text(shown(text)), title=title, title_align="left") for title, text in details.panels]
    if details.table is not None:
        found = details.table
        table = Table(title=found.title, title_justify="left")
        last = len(found.columns) - 1
        for i, column in enumerate(found.columns):
            table.add_column(column, no_wrap=i != last)
        for row in found.rows:
            table.add_row(*(Text(one_line(cell)) for cell in row[:last]), Text(shown(clip(row[last], CLIPPED))))
        parts.append(table)
    return Group(*parts)
