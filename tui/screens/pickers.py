"""Small modal pickers: choose a model by name; enter a file path."""

from __future__ import annotations

import os

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList, Static
from textual.widgets.option_list import Option


class ModelPicker(ModalScreen[str | None]):
    """Pick one configured model (enter), or escape. Also picks among other named things (a group
    scene's members): ``labels`` maps a name to what the list shows."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="picker.cancel")]

    def __init__(self, names: list[str], *, title: str = "Choose a model",
                 labels: dict[str, str] | None = None, current: str | None = None) -> None:
        super().__init__()
        self.names = names
        self.title_text = title
        self.labels = labels or {}
        self.current = current  # highlighted at first (e.g. the model that held the seat before)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self.title_text, classes="dialog-title")
            yield OptionList(*[Option(self.labels.get(n, n), id=n) for n in self.names], id="picker-list")

    def on_mount(self) -> None:
        if self.current in self.names:
            self.query_one(OptionList).highlighted = self.names.index(self.current)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)


class PathPrompt(ModalScreen[str | None]):
    """Ask for a file path (enter), or escape. A leading ~ is the home folder, as a shell reads it:
    the path typed here never passes through one."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="path.cancel")]

    def __init__(self, title: str, hint: str = "", value: str = "") -> None:
        super().__init__()
        self.title_text = title
        self.hint = hint
        self.value = value

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self.title_text, classes="dialog-title")
            if self.hint:
                yield Static(self.hint, classes="hint")
            yield Input(self.value, placeholder="/path/to/file", id="path-input")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        value = event.value.strip()
        if value:
            self.dismiss(os.path.expanduser(value))

    def action_cancel(self) -> None:
        self.dismiss(None)
