"""DataTables: one that repaints after it sizes its columns, and one that holds part of a list.

DataTable measures new rows on a later idle pass; a page drawn before that pass could stay on
screen with every column cut to its header's width until something else asked for a repaint.
"""

from __future__ import annotations

from collections.abc import Iterable

from textual import events
from textual._two_way_dict import TwoWayDict
from textual.coordinate import Coordinate
from textual.message import Message
from textual.widgets import DataTable
from textual.widgets.data_table import CellKey, RowKey


class SizedTable(DataTable):
    """DataTable whose measuring pass ends with a repaint."""

    async def _on_idle(self, event: events.Idle) -> None:
        measuring = self._require_update_dimensions or bool(self._updated_cells)
        widths = [column.content_width for column in self.columns.values()]
        await super()._on_idle(event)
        if measuring:
            if widths != [column.content_width for column in self.columns.values()]:
                self._clear_caches()  # rows rendered with the old widths are cached by row, not by width
            self.refresh()


class PagedTable(SizedTable):
    """A SizedTable that holds part of a longer list: it asks its screen for more rows when its view
    comes near the first or last row it holds, and for the list's very ends on ctrl+home and
    ctrl+end; the screen reads those rows and puts them in."""

    class Edge(Message):
        """side: 'top' or 'bottom' (the view is near that end of the rows held), or 'first' or
        'last' (the person asked for that end of the whole list)."""

        def __init__(self, side: str) -> None:
            super().__init__()
            self.side = side

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.quiet = False  # the screen is placing rows: their moves are not the person's

    def remove_rows(self, keys: Iterable[str]) -> None:
        """Remove many rows at once: DataTable.remove_row renumbers every row for each row removed,
        which letting go of a page of a long table would pay a page of times."""
        gone = {RowKey(key) for key in keys} & set(self.rows)
        if not gone:
            return
        kept = [row.key for row in self.ordered_rows if row.key not in gone]
        for key in gone:
            for column in self._data.pop(key, {}):
                self._updated_cells.discard(CellKey(key, column))
            del self.rows[key]
            self._new_rows.discard(key)
        self._row_locations = TwoWayDict({key: index for index, key in enumerate(kept)})
        self._require_update_dimensions = True
        self._update_count += 1
        self.cursor_coordinate = self.cursor_coordinate
        self.hover_coordinate = self.hover_coordinate
        self.check_idle()
        self.refresh(layout=True)

    def action_scroll_top(self) -> None:
        self.post_message(self.Edge("first"))

    def action_scroll_bottom(self) -> None:
        self.post_message(self.Edge("last"))

    def watch_cursor_coordinate(self, old: Coordinate, new: Coordinate) -> None:
        super().watch_cursor_coordinate(old, new)
        self.check_edges()

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        self.check_edges()

    def visible_rows(self) -> int:
        return max(1, self.scrollable_content_region.height - (self.header_height if self.show_header else 0))

    def check_edges(self) -> None:
        """Post Edge when the view (or the cursor) is within a screenful of the rows' ends."""
        if self.quiet or not self.row_count:
            return
        margin = self.visible_rows()
        top = min(round(self.scroll_y), self.cursor_row)
        bottom = max(round(self.scroll_y) + margin, self.cursor_row)
        if bottom >= self.row_count - margin:
            self.post_message(self.Edge("bottom"))
        if top < margin:
            self.post_message(self.Edge("top"))
