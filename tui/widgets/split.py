"""A body of side-by-side panes that stacks them, one under the other, on a narrow screen."""

from __future__ import annotations

from textual import events
from textual.containers import Horizontal

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
