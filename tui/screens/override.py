"""The rating dialog: a person's 1-5 scores and refusal flag for one player turn.

It only collects the values; the caller stores them (append-only) so the same dialog serves the
live and the replay screens.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static

from pingpong.core.domain import METRICS, JudgeVerdict
from pingpong.tui.widgets.rating import RatingField, RefusalField
from pingpong.tui.widgets.scoring import fmt_score, human_latest, judge_scores, mean_scores


@dataclass
class Rating:
    """What the person entered: only the fields they set are stored."""

    turn: int
    values: dict[str, float] = field(default_factory=dict)  # metric or "is_refusal" -> value
    reason: str | None = None


class OverrideScreen(ModalScreen[Rating | None]):
    """Rate one turn with the keyboard: numbers for metrics, y/n for refusal, then ctrl+s."""

    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="override.cancel"),
        Binding("ctrl+s", "save", "Save", id="override.save"),
    ]

    def __init__(self, turn: int, verdicts: Sequence[JudgeVerdict], human: Sequence[Any] = ()) -> None:
        super().__init__()
        self.turn = turn
        self.verdicts = verdicts
        self.human = human

    def compose(self) -> ComposeResult:
        pairs = judge_scores(self.verdicts, self.turn)
        means = mean_scores(pairs)
        ok = [s for _, s in pairs if s.status == "ok" and s.is_refusal is not None]
        current = human_latest(self.human, self.turn)
        with Vertical(id="override-dialog"):
            yield Label(f"Your scores for turn {self.turn}", id="override-title")
            yield Static("1-5 rates the focused metric, y/n sets refusal, ctrl+s saves, esc cancels.",
                         classes="hint")
            for metric in METRICS:
                judges = fmt_score(means[metric]) if metric in means else ""
                fld = RatingField(metric, judges=judges, id=f"rate-{metric}")
                if metric in current:
                    fld.value = int(float(_value(current[metric])))
                yield fld
            refusal_note = f"{sum(1 for s in ok if s.is_refusal)}/{len(ok)} said refusal" if ok else ""
            ref = RefusalField(judges=refusal_note, id="rate-refusal")
            if "is_refusal" in current:
                ref.value = bool(float(_value(current["is_refusal"])))
            yield ref
            yield Input(placeholder="reason (optional)", id="override-reason")
            with Horizontal(id="override-buttons"):
                yield Button("Save", variant="primary", id="override-save")
                yield Button("Cancel", id="override-cancel")

    def on_mount(self) -> None:
        self.query_one("#rate-in_character").focus()

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
        refusal = self.query_one(RefusalField).value
        if refusal is not None:
            values["is_refusal"] = 1.0 if refusal else 0.0
        if not values:
            self.notify("Nothing rated: press 1-5 on a metric or y/n for refusal", severity="warning")
            return
        reason = self.query_one("#override-reason", Input).value.strip() or None
        self.dismiss(Rating(self.turn, values, reason))


def _value(row: Any) -> Any:
    return row.get("value") if isinstance(row, dict) else row.value


def save_rating(store, session_id: int, rating: Rating, author: str) -> int:
    """Append one human_scores row per rated metric; returns how many were written."""
    for metric, value in rating.values.items():
        store.add_human_score(session_id, rating.turn, metric, int(value), author, rating.reason)
    return len(rating.values)


def rate_turn(screen, session_id: int, turn: int, verdicts: Sequence[JudgeVerdict],
              human_scores: Sequence[Any], on_saved: Callable[[], None]) -> None:
    """Open the rating dialog for one player turn; store what the person gives, then tell them."""

    def saved(rating: Rating | None) -> None:
        if rating is None:
            return
        try:
            n = save_rating(screen.app.store, session_id, rating, screen.app.author())
        except Exception as exc:  # a refused score is a notification, not a crash
            screen.notify(str(exc), severity="error")
            return
        on_saved()
        screen.notify(f"saved {n} score{'s' if n != 1 else ''} for turn {rating.turn}")

    screen.app.push_screen(OverrideScreen(turn, verdicts, human_scores), saved)
