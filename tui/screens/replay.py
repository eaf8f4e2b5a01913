"""Replay a stored session turn by turn, with scores, explanations and people's overrides."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message as TMessage
from textual.screen import Screen
from textual.widgets import Header, Static

from pingpong.core.methods import get_method
from pingpong.sessions.seats import interrogator_words
from pingpong.tui.screens.live_scene import cast_names
from pingpong.tui.screens.override import label_metrics, rate_turn
from pingpong.tui.widgets.footer import KeysFooter
from pingpong.tui.widgets.panels import ExplanationsPanel
from pingpong.tui.widgets.split import TRANSCRIPT_AND_PANEL, SplitBody
from pingpong.tui.widgets.transcript import Transcript

if TYPE_CHECKING:
    from pingpong.sessions.costs import PlayerSpend
    from pingpong.sessions.records import StoredSession
    from pingpong.tui.app import PingPongApp


class ReplayScreen(Screen):
    """left/right (or up/down, k/j) step one turn, home/end jump; o rates the shown turn, f forks from it, J re-judges."""

    app: PingPongApp

    BINDINGS = [
        Binding("right,j", "step(1)", "Next", id="replay.next", priority=True),
        Binding("left,k", "step(-1)", "Prev", id="replay.prev", priority=True),
        # up/down step too (the footer shows the arrows above): the transcript's own turn selection
        # would leave the shown turn, which o and f act on, the panel and the status line behind
        Binding("down", "step(1)", "Next", id="replay.down", priority=True, show=False),
        Binding("up", "step(-1)", "Prev", id="replay.up", priority=True, show=False),
        Binding("home", "jump(0)", "First", id="replay.first", priority=True, show=False),
        Binding("end", "jump(1)", "Last", id="replay.last", priority=True, show=False),
        Binding("o", "override", "Rate", tooltip="Rate the shown turn", id="replay.override"),
        Binding("f", "fork", "Fork", tooltip="Fork from the shown turn (runs on live)", id="replay.fork"),
        Binding("J", "rejudge", "Rejudge", tooltip="Re-judge: ask the judges again for failed turns",
                id="replay.rejudge"),
        Binding("escape,q", "back", "Back", id="replay.back"),
    ]

    def __init__(self, session_id: int) -> None:
        super().__init__()
        self.session_id = session_id
        self.stored: StoredSession | None = None  # None until loaded (or when it cannot be)
        self.turns: list[int] = []
        self.steps: list = []
        self.index = 0
        self.spend: PlayerSpend | None = None  # None: no model has a price

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="session-info")
        with SplitBody(id="live-body", stack_below=TRANSCRIPT_AND_PANEL):
            yield Transcript(id="transcript")
            yield ExplanationsPanel(id="explanations")
        yield Static("", id="status-line")
        yield KeysFooter(compact=True)

    def on_mount(self) -> None:
        self.sub_title = f"replay of session {self.session_id}"
        self.query_one(Transcript).can_focus = False
        try:
            self.stored = self.app.store.session(self.session_id)
        except Exception as exc:
            self.notify(str(exc), severity="error")
            return
        self.spend = self.app.session_spend(self.session_id)
        self._load_steps()
        self.query_one(Transcript).set_cast(cast_names(self.stored))
        self.index = 0
        self._show()
        self.refresh_bindings()  # J: whether judge models score this session's method

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "rejudge":  # exact rules or pingpong-v1's tester score it: no judge model to ask again
            return self.stored is not None and get_method(self.stored.spec.method).scorer is None
        return True

    def _load_steps(self) -> None:
        from pingpong.sessions.replay import steps_of

        assert self.stored is not None
        self.steps = steps_of(self.stored)
        self.turns = [step.turn for step in self.steps]

    @property
    def turn(self) -> int | None:
        return self.turns[self.index] if self.turns else None

    def _show(self) -> None:
        stored = self.stored
        if stored is None:
            return
        turn = self.turn
        messages = [m for m in stored.messages if turn is not None and m.turn <= turn]
        transcript = self.query_one(Transcript)
        transcript.load(messages, stored.verdicts, stored.human_scores)
        transcript.call_after_refresh(transcript.select_turn, turn)
        transcript.call_after_refresh(transcript.scroll_end, animate=False)
        self.query_one(ExplanationsPanel).show(turn, stored.verdicts, stored.human_scores, stored.spec.method)
        spec = stored.spec
        info = Text()
        info.append(f"#{stored.id} ", style="bold")
        if spec.cast:
            info.append(spec.situation, style="bold cyan")
            tested = transcript.speaker_label(spec.character)
            info.append(f"  {len(spec.cast)} characters, tested {tested}  narrator {stored.seat_label()}")
        else:
            info.append(spec.character, style="bold cyan")
            info.append(f" in {spec.situation}  player {stored.seat_label('player')}  "
                        f"interrogator {interrogator_words(spec.method, stored.seat_label())}")
        info.append(f"  [{stored.status}]", style="bold")
        if self.spend is not None:
            info.append(f"  spent {self.spend.text()}", style="dim")
        self.query_one("#session-info", Static).update(info)
        where = f"turn {turn} of {self.turns[-1]}" if turn is not None else "no messages"
        step = self.steps[self.index] if self.steps else None
        if step is not None and step.people:
            where += f"  ({len(step.people)} person's score{'s' if len(step.people) != 1 else ''})"
        final = f"  final {stored.final.text()}" if stored.final.text() else ""
        self.query_one("#status-line", Static).update(f"{where}{final}   ←/→ step, home/end jump")

    def action_step(self, step: int) -> None:
        if self.turns:
            self.index = max(0, min(len(self.turns) - 1, self.index + step))
            self._show()

    def action_jump(self, end: int) -> None:
        if self.turns:
            self.index = len(self.turns) - 1 if end else 0
            self._show()

    def action_override(self) -> None:
        turn = self.turn
        if self.stored is None or turn is None or not any(
                m.turn == turn and m.role == "assistant" for m in self.stored.messages):
            self.notify("This turn has no player message to rate", severity="warning")
            return

        def reload() -> None:
            self.stored = self.app.store.session(self.session_id)
            self._load_steps()
            self._show()

        rate_turn(self, self.session_id, turn, self.stored.verdicts, self.stored.human_scores, reload,
                  label_metrics(self.stored))

    def action_fork(self) -> None:
        """A new session with the turns up to the shown one, run on live (take the seat with t there)."""
        turn = self.turn
        if self.stored is None or turn is None:
            return
        done = self.stored.turns_done
        keep = min(turn, done)
        if keep < 1:
            self.notify("Nothing to fork yet: no completed turn", severity="warning")
            return
        if not self.app.writable("forking a session"):
            return
        try:
            new = self.app.store.fork(self.session_id, keep)
        except Exception as exc:
            self.notify(str(exc), severity="error")
            return
        self.notify(f"session {new}: forked from {self.session_id} at turn {keep}")
        self.app.open_live(new)

    def action_rejudge(self) -> None:
        """Ask the session's judges again for whatever they still owe (failed turns)."""
        if self.stored is None or not self.stored.spec.judges:
            self.notify("This session has no judges to ask", severity="warning")
            return
        if not any(s.status == "failed" for v in self.stored.verdicts for s in v.scores) and all(
                v.judge in self.stored.spec.judges for v in self.stored.verdicts) and self.stored.verdicts:
            self.notify("Every judge has scored every turn; nothing to re-judge")
            return
        if not self.app.writable("re-judging"):
            return
        self.notify("Re-judging…")
        self.rejudge()

    @work(exclusive=True, group="rejudge", exit_on_error=False)
    async def rejudge(self) -> None:
        from pingpong.sessions.live import judge_session

        error = None
        assert self.stored is not None
        try:
            async for _event in judge_session(self.app.store, self.app.pool, self.session_id,
                                              list(self.stored.spec.judges), offload=True):
                pass
        except Exception as exc:  # shown, never a crash of the app
            error = str(exc)
        self.post_message(Rejudged(error))

    def on_rejudged(self, message: "Rejudged") -> None:
        self.stored = stored = self.app.store.session(self.session_id)  # what was judged before a failure too
        self._load_steps()
        self._show()
        if message.error:
            self.notify(f"Re-judging failed: {message.error}", severity="error")
            return
        failed = sum(1 for v in stored.verdicts for s in v.scores if s.status == "failed")
        self.notify("Re-judged" + (f"; {failed} score(s) still failed" if failed else ""))

    def action_back(self) -> None:
        self.app.pop_screen()


class Rejudged(TMessage):
    """The re-judging worker ended (error: why it could not finish)."""

    def __init__(self, error: str | None) -> None:
        super().__init__()
        self.error = error
