"""The live screen's message box: one line, and a pasted text keeps every line of it."""

from __future__ import annotations

from textual import events
from textual.widgets import Input


def one_line(text: str) -> str:
    """A pasted text's lines joined by a space (blank lines dropped), so every word is kept."""
    return " ".join(line.strip() for line in text.splitlines() if line.strip())


class MessageInput(Input):
    """An Input whose paste keeps all the lines (Input's own keeps only the first)."""

    def _on_paste(self, event: events.Paste) -> None:
        event.prevent_default()  # Input's handler would insert the first line again
        event.stop()
        text = one_line(event.text)
        if not text:
            return
        selection = self.selection
        if selection.is_empty:
            self.insert_text_at_cursor(text)
        else:
            self.replace(text, *selection)
