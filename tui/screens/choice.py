"""A small question with a few answers, each a button with its own key (escape: none of them)."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static


class ChoiceScreen(ModalScreen[str | None]):
    """Ask `question`; dismisses with the chosen answer's value, or None on escape."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="choice.cancel")]

    def __init__(self, title: str, question: str, answers: list[tuple[str, str, str]]) -> None:
        """answers: (key, label, value); the first is the default (enter)."""
        super().__init__()
        self.title_text = title
        self.question = question
        self.answers = answers

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="choice"):
            yield Label(self.title_text, classes="dialog-title")
            yield Static(self.question, classes="hint")
            with Horizontal(id="choice-buttons"):
                for i, (key, label, value) in enumerate(self.answers):
                    yield Button(f"{label} ({key})", id=f"choice-{value}", variant="primary" if i == 0 else "default")

    def on_mount(self) -> None:
        self.query_one(Button).focus()

    def on_key(self, event) -> None:
        for key, _, value in self.answers:
            if event.key == key:
                event.stop()
                self.dismiss(value)
                return

    @on(Button.Pressed)
    def pressed(self, event: Button.Pressed) -> None:
        self.dismiss(str(event.button.id).removeprefix("choice-"))

    def action_cancel(self) -> None:
        self.dismiss(None)
