"""One session of any method, run turn by turn, as an async stream of typed events.

The engine knows seats (a model name or "human"), how to call a model and how to
wait for a person; the method module (core.methods) decides who speaks, what each
seat is told, when to stop and what is scored. It knows nothing of storage or screens. Work happens in a producer task
that puts events on a queue, so judges can run concurrently and their events
interleave, while ``run()`` hands the events to one consumer in order.

Invariants the consumers rely on:
- a MessageCompleted is emitted only for a whole message; Deltas before it may
  be dropped when a CallFinished(status="retry") arrives (the attempt is redone);
- after SessionFailed or SessionFinished nothing else is emitted;
- cancelling (the consumer's task, or SessionControl.cancel) stops at once and
  run() raises CancelledError; messages completed so far stay valid.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, Awaitable, Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import NoReturn

from pingpong.core.control import Gate, SessionControl
from pingpong.core.domain import (
    HUMAN,
    Character,
    JudgeVerdict,
    Message,
    Role,
    Score,
    SeatRole,
    SessionSpec,
    Situation,
    finish_notes,
)
from pingpong.core.errors import UserError
from pingpong.core.events import (
    CallFinished,
    Delta,
    Event,
    MessageCompleted,
    NotesChanged,
    SeatChanged,
    SessionFailed,
    SessionFinished,
    SpeakerWanted,
    TurnStarted,
    VerdictReady,
)
from pingpong.core.llm import ChatRequest, Completion, ModelCallError, ModelPool, Task, role_of
from pingpong.core.macros import with_names
from pingpong.core.methods import get_method
from pingpong.core.methods.base import Method
from pingpong.core.prompts import Messages, PromptRenderer

_END = object()
_CANCELLED = object()

SEAT_OF: dict[Role, SeatRole] = {"user": "interrogator", "assistant": "player"}

PLAYER_ASKS = 2
"""A player reply shorter than the method's ``min_reply_chars`` (after stripping) is asked for again;
after PLAYER_ASKS such replies the session fails (the published runs did the same)."""


class Stop(Exception):
    """A seat failed for good; the SessionFailed event has been emitted."""


@dataclass
class Usage:
    """Tokens and time summed over the calls that made one message (a re-ask is two calls)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    estimated: bool = False
    latency_ms: float = 0.0
    attempts: int = 0
    finish: str | None = None  # how the last call (whose text is kept) ended: its finish_reason

    def add(self, c: Completion) -> None:
        self.prompt_tokens += c.prompt_tokens
        self.completion_tokens += c.completion_tokens
        self.estimated = self.estimated or c.tokens_estimated
        self.latency_ms += c.latency_ms
        self.attempts += c.attempts
        self.finish = c.finish_reason


