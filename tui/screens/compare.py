"""Two sessions side by side: both transcripts, every judge's verdict in both orders, and your own pick.

A pair is two sessions of different players with the same character, situation and method (for
rolebench: two answers to one question). `a`, `b` or `t` records which one you think is better (or a
tie), stored with your name and the time; it overrides the judges' verdict for that pair in
`pingpong compare`. Opened with v on a session of Home (its pairs, judged or not; a fork has none, as
`pingpong compare` never compares one) or from the leaderboard and the command palette (every judged pair).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Header, Static

from pingpong.tui.widgets.footer import KeysFooter
from pingpong.tui.widgets.panels import EmptyState
from pingpong.tui.widgets.transcript import Transcript

if TYPE_CHECKING:
    from pingpong.sessions.compare import PairOutcome
    from pingpong.tui.app import PingPongApp

SAYS = {1.0: "A better", 0.0: "B better", 0.5: "tie"}
PICK = {"a": 1.0, "b": 0.0, "tie": 0.5}
EMPTY_TEXT = (
    "[b]No pairs to show.[/b]\n\n"
    "A pair is two sessions of different players with the same character, situation and method. "
    "Run [b]pingpong compare --baseline M --judge J[/b] to have a judge compare them, or select a "
    "session on Home and press [b]{compare}[/b] to compare it with another player's yourself."
)


def _whole(text: str | None) -> str:
    """The reason on one paragraph (it wraps; the verdicts panel scrolls when it is long)."""
    return " ".join((text or "").split())


def verdict_text(outcome, keys: tuple[str, str, str] = ("a", "b", "t")) -> Text:
    """Each judge's verdict in both orders with its reasons whole, the combined result, and the person's pick
    (`keys`: those of A better, B better and tie now, as the hint names them)."""
    out = Text()
    for judge, orders in sorted(outcome.judged.items()):
        out.append(judge, style="bold")
        for shown, label in (("ab", "A first"), ("ba", "B first")):
            v = orders.get(shown)
            said = "-" if v is None else ("failed" if v.status != "ok" else SAYS.get(v.value, "?"))
            out.append(f"  {label}: {said}")
        combined = outcome.judge_value(judge)
        out.append(f"  = {SAYS.get(combined, 'no verdict') if combined is not None else 'no verdict'}\n",
                   style="bold")
        for shown, label in (("ab", "A first"), ("ba", "B first")):
            v = orders.get(shown)
            if v is not None and (v.explanation or v.error):
                out.append(f"  {label}: {_whole(v.explanation or v.error)}\n", style="dim")
    person = outcome.person
    if person is None:
        a, b, tie = keys
        out.append(f"You: not picked yet ({a}: A better, {b}: B better, {tie}: tie)")
    else:
        head, said = f"{person.by} ({person.created_at[:16].replace('T', ' ')}): ", SAYS.get(person.value, "?")
        out.append(head, style="bold")
        out.append(said, style="bold green")
        out.append(f'  "{_whole(person.explanation)}"' if person.explanation else "  (counts over the judges)")
    return out


class CompareScreen(Screen):
    """One pair at a time; right/left (n/p) move between pairs, a/b/t record your pick."""

    PLACE_ACTIONS = ("compare",)
    """The palette's ways here (tui/palette.py): not offered while this screen is open."""

    app: PingPongApp

    BINDINGS = [
        Binding("a", "prefer('a')", "A better", tooltip="Record that A (left) is better", id="compare.a"),
        Binding("b", "prefer('b')", "B better", tooltip="Record that B (right) is better", id="compare.b"),
        Binding("t", "prefer('tie')", "Tie", tooltip="Record that both are as good", id="compare.tie"),
        # priority: a focused transcript would take left/right for sideways scrolling
        Binding("right,n", "step(1)", "Next", tooltip="Next pair", id="compare.next", priority=True),
        Binding("left,p", "step(-1)", "Prev", tooltip="Previous pair", id="compare.prev", priority=True),
        Binding("escape,q", "back", "Back", id="compare.back"),
    ]

    def __init__(self, session_id: int | None = None) -> None:
        super().__init__()
        self.session_id = session_id
        self.pairs: list[tuple[int, int]] = []
        self.index = 0
        self.outcome: PairOutcome | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="pair-info")
        with Horizontal(id="pair-body"):
            with Vertical(classes="pair-side"):
                yield Static("", id="pair-a-title", classes="pair-title")
                yield Transcript(id="pair-a", classes="pair-transcript")
            with Vertical(id="pair-b-side", classes="pair-side"):
                yield Static("", id="pair-b-title", classes="pair-title")
                yield Transcript(id="pair-b", classes="pair-transcript")
        with VerticalScroll(id="pair-verdicts-box"):   # long reasons: tab to it, then up/down scroll
            yield Static("", id="pair-verdicts")
        yield EmptyState(EMPTY_TEXT.format(compare=self.app.shown_key("home.compare", "v")), id="pair-empty")
        yield KeysFooter(compact=True)

    def on_mount(self) -> None:
        from pingpong.sessions.compare import pairs_to_show

        self.sub_title = "side by side"
        try:
            self.pairs = pairs_to_show(self.app.store.conn, self.session_id)
            fork_of = self.app.store.session(self.session_id).parent_session if self.session_id else None
        except Exception as exc:  # a broken database is a message, not a crash
            self.notify(str(exc), severity="error")
            fork_of = None
        if fork_of is not None:
            self.notify(f"Session {self.session_id} is a fork of {fork_of}: forks are not compared "
                        "(pingpong compare pairs unforked sessions only)", severity="warning")
        empty = not self.pairs
        self.query_one("#pair-empty").display = empty
        for widget in ("#pair-info", "#pair-body", "#pair-verdicts-box"):
            self.query_one(widget).display = not empty
        if not empty:
            self._show()

    def _show(self) -> None:
        from pingpong.sessions.compare import pair_outcomes, plan_of

        store = self.app.store
        a_id, b_id = self.pairs[self.index]
        try:
            a, b = store.session(a_id), store.session(b_id)
        except Exception as exc:
            self.notify(str(exc), severity="error")
            return
        plan = plan_of(a, b)
        self.outcome = pair_outcomes(store.conn, [plan])[0]
        info = Text()
        info.append(f"pair {self.index + 1}/{len(self.pairs)}  ", style="bold")
        info.append(plan.character, style="bold cyan")
        info.append(f" in {plan.situation} ({plan.method})")
        info.append("   tab: A, B, reasons", style="dim")  # each scrolls with up/down once in focus
        self.query_one("#pair-info", Static).update(info)
        for side, stored in (("a", a), ("b", b)):
            title = Text()
            title.append(side.upper(), style="bold reverse")
            title.append(f" #{stored.id} ", style="bold")
            title.append(stored.spec.player)
            self.query_one(f"#pair-{side}-title", Static).update(title)
            transcript = self.query_one(f"#pair-{side}", Transcript)
            transcript.load(stored.messages)
            transcript.call_after_refresh(transcript.scroll_home, animate=False)
        self._show_verdicts()

    def _show_verdicts(self) -> None:
        if self.outcome is not None:
            keys = (self.app.shown_key("compare.a", "a"), self.app.shown_key("compare.b", "b"),
                    self.app.shown_key("compare.tie", "t"))
            self.query_one("#pair-verdicts", Static).update(verdict_text(self.outcome, keys))

    def action_step(self, step: int) -> None:
        if self.pairs:
            self.index = max(0, min(len(self.pairs) - 1, self.index + step))
            self._show()

    def action_prefer(self, pick: str) -> None:
        """Store the person's pick for the shown pair (append-only; the newest counts)."""
        if self.outcome is None:
            self.notify("No pair shown", severity="warning")
            return
        if not self.app.writable("saving your pick"):
            return
        from pingpong.sessions.compare import pair_outcomes

        plan = self.outcome.plan
        store = self.app.store
        author = self.app.author()
        try:
            store.add_pair_preference(plan.a, plan.b, PICK[pick], author)
        except Exception as exc:  # a refused preference is a notification, not a crash
            self.notify(str(exc), severity="error")
            return
        self.outcome = pair_outcomes(store.conn, [plan])[0]
        self._show_verdicts()
        self.notify(f"saved: {SAYS[PICK[pick]]} (#{plan.a} vs #{plan.b}) by {author}")

    def action_back(self) -> None:
        self.app.pop_screen()
