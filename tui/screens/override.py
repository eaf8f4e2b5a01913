"""The rating dialog: a person's 1-5 scores and refusal flag for one player turn or the whole
conversation, for a DMT round a good/bad label per metric its role type calls for, or for a turn
scored by exact rules (RoleInteract, RoleBench) a corrected 0-1 value of a metric its rule scored.

It only collects the values; the caller stores them (append-only) so the same dialog serves the
live and the replay screens.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static

from pingpong.core.domain import METRICS, JudgeVerdict
from pingpong.core.methods import get_method
from pingpong.tui.widgets.rating import TOPS, LabelField, RatingField, RefusalField, ScopeField
from pingpong.tui.widgets.scoring import conversation_means, fmt_score, human_latest, judge_scores, mean_scores
from pingpong.tui.widgets.split import PanelScroll

if TYPE_CHECKING:
    from pingpong.tui.app import PingPongApp

@dataclass
class Rating:
    """What the person entered: only the fields they set are stored; turn None = the whole conversation."""

    turn: int | None
    values: dict[str, float] = field(default_factory=dict)  # metric or "is_refusal" -> value
    reason: str | None = None


def _value(row: Any) -> Any:
    return row.get("value") if isinstance(row, dict) else row.value


def _refusal_note(verdicts: Sequence[JudgeVerdict], turn: int | None) -> str:
    """How many judges flagged a refusal: on this turn, or on any turn of the conversation."""
    if turn is not None:
        ok = [s for _, s in judge_scores(verdicts, turn) if s.status == "ok" and s.is_refusal is not None]
        return f"{sum(1 for s in ok if s.is_refusal)}/{len(ok)} said refusal" if ok else ""
    flags = [any(v.is_refusal for v in verdict.turns if v.status == "ok") for verdict in verdicts
             if any(v.is_refusal is not None for v in verdict.turns)]
    return f"{sum(flags)}/{len(flags)} said refusal" if flags else ""


def label_metrics(stored: Any) -> tuple[str, ...]:
    """The metrics a person labels good/bad in a stored session's rounds (none: its method is not
    rated round by round)."""
    if stored is None:
        return ()
    method = get_method(stored.spec.method)
    return method.rated_metrics(stored.character) if method.people_rate == "rounds" else ()


def _judges_said(verdicts: Sequence[JudgeVerdict], turn: int, metric: str) -> str:
    values = [view.value(metric) for _, view in judge_scores(verdicts, turn)]
    good = sum(1 for v in values if v == 1)
    bad = sum(1 for v in values if v == 0)
    return f"{good} good, {bad} bad" if good or bad else ""


class OverrideScreen(ModalScreen[Rating | None]):
    """Rate one turn or the whole conversation: t/c picks which, numbers rate the metrics (g/b a DMT
    round's labels), y/n sets refusal, then ctrl+s."""

    app: PingPongApp

    AUTO_FOCUS = ""
    """on_mount focuses the first field, without scrolling the dialog (Textual's auto focus would centre it)."""

    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="override.cancel"),
        Binding("ctrl+s", "save", "Save", id="override.save"),
        Binding("t", "scope(0)", "This turn", show=False, id="override.turn"),
        Binding("c", "scope(1)", "Whole conversation", show=False, id="override.conversation"),
    ]

    def __init__(self, turn: int | None, verdicts: Sequence[JudgeVerdict], human: Sequence[Any] = (), *,
                 whole: bool = False, labels: Sequence[str] = (), scale: str = "1-5",
                 ruled: Mapping[str, float | None] | None = None) -> None:
        super().__init__()
        self.turn = turn
        self.top = TOPS.get(scale, 5)  # pingpong-v1 rates on ten points
        self.verdicts = verdicts
        self.human = human
        self.labels = tuple(labels)   # a DMT round: good/bad per metric, for its turn only
        self.ruled = dict(ruled or {})  # scored by exact rules: metric -> the rule's value, for its turn only
        self.whole = (whole or turn is None) and not self.labels and not self.ruled

    @property
    def target(self) -> int | None:
        """The turn being rated; None for the whole conversation."""
        return None if self.whole else self.turn

    def compose(self) -> ComposeResult:
        if self.labels:
            yield from self._compose_labels()
            return
        if self.ruled:
            yield from self._compose_ruled()
            return
        with PanelScroll(id="override-dialog"):
            yield Label("", id="override-title")
            keys = "1-5" if self.top == 5 else "1-9 (0 is 10)"
            yield Static(f"t/c: this turn or the whole conversation; {keys} rates the focused metric, y/n sets "
                         f"refusal, {self._keys_hint()}.", classes="hint")
            yield ScopeField(self.turn, whole=self.whole, id="rate-scope")
            for metric in METRICS:
                yield RatingField(metric, top=self.top, id=f"rate-{metric}")
            yield RefusalField(id="rate-refusal")
            yield Input(placeholder="reason (optional)", id="override-reason")
            with Horizontal(id="override-buttons"):
                yield Button("Save", variant="primary", id="override-save")
                yield Button("Cancel", id="override-cancel")

    def _compose_labels(self) -> ComposeResult:
        assert self.turn is not None, "labels belong to a round"
        current = human_latest(self.human, self.turn)
        with PanelScroll(id="override-dialog"):
            yield Label(f"Your labels for round {self.turn}", id="override-title")
            yield Static(f"g good, b bad on the focused metric (0 unsets what is not saved yet), "
                         f"{self._keys_hint()}.", classes="hint")
            for metric in self.labels:
                fld = LabelField(metric, judges=_judges_said(self.verdicts, self.turn, metric), id=f"rate-{metric}")
                if metric in current:
                    fld.value = float(_value(current[metric])) == 1
                yield fld
            yield Input(placeholder="reason (optional)", id="override-reason")
            with Horizontal(id="override-buttons"):
                yield Button("Save", variant="primary", id="override-save")
                yield Button("Cancel", id="override-cancel")

    def _keys_hint(self) -> str:
        return (f"{self.app.shown_key('override.save', 'ctrl+s')} saves, "
                f"{self.app.shown_key('override.cancel', 'esc')} cancels")

    def _compose_ruled(self) -> ComposeResult:
        assert self.turn is not None, "a rule scores a turn"
        current = human_latest(self.human, self.turn)
        with PanelScroll(id="override-dialog"):
            yield Label(f"Your corrections for turn {self.turn}", id="override-title")
            yield Static("Scored by exact rules: type the right value (0 to 1) where the rule got it wrong, "
                         f"leave the others empty; {self._keys_hint()}.", classes="hint")
            for metric, value in self.ruled.items():
                with Horizontal(classes="ruled-row"):
                    yield Label(metric, classes="ruled-metric")
                    yield Input(f"{float(_value(current[metric])):g}" if metric in current else "",
                                placeholder="0 to 1", type="number", id=f"rate-{metric}", classes="ruled-value")
                    yield Static(f"rule {'failed' if value is None else fmt_score(value, '0-1')}", classes="hint")
            yield Input(placeholder="reason (optional)", id="override-reason")
            with Horizontal(id="override-buttons"):
                yield Button("Save", variant="primary", id="override-save")
                yield Button("Cancel", id="override-cancel")

    def on_mount(self) -> None:
        # the dialog opens at its top (title and hint shown; the first field is near it), tab scrolls on
        if self.labels:
            self.query_one(LabelField).focus(scroll_visible=False)
            return
        if self.ruled:
            self.query_one(".ruled-value", Input).focus(scroll_visible=False)
            return
        self._fill()
        self.query_one("#rate-in_character").focus(scroll_visible=False)

    def _fill(self) -> None:
        """Title, the judges' figures and the person's current values for the chosen scope."""
        target = self.target
        title = "the whole conversation" if target is None else f"turn {target}"
        self.query_one("#override-title", Label).update(f"Your scores for {title}")
        means = conversation_means(self.verdicts) if target is None else mean_scores(
            judge_scores(self.verdicts, target))
        current = human_latest(self.human, target)
        for fld in self.query(RatingField):
            fld.judges = fmt_score(means[fld.metric]) if fld.metric in means else ""
            fld.value = int(float(_value(current[fld.metric]))) if fld.metric in current else None
            fld.refresh()
        ref = self.query_one(RefusalField)
        ref.judges = _refusal_note(self.verdicts, target)
        ref.value = bool(float(_value(current["is_refusal"]))) if "is_refusal" in current else None
        ref.refresh()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return not (action == "scope" and (self.labels or self.ruled))  # a round's labels, a rule's scores: its turn

    def action_scope(self, whole: int) -> None:
        self.query_one(ScopeField).action_set(whole)

    def on_scope_field_changed(self, event: ScopeField.Changed) -> None:
        self.whole = event.whole
        self._fill()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "override-save":
            self.action_save()
        else:
            self.action_cancel()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.action_save()

    def action_cancel(self) -> None:
        self.dismiss(None)

    def action_save(self) -> None:
        values: dict[str, float] = {}
        for fld in self.query(RatingField):
            if fld.value is not None:
                values[fld.metric] = float(fld.value)
        for label in self.query(LabelField):
            if label.value is not None:
                values[label.metric] = 1.0 if label.value else 0.0
        for metric in self.ruled:
            typed = self.query_one(f"#rate-{metric}", Input).value.strip()
            if not typed:
                continue
            try:
                number = float(typed)
            except ValueError:
                number = math.nan
            if not 0 <= number <= 1:
                self.notify(f"{metric}: type a value from 0 to 1, got {typed!r}", severity="warning")
                return
            values[metric] = number
        refusals = self.query(RefusalField)
        if refusals and refusals.first().value is not None:
            values["is_refusal"] = 1.0 if refusals.first().value else 0.0
        if not values:
            hint = ("press g or b on a metric" if self.labels else "type a value from 0 to 1" if self.ruled
                    else "press 1-5 on a metric or y/n for refusal")
            self.notify(f"Nothing rated: {hint}", severity="warning")
            return
        # people's scores are kept, the newest counting: one saved cannot be cleared, only replaced
        current = {m: float(_value(row)) for m, row in human_latest(self.human, self.target).items()}
        cleared = [m for m in current if m not in values and self.query(f"#rate-{m}")]
        if cleared:
            self.notify(f"{', '.join(cleared)}: a saved score stays (the newest counts); give it another "
                        "value instead of clearing it", severity="warning")
            return
        changed = {m: v for m, v in values.items() if current.get(m) != v}
        if not changed:  # what is shown is what counts already: saving again would add rows in this name
            self.notify("Nothing changed", severity="warning")
            self.dismiss(None)
            return
        reason = self.query_one("#override-reason", Input).value.strip() or None
        self.dismiss(Rating(self.target, changed, reason))


