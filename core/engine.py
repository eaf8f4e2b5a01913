"""One session of the method, run turn by turn, as an async stream of typed events.

The engine knows seats (a model name or "human"), the prompts and the judging
rules; it knows nothing of storage or screens. Work happens in a producer task
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
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass

from pingpong.core.control import Gate, SessionControl
from pingpong.core.domain import HUMAN, Character, JudgeVerdict, Message, Role, SeatRole, SessionSpec, Situation, TurnScore
from pingpong.core.errors import UserError
from pingpong.core.events import (
    CallFinished, Delta, Event, JudgeStarted, MessageCompleted, SeatChanged, SessionFailed,
    SessionFinished, TurnStarted, VerdictReady,
)
from pingpong.core.judging import (
    ParseError, failed_scores, parse_interrogator, parse_interrogator_judge, parse_judge,
)
from pingpong.core.llm import ChatRequest, Completion, ModelCallError, ModelPool, role_of
from pingpong.core.macros import with_names
from pingpong.core.prompts import PromptRenderer

_END = object()
_CANCELLED = object()

SEAT_OF: dict[Role, SeatRole] = {"user": "interrogator", "assistant": "player"}


class _Stop(Exception):
    """A seat failed for good; the SessionFailed event has been emitted."""


@dataclass
class _Usage:
    """Tokens and time summed over the calls that made one message (a re-ask is two calls)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    estimated: bool = False
    latency_ms: float = 0.0
    attempts: int = 0

    def add(self, c: Completion) -> None:
        self.prompt_tokens += c.prompt_tokens
        self.completion_tokens += c.completion_tokens
        self.estimated = self.estimated or c.tokens_estimated
        self.latency_ms += c.latency_ms
        self.attempts += c.attempts