class SessionEngine:
    """Runs one session of ``spec.method`` from ``history`` to the end of its scoring.

    The public methods below are what a method module uses: gates between messages, the seats'
    messages (a person's text or a model's), calls to any model, verdicts and failure.
    """

    def __init__(self, *, spec: SessionSpec, character: Character, situation: Situation,
                 pool: ModelPool, control: SessionControl | None = None,
                 history: Sequence[Message] = (), verdicts: Sequence[JudgeVerdict] = (),
                 renderer: PromptRenderer | None = None, method: Method | None = None,
                 judge_only: bool = False, deltas: float | None = 0.0, cast: Sequence[Character] = (),
                 seats: Mapping[SeatRole, str] | None = None):
        """judge_only: run only the method's scoring over ``history`` (re-judging a stored session);
        no player or interrogator call is made. deltas: how streamed text is passed on as Delta events:
        0 every piece (a screen draws them), N > 0 gathered and sent at most every N seconds (a batch
        run saves a draft now and then), None never. cast: the cards of a group session's members
        (``spec.cast``); the member under test is ``character``. seats: who holds each seat now, when it
        changed hands since the spec was written (a resumed session goes on with them)."""
        self.spec = spec
        self.method = method or get_method(spec.method)
        self.character = with_names(character, spec.user_name)
        self.situation = situation
        self.pool = pool
        self.control = control or SessionControl()
        self.renderer = renderer or PromptRenderer()
        self.num_turns = spec.num_turns or self.method.planned_turns(situation)
        self.lang = spec.lang or situation.lang
        self.cast = self._seat_cast(cast)
        if self.cast:
            check_group_history(history, self.cast)
        else:
            self.method.check_history(history)
        self.transcript: list[Message] = list(history)
        self.verdicts = list(verdicts)
        self.seats: dict[SeatRole, str] = {"player": spec.player, "interrogator": spec.interrogator, **(seats or {})}
        self.member_seats: dict[str, str] = {c.character: c.seat for c in spec.cast
                                             if c.character != character.name}
        self.judge_only = judge_only
        self.deltas = deltas
        self._emit: Callable[[Event], None] = lambda event: None

    def _seat_cast(self, cards: Sequence[Character]) -> dict[str, Character]:
        """The group's cards by name in ``spec.cast`` order (empty for a one-character session)."""
        if not self.spec.cast:
            return {}
        given = {card.name: card for card in cards}
        given[self.character.name] = self.character
        missing = [c.character for c in self.spec.cast if c.character not in given]
        if missing:
            raise ValueError(f"cast: no card given for {', '.join(missing)}")
        return {c.character: with_names(given[c.character]) for c in self.spec.cast}

    # -- the public stream ---------------------------------------------

    async def run(self) -> AsyncGenerator[Event, None]:
        """Yield the session's events until SessionFinished or SessionFailed."""
        if self.control.cancelled:
            raise asyncio.CancelledError
        queue: asyncio.Queue = asyncio.Queue()
        self._emit = queue.put_nowait
        producer = asyncio.create_task(self._produce(queue), name="pingpong-session")
        self.control._attach(producer)
        try:
            while True:
                item = await queue.get()
                if item is _END:
                    return
                if item is _CANCELLED:
                    raise asyncio.CancelledError
                if isinstance(item, BaseException):
                    raise item
                yield item
        finally:
            if not producer.done():
                producer.cancel()
                await asyncio.wait([producer])

    async def _produce(self, queue: asyncio.Queue) -> None:
        try:
            if not self.judge_only:
                await self.method.converse(self)
            await self.gate("judges")
            await self.method.judge(self)
            self._emit(SessionFinished())
        except Stop:
            pass
        except asyncio.CancelledError:
            queue.put_nowait(_CANCELLED)
            raise
        except Exception as exc:  # a bug: hand it to the consumer instead of losing it
            queue.put_nowait(exc)
            return
        queue.put_nowait(_END)

    # -- what methods use: flow --------------------------------------------

    def emit(self, event: Event) -> None:
        self._emit(event)

    def resume_point(self) -> tuple[int, Role]:
        """The turn and role of the next message of a user/assistant alternating transcript."""
        if not self.transcript:
            return 1, "user"
        last = self.transcript[-1]
        return (last.turn, "assistant") if last.role == "user" else (last.turn + 1, "user")

    def complete(self, message: Message) -> None:
        self.transcript.append(message)
        self._emit(MessageCompleted(message))

    def amend(self, message: Message, notes: dict[str, str]) -> Message:
        """Give a completed message (one of the transcript's) new notes, and say so."""
        i = max(i for i, m in enumerate(self.transcript) if (m.turn, m.role, m.speaker) ==
                (message.turn, message.role, message.speaker))
        changed = self.transcript[i].model_copy(update={"notes": notes})
        self.transcript[i] = changed
        self._emit(NotesChanged(changed))
        return changed

    async def gate(self, gate: Gate) -> None:
        """Between messages: apply seat changes, honour pause/step, notice cancel. A dialogue a
        person ended passes the user gate at once (the method then stops instead of writing)."""
        control = self.control
        while True:
            self._apply_seat_changes()
            if control.cancelled:
                raise asyncio.CancelledError
            if gate == "user" and control.ending:
                return
            if control._allows(gate):
                return
            await control._wait_change()

    def _apply_seat_changes(self) -> bool:
        changed = False
        for role, who in self.control._take_seat_changes().items():
            if self.seats.get(role) != who:  # type: ignore[call-overload]
                self.seats[role] = who  # type: ignore[index]
                self._emit(SeatChanged(role, who))  # type: ignore[arg-type]
                changed = True
        for name, who in self.control._take_member_seat_changes().items():
            if name == self.character.name and self.seats["player"] != who:
                self.seats["player"] = who
                self._emit(SeatChanged("player", who, name))
                changed = True
            elif name in self.member_seats and self.member_seats[name] != who:
                self.member_seats[name] = who
                self._emit(SeatChanged("player", who, name))
                changed = True
        return changed

    def fail(self, error: str, role: SeatRole, model: str) -> NoReturn:
        """End the session as failed (the seat could not go on)."""
        self._emit(SessionFailed(error=error, role=role, model=model))
        raise Stop

    def verdict(self, judge: str, scores: list[Score], attempts: int = 1) -> JudgeVerdict:
        verdict = JudgeVerdict(judge=judge, scores=scores, attempts=attempts)
        self.verdicts.append(verdict)
        self._emit(VerdictReady(verdict))
        return verdict

    # -- what methods use: seats -------------------------------------------

    async def human_text(self, role: Role, turn: int, speaker: str | None = None) -> str | None:
        """The person's text, or None when the seat was given to a model meanwhile (or, for the
        user's side, the person ended the dialogue instead of writing).
        speaker: a group scene member the person writes for (its seat is watched instead)."""
        seat: Callable[[], str] = (lambda: self.seat_of(speaker)) if speaker else (lambda: self.seats[SEAT_OF[role]])
        take = asyncio.ensure_future(self.control.human.take(role, turn, speaker))
        try:
            while True:
                change = asyncio.ensure_future(self.control._wait_change())
                done, _ = await asyncio.wait({take, change}, return_when=asyncio.FIRST_COMPLETED)
                if take in done:
                    change.cancel()
                    return take.result()
                if self.control.cancelled:
                    raise asyncio.CancelledError
                self._apply_seat_changes()
                if seat() != HUMAN or (role == "user" and self.control.ending):
                    return None
        finally:
            if not take.done():
                take.cancel()
                await asyncio.wait([take])

    async def user_message(self, turn: int, write: UserWriter) -> Message | None:
        """The interrogator seat's message for ``turn``: typed by a person, or written by the
        seat's model through the method's ``write(engine, turn, model)`` (None: stop the dialogue,
        also when a person ends it)."""
        while True:
            if self.control.ending:
                return None
            who = self.seats["interrogator"]
            self._emit(TurnStarted(turn, "user", who))
            if who == HUMAN:
                text = await self.human_text("user", turn)
                if text is None:
                    continue
                return Message(turn=turn, role="user", author=HUMAN, text=text, speaker="user")
            written = await write(self, turn, who)
            if written is None:
                return None
            text, usage = written
            return self.model_message(turn, "user", who, text, usage)

    async def player_message(self, turn: int, messages: Messages | None = None) -> Message:
        """The player seat's message for ``turn``: typed by a person, or the model's streamed reply
        to ``messages`` (default: the method's player prompt for the transcript so far)."""
        while True:
            who = self.seats["player"]
            self._emit(TurnStarted(turn, "assistant", who))
            if who == HUMAN:
                text = await self.human_text("assistant", turn)
                if text is None:
                    continue
                return Message(turn=turn, role="assistant", author=HUMAN, text=text, speaker=self.character.name)
            prompt = messages if messages is not None else self.method.player_prompt(self)
            on_delta = self._delta_sink(turn)
            usage = Usage()
            for asked in range(1, PLAYER_ASKS + 1):
                if asked > 1:  # the short reply is dropped: consumers start the message afresh
                    self._emit(TurnStarted(turn, "assistant", who))
                completion = await self.seat_call("player", who, "player", prompt, turn, on_delta=on_delta)
                usage.add(completion)
                text = completion.answer()
                if len(text) >= self.method.min_reply_chars:
                    return self.model_message(turn, "assistant", who, text, usage)
            self.fail(f"player '{who}' replied with fewer than {self.method.min_reply_chars} characters "
                      f"{PLAYER_ASKS} times{completion.why_unusable(who)}", "player", who)

    # -- what methods use: a group scene ----------------------------------

    def seat_of(self, member: str) -> str:
        """Who plays ``member`` of the group now: the player seat for the member under test."""
        if member == self.character.name:
            return self.seats["player"]
        return self.member_seats[member]

    async def member_message(self, turn: int, member: str, messages: Callable[[], Messages],
                             context: dict | None = None) -> Message:
        """A group member's line for ``turn``: typed by the person in its seat, or the seat's model's
        streamed reply to ``messages()`` (built when needed: the seat may change while waiting)."""
        while True:
            who = self.seat_of(member)
            self._emit(TurnStarted(turn, "assistant", who, speaker=member))
            if who == HUMAN:
                text = await self.human_text("assistant", turn, speaker=member)
                if text is None:
                    continue
                return Message(turn=turn, role="assistant", author=HUMAN, text=text, speaker=member)
            completion = await self.seat_call(
                "player", who, "player", messages(), turn,
                on_delta=self._delta_sink(turn),
                context={"character": self.cast[member], **(context or {})})
            usage = Usage()
            usage.add(completion)
            return self.model_message(turn, "assistant", who, completion.answer(), usage, speaker=member)

    def chosen_speaker(self) -> str | None:
        """A member the person chose to speak next (taken: it counts once), if any."""
        self._apply_seat_changes()
        return self.control._take_speaker()

    async def wait_speaker(self, turn: int) -> str | None:
        """The member the person in the narrator (interrogator) seat chooses to speak at ``turn``;
        None when that seat was given to a model meanwhile."""
        self._emit(SpeakerWanted(turn, tuple(self.cast)))
        while True:
            self._apply_seat_changes()
            if self.control.cancelled:
                raise asyncio.CancelledError
            choice = self.control._take_speaker()
            if choice is not None:
                return choice
            if self.seats["interrogator"] != HUMAN:
                return None
            await self.control._wait_change()

    def _delta_sink(self, turn: int) -> Callable[[str], None] | None:
        """Where the model layer puts streamed pieces of the player's (or a member's) reply."""
        if self.deltas is None:
            return None
        if not self.deltas:
            return lambda piece: self._emit(Delta(turn, "assistant", piece))
        every, pending, last = self.deltas, [], [0.0]

        def gather(piece: str) -> None:
            pending.append(piece)
            now = time.monotonic()
            if now - last[0] >= every:
                last[0] = now
                self._emit(Delta(turn, "assistant", "".join(pending)))
                pending.clear()

        return gather

    def model_message(self, turn: int, role: Role, who: str, text: str, usage: Usage,
                      speaker: str | None = None) -> Message:
        """A model's message; one that did not end with a plain stop (cut at its max_tokens, stopped
        by a content filter) carries the finish_reason in its notes."""
        return Message(turn=turn, role=role, author=who, text=text,
                       speaker=speaker or ("user" if role == "user" else self.character.name),
                       prompt_tokens=usage.prompt_tokens, completion_tokens=usage.completion_tokens,
                       tokens_estimated=usage.estimated, latency_ms=round(usage.latency_ms, 1),
                       attempt=max(1, usage.attempts), notes=finish_notes(usage.finish))

    # -- what methods use: model calls -------------------------------------

    def _context(self, turns: Sequence[int] = ()) -> dict:
        return {"character": self.character, "situation": self.situation,
                "transcript": list(self.transcript), "turns": list(turns), "method": self.method.name}

    async def call(self, name: str, task: Task, messages: Messages, turn: int | None,
                   turns: Sequence[int] = (),
                   on_delta: Callable[[str], None] | None = None, context: dict | None = None) -> Completion:
        """One request; ModelCallError on failure (a missing/unknown model becomes one too).
        context: entries over the usual ones (for the offline model: a group member's card)."""
        try:
            model = self.pool.get(name)
        except UserError as exc:
            raise ModelCallError(name, role_of(task), str(exc), False) from None
        request = ChatRequest(task=task, messages=messages, turn=turn,
                              context={**self._context(turns), **(context or {})})
        return await model.complete(request, on_delta=on_delta,
                                    on_call=lambda record: self._emit(CallFinished(record)))

    async def seat_call(self, seat: SeatRole, name: str, task: Task, messages: Messages,
                        turn: int, on_delta: Callable[[str], None] | None = None,
                        context: dict | None = None) -> Completion:
        """A call for the conversation itself: failure ends the session."""
        try:
            return await self.call(name, task, messages, turn, on_delta=on_delta, context=context)
        except ModelCallError as exc:
            self.fail(f"{seat} '{name}' failed: {exc.reason}", seat, name)

    def player_turns(self) -> list[int]:
        return [m.turn for m in self.transcript if m.role == "assistant"]


def check_group_history(history: Sequence[Message], cast: Collection[str]) -> None:
    """A group scene's stored messages must name a speaker, and turns must run 1, 2, 3, ... with at
    most one narrator line (user) before one member line (assistant) each; anything else would make a
    resumed scene lie about who said what. cast: the members' names. ValueError names the message."""
    previous = (0, "assistant")
    for i, m in enumerate(history):
        if not m.speaker:
            raise ValueError(f"history message {i + 1} (turn {m.turn}) has no speaker")
        if m.role == "assistant" and m.speaker not in cast:
            raise ValueError(f"history message {i + 1} (turn {m.turn}): speaker '{m.speaker}' is not in the cast")
        same_turn_next = m.turn == previous[0] and previous[1] == "user" and m.role == "assistant"
        if not (same_turn_next or m.turn == previous[0] + 1):
            raise ValueError(f"history message {i + 1} is turn {m.turn} {m.role} after turn "
                             f"{previous[0]} {previous[1]}")
        previous = (m.turn, m.role)


UserWriter = Callable[[SessionEngine, int, str], Awaitable[tuple[str, Usage] | None]]
"""A method's way of writing the interrogator model's line: (text, usage), or None to stop."""
