"""The rating queue (`pingpong annotate`, or `a` on Home): whole conversations rated blind, one by one.

The person sees the character, the situation and the conversation, never who played it or what the
judges said, until they have saved their own ratings (1-5 for each metric, optionally a refusal
flag); then the judges' figures are shown and ctrl+n goes on. The queue and how far the person got
live in the database (sessions.annotate), so leaving and coming back continues at the first
conversation not saved yet.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, Header, Input, Label, Static

from pingpong.core.domain import METRICS
from pingpong.tui.widgets.rating import RatingField, RefusalField
from pingpong.tui.widgets.scoring import SHORT, conversation_means, fmt_score
from pingpong.tui.widgets.transcript import Transcript

HIDDEN = "The judges' scores, and who played, show once you have saved your ratings."


class AnnotateScreen(Screen):
    """Rate the whole conversation: 1-5 per metric, y/n refusal, ctrl+s saves and reveals the judges,
    ctrl+n goes to the next one; escape leaves (the queue resumes where you stopped)."""

    BINDINGS = [
        Binding("ctrl+s", "save", "Save", id="annotate.save"),
        Binding("ctrl+n", "next", "Next", tooltip="Next conversation (after saving)", id="annotate.next"),
        Binding("escape", "back", "Back", id="annotate.back"),
    ]

    def __init__(self, *, sample: int | None = None, players: list[str] | None = None) -> None:
        super().__init__()
        self.sample = sample
        self.players = players
        self.queue = None
        self.position: int | None = None
        self.stored = None
        self.saved = False

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="session-info")
        with Horizontal(id="live-body"):
            yield Transcript(id="transcript")
            with Vertical(id="annotate-panel"):
                yield Label("Rate the conversation", classes="dialog-title")
                for metric in METRICS:
                    yield RatingField(metric, id=f"rate-{metric}")
                yield RefusalField(id="rate-refusal")
                yield Input(placeholder="reason (optional)", id="annotate-reason")
                yield Static(HIDDEN, id="annotate-judges")
        yield Static("", id="status-line")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        from pingpong.sessions.annotate import open_queue

        self.sub_title = "rating queue"
        self.query_one(Transcript).can_focus = False
        try:
            self.queue = open_queue(self.app.store, self.app.author(), sample=self.sample, players=self.players)
        except Exception as exc:  # no sessions to rate, say: shown, never a crash
            self.notify(str(exc), severity="error")
            self.app.pop_screen()
            return
        self._show(self.queue.next_position)

    # -- one conversation ---------------------------------------------------------------------
    def _show(self, position: int | None) -> None:
        queue = self.queue
        self.position, self.saved = position, False
        info = self.query_one("#session-info", Static)
        if queue is None or position is None:
            total = len(queue.items) if queue else 0
            info.update(Text(f"All {total} conversations of this queue are rated. Thank you.", style="bold"))
            self.query_one("#annotate-panel").display = False
            self.query_one(Transcript).load([])
            self._status("escape goes back")
            return
        item = queue.items[position]
        self.stored = self.app.store.session(item.session_id)
        stored = self.stored
        head = Text()
        head.append(f"Conversation {position + 1} of {len(queue.items)}  ", style="bold")
        head.append(stored.character.char_name, style="bold cyan")
        head.append(f"  situation: {stored.situation.text}")
        info.update(head)
        self.query_one(Transcript).load(stored.messages, blind=True)  # no verdicts, no authors: blind
        for fld in self.query(RatingField):
            fld.value = None
        self.query_one(RefusalField).value = None
        self.query_one("#annotate-reason", Input).value = ""
        self.query_one("#annotate-judges", Static).update(HIDDEN)
        self.query_one("#rate-in_character").focus()
        self._status(f"rating as {queue.author}: 1-5 per metric, y/n refusal, ctrl+s saves")

    def _status(self, text: str) -> None:
        self.query_one("#status-line", Static).update(text)

    def action_save(self) -> None:
        if self.stored is None or self.position is None or self.queue is None:
            return
        if self.saved:
            self.notify("Already saved: ctrl+n for the next conversation")
            return
        values = {fld.metric: fld.value for fld in self.query(RatingField)}
        missing = [m for m, v in values.items() if v is None]
        if missing:
            self.notify(f"Rate every metric first: {', '.join(missing)}", severity="warning")
            return
        refusal = self.query_one(RefusalField).value
        reason = self.query_one("#annotate-reason", Input).value.strip() or None
        store, author = self.app.store, self.queue.author
        try:
            with store.transaction():
                for metric, value in values.items():
                    store.add_human_score(self.stored.id, None, metric, int(value or 0), author, reason)
                if refusal is not None:
                    store.add_human_score(self.stored.id, None, "is_refusal", refusal, author, reason)
                store.mark_annotated(self.queue.id, self.position)
        except Exception as exc:  # a refused score is a notification, not a crash
            self.notify(str(exc), severity="error")
            return
        self.saved = True
        self.query_one("#annotate-judges", Static).update(self._reveal())
        self._status("saved: ctrl+n next; escape stops (you continue here next time)")

    def _reveal(self) -> Text:
        """Who played and what each judge gave, for the person to compare with their own."""
        from pingpong.sessions.scoring import stored_final

        stored = self.stored
        text = Text()
        text.append("played by ", style="bold")
        text.append(f"{stored.spec.player}\n")
        if not stored.verdicts:
            text.append("no judge scored this conversation\n", style="dim")
        for verdict in stored.verdicts:
            means = conversation_means([verdict])
            text.append(f"{verdict.judge}  ", style="bold cyan")
            text.append("  ".join(f"{SHORT[m]} {fmt_score(round(means[m], 2))}" for m in METRICS if m in means))
            if any(v.is_refusal for v in verdict.turns if v.status == "ok"):
                text.append("  refusal", style="bold red")
            text.append("\n")
        final = stored_final(stored, scores="judges").text()
        if final:
            text.append(f"judges' final {final}\n", style="bold")
        return text

    def action_next(self) -> None:
        if self.queue is None or self.position is None:
            return
        if not self.saved:
            self.notify("Save your ratings first (ctrl+s)", severity="warning")
            return
        from pingpong.sessions.annotate import load_queue

        self.queue = load_queue(self.app.store, self.queue.id, self.queue.author)
        self._show(self.queue.next_position)

    def action_back(self) -> None:
        self.app.pop_screen()
