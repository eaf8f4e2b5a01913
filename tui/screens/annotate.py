"""The rating queue (`pingpong annotate`, or `a` on Home): conversations rated blind, one by one.

The person sees the character, the situation and the conversation, never who played it or what the
judges said, until they have saved their own ratings; then the judges' figures are shown and ctrl+n
goes on. What they rate comes from the session's method (core.methods): the whole conversation on
its scale (1-5 or 1-10 per metric, and the refusal flag) or, for a DMT dialogue, every round good
or bad per metric its role type calls for (left/right move between rounds). ctrl+l skips a
conversation: it comes back after the others. The queue and how far the person got live in the
database (sessions.annotate), so leaving and coming back continues at the first one not saved yet.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Header, Input, Label, Static

from pingpong.core.domain import METRICS
from pingpong.core.methods import get_method
from pingpong.tui.widgets.footer import KeysFooter
from pingpong.tui.widgets.rating import TOPS, LabelField, RatingField, RefusalField, rating_fields
from pingpong.tui.widgets.scoring import SHORT, conversation_means, fmt_score
from pingpong.tui.widgets.split import PanelScroll, SplitBody
from pingpong.tui.widgets.transcript import Transcript

if TYPE_CHECKING:
    from pingpong.sessions.annotate import Queue
    from pingpong.sessions.records import StoredSession
    from pingpong.tui.app import PingPongApp

HIDDEN = "The judges' scores, and who played, show once you have saved your ratings."
TRANSCRIPT_AND_FIELDS = 80
"""Columns the transcript and the wide rating panel need side by side (their widths in pingpong.tcss);
narrower, the panel goes under the transcript."""


class AnnotateScreen(Screen):
    """Rate the conversation (numbers per metric, y/n refusal) or label each round (g/b, left/right
    between rounds); ctrl+s saves and reveals the judges, ctrl+n goes to the next one, ctrl+l skips
    this one for later; escape leaves (the queue resumes where you stopped)."""

    PLACE_ACTIONS = ("annotate",)
    """The palette's ways here (tui/palette.py): not offered while this screen is open."""

    app: PingPongApp

    BINDINGS = [
        Binding("ctrl+s", "save", "Save", id="annotate.save"),
        Binding("ctrl+n", "next", "Next", tooltip="Next conversation (after saving)", id="annotate.next"),
        Binding("ctrl+l", "skip", "Skip", tooltip="Skip: this conversation comes back after the others",
                id="annotate.skip"),
        Binding("left", "round(-1)", "Round", show=False, tooltip="Previous round (DMT)", id="annotate.prev_round"),
        Binding("right", "round(1)", "Round", show=False, tooltip="Next round (DMT)", id="annotate.next_round"),
        Binding("pageup", "page(-1)", "Scroll", show=False, tooltip="Scroll the conversation up",
                id="annotate.page_up"),
        Binding("pagedown", "page(1)", "Scroll", tooltip="Scroll the conversation down (pgup: up)",
                id="annotate.page_down"),
        Binding("escape", "back", "Back", id="annotate.back"),
    ]

    def __init__(self, *, sample: int | None = None, players: list[str] | None = None,
                 methods: list[str] | None = None, author: str | None = None) -> None:
        super().__init__()
        self.sample = sample
        self.players = players
        self.methods = methods
        self.author = author
        self.queue: Queue | None = None
        self.position: int | None = None
        self.stored: StoredSession | None = None  # None until its rating fields are in place
        self.saved = False
        self.metrics: tuple[str, ...] = ()
        self.rounds: list[int] = []   # a DMT dialogue's rounds, labelled one at a time; [] rates it whole
        self.round = 0                # index into rounds
        self.labels: dict[int, dict[str, bool]] = {}

    def compose(self) -> ComposeResult:
        yield Header()
        # the situation whole (a blind rater has nothing else to read it in); scrolls past 40%
        with VerticalScroll(id="annotate-head", can_focus=False):
            yield Static("", id="session-info")
        with SplitBody(id="live-body", stack_below=TRANSCRIPT_AND_FIELDS):
            yield Transcript(id="transcript")
            with PanelScroll(id="annotate-panel"):
                yield Label("Rate the conversation", id="annotate-title", classes="dialog-title")
                yield Vertical(id="annotate-fields")
                yield Input(placeholder="reason (optional)", id="annotate-reason")
                yield Static(HIDDEN, id="annotate-judges")
        yield Static("", id="status-line")
        yield KeysFooter(compact=True)

    async def on_mount(self) -> None:
        from pingpong.sessions.annotate import open_queue

        self.sub_title = "rating queue"
        self.query_one(Transcript).can_focus = False
        try:
            queue = open_queue(self.app.store, self.author or self.app.author(), sample=self.sample,
                               players=self.players, methods=self.methods)
        except Exception as exc:  # no sessions to rate, say: shown, never a crash
            self.notify(str(exc), severity="error")
            self.app.pop_screen()
            return
        self.queue = queue
        await self._show(queue.next_position)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "round":
            return bool(self.rounds) and not self.saved   # only a DMT dialogue is labelled round by round
        if action == "skip":
            return self.position is not None and not self.saved
        return True

    # -- one conversation ---------------------------------------------------------------------
    async def _show(self, position: int | None) -> None:
        queue = self.queue
        self.position, self.saved = position, False
        info = self.query_one("#session-info", Static)
        if queue is None or position is None:
            total = len(queue.items) if queue else 0
            info.update(Text(f"All {total} conversations of this queue are rated. Thank you.", style="bold"))
            self.query_one("#annotate-panel").display = False
            self.query_one(Transcript).load([])
            self.rounds = []
            self._status("escape goes back")
            self.refresh_bindings()
            return
        item = next(i for i in queue.items if i.position == position)
        stored = self.app.store.session(item.session_id)
        method = get_method(stored.spec.method)
        self.metrics = method.rated_metrics(stored.character)
        by_round = method.people_rate == "rounds"
        self.rounds = sorted({m.turn for m in stored.messages if m.role == "assistant"}) if by_round else []
        self.round, self.labels = 0, {}
        fields = self.query_one("#annotate-fields", Vertical)
        await fields.remove_children()
        await fields.mount_all(rating_fields(self.metrics, method.scale_of))
        self.stored = stored   # the fields are in place: ready to rate
        head = Text()
        head.append(f"Conversation {queue.done + 1} of {len(queue.items)}  ", style="bold")
        head.append(stored.character.char_name, style="bold cyan")
        head.append(f"  situation: {stored.situation.text}")
        info.update(head)
        # no verdicts, no authors: blind; from its first line, as a rater reads it
        self.query_one(Transcript).load(stored.messages, blind=True, at_start=True)
        self.query_one("#annotate-panel").set_class(bool(self.rounds) or method.scale == "1-10", "-wide")
        self.query_one("#annotate-reason", Input).value = ""
        self.query_one("#annotate-judges", Static).update(HIDDEN)
        self.refresh_bindings()
        if self.rounds:
            self._show_round()
        else:
            self.query_one("#annotate-title", Label).update(
                "Rate the conversation" + ("" if method.scale == "1-5" else f" ({method.scale}, 0 is 10)"))
        first = fields.children[0] if fields.children else None
        if first is not None:
            first.focus()
        self._status(self._hint(method.scale))

    def _hint(self, scale: str) -> str:
        who = f"rating as {self.queue.author}: " if self.queue else ""
        save_skip = (f"{self.app.shown_key('annotate.save', 'ctrl+s')} saves, "
                     f"{self.app.shown_key('annotate.skip', 'ctrl+l')} skips")
        if self.rounds:
            return who + f"g/b per metric, left/right rounds, {save_skip}"
        keys = "1-5" if TOPS.get(scale, 5) == 5 else "1-10"
        return who + f"{keys} per metric, y/n refusal, {save_skip}"

    def _status(self, text: str) -> None:
        self.query_one("#status-line", Static).update(text)

    # -- a DMT dialogue, round by round -------------------------------------------------------
    def _show_round(self) -> None:
        turn = self.rounds[self.round]
        self.query_one("#annotate-title", Label).update(
            f"Round {self.round + 1} of {len(self.rounds)}: good or bad?")
        given = self.labels.get(turn, {})
        for fld in self.query(LabelField):
            fld.value = given.get(fld.metric)
        self.query_one(Transcript).select_turn(turn)

    def _keep_round(self) -> None:
        """What the fields say about the round shown, kept while the person looks at another."""
        if self.rounds:
            self.labels[self.rounds[self.round]] = {f.metric: f.value for f in self.query(LabelField)
                                                    if f.value is not None}

    def on_two_way_field_changed(self, event: LabelField.Changed) -> None:
        """The round's last metric labelled: on to the next round that still needs labels."""
        fields = list(self.query(LabelField))
        if not self.rounds or self.saved or event.field is not fields[-1] or event.field.value is None:
            return
        self._keep_round()
        if self.round + 1 < len(self.rounds) and all(f.value is not None for f in fields):
            self.action_round(1)

    def action_round(self, step: int) -> None:
        if not self.rounds or self.saved:
            return
        self._keep_round()
        self.round = max(0, min(len(self.rounds) - 1, self.round + step))
        self._show_round()
        fields = self.query(LabelField)
        if fields:
            fields.first().focus()

    # -- saving -------------------------------------------------------------------------------
    def _values(self) -> dict[int | None, dict[str, float]] | None:
        """{turn or None (whole conversation): {metric: value}}, or None (told why) when something is
        left to rate."""
        if self.rounds:
            self._keep_round()
            for i, turn in enumerate(self.rounds):
                missing = [m for m in self.metrics if m not in self.labels.get(turn, {})]
                if missing:
                    self.round = i
                    self._show_round()
                    self.notify(f"Label round {i + 1} first: {', '.join(missing)}", severity="warning")
                    return None
            return {turn: {m: 1.0 if self.labels[turn][m] else 0.0 for m in self.metrics} for turn in self.rounds}
        values: dict[str, float] = {}
        missing = []
        for fld in self.query(RatingField):
            if fld.value is None:
                missing.append(fld.metric)
            else:
                values[fld.metric] = float(fld.value)
        for refusal in self.query(RefusalField):  # part of the rubric: unset, the people's view would read "no"
            if refusal.value is None:
                missing.append("refusal (y/n)")
            else:
                values["is_refusal"] = 1.0 if refusal.value else 0.0
        if missing:
            self.notify(f"Rate every metric first: {', '.join(missing)}", severity="warning")
            return None
        return {None: values}

    def action_save(self) -> None:
        if self.stored is None or self.position is None or self.queue is None:
            return
        if self.saved:
            self.notify(f"Already saved: {self.app.shown_key('annotate.next', 'ctrl+n')} for the next conversation")
            return
        rated = self._values()
        if rated is None:
            return
        reason = self.query_one("#annotate-reason", Input).value.strip() or None
        store, author, stored = self.app.store, self.queue.author, self.stored
        try:
            with store.transaction():
                for turn, values in rated.items():
                    for metric, value in values.items():
                        store.add_human_score(stored.id, turn, metric, int(value), author, reason)
                store.mark_annotated(self.queue.id, self.position)
        except Exception as exc:  # a refused score is a notification, not a crash
            self.notify(str(exc), severity="error")
            return
        self.saved = True
        self.refresh_bindings()
        judges = self.query_one("#annotate-judges", Static)
        judges.update(self._reveal(stored))
        self.call_after_refresh(judges.scroll_visible, animate=False)   # the panel scrolls to what was revealed
        self._status(f"saved: {self.app.shown_key('annotate.next', 'ctrl+n')} next; "
                     f"{self.app.shown_key('annotate.back', 'escape')} stops (you continue here next time)")

    def _reveal(self, stored: StoredSession) -> Text:
        """Who played and what each judge gave, for the person to compare with their own."""
        from pingpong.sessions.scoring import stored_final

        text = Text()
        text.append("played by ", style="bold")
        text.append(f"{stored.spec.player}\n")
        if not stored.verdicts:
            text.append("no judge scored this conversation\n", style="dim")
        if self.rounds:
            self._reveal_labels(stored, text)
            return text
        out_of = "/10" if get_method(stored.spec.method).scale == "1-10" else ""
        for verdict in stored.verdicts:
            means = conversation_means([verdict])
            text.append(f"{verdict.judge}  ", style="bold cyan")
            text.append("  ".join(f"{SHORT[m]} {fmt_score(round(means[m], 2))}{out_of}" for m in METRICS
                                  if m in means))
            if any(v.is_refusal for v in verdict.turns if v.status == "ok"):
                text.append("  refusal", style="bold red")
            text.append("\n")
        final = stored_final(stored, scores="judges").text()
        if final:
            text.append(f"judges' final {final}\n", style="bold")
        return text

    def _reveal_labels(self, stored: StoredSession, text: Text) -> None:
        """Each judge's good/bad labels of the rounds, and how many agree with the person's."""
        for verdict in stored.verdicts:
            given = {(s.turn, s.metric): s.value == 1 for s in verdict.scores
                     if s.status == "ok" and s.scale == "good-bad" and s.value is not None and s.turn is not None}
            good = sum(given.values())
            same = sum(1 for (turn, metric), label in given.items() if self.labels.get(turn, {}).get(metric) == label)
            text.append(f"{verdict.judge}  ", style="bold cyan")
            text.append(f"{good} good, {len(given) - good} bad; agrees with you on {same} of {len(given)}\n")

    async def action_next(self) -> None:
        if self.queue is None or self.position is None:
            return
        if not self.saved:
            self.notify("Save your ratings first (ctrl+s), or skip this one (ctrl+l)", severity="warning")
            return
        from pingpong.sessions.annotate import load_queue

        self.queue = load_queue(self.app.store, self.queue.id, self.queue.author)
        await self._show(self.queue.next_position)

    async def action_skip(self) -> None:
        """Leave this conversation for later: it moves to the end of the queue."""
        if self.queue is None or self.position is None or self.saved:
            return
        from pingpong.sessions.annotate import skip

        left = len(self.queue.items) - self.queue.done
        self.queue = skip(self.app.store, self.queue, self.position)
        if left == 1:
            self.notify("Nothing else is left to rate: this one again")
        await self._show(self.queue.next_position)

    def action_page(self, step: int) -> None:
        """The conversation scrolls by a page while the keys stay with the rating fields."""
        transcript = self.query_one(Transcript)
        (transcript.scroll_page_down if step > 0 else transcript.scroll_page_up)(animate=False)

    def action_back(self) -> None:
        self.app.pop_screen()
