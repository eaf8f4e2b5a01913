"""A DataTable that repaints after it sizes its columns.

DataTable measures new rows on a later idle pass; a page drawn before that pass could stay on
screen with every column cut to its header's width until something else asked for a repaint.
"""

from __future__ import annotations

from textual import events
from textual.widgets import DataTable


class SizedTable(DataTable):
    """DataTable whose measuring pass ends with a repaint."""

    async def _on_idle(self, event: events.Idle) -> None:
        measuring = self._require_update_dimensions or bool(self._updated_cells)
        await super()._on_idle(event)
        if measuring:
            self._clear_caches()  # rows rendered with the old widths are cached by row, not by width
            self.refresh()