class SessionEngine:
    """Runs one (character, situation) session from ``history`` to the judges' verdicts."""

    def __init__(self, *, spec: SessionSpec, character: Character, situation: Situation,
                 pool: ModelPool, control: SessionControl | None = None,
                 history: Sequence[Message] = (), verdicts: Sequence[JudgeVerdict] = (),
                 renderer: PromptRenderer | None = None):
        self.spec = spec
        self.character = with_names(character)
        self.situation = situation
        self.pool = pool
        self.control = control or SessionControl()
        self.renderer = renderer or PromptRenderer()
        self.num_turns = spec.num_turns or situation.num_turns
        self.lang = spec.lang or situation.lang
        self.transcript: list[Message] = _checked_history(history)
        self.verdicts = list(verdicts)
        self.seats: dict[SeatRole, str] = {"player": spec.player, "interrogator": spec.interrogator}
        self._emit: Callable[[Event], None] = lambda event: None

    # -- the public stream ---------------------------------------------

    async def run(self) -> AsyncIterator[Event]:
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
            await self._session()
        except _Stop:
            pass
        except asyncio.CancelledError:
            queue.put_nowait(_CANCELLED)
            raise
        except Exception as exc:  # a bug: hand it to the consumer instead of losing it
            queue.put_nowait(exc)
            return
        queue.put_nowait(_END)

    # -- the loop --------------------------------------------------------

    async def _session(self) -> None:
        turn, role = self._resume_point()
        while turn <= self.num_turns:
            if role == "user":
                await self._gate("user")
                message = await self._user_message(turn)
                self._complete(message)
                role = "assistant"
            await self._gate("assistant")
            self._complete(await self._player_message(turn))
            turn, role = turn + 1, "user"
        await self._gate("judges")
        if self.spec.version == 1:
            await self._v1_final()
        else:
            await self._judges()
        self._emit(SessionFinished())

    def _resume_point(self) -> tuple[int, Role]:
        if not self.transcript:
            return 1, "user"
        last = self.transcript[-1]
        return (last.turn, "assistant") if last.role == "user" else (last.turn + 1, "user")

    def _complete(self, message: Message) -> None:
        self.transcript.append(message)
        self._emit(MessageCompleted(message))

    async def _gate(self, gate: Gate) -> None:
        """Between messages: apply seat changes, honour pause/step, notice cancel."""
        control = self.control
        while True:
            self._apply_seat_changes()
            if control.cancelled:
                raise asyncio.CancelledError
            if control._allows(gate):
                return
            await control._wait_change()

    def _apply_seat_changes(self) -> bool:
        changed = False
        for role, who in self.control._take_seat_changes().items():
            if self.seats.get(role) != who:
                self.seats[role] = who  # type: ignore[index]
                self._emit(SeatChanged(role, who))  # type: ignore[arg-type]
                changed = True
        return changed

    # -- seats -----------------------------------------------------------

    async def _human_text(self, role: Role, turn: int) -> str | None:
        """The person's text, or None when the seat was given to a model meanwhile."""
        seat = SEAT_OF[role]
        take = asyncio.ensure_future(self.control.human.take(role, turn))
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
                if self.seats[seat] != HUMAN:
                    return None
        finally:
            if not take.done():
                take.cancel()
                await asyncio.wait([take])

    async def _user_message(self, turn: int) -> Message:
        while True:
            who = self.seats["interrogator"]
            self._emit(TurnStarted(turn, "user", who))
            if who == HUMAN:
                text = await self._human_text("user", turn)
                if text is None:
                    continue
                return Message(turn=turn, role="user", author=HUMAN, text=text)
            if self.spec.version == 1:
                return await self._v1_user_message(turn, who)
            return await self._model_user_message(turn, who)

    async def _player_message(self, turn: int) -> Message:
        while True:
            who = self.seats["player"]
            self._emit(TurnStarted(turn, "assistant", who))
            if who == HUMAN:
                text = await self._human_text("assistant", turn)
                if text is None:
                    continue
                return Message(turn=turn, role="assistant", author=HUMAN, text=text)
            messages = self.renderer.player(self.character, self.transcript)
            completion = await self._seat_call(
                "player", who, "player", messages, turn,
                on_delta=lambda piece: self._emit(Delta(turn, "assistant", piece)))
            usage = _Usage()
            usage.add(completion)
            return self._model_message(turn, "assistant", who, completion.text.strip(), usage)

    async def _model_user_message(self, turn: int, who: str) -> Message:
        messages = self.renderer.interrogator(self.character, self.situation, self.transcript,
                                              turn=turn, num_turns=self.num_turns, lang=self.lang)
        usage = _Usage()
        completion = await self._seat_call("interrogator", who, "interrogator", messages, turn)
        usage.add(completion)
        try:
            text = parse_interrogator(completion.text)
        except ParseError as first:
            again = self.renderer.interrogator_reask(messages, completion.text, str(first), lang=self.lang)
            completion = await self._seat_call("interrogator", who, "interrogator", again, turn)
            usage.add(completion)
            try:
                text = parse_interrogator(completion.text)
            except ParseError as second:
                self._fail(f"interrogator '{who}' gave no usable JSON after a re-ask: {second}",
                           "interrogator", who)
        return self._model_message(turn, "user", who, text, usage)

    def _model_message(self, turn: int, role: Role, who: str, text: str, usage: _Usage) -> Message:
        return Message(turn=turn, role=role, author=who, text=text,
                       prompt_tokens=usage.prompt_tokens, completion_tokens=usage.completion_tokens,
                       tokens_estimated=usage.estimated, latency_ms=round(usage.latency_ms, 1),
                       attempt=max(1, usage.attempts))

    # -- model calls -----------------------------------------------------

    def _context(self, turns: Sequence[int] = ()) -> dict:
        return {"character": self.character, "situation": self.situation,
                "transcript": list(self.transcript), "turns": list(turns)}

    async def _call(self, name: str, task: str, messages: list[dict], turn: int | None,
                    turns: Sequence[int] = (),
                    on_delta: Callable[[str], None] | None = None) -> Completion:
        """One request; ModelCallError on failure (a missing/unknown model becomes one too)."""
        try:
            model = self.pool.get(name)
        except UserError as exc:
            raise ModelCallError(name, role_of(task), str(exc), False) from None
        request = ChatRequest(task=task, messages=messages, turn=turn,  # type: ignore[arg-type]
                              context=self._context(turns))
        return await model.complete(request, on_delta=on_delta,
                                    on_call=lambda record: self._emit(CallFinished(record)))

    async def _seat_call(self, seat: SeatRole, name: str, task: str, messages: list[dict],
                         turn: int, on_delta: Callable[[str], None] | None = None) -> Completion:
        """A call for the conversation itself: failure ends the session."""
        try:
            return await self._call(name, task, messages, turn, on_delta=on_delta)
        except ModelCallError as exc:
            self._fail(f"{seat} '{name}' failed: {exc.reason}", seat, name)

    def _fail(self, error: str, role: SeatRole, model: str):
        self._emit(SessionFailed(error=error, role=role, model=model))
        raise _Stop

    # -- judges (version 2) ----------------------------------------------

    def _player_turns(self) -> list[int]:
        return [m.turn for m in self.transcript if m.role == "assistant"]

    async def _judges(self) -> None:
        done = {v.judge for v in self.verdicts}
        names = list(dict.fromkeys(j for j in self.spec.judges if j not in done))
        turns = self._player_turns()
        if not names or not turns:
            return
        await asyncio.gather(*(self._judge(name, turns) for name in names))

    async def _judge(self, name: str, turns: list[int]) -> None:
        """One judge: ask, re-ask once for what is missing, record failures as failed turns."""
        self._emit(JudgeStarted(name, tuple(turns)))
        messages = self.renderer.judge(self.character, self.transcript, turns=turns,
                                       lang=self.character.lang)
        requests = 1
        try:
            completion = await self._call(name, "judge", messages, None, turns)
        except ModelCallError as exc:
            self._verdict(name, failed_scores(turns, f"judge call failed: {exc.reason}"), requests)
            return
        parsed = parse_judge(completion.text, turns)
        scores = dict(parsed.scores)
        error = ""
        if parsed.missing:
            requests += 1
            again = self.renderer.judge_reask(messages, completion.text, _sentence(parsed.problem),
                                              turns=parsed.missing)
            try:
                completion = await self._call(name, "judge", again, None, parsed.missing)
            except ModelCallError as exc:
                error = f"judge re-ask failed: {exc.reason}"
            else:
                second = parse_judge(completion.text, parsed.missing)
                scores.update(second.scores)
                error = f"no valid scores after a re-ask: {second.problem}" if second.missing else ""
        result = [scores.get(t) or TurnScore(turn=t, status="failed", error=error or "no scores")
                  for t in turns]
        self._verdict(name, result, requests)

    def _verdict(self, judge: str, turns: list[TurnScore], attempts: int) -> None:
        verdict = JudgeVerdict(judge=judge, turns=turns, attempts=attempts)
        self.verdicts.append(verdict)
        self._emit(VerdictReady(verdict))

    # -- interrogator-judge (version 1) ----------------------------------

    def _v1_scored(self) -> set[int]:
        return {ts.turn for v in self.verdicts for ts in v.turns}

    async def _v1_call(self, who: str, turn: int | None, score_turn: int | None):
        """Ask the interrogator-judge; re-ask once. Returns (utterance, usage); records the score."""
        messages = self.renderer.interrogator_judge(
            self.character, self.situation, self.transcript, turn=turn, score_turn=score_turn,
            num_turns=self.num_turns, lang=self.lang)
        need = dict(need_score=score_turn is not None, need_utterance=turn is not None)
        usage = _Usage()
        requests = 1
        call_turn = turn if turn is not None else score_turn
        try:
            completion = await self._call(who, "interrogator_judge", messages, call_turn,
                                          [score_turn] if score_turn else [])
        except ModelCallError as exc:
            if turn is None:  # only a score was at stake
                self._verdict(who, failed_scores([score_turn], f"call failed: {exc.reason}"), 1)
                return None, usage
            self._fail(f"interrogator '{who}' failed: {exc.reason}", "interrogator", who)
        usage.add(completion)
        parsed = parse_interrogator_judge(completion.text, **need)
        if parsed.problems:
            requests += 1
            again = self.renderer.interrogator_judge_reask(
                messages, completion.text, parsed.problem, turn=turn, score_turn=score_turn)
            try:
                completion = await self._call(who, "interrogator_judge", again, call_turn,
                                              [score_turn] if score_turn else [])
            except ModelCallError as exc:
                if turn is not None and parsed.utterance is None:
                    self._fail(f"interrogator '{who}' failed: {exc.reason}", "interrogator", who)
                second = None
                problem = f"re-ask failed: {exc.reason}"
            else:
                usage.add(completion)
                second = parse_interrogator_judge(completion.text, **need)
                problem = second.problem
            if second is not None:
                if second.utterance is not None or parsed.utterance is None:
                    parsed.utterance = second.utterance
                if second.score is not None:
                    parsed.score, parsed.explanation = second.score, second.explanation
            if turn is not None and parsed.utterance is None:
                self._fail(f"interrogator '{who}' gave no usable JSON after a re-ask: {problem}",
                           "interrogator", who)
            if score_turn is not None and parsed.score is None:
                self._verdict(who, failed_scores([score_turn], f"no valid score after a re-ask: {problem}"),
                              requests)
                score_turn = None
        if score_turn is not None:
            explanations = {"overall": parsed.explanation} if parsed.explanation else {}
            self._verdict(who, [TurnScore(turn=score_turn, overall=parsed.score,
                                          explanations=explanations)], requests)
        return parsed.utterance, usage

    def _v1_score_turn(self, turn: int) -> int | None:
        previous = turn - 1
        if previous >= 1 and previous in self._player_turns() and previous not in self._v1_scored():
            return previous
        return None

    async def _v1_user_message(self, turn: int, who: str) -> Message:
        text, usage = await self._v1_call(who, turn, self._v1_score_turn(turn))
        return self._model_message(turn, "user", who, text, usage)

    async def _v1_final(self) -> None:
        who = self.seats["interrogator"]
        last = self.num_turns
        if who == HUMAN or last not in self._player_turns() or last in self._v1_scored():
            return
        self._emit(JudgeStarted(who, (last,)))
        await self._v1_call(who, None, last)


def _sentence(problem: str) -> str:
    problem = problem or "the answer could not be used"
    return problem[:1].upper() + problem[1:]


def _checked_history(history: Sequence[Message]) -> list[Message]:
    """History must read user, assistant, user, ... with turns 1, 1, 2, 2, ...;
    anything else would make the resumed session lie about who said what."""
    messages = list(history)
    for i, m in enumerate(messages):
        want_turn, want_role = i // 2 + 1, ("user" if i % 2 == 0 else "assistant")
        if m.turn != want_turn or m.role != want_role:
            raise ValueError(f"history message {i + 1} is turn {m.turn} {m.role}; "
                             f"expected turn {want_turn} {want_role}")
    return messages
