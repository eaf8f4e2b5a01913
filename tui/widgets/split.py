"""A body of side-by-side panes that stacks them on a narrow screen, and a panel that scrolls."""

from __future__ import annotations

from textual import events
from textual.containers import Horizontal, VerticalScroll

TRANSCRIPT_AND_PANEL = 62
"""Columns the transcript and the explanations need side by side: their min-widths in pingpong.tcss."""


class SplitBody(Horizontal):
    """Panes side by side; narrower than `stack_below` columns (what the panes need side by side),
    it has the class -stacked and pingpong.tcss lays them out one under the other. Textual has no
    media queries: the class follows the body's own width on every resize."""

    def __init__(self, *children, stack_below: int, **kwargs) -> None:
        super().__init__(*children, **kwargs)
        self.stack_below = stack_below

    def on_resize(self, event: events.Resize) -> None:
        self.set_class(event.size.width < self.stack_below, "-stacked")


class PanelScroll(VerticalScroll, can_focus=False, inherit_bindings=False):
    """A panel of fields that scrolls when it is taller than its room. Textual scrolls the focused
    field into view; the panel itself takes no focus and binds no keys (arrows, page up/down stay
    with the fields and the screen)."""
