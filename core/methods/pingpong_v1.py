"""PingPong v1: one model, the tester, plays the user and scores each reply as it goes.

After every player reply the tester returns, in one JSON object, the next user line and the
reply's refusal flag and three 1-10 scores (stored under the v2 metric names, on the 1-10
scale). The conversation stops at the first reply flagged as a refusal; the tester's line
written in that call is not used. The tester sees the full card.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from pingpong.core.domain import HUMAN, METRICS
from pingpong.core.errors import UserError
from pingpong.core.judging import failed_scores, parse_tester
from pingpong.core.llm import ModelCallError
from pingpong.core.methods.base import Method
from pingpong.core.methods.pingpong import JUDGED, alternate, owed_turns, seat_lines

if TYPE_CHECKING:
    from pingpong.core.engine import SessionEngine, Usage


def refused(engine: "SessionEngine") -> bool:
    """The tester flagged a reply of this conversation as a refusal."""
    return any(s.metric == "is_refusal" and s.status == "ok" and s.value == 1
               for v in engine.verdicts for s in v.scores)


class PingPongV1(Method):
    name = "pingpong-v1"
    metrics = JUDGED
    scale = "1-10"
    people_rate = "conversation"
    scorer = "their tester"
    people_ask = False
    interrogator_needed = "its tester also scores the replies"

    async def converse(self, engine: "SessionEngine") -> None:
        await alternate(engine, seat_lines(engine, self._tester_line), stop=lambda: refused(engine))

    def check_judgeable(self, session_id: int, judges: Sequence[str], interrogator: str) -> None:
        """Only the session's own tester may score it again (`pingpong judge`, a rerun): it retries the
        tester's failed turns. Another model never scored the conversation it did not hold."""
        if list(dict.fromkeys(judges)) != [interrogator]:
            raise UserError(f"session {session_id}: pingpong-v1 sessions are scored by their tester; "
                            f"`--judge {interrogator}` retries its failed turns")

    async def judge(self, engine: "SessionEngine") -> None:
        """Score the replies still owed a score: the last one (the tester's final call has no line to
        write), and on a retry those whose scoring failed, each seen as it was when it was given."""
        from pingpong.core.events import JudgeStarted

        who = engine.seats["interrogator"]
        if who == HUMAN or refused(engine):
            return
        owed = owed_turns(engine, who, JUDGED)
        if owed:
            engine.emit(JudgeStarted(who, tuple(owed)))
        for turn in owed:
            await self._tester_call(engine, who, None, turn)
            if refused(engine):  # the conversation stops at its first refusal: later replies go unscored
                return

    async def _tester_line(self, engine: "SessionEngine", turn: int, who: str) -> tuple[str, "Usage"] | None:
        previous = turn - 1
        score_turn = previous if previous in owed_turns(engine, who, JUDGED) else None
        text, usage = await self._tester_call(engine, who, turn, score_turn)
        if refused(engine) or text is None:
            return None
        return text, usage

    async def _tester_call(self, engine: "SessionEngine", who: str, turn: int | None,
                           score_turn: int | None) -> tuple[str | None, "Usage"]:
        """Ask the tester (re-asked once); record the score; fail the session without a line."""
        from pingpong.core.engine import Usage

        # a retry's tester sees the conversation up to the reply it scores, as it did the first time
        seen = engine.transcript if turn is not None or score_turn is None else [
            m for m in engine.transcript if m.turn <= score_turn]
        messages = engine.renderer.interrogator_judge(
            engine.character, engine.situation, seen, turn=turn, score_turn=score_turn,
            num_turns=engine.num_turns, lang=engine.lang, prompt_format=engine.spec.prompt_format,
            prompting=engine.spec.prompting)
        usage = Usage()
        call_turn = turn if turn is not None else score_turn
        scored = [score_turn] if score_turn is not None else []
        requests = 1
        try:
            completion = await engine.call(who, "interrogator_judge", messages, call_turn, scored)
        except ModelCallError as exc:
            if turn is not None:
                engine.fail(f"interrogator '{who}' failed: {exc.reason}", "interrogator", who)
            engine.verdict(who, failed_scores(scored, JUDGED, "1-10", f"tester call failed: {exc.reason}"), 1)
            return None, usage
        usage.add(completion)
        parsed = parse_tester(completion.text, score_turn=score_turn, need_utterance=turn is not None)
        problem = parsed.problem  # after a re-ask: what was wrong with the second answer
        if parsed.problems:
            requests += 1
            again = engine.renderer.interrogator_judge_reask(messages, completion.text, parsed.problem,
                                                             turn=turn, score_turn=score_turn)
            try:
                completion = await engine.call(who, "interrogator_judge", again, call_turn, scored)
            except ModelCallError as exc:
                problem = f"re-ask failed: {exc.reason}"
            else:
                usage.add(completion)
                second = parse_tester(completion.text, score_turn=score_turn, need_utterance=turn is not None)
                problem = second.problem + completion.why_unusable(who, second.problem)
                parsed.utterance = parsed.utterance or second.utterance
                parsed.scores = parsed.scores or second.scores
            if turn is not None and parsed.utterance is None:
                engine.fail(f"interrogator '{who}' gave no usable JSON after a re-ask: {problem}", "interrogator", who)
        if score_turn is not None:
            scores = parsed.scores.scores("1-10") if parsed.scores else failed_scores(
                [score_turn], JUDGED, "1-10", f"no valid scores after a re-ask: {problem}")
            engine.verdict(who, scores, requests)
        return parsed.utterance, usage


METRIC_NAMES_V1: dict[str, str] = {"in_character": "stay_in_character", "entertaining": "entertainment",
                                   "fluency": "language_fluency"}
"""Our metric names -> the reference v1 file's names (exchange formats use this)."""
assert set(METRIC_NAMES_V1) == set(METRICS)

METHOD = PingPongV1()
