"""PingPong v2 (the default method): an interrogator and a player for the situation's turns,
then every judge scores every player turn (refusal flag plus three 1-5 Likert metrics).

A judge is asked once for all the turns it still owes, and re-asked once for what its
answer lacked; whatever is still missing is recorded as failed (``pingpong judge`` retries it).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING

from pingpong.core.domain import METRICS, Score, Situation
from pingpong.core.judging import ParseError, failed_scores, parse_interrogator, parse_judge
from pingpong.core.llm import ModelCallError
from pingpong.core.methods.base import Method

if TYPE_CHECKING:
    from pingpong.core.domain import Message
    from pingpong.core.engine import SessionEngine, Usage, UserWriter

JUDGED: tuple[str, ...] = ("is_refusal", *METRICS)


def sentence(problem: str) -> str:
    """A parse problem as the first sentence of a re-ask."""
    problem = problem or "the answer could not be used"
    return problem[:1].upper() + problem[1:]


def owed_turns(engine: "SessionEngine", judge: str, metrics: Sequence[str]) -> list[int]:
    """Player turns for which ``judge`` has no ok score yet for every metric. A turn it flagged as a
    refusal is done without its scores (METHOD.md leaves a refusal's scores out)."""
    have: dict[int, set[str]] = {}
    refused: set[int] = set()
    for verdict in engine.verdicts:
        if verdict.judge == judge:
            for s in verdict.scores:
                if s.status == "ok" and s.turn is not None:
                    have.setdefault(s.turn, set()).add(s.metric)
                    if s.metric == "is_refusal" and s.value == 1:
                        refused.add(s.turn)
    return [t for t in engine.player_turns() if t not in refused and not set(metrics) <= have.get(t, set())]


async def interrogator_line(engine: "SessionEngine", turn: int, who: str,
                            situation: Situation | None = None) -> tuple[str, "Usage"]:
    """The interrogator model's next user line from {"next_utterance": ...}, re-asked once.
    ``situation`` replaces the session's in the prompt (a method's own brief for the seat)."""
    from pingpong.core.engine import Usage

    messages = engine.renderer.interrogator(engine.character, situation or engine.situation, engine.transcript,
                                            turn=turn, num_turns=engine.num_turns, lang=engine.lang,
                                            prompt_format=engine.spec.prompt_format,
                                            prompting=engine.spec.prompting)
    usage = Usage()
    completion = await engine.seat_call("interrogator", who, "interrogator", messages, turn)
    usage.add(completion)
    try:
        return parse_interrogator(completion.text), usage
    except ParseError as first:
        again = engine.renderer.interrogator_reask(messages, completion.text, str(first), lang=engine.lang)
        completion = await engine.seat_call("interrogator", who, "interrogator", again, turn)
        usage.add(completion)
        try:
            return parse_interrogator(completion.text), usage
        except ParseError as second:
            engine.fail(f"interrogator '{who}' gave no usable JSON after a re-ask: {second}"
                        f"{completion.why_unusable(who, str(second))}", "interrogator", who)


UserLine = Callable[[int], Awaitable["Message | None"]]
"""The user side's line for a turn (None: the dialogue stops there)."""


def seat_lines(engine: "SessionEngine", write: "UserWriter") -> UserLine:
    """User lines from the interrogator seat: a person's, or its model's through ``write``."""
    return lambda turn: engine.user_message(turn, write)


async def alternate(engine: "SessionEngine", line: UserLine, stop: Callable[[], bool] = lambda: False) -> None:
    """User line, player reply, for the planned turns (from where a resumed session stopped);
    ends early when ``stop()`` says so before a user line, or ``line`` gives none."""
    turn, role = engine.resume_point()
    while turn <= engine.num_turns:
        if role == "user":
            if stop():
                return
            await engine.gate("user")
            message = await line(turn)
            if message is None:
                return
            engine.complete(message)
        await engine.gate("assistant")
        engine.complete(await engine.player_message(turn))
        turn, role = turn + 1, "user"


class PingPong(Method):
    name = "pingpong"
    metrics = JUDGED
    scale = "1-5"
    people_rate = "conversation"

    async def converse(self, engine: "SessionEngine") -> None:
        await alternate(engine, seat_lines(engine, interrogator_line))

    async def judge(self, engine: "SessionEngine") -> None:
        names = list(dict.fromkeys(engine.spec.judges))
        work = [(name, turns) for name in names if (turns := owed_turns(engine, name, JUDGED))]
        if work:
            await asyncio.gather(*(self._judge(engine, name, turns) for name, turns in work))

    async def _judge(self, engine: "SessionEngine", name: str, turns: list[int]) -> None:
        """One judge: ask, re-ask once for what is missing, record failures as failed scores."""
        from pingpong.core.events import JudgeStarted

        engine.emit(JudgeStarted(name, tuple(turns)))
        messages = engine.renderer.judge(engine.character, engine.transcript, turns=turns,
                                         lang=engine.character.lang)
        requests = 1
        try:
            completion = await engine.call(name, "judge", messages, None, turns)
        except ModelCallError as exc:
            engine.verdict(name, failed_scores(turns, JUDGED, "1-5", f"judge call failed: {exc.reason}"), requests)
            return
        parsed = parse_judge(completion.text, turns)
        found = dict(parsed.scores)
        error = ""
        if parsed.missing:
            requests += 1
            again = engine.renderer.judge_reask(messages, completion.text, sentence(parsed.problem),
                                                turns=parsed.missing)
            try:
                completion = await engine.call(name, "judge", again, None, parsed.missing)
            except ModelCallError as exc:
                error = f"judge re-ask failed: {exc.reason}"
            else:
                second = parse_judge(completion.text, parsed.missing)
                found.update(second.scores)
                error = (f"no valid scores after a re-ask: {second.problem}"
                         f"{completion.why_unusable(name, second.problem)}"
                         if second.missing else "")
        scores: list[Score] = []
        for t in turns:
            scores += found[t].scores("1-5") if t in found else \
                failed_scores([t], JUDGED, "1-5", error or "no scores")
        engine.verdict(name, scores, requests)


METHOD = PingPong()
