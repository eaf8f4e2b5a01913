"""Text cut to a few lines, ending in an ellipsis when there is more (the whole text is the tooltip)."""

from __future__ import annotations

import textwrap

from textual.widgets import Static


def clamp(text: str, width: int, lines: int) -> list[str]:
    """Wrap text to width and keep at most `lines` lines; the last one ends in '…' when cut."""
    width = max(width, 2)
    out: list[str] = []
    for paragraph in text.splitlines() or [""]:
        out.extend(textwrap.wrap(paragraph, width) or [""])
    if len(out) <= lines:
        return out
    last = out[lines - 1]
    if len(last) > width - 1:
        last = last[:width - 1]
    return out[:lines - 1] + [last.rstrip() + "…"]


class ClampedText(Static):
    """A Static that shows at most `lines` wrapped lines of plain text."""

    DEFAULT_CSS = "ClampedText { height: auto; }"

    def __init__(self, text: str = "", *, lines: int = 3, **kwargs) -> None:
        super().__init__("", markup=False, **kwargs)
        self.lines = lines
        self.text = text

    def set_text(self, text: str) -> None:
        self.text = text
        self.tooltip = text or None
        self.refresh(layout=True)

    def shown(self) -> str:
        """The text as drawn at the current width."""
        return "\n".join(clamp(self.text, self.content_size.width, self.lines))

    def get_content_height(self, container, viewport, width: int) -> int:
        return len(clamp(self.text, width, self.lines)) if self.text else 0

    def render(self):
        return self.shown() if self.text else ""
