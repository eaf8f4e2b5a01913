"""Small shared panels: the explanations side panel and an empty-state notice."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from textual.containers import VerticalScroll
from textual.widgets import Static

from pingpong.tui.widgets.scoring import explanations

if TYPE_CHECKING:
    from pingpong.core.domain import JudgeVerdict


class ExplanationsPanel(VerticalScroll):
    """Each judge's scores and explanations for one turn, then people's overrides."""

    DEFAULT_CSS = """
    ExplanationsPanel { height: 1fr; }
    ExplanationsPanel > Static { height: auto; }
    """

    def compose(self):
        yield Static("Select a player turn (up/down) to read the judges' explanations.", classes="dim")

    def show(self, turn: int | None, verdicts: Sequence[JudgeVerdict], human: Sequence[Any],
             method: str | None = None) -> None:
        """`method`: the session's (a rule-scored method's turns without a score say they never get one)."""
        body = self.query_one(Static)
        if turn is None:
            body.update("Select a player turn (up/down) to read the judges' explanations.")
        else:
            body.update(explanations(verdicts, human, turn, method))
        self.scroll_home(animate=False)


class EmptyState(Static):
    """A friendly explanation shown instead of an empty table."""

    DEFAULT_CSS = """
    EmptyState { width: 1fr; height: auto; padding: 1 2; }
    """
