"""Keyboard rating fields: a 1-5 or 1-10 metric (number keys), a good/bad label (g/b, DMT rounds)
and a yes/no refusal flag (y/n); `rating_fields` builds those a method's metrics call for."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar

from rich.text import Text
from textual.binding import Binding
from textual.message import Message as TMessage
from textual.reactive import reactive
from textual.widgets import Static


class RatingField(Static, can_focus=True):
    """One metric rated 1-5 (or 1-10, where 0 is 10): press a number; focus then moves to the next field."""

    DEFAULT_CSS = """
    RatingField { height: 1; padding: 0 1; }
    RatingField:focus { background: $accent 30%; }
    """
    BINDINGS = [
        *(Binding(str(n), f"rate({n})", str(n), tooltip=f"Rate the focused metric {n}", show=False,
                  id=f"rating.{n}") for n in range(1, 10)),
        Binding("0", "rate(10)", "10", tooltip="Rate the focused metric 10 (on a 1-10 scale; on 1-5 it clears)",
                show=False, id="rating.10"),
        Binding("backspace,delete", "rate(0)", "Clear", tooltip="Clear the focused metric's rating", show=False,
                id="rating.clear"),
    ]

    value: reactive[int | None] = reactive(None)

    class Rated(TMessage):
        def __init__(self, field: "RatingField") -> None:
            super().__init__()
            self.field = field

    def __init__(self, metric: str, *, top: int = 5, judges: str = "", id: str | None = None) -> None:
        super().__init__(id=id)
        self.metric = metric
        self.top = top
        self.judges = judges

    def render(self) -> Text:
        text = Text()
        text.append(f"{self.metric:<13}", style="bold")
        for n in range(1, self.top + 1):
            style = "reverse bold" if self.value == n else "dim"
            text.append(f" {n} " if self.top <= 5 else f" {n}", style=style)
        if self.judges:
            text.append(f"  judges {self.judges}", style="dim")
        return text

    def action_rate(self, n: int) -> None:
        if n > self.top:
            if n != 10:
                return
            n = 0  # 0 clears a 1-5 rating
        self.value = n or None
        self.post_message(self.Rated(self))
        if n:
            self.screen.focus_next()


class TwoWayField(Static, can_focus=True):
    """A yes/no kind of field set with keys (the subclass binds them), 0 to leave it unset."""

    DEFAULT_CSS = """
    TwoWayField { height: 1; padding: 0 1; }
    TwoWayField:focus { background: $accent 30%; }
    """
    LABELS: ClassVar[tuple[str, str]] = ("y", "n")
    WIDTH: ClassVar[int] = 13

    value: reactive[bool | None] = reactive(None)

    class Changed(TMessage):
        """The person set or cleared the field."""

        def __init__(self, field: "TwoWayField") -> None:
            super().__init__()
            self.field = field

    def __init__(self, title: str, *, judges: str = "", id: str | None = None) -> None:
        super().__init__(id=id)
        self.title = title
        self.judges = judges

    def render(self) -> Text:
        text = Text()
        text.append(f"{self.title:<{self.WIDTH}}", style="bold")
        for label, val in zip(self.LABELS, (True, False)):
            style = "reverse bold" if self.value is val else "dim"
            text.append(f" {label} ", style=style)
        if self.judges:
            text.append(f"  judges {self.judges}", style="dim")
        return text

    def action_set(self, n: int) -> None:
        self.value = None if n < 0 else bool(n)
        self.post_message(self.Changed(self))
        if n >= 0:
            self.screen.focus_next()


class RefusalField(TwoWayField):
    """Was the turn a refusal? y / n, 0 to leave unset."""

    BINDINGS = [
        Binding("y", "set(1)", "Yes", tooltip="Refusal: yes", show=False, id="refusal.yes"),
        Binding("n", "set(0)", "No", tooltip="Refusal: no", show=False, id="refusal.no"),
        Binding("0,backspace,delete", "set(-1)", "Clear", tooltip="Refusal: clear", show=False, id="refusal.clear"),
    ]

    def __init__(self, *, judges: str = "", id: str | None = None) -> None:
        super().__init__("refusal", judges=judges, id=id)


class ScopeField(Static, can_focus=True):
    """What the person rates: the selected turn (t) or the whole conversation (c); left/right switch."""

    DEFAULT_CSS = """
    ScopeField { height: 1; padding: 0 1; }
    ScopeField:focus { background: $accent 30%; }
    """
    BINDINGS = [
        Binding("t", "set(0)", "Turn", tooltip="Rate the selected turn", show=False, id="scope.turn"),
        Binding("c", "set(1)", "Conversation", tooltip="Rate the whole conversation", show=False,
                id="scope.conversation"),
        Binding("left,right,space", "switch", "Switch", tooltip="Switch between turn and conversation", show=False,
                id="scope.switch"),
    ]

    whole: reactive[bool] = reactive(False)

    class Changed(TMessage):
        def __init__(self, whole: bool) -> None:
            super().__init__()
            self.whole = whole

    def __init__(self, turn: int | None, *, whole: bool = False, id: str | None = None) -> None:
        super().__init__(id=id)
        self.turn = turn
        self.set_reactive(ScopeField.whole, whole or turn is None)

    def render(self) -> Text:
        text = Text()
        text.append(f"{'rate':<13}", style="bold")
        if self.turn is not None:
            text.append(f" turn {self.turn} ", style="dim" if self.whole else "reverse bold")
        text.append(" whole conversation ", style="reverse bold" if self.whole else "dim")
        return text

    def action_set(self, whole: int) -> None:
        if self.turn is None or bool(whole) == self.whole:
            return
        self.whole = bool(whole)
        self.post_message(self.Changed(self.whole))

    def action_switch(self) -> None:
        self.action_set(int(not self.whole))


class LabelField(TwoWayField):
    """One metric of a DMT round labelled good or bad: g / b, 0 to leave unset."""

    LABELS = ("good", "bad")
    WIDTH = 24
    BINDINGS = [
        Binding("g", "set(1)", "Good", tooltip="Label: good", show=False, id="label.good"),
        Binding("b", "set(0)", "Bad", tooltip="Label: bad", show=False, id="label.bad"),
        Binding("0,backspace,delete", "set(-1)", "Clear", tooltip="Label: clear", show=False, id="label.clear"),
    ]

    def __init__(self, metric: str, *, judges: str = "", id: str | None = None) -> None:
        super().__init__(metric, judges=judges, id=id)
        self.metric = metric


TOPS = {"1-5": 5, "1-10": 10}
"""The rating fields' top value per Likert scale."""


def rating_fields(metrics: Sequence[str], scale_of: Callable[[str], str | None]) -> list[Static]:
    """One field per metric a person rates, on its scale (``scale_of``, the method's): a good/bad
    label or a 1-5 / 1-10 rating, then the refusal flag where the metrics have one."""
    fields: list[Static] = []
    for metric in metrics:
        scale = scale_of(metric)
        if metric == "is_refusal":
            continue
        if scale == "good-bad":
            fields.append(LabelField(metric, id=f"rate-{metric}"))
        elif scale in TOPS:
            fields.append(RatingField(metric, top=TOPS[scale], id=f"rate-{metric}"))
    if "is_refusal" in metrics:
        fields.append(RefusalField(id="rate-refusal"))
    return fields
