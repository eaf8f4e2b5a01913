"""The live session: the engine runs in an app-level worker (tui.runs), its events come back as
Messages.

Streamed text is gathered by the run (tui.runs) and drawn at most ten times a second, only what
is new (widgets.transcript.StreamingCard). A person can take the interrogator seat (an input box
appears while the engine waits for them) and hand it back; in a group scene, a member's seat or
the narrator's, and choose who speaks next (live_scene). In a dmt session the box also shows the
seed's topic and intent with a suggested sub-intent, and the person can end the dialogue (the stop
check runs as well). Leaving a running session asks whether to keep it running in the background
or to stop it.
With follow=True the screen is a read-only view that polls the database (a session another
process is running) until the session ends.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message as TMessage
from textual.widgets import Header, Input, Static

from pingpong.core.domain import HUMAN
from pingpong.core.events import (
    CallFinished,
    JudgeStarted,
    MessageCompleted,
    NotesChanged,
    SeatChanged,
    SessionFailed,
    SessionFinished,
    SpeakerWanted,
    TurnStarted,
    VerdictReady,
)
from pingpong.core.methods import get_method
from pingpong.sessions.scoring import stored_final
from pingpong.sessions.seats import seat_label, spans
from pingpong.tui.runs import EngineEvent, EngineStopped, SessionRun, replaces_draft
from pingpong.tui.screens.live_scene import GroupScene
from pingpong.tui.screens.override import label_metrics, rate_turn
from pingpong.tui.widgets.footer import KeysFooter
from pingpong.tui.widgets.message_input import MessageInput
from pingpong.tui.widgets.panels import ExplanationsPanel
from pingpong.tui.widgets.split import TRANSCRIPT_AND_PANEL, SplitBody
from pingpong.tui.widgets.transcript import Transcript
from pingpong.tui.worker_store import WorkerStore

if TYPE_CHECKING:
    from pingpong.core.domain import JudgeVerdict
    from pingpong.sessions.costs import PlayerSpend
    from pingpong.sessions.records import Draft, HumanScore, StoredSession

REDRAW_SECONDS = 0.1


class SessionLoaded(TMessage):
    """A fresh copy of the stored session (follow mode and reloads), what it cost so far, and the message
    it is streaming."""

    def __init__(self, stored: StoredSession, spend: PlayerSpend | None = None, draft: Draft | None = None) -> None:
        super().__init__()
        self.stored = stored
        self.spend = spend
        self.draft = draft


class LiveScreen(GroupScene):
    """Run (or follow) one session turn by turn."""

    BINDINGS = [
        # one of these two shows at a time (check_action): the footer says what space does now
        Binding("space", "pause", "Pause", id="live.pause"),
        Binding("space,c", "continue", "Continue", id="live.continue"),
        Binding("s", "step", "Step", tooltip="Step: run one turn, then pause", id="live.step"),
        Binding("x,ctrl+x", "stop", "Stop", tooltip="Stop the session (asks first)", id="live.stop"),
        # only one of these two shows at a time (check_action), so the footer fits 80 columns;
        # ctrl+b first: it is the key that also works while typing in the input box
        Binding("t,ctrl+t", "take_seat", "Take seat", tooltip="Take the interrogator seat (type the user's turns)",
                id="live.take_seat"),
        # while a person holds a seat and has left the message box (escape): t goes back to it
        Binding("t", "to_box", "Type", tooltip="Back to the message box (escape leaves it)", id="live.to_box"),
        Binding("ctrl+b,h", "hand_back", "Hand back", tooltip="Hand your seat to a model (h outside the input)",
                id="live.hand_back"),
        Binding("ctrl+n,n", "next_speaker", "Speaker", id="live.next_speaker",
                tooltip="choose who speaks next in a group scene (ctrl+n also while typing)"),
        Binding("ctrl+g,e", "end_dialogue", "End", id="live.end_dialogue",
                tooltip="End the dialogue here (dmt): the judges then label its rounds"),
        Binding("o", "override", "Rate", tooltip="Rate the selected turn", id="live.override"),
        Binding("r", "retry", "Retry", tooltip="Retry (resume) the session", id="live.retry"),
        Binding("escape", "back", "Back", tooltip="Back (a running session asks first)", id="live.back"),
    ]

    def __init__(self, session_id: int, *, follow: bool = False, paused: bool = False) -> None:
        super().__init__()
        self.session_id = session_id
        self.follow = follow
        self.start_paused = paused
        self.control = None
        self.session_run: SessionRun | None = None  # while this screen shows a session the app runs
        self.stored: StoredSession | None = None
        self._user_turns: list[tuple[int, str]] = []  # (turn, author) of the interrogator seat's messages
        self.verdicts: list[JudgeVerdict] = []
        self.human: list[HumanScore] = []
        self.status = "loading"
        self.seat = ""
        self.player_seat = ""
        self._was_waiting = False
        self._shown_paused = False  # whether the footer and header last showed the session paused
        self._greeted = False  # the card's greeting has been put above turn 1
        self._next_seat: dict[str, str] = {}  # seat changes asked for, not yet applied by the engine
        self._gave_up: dict[str, str] = {}  # seat -> the model that held it when the person took it
        self._started: dict[str, int] = {"user": 0, "assistant": 0}  # highest turn begun per role
        self.running = False
        self.error: str | None = None
        self.notice = ""
        self.retries: list[str] = []  # retry notices shown, oldest first
        self._authors: dict[tuple[int, str], str] = {}
        self._current: tuple[int, str] | None = None  # the message begun last (TurnStarted), until completed
        self._drawn: tuple[tuple[int, str], int] | None = None  # which draft, how many pieces of it are shown
        self._read_store = WorkerStore(lambda: self.app.open_store())  # for the follow worker
        self._loaded_key: tuple[object, ...] | None = None
        self.spend: PlayerSpend | None = None  # None: no model has a price
        self._init_cast()

    # -- layout -------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="session-info")
        with SplitBody(id="live-body", stack_below=TRANSCRIPT_AND_PANEL):
            yield Transcript(id="transcript")
            yield ExplanationsPanel(id="explanations")
        with Vertical(id="human-box"):
            yield Static("", id="human-prompt")
            yield MessageInput(placeholder="type your message, enter sends", id="human-input")
        yield Static("", id="status-line")
        yield KeysFooter(compact=True)

    def on_mount(self) -> None:
        self.sub_title = f"session {self.session_id}" + (" (watching)" if self.follow else "")
        self.query_one("#human-box").display = False
        self.set_interval(REDRAW_SECONDS, self._tick)
        if self.follow:
            # stay at the end as messages arrive, until the person scrolls up (back down re-anchors)
            self.query_one(Transcript).anchor()
            self.set_interval(self.app.watch_interval, self._poll)
            self._poll()
            return
        try:
            stored = self.app.store.session(self.session_id)
        except Exception as exc:
            self._fail(str(exc))
            return
        self.spend = self.app.session_spend(self.session_id)
        self._show_stored(stored)
        self.query_one("#human-input", Input).value = self.app.runs.unsent(self.session_id)
        run = self.app.runs.get(self.session_id)
        if run is not None:  # running in the background: take its controls back
            self._attach_run(run)
        elif stored.status in ("running", "interrupted"):
            self.start_engine()
        elif stored.status == "failed":
            self._fail(stored.error or "the session failed")
        if not self.query_one("#human-box").display:
            self.query_one(Transcript).focus()

    def on_resize(self) -> None:
        """A smaller terminal (a split pane) keeps the newest message in sight when the view was at the
        end: the reply a person answers must not slip below it. A view scrolled up stays where it is."""
        transcript = self.query_one(Transcript)
        if (self.running or self.follow) and transcript.scroll_y >= transcript.max_scroll_y:
            transcript.call_after_refresh(transcript.follow_end, scroll=True)

    def on_unmount(self) -> None:
        self._read_store.close()
        if self.session_run is not None and self.session_run.listener is self:
            self.session_run.listener = None  # the session goes on in the background

    # -- engine -------------------------------------------------------------------------
    def start_engine(self) -> None:
        from pingpong.core.engine import SessionControl

        if not self.app.writable("running the session"):
            return

        control = SessionControl(paused=self.start_paused)
        self.start_paused = False  # a retry starts running
        self._next_seat = {}
        self._attach_run(self.app.runs.start(self.session_id, control, self))

    def _attach_run(self, run: SessionRun) -> None:
        """Show (and steer) a session the app runs: this screen gets its events from now on."""
        self.session_run = run
        run.listener = self
        self.control = run.control
        self.error = None
        self.running = True
        self.status = "running"
        draft = run.draft
        if draft is not None:  # the message being written when this screen came (back): _tick draws it
            key = (draft.turn, draft.role)
            self._authors[key] = draft.author
            self._current = key
            who = "you" if draft.author == HUMAN else draft.author
            self._set_notice(f"turn {draft.turn}: {who} writing as {_role(draft.role)}")
        self._refresh_info()
        self.refresh_bindings()
        self._update_human_box()

    def on_engine_event(self, message: EngineEvent) -> None:
        event = message.event
        if isinstance(event, TurnStarted):
            key = (event.turn, event.role)
            self._authors[key] = event.author
            self._speakers[key] = event.speaker
            self._current = key
            self._started[event.role] = max(self._started[event.role], event.turn)
            if event.role == "user":
                self.seat = event.author
                self.refresh_bindings()
            elif event.speaker in self.member_seats:
                self.member_seats[event.speaker] = event.author
                if self.stored is not None and event.speaker == self.stored.spec.character:
                    self.player_seat = event.author
            else:
                self.player_seat = event.author
            who = "you" if event.author == HUMAN else event.author
            part = self.label(event.speaker) if event.speaker else _role(event.role)
            self._set_notice(f"turn {event.turn}: {who} writing as {part}")
            self._draw_draft()  # the card shows at once, "writing…"
        elif isinstance(event, MessageCompleted):
            msg = event.message
            self._current = None
            if msg.role == "user":
                self._user_turns.append((msg.turn, msg.author))
            self.query_one(Transcript).add_message(msg)
            self._set_notice(f"turn {msg.turn}: {self.label(msg.speaker) if self.is_scene else msg.author} done")
            if msg.notes.get("stop") in ("goal_reached", "max_rounds"):
                self.refresh_bindings()  # the dialogue is over: nothing left to end
        elif isinstance(event, NotesChanged):
            self.query_one(Transcript).update_notes(event.message)
        elif isinstance(event, CallFinished):
            call = event.call
            if replaces_draft(event):
                self.query_one(Transcript).clear_streaming()
                self._drawn = None
            if call.status == "retry":
                notice = f"retrying (attempt {call.attempt + 1}): {call.error or 'error'}"
                self.retries.append(notice)
                self._set_notice(notice, warn=True)
            elif call.status == "failed":
                self._set_notice(f"{call.role} {call.model} failed: {call.error or 'error'}", warn=True)
            if self.spend is not None:
                self.spend.add_call(call, self.app.prices())
        elif isinstance(event, SeatChanged):
            if event.character is not None:
                self.member_seats[event.character] = event.author
                if self.stored is not None and event.character == self.stored.spec.character:
                    self.player_seat = event.author
                self._set_notice(f"{self.label(event.character)}: {event.author}")
            else:
                if event.role == "interrogator":
                    self.seat = event.author
                else:
                    self.player_seat = event.author
                if self._next_seat.get(event.role) == event.author:
                    del self._next_seat[event.role]
                self._set_notice(f"{_role(event.role) if not self.is_scene else 'narrator'} seat: {event.author}")
        elif isinstance(event, SpeakerWanted):
            self.speaker_wanted()
        elif isinstance(event, JudgeStarted):
            turns = ", ".join(str(t) for t in event.turns)
            self._set_notice(f"judging: {event.judge} (turns {turns})")
        elif isinstance(event, VerdictReady):
            self.verdicts.append(event.verdict)
            self._scores_changed()
            self._set_notice(f"scores from {event.verdict.judge}")
        elif isinstance(event, SessionFinished):
            self.status = "finished"
            self.refresh_bindings()
            self._set_notice(self._finished_notice())
            transcript = self.query_one(Transcript)
            transcript.anchor(False)  # the person reads it now: from the turn selected
            if transcript.player_turns() and transcript.selected_turn is None:
                transcript.select_turn(transcript.player_turns()[0])
        elif isinstance(event, SessionFailed):
            self._drop_partial()
            where = f"{event.role} {event.model}: " if event.role else ""
            self._fail(f"{where}{event.error}")
        self._refresh_info()
        self._update_human_box()

    def on_engine_stopped(self, message: EngineStopped) -> None:
        self.running = False
        self.session_run = None
        self._take_back_typed_ahead()  # a line sent ahead that no turn took: back in the box, for the resume
        self.query_one("#human-box").display = False
        self._drop_partial()
        if message.error:
            self._fail(message.error)
        elif self.status == "running":
            self.status = "interrupted"
            self._set_notice("stopped: r resumes the session")
        self._refresh_info()
        self.refresh_bindings()

    def _drop_partial(self) -> None:
        self.query_one(Transcript).clear_streaming()

    def _fail(self, error: str) -> None:
        self.status = "failed"
        self.error = error
        self._set_notice(f"failed: {error}  (r retries)", warn=True)
        self.notify(error, title="session failed", severity="error", timeout=8)
        self.refresh_bindings()

    def _tick(self) -> None:
        """Batched redraw of the streaming reply, the human input box when it is needed, and the
        footer when a step has just paused the session."""
        if bool(self.control is not None and self.control.paused) != self._shown_paused:
            self._paused_changed()
        self._draw_draft()
        self._update_human_box()

    def _draw_draft(self) -> None:
        """The message being written (the run gathers its pieces), when it has grown since last drawn."""
        run, key = self.session_run, self._current
        draft = run.draft if run is not None else None
        if draft is None or key != (draft.turn, draft.role) or draft.author == HUMAN:
            return
        if self._drawn != (key, len(draft.pieces)):
            self._drawn = (key, len(draft.pieces))
            self.query_one(Transcript).set_streaming(*key, draft.author, draft.text, self._speakers.get(key))

    def _human_role(self) -> str | None:
        """The role a person writes now or next ("user"/"assistant"), None when no person's turn is left.

        The box shows as soon as a person holds a seat, not only once the engine waits, so keys typed
        early go to the input (and are kept until the engine asks) instead of the screen's shortcuts.
        """
        control = self.control
        if control is None or not self.running or self.status != "running":
            return None
        human = control.human
        if control.ending and not (human.waiting and human.role == "assistant"):
            return None
        if human.waiting:
            return human.role or "user"
        if self._current is not None and self._authors.get(self._current) == HUMAN:
            return self._current[1]  # the engine is about to wait for this one
        total = self.stored.num_turns if self.stored is not None else 0
        if self.is_scene:  # a person sitting as a member may type ahead of its next line
            return "assistant" if self._holds_member_seat() and self._started["assistant"] < total else None
        for role, seat_role, current in (("user", "interrogator", self.seat), ("assistant", "player", self.player_seat)):
            if role == "user" and not self._people_ask():
                continue  # the method writes the user lines: a person sitting there types nothing
            if self._next_seat.get(seat_role, current) == HUMAN and self._started[role] < total:
                return role
        return None

    def _update_human_box(self) -> None:
        role = self._human_role()
        box = self.query_one("#human-box")
        waiting = self.control is not None and self.control.human.waiting
        if role is not None and self.is_scene:
            speaker = self.control.human.speaker if self.control is not None else None
            hand_back, speaker_key = self.app.shown_key("live.hand_back", "ctrl+b"), self.app.shown_key("live.next_speaker", "ctrl+n")
            if waiting and speaker:
                text = (f"Your line as {self.label(speaker)}: enter sends, {speaker_key} next speaker, "
                        f"{hand_back} hand back")
            else:
                sitting = ", ".join(self.label(n) for n in self._human_members())
                text = f"You sit as {sitting}: type ahead, enter sends, {speaker_key} next speaker"
            self.query_one("#human-prompt", Static).update(Text(text, style="bold"))
        elif role is not None:
            hand_back = self.app.shown_key("live.hand_back", "ctrl+b")
            queued = self.control is not None and self.control.human.pending and not waiting
            prompt = Text(f"Your turn ({_role(role)}): enter sends, {hand_back} gives the seat to a model" if waiting
                          else f"Your next {_role(role)} line is sent and waits for its turn; what you type now "
                               f"stays here until then ({hand_back} gives the seat to a model)" if queued
                          else f"Your {_role(role)} turn comes next: type ahead, enter sends, {hand_back} gives the "
                               "seat to a model", style="bold")
            if role == "user" and self.stored is not None and self._dmt():
                prompt.append("\n")
                prompt.append(self._seed_hint(self.stored))
            self.query_one("#human-prompt", Static).update(prompt)
        now_waiting = waiting and not self._was_waiting  # the engine just started to wait: your turn
        self._was_waiting = waiting
        if (role is not None) != box.display or (role is not None and now_waiting):
            box.display = role is not None
            if role is not None:
                self.query_one("#human-input", Input).focus()
            else:
                self.query_one(Transcript).focus()

    def _dmt(self) -> bool:
        return self.stored is not None and self.stored.spec.method == "dmt"

    def _next_user_turn(self) -> int:
        human = self.control.human if self.control is not None else None
        if human is not None and human.waiting and human.turn:
            return human.turn
        if self._current is not None and self._current[1] == "user":
            return self._current[0]
        return self._started["user"] + 1

    def _seed_hint(self, stored: StoredSession) -> Text:
        """What a person writing a dmt round is after: the seed's topic and intent, a sub-intent to try."""
        from pingpong.core.methods.dmt_hints import suggest_sub_intent

        situation = stored.situation
        intent = situation.intent
        hint = Text()
        hint.append("topic ", style="dim")
        hint.append(situation.topic or situation.text)
        hint.append("  intent ", style="dim")
        hint.append(intent.value.replace("_", " ") if intent else "free conversation")
        hint.append("\ntry: ", style="dim")
        hint.append(suggest_sub_intent(intent, self._next_user_turn()), style="italic")
        hint.append("   ctrl+g ends the dialogue", style="dim")
        return hint

    @on(Input.Changed, "#human-input")
    def keep_unsent(self, event: Input.Changed) -> None:
        """What the box holds outlives this screen: leaving the session and opening it again finds it."""
        if not self.follow:
            self.app.runs.keep_unsent(self.session_id, event.value)

    @on(Input.Submitted, "#human-input")
    async def send_human(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        if not text:
            self.notify("Type something first", severity="warning")
            return
        if self.control is None:
            return
        human = self.control.human
        if human.pending and not human.waiting:  # one line ahead at most: a second would answer a turn unseen
            self.notify("Your next line is already sent; this one stays in the box until that turn is taken",
                        severity="warning")
            return
        event.input.value = ""
        await human.submit(text)
        self._update_human_box()

    # -- the score panel ----------------------------------------------------------------
    def _scores_changed(self) -> None:
        """Every place a score shows: the cards, the panel and the header's final."""
        transcript = self.query_one(Transcript)
        transcript.set_scores(self.verdicts, self.human)
        self._explain(transcript.selected_turn)
        self._refresh_info()

    def _explain(self, turn: int | None) -> None:
        method = self.stored.spec.method if self.stored is not None else None
        self.query_one(ExplanationsPanel).show(turn, self.verdicts, self.human, method)

    @on(Transcript.TurnSelected)
    def turn_selected(self, event: Transcript.TurnSelected) -> None:
        self._explain(event.turn)

    def _finished_notice(self) -> str:
        if self.is_scene:
            return "finished: up/down select an answer to read its score, escape goes back"
        return f"finished: {self.app.shown_key('live.override', 'o')} rates the selected turn, escape goes back"

    # -- stored state (start, follow mode) ----------------------------------------------
    def _show_stored(self, stored: StoredSession) -> None:
        self.stored = stored
        if not self.is_scene:
            self._load_cast(stored)
        self.status = stored.status
        self.verdicts = list(stored.verdicts)
        self.human = list(stored.human_scores)
        if self.session_run is None:  # a running engine reports its seats itself
            self.seat = stored.seat("interrogator")
            self.player_seat = stored.seat("player")
        self._user_turns = [(m.turn, m.author) for m in stored.messages if m.role == "user"]
        for role in ("user", "assistant"):
            self._started[role] = max((m.turn for m in stored.messages if m.role == role), default=0)
        transcript = self.query_one(Transcript)
        if not self._greeted:
            self._greeted = True
            transcript.set_greeting(*_greeting(stored))
        if self.follow:  # a newer copy of the same session: add what is new, keep the view
            transcript.sync(stored.messages, self.verdicts, self.human)
        else:
            transcript.load(stored.messages, self.verdicts, self.human)
        self._explain(transcript.selected_turn)
        if stored.status == "finished" and not self.follow:
            self._set_notice(self._finished_notice())
        self._refresh_info()

    def _poll(self) -> None:
        if self.follow and self.status in ("loading", "running"):
            self.load_stored()

    @work(thread=True, exclusive=True, group="follow", exit_on_error=False)
    def load_stored(self) -> None:
        with self._read_store.use() as store:
            stored = store.session(self.session_id)
            spend = self.app.session_spend(self.session_id, store)
            draft = store.draft(self.session_id)
        self.post_message(SessionLoaded(stored, spend, draft))

    def on_session_loaded(self, message: SessionLoaded) -> None:
        stored, draft = message.stored, message.draft
        self.spend = message.spend
        key = (stored.status, len(stored.messages), sum(len(v.turns) for v in stored.verdicts),
               len(stored.human_scores), draft)
        if key == self._loaded_key:
            return
        self._loaded_key = key
        self._show_stored(stored)
        transcript = self.query_one(Transcript)
        if draft is not None and stored.status == "running":  # the reply being streamed, as saved
            transcript.set_streaming(draft.turn, draft.role, draft.author, draft.text)
            self._set_notice(f"turn {draft.turn}: {draft.author} writing as {_role(draft.role)}…  "
                             f"({stored.turns_done}/{stored.num_turns} turns done)")
        elif stored.status == "running":
            transcript.clear_streaming()
            self._set_notice(f"watching: {stored.turns_done}/{stored.num_turns} turns done")
        else:
            transcript.clear_streaming()
            self._set_notice(f"{stored.status}" + (f": {stored.error}" if stored.error else ""))

    def _reload_scores(self) -> None:
        self.human = list(self.app.store.human_scores(self.session_id))
        self._scores_changed()

    # -- header lines -------------------------------------------------------------------
    def _refresh_info(self) -> None:
        """Who and what, then the final and the status, then the seats: the header shows two rows, so
        what a long seat list would push out of view comes before it."""
        info = Text()
        stored = self.stored
        if stored is not None:
            spec = stored.spec
            info.append(f"#{self.session_id} ", style="bold")
            info.append(spec.situation if self.is_scene else spec.character, style="bold cyan")
            if not self.is_scene:
                info.append(f" in {spec.situation}")
        status = self.status
        if self.control is not None and self.running and self.control.paused:
            status = "paused"
        if stored is not None and status == "finished":
            final = stored_final(stored.model_copy(update={"verdicts": self.verdicts, "human_scores": self.human}))
            if final.text():
                info.append(f"  final {final.text()}", style="bold")
        info.append(f"  [{status}]", style=_STATUS_STYLE.get(status, "bold"))
        if stored is not None and self.is_scene:
            info.append(f"  {len(self.cast_names)} characters, tested {self.label(spec.character)}  ")
            info.append(f"narrator {self.seat or spec.interrogator}")
            info.append(f"  {spec.method}", style="dim")
        elif stored is not None:
            from pingpong.sessions.seats import interrogator_words, judges_words

            info.append(f"  player {self.player_seat or spec.player}  "
                        f"interrogator {interrogator_words(spec.method, self.seat_label())}")
            info.append(f"  judges {judges_words(spec.method, spec.judges)}  {spec.method}", style="dim")
            if self.spend is not None:
                info.append(f"  spent {self.spend.text()}", style="dim")
        self.query_one("#session-info", Static).update(info)

    def seat_label(self) -> str:
        """Who sat in the interrogator seat, worded as Home and `sessions show` word it."""
        stored = self.stored
        current = self.seat or (stored.spec.interrogator if stored is not None else "")
        scripted = get_method(stored.spec.method).scripted_authors if stored is not None else frozenset()
        return seat_label(spans(t for t in self._user_turns if t[1] not in scripted), current,
                          self.status != "finished")

    def _set_notice(self, text: str, *, warn: bool = False) -> None:
        self.notice = text
        self.query_one("#status-line", Static).update(Text(text, style="bold yellow" if warn else ""))

    # -- actions ------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple) -> bool | None:
        """Session controls show only while the engine runs here; retry only after a stop."""
        control = self.control if self.running else None
        live = control is not None
        if action == "next_speaker":
            return live and self.is_scene
        if action == "override" and self.is_scene:
            return False  # scored by rule; `pingpong sessions score` records a person's value
        if action in ("take_seat", "hand_back") and live and self.is_scene:
            yours = self._next_seat.get("interrogator", self.seat) == HUMAN or self._holds_member_seat()
            return yours if action == "hand_back" else True
        if action == "to_box":
            return not self.is_scene and self._box_left()
        if action == "take_seat" and not self._people_ask():
            return False  # its interrogator also scores the replies, or writes nothing: a model's seat
        if action == "end_dialogue":
            return control is not None and self._dmt() and not control.ending and self._dialogue_open()
        if action == "take_seat" and live:
            return self._next_seat.get("interrogator", self.seat) != HUMAN
        if action == "hand_back" and live:
            return self._held_seat() is not None
        if action in ("pause", "continue") and control is not None:
            return control.paused == (action == "continue")
        if action in ("pause", "step", "continue", "stop", "take_seat", "hand_back"):
            return live
        if action == "retry":
            return not self.follow and not self.running and self.status in ("failed", "interrupted")
        return True

    def _people_ask(self) -> bool:
        """A person in the interrogator seat would write this session's user lines (the method's rule)."""
        stored = self.stored
        return stored is None or get_method(stored.spec.method).people_ask_in(stored.situation)

    def _box_left(self) -> bool:
        """The message box shows (a person holds a seat) but has not the keys: escape left it."""
        box = self.query_one("#human-input", Input)
        return bool(self.query_one("#human-box").display) and self.focused is not box

    def action_to_box(self) -> None:
        self.query_one("#human-input", Input).focus()

    def _held_seat(self) -> str | None:
        """The seat a person holds (or will from the next turn): "interrogator", "player" or None."""
        for seat, current in (("interrogator", self.seat), ("player", self.player_seat)):
            if self._next_seat.get(seat, current) == HUMAN:
                return seat
        return None

    def _paused_changed(self) -> None:
        self._shown_paused = bool(self.control is not None and self.control.paused)
        self._refresh_info()
        self.refresh_bindings()

    def action_pause(self) -> None:
        if self.control is not None and not self.control.paused:
            self.control.pause()
            self._set_notice("paused: space continues, s runs one turn")
            self._paused_changed()

    def action_continue(self) -> None:
        if self.control is not None and self.control.paused:
            self.control.resume()
            self._set_notice("continuing")
            self._paused_changed()

    def action_step(self) -> None:
        if self.control is None:
            return
        self.control.step()
        self._set_notice("running one turn, then pausing")
        self._paused_changed()

    def action_stop(self) -> None:
        """Ask, then stop: the message being written is dropped; r resumes later."""
        if self.control is None or not self.running:
            return
        from pingpong.tui.screens.choice import ChoiceScreen

        def answered(choice: str | None) -> None:
            if choice == "stop":
                self._stop_now()

        self.app.push_screen(ChoiceScreen(
            f"Stop session {self.session_id}?",
            "The message being written is dropped; the session can be resumed later (r).",
            [("s", "Stop", "stop"), ("k", "Keep running", "keep")]), answered)

    def _stop_now(self) -> None:
        if self.session_run is not None:
            self.session_run.stop()
        self._set_notice("stopping…")

    def _dialogue_open(self) -> bool:
        """No stop decision has ended the dialogue yet (the judges have not started)."""
        replies = [c for c in self.query_one(Transcript).cards() if c.role == "assistant"]
        return not replies or replies[-1].notes.get("stop") in (None, "continue")

    def action_end_dialogue(self) -> None:
        if self.control is None or not self.running or not self._dmt():
            self.notify("Only a running dmt session's dialogue can be ended early", severity="warning")
            return
        self.control.end_dialogue()
        self._set_notice("the dialogue ends before the next user message; then the judges label its rounds")
        self._update_human_box()
        self.refresh_bindings()

    def action_take_seat(self) -> None:
        if self.control is None or not self.running:
            self.notify("The session is not running", severity="warning")
            return
        if self.is_scene:
            self._scene_take_seat()
            return
        self._take_narrator_seat()

    def _take_narrator_seat(self) -> None:
        """The interrogator seat (a group scene's narrator) goes to the person from its next turn."""
        if self.control is None:
            return
        if self._next_seat.get("interrogator", self.seat) == HUMAN:
            self.query_one("#human-input", Input).focus()  # already yours: back to the box
            return
        self._gave_up["interrogator"] = self._next_seat.get("interrogator", self.seat)
        if self._held_seat() is None and not self._holds_member_seat():
            self._take_back_typed_ahead()  # a seat taken again starts with nothing queued
        self.control.set_seat("interrogator", HUMAN)
        self._next_seat["interrogator"] = HUMAN
        self._set_notice("you choose who speaks next from the next line" if self.is_scene
                         else "you take the interrogator seat from the next user turn")
        self._update_human_box()
        self.refresh_bindings()

    def action_hand_back(self) -> None:
        """Give the seat a person holds (the interrogator's, or a spot-check's player seat) to a model."""
        if self.is_scene and self.control is not None and self.running:  # the narrator's or a member's seat
            self._scene_hand_back()
            return
        seat = self._held_seat() if self.control is not None and self.running else None
        if seat is None:
            self.notify("You hold no seat in a running session", severity="warning")
            return
        from pingpong.tui.screens.pickers import ModelPicker

        names = [n for n in self.app.models]

        def chosen(name: str | None) -> None:
            if name and self.control is not None:
                self.control.set_seat(seat, name)
                self._next_seat[seat] = name
                self._take_back_typed_ahead()
                self._set_notice(f"{seat} seat goes to {name} from the next {_role_of_seat(seat)} turn")
                self._update_human_box()
                self.refresh_bindings()

        self.app.push_screen(ModelPicker(names, title=f"Hand the {seat} seat to", current=self._seat_model(seat)),
                             chosen)

    def _seat_model(self, seat: str) -> str | None:
        """The model a person took the seat from: on this screen, or, after a resume, the session's own."""
        given = self._gave_up.get(seat)
        if given is None and self.stored is not None:
            given = self.stored.spec.interrogator if seat == "interrogator" else self.stored.spec.player
        return given if given != HUMAN else None

    def _take_back_typed_ahead(self) -> None:
        """Text sent ahead that no turn has taken yet goes back into the message box, unsent: a seat
        handed to a model must not leave it queued for a later human turn."""
        if self.control is None:
            return
        texts = self.control.human.withdraw()
        if texts:
            box = self.query_one("#human-input", Input)
            box.value = " ".join(t for t in (*texts, box.value) if t)

    def action_override(self) -> None:
        transcript = self.query_one(Transcript)
        turn = transcript.selected_turn
        turns = transcript.player_turns()
        if turn is None and turns:
            turn = turns[-1]
        if turn is None:
            self.notify("No player turn to rate yet", severity="warning")
            return

        transcript.select_turn(turn)
        rate_turn(self, self.session_id, turn, self.verdicts, self.human, self._reload_scores,
                  label_metrics(self.stored))

    def action_retry(self) -> None:
        if self.follow or self.running or not self.app.writable("resuming the session"):
            return
        try:
            stored = self.app.store.session(self.session_id)
        except Exception as exc:
            self.notify(str(exc), severity="error")
            return
        self.spend = self.app.session_spend(self.session_id)
        self._show_stored(stored)
        self._set_notice("resuming…")
        self.start_engine()
        self.refresh_bindings()

    def leave_input(self) -> None:
        """Escape in the message box: back to the transcript (what you typed stays in the box)."""
        self.query_one(Transcript).focus()

    def action_back(self) -> None:
        """Back to where you came from; a session running here asks: background, stop, or stay."""
        if not self.running:
            self.app.pop_screen()
            return
        from pingpong.tui.screens.choice import ChoiceScreen

        def answered(choice: str | None) -> None:
            if choice == "stop":
                self._stop_now()
            if choice in ("keep", "stop"):
                self.app.pop_screen()

        self.app.push_screen(ChoiceScreen(
            f"Leave session {self.session_id}?",
            "It is still running. Keep it running in the background (Home shows it as live; open it "
            "again to steer it), or stop it (it can be resumed later).",
            [("k", "Keep running", "keep"), ("s", "Stop", "stop"), ("escape", "Stay", "stay")]), answered)


_STATUS_STYLE = {"running": "bold green", "finished": "bold blue", "failed": "bold red",
                 "interrupted": "bold yellow", "paused": "bold yellow"}


def _role_of_seat(seat: str) -> str:
    return "user" if seat == "interrogator" else "player"


def _greeting(stored: StoredSession) -> tuple[str, str | None]:
    """(the character's name, the greeting the player was given as its first line, or None): what a
    model interrogator reads before turn 1, so a person in the seat reads it too."""
    from pingpong.core.macros import with_names
    from pingpong.core.prompts import PromptRenderer

    spec = stored.spec
    if spec.cast or not PromptRenderer.greets(spec.prompt_format, spec.prompting):
        return stored.character.char_name, None
    card = with_names(stored.character, spec.user_name)
    return card.char_name, card.greeting or None


def _role(role: str) -> str:
    return {"user": "interrogator", "assistant": "player"}.get(role, role)