def save_rating(store, session_id: int, rating: Rating, author: str) -> int:
    """Append one score row per rated metric; returns how many were written."""
    for metric, value in rating.values.items():
        whole = int(value) if value.is_integer() else value  # a label is 1 or 0; a rule's share may be 0.9
        store.add_human_score(session_id, rating.turn, metric, whole, author, rating.reason)
    return len(rating.values)


def rate_turn(screen, session_id: int, turn: int | None, verdicts: Sequence[JudgeVerdict],
              human_scores: Sequence[Any], on_saved: Callable[[], None], labels: Sequence[str] = ()) -> None:
    """Open the rating dialog on one player turn (None: the whole conversation; labels: a DMT round's
    metrics, rated good/bad); store what the person gives, then tell them."""

    def saved(rating: Rating | None) -> None:
        if rating is None:
            return
        try:
            n = save_rating(screen.app.store, session_id, rating, screen.app.author())
        except Exception as exc:  # a refused score is a notification, not a crash
            screen.notify(str(exc), severity="error")
            return
        on_saved()
        where = "the whole conversation" if rating.turn is None else f"turn {rating.turn}"
        screen.notify(f"saved {n} score{'s' if n != 1 else ''} for {where}")

    if not screen.app.writable("rating a turn"):
        return
    method = get_method(screen.app.store.session(session_id).spec.method)
    ruled: dict[str, float | None] = {}
    if method.people_rate is None:  # scored by exact rules: a person corrects what the rule scored
        ruled = {s.metric: s.value for v in verdicts for s in v.scores if s.turn == turn}
        if not ruled:
            screen.notify(f"Turn {turn} has no score by rule to correct", severity="warning")
            return
    screen.app.push_screen(OverrideScreen(turn, verdicts, human_scores, labels=labels, ruled=ruled,
                                          scale=method.scale_of(METRICS[0]) or "1-5"), saved)
