"""A DataTable's rows with their name columns cut to the room there is, kept up to date cell by cell.

A screen that follows thousands of rows changes a few of them at a time: a changed row updates only
the cells that differ, a new row is appended, and the rows shown stay where they are (cursor and
scroll kept). Any change to a DataTable draws every row on screen again, the costly part, so changes
to rows out of view wait (show() applies them all at once); the whole table is cut again only when
the screen's width or the longest name changes how wide a name column may be.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.cells import cell_len
from textual.widgets import DataTable
from textual.widgets.data_table import ColumnKey


def short_name(name: str, width: int) -> str:
    """Cut in the middle when longer than `width` (a run name: players left, language right)."""
    if len(name) <= width:
        return name
    right = width // 3
    return name[:width - right - 1] + "…" + name[-right:]


def name_widths(titles: tuple[str, ...], names: set[str], longest: list[str], width: int) -> list[int]:
    """Each column's width in a table `width` cells wide whose longest cells are `longest`; the
    columns in `names` share the room the others leave."""
    from pingpong.tui.commands.table import Column, fit

    columns = [Column(t, least=6 if t in names else 40, number=t not in names) for t in titles]
    # a DataTable pads each cell by one on both sides (fit counts two between columns) and keeps
    # two cells for its scroll bar
    _index, widths = fit(columns, [longest], max(20, width - 4))
    return widths


class FittedRows:
    """The rows of `table` by key, as given (`cells`) and as shown (name columns cut). It adds the
    table's columns, keyed by their titles."""

    def __init__(self, table: DataTable, titles: tuple[str, ...], names: set[str]) -> None:
        for title in titles:
            table.add_column(title, key=title)
        self.table = table
        self.titles = titles
        self.names = names
        self.cells: dict[str, list[str]] = {}  # every row as given, in table order
        self._shown: dict[str, list[str]] = {}  # the rows in the table, as cut
        self._changed: set[str] = set()  # rows in the table whose cells changed since
        self._new: list[str] = []  # rows given, not in the table yet
        self._longest = ["" for _ in titles]
        self._width = 0
        self._widths: list[int] = []

    def fill(self, rows: Iterable[tuple[str, list[str]]], width: int) -> None:
        """Replace every row, shown at once (the cursor keeps its place, as far as the new rows reach)."""
        cursor = self.table.cursor_row
        self.table.clear()
        self.cells, self._shown, self._changed, self._new = dict(rows), {}, set(), []
        self._longest = ["" for _ in self.titles]
        for cells in self.cells.values():
            self._grow(cells)
        self._width, self._widths = width, self._fit(width)
        for key, cells in self.cells.items():
            self._add(key, cells)
        if self.table.row_count:
            self.table.move_cursor(row=min(cursor, self.table.row_count - 1))

    def put(self, key: str, cells: list[str]) -> None:
        """A changed row, or a new one (it goes at the end); show() draws it."""
        if key in self._shown:
            self._changed.add(key)
        elif key not in self.cells:
            self._new.append(key)
        self.cells[key] = cells
        if self._grow(cells):
            self._refit(self._width)

    def waiting(self) -> bool:
        return bool(self._changed or self._new)

    def in_view(self) -> bool:
        """Whether a row waiting to be drawn is on screen (or within a screen of it)."""
        table = self.table
        top, height = table.scroll_offset.y, table.size.height
        if self._new and table.row_count < top + 2 * height:
            return True
        return any(top - height <= table.get_row_index(key) < top + 2 * height for key in self._changed)

    def show(self) -> None:
        """Draw every waiting change: changed cells, then new rows."""
        for key in self._changed:
            self._show(key)
        for key in self._new:
            self._add(key, self.cells[key])
        self._changed, self._new = set(), []

    def resize(self, width: int) -> None:
        """The screen's width changed: cut the names again where the room changed, and narrow their
        columns (a DataTable only ever widens a column by itself: it measures a column again when a
        cell becomes narrower than it, so its narrowest cell is put again, once a column)."""
        if width != self._width:
            self._refit(width)
            self.show()
            for i, title in enumerate(self.titles):
                if title in self.names and self._shown:
                    key = min(self._shown, key=lambda k: cell_len(self._shown[k][i]))
                    if cell_len(self._shown[key][i]) < self.table.columns[ColumnKey(title)].content_width:
                        self.table.update_cell(key, title, self._shown[key][i], update_width=True)

    def _grow(self, cells: list[str]) -> bool:
        """Remember the longest cell of each column; True when one grew."""
        grew = False
        for i, cell in enumerate(cells):
            if cell_len(cell) > cell_len(self._longest[i]):
                self._longest[i], grew = cell, True
        return grew

    def _fit(self, width: int) -> list[int]:
        return name_widths(self.titles, self.names, self._longest, width)

    def _cut(self, cells: list[str]) -> list[str]:
        return [short_name(c, w) if t in self.names else c for c, t, w in zip(cells, self.titles, self._widths)]

    def _add(self, key: str, cells: list[str]) -> None:
        self._shown[key] = shown = self._cut(cells)
        self.table.add_row(*shown, key=key)

    def _show(self, key: str) -> None:
        shown, old = self._cut(self.cells[key]), self._shown[key]
        for title, new, was in zip(self.titles, shown, old):
            if new != was:
                # only a cell wider than its column asks for a new width: a narrower one would have
                # DataTable measure every cell of the column again
                wider = cell_len(new) > self.table.columns[ColumnKey(title)].content_width
                self.table.update_cell(key, title, new, update_width=wider)
        self._shown[key] = shown

    def _refit(self, width: int) -> None:
        """New widths for the name columns; the rows whose names they cut otherwise wait to be drawn."""
        widths = self._fit(width)
        self._width = width
        if widths != self._widths:
            self._widths = widths
            self._changed.update(key for key, shown in self._shown.items() if self._cut(self.cells[key]) != shown)
