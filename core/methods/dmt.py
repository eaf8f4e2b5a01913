"""DMT-RoleBench (method `dmt`): a seed-driven dialogue that stops when its goal is reached, then
per-round good/bad labels on the metrics the character's role type calls for.

Round 1 is the seed's initial query (its author is `seed`). Before each later round the
interrogator seat's model (the generator) proposes a sub-topic, a sub-intent and the next query;
a quality check accepts it or rejects it (regenerated, up to MAX_REJECTIONS times, after which the
last one is used and marked).
After every player reply a stop check asks whether the goal has been reached; the round limit
(the seed's max_rounds) stops the dialogue anyway, and a person may end it before any user
message. Why each round went where it went is kept in the messages' notes: sub_topic, sub_intent,
quality (seed|accepted|forced|unchecked|human; a person's round also keeps the suggested_sub_intent
it was shown) and rejections on the user message; stop (continue|goal_reached|max_rounds|
ended_by_person) and stop_reason on the player's reply.

Judges then label every round good or bad per metric, each with an explanation. Labels a judge
left out are asked for once more; what is still missing is recorded as failed, never guessed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pingpong.core.domain import HUMAN, Character, Message, Score
from pingpong.core.judging import failed_scores, json_candidates
from pingpong.core.llm import ModelCallError
from pingpong.core.methods import dmt_prompts
from pingpong.core.methods.base import Method
from pingpong.core.methods.dmt_hints import suggest_sub_intent
from pingpong.core.methods.dmt_rules import DMT_METRICS, metrics_for
from pingpong.core.methods.pingpong import owed_turns
from pingpong.core.vocabulary import SCRIPTED_AUTHORS, SEED_AUTHOR

if TYPE_CHECKING:
    from pingpong.core.engine import SessionEngine, Usage

MAX_REJECTIONS = 3
"""Rejected queries per round after which the last one is used anyway (marked forced)."""

CONTINUE, GOAL_REACHED, MAX_ROUNDS, ENDED_BY_PERSON = "continue", "goal_reached", "max_rounds", "ended_by_person"
STOPPED = (GOAL_REACHED, MAX_ROUNDS, ENDED_BY_PERSON)


@dataclass
class Query:
    """What the generator proposed for one round."""

    sub_topic: str
    sub_intent: str
    text: str


def _first_dict(text: str, key: str) -> dict | None:
    for value in json_candidates(text):
        if isinstance(value, dict) and key in value:
            return value
    return None


def parse_query(text: str) -> Query | None:
    """{"sub_topic", "sub_intent", "next_query"}; None without a non-empty next_query."""
    found = _first_dict(text, "next_query")
    if found is None or not isinstance(found["next_query"], str) or not found["next_query"].strip():
        return None
    topic, intent = found.get("sub_topic"), found.get("sub_intent")
    return Query(topic.strip() if isinstance(topic, str) else "",
                 intent.strip() if isinstance(intent, str) else "", found["next_query"].strip())


def _flag(value: Any) -> bool | None:
    """A strict yes/no: JSON true/false only."""
    return value if isinstance(value, bool) else None


def parse_verdict(text: str, key: str) -> tuple[bool, str] | None:
    """{key: true|false, "reason": "..."} as (flag, reason); None when it is not there."""
    found = _first_dict(text, key)
    if found is None or _flag(found[key]) is None:
        return None
    reason = found.get("reason")
    return bool(found[key]), reason.strip() if isinstance(reason, str) else ""


def parse_label(value: Any) -> bool | None:
    """good/bad (any case) or true/false; anything else is no label."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("good", "bad"):
        return value.strip().lower() == "good"
    return None


def _round_of(entry: dict) -> int | None:
    value = entry.get("round", entry.get("turn"))
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def parse_labels(text: str, rounds: Sequence[int], metrics: Sequence[str]) -> dict[tuple[int, str], Score]:
    """The labels found for the asked rounds and metrics, as ok good-bad Scores."""
    found = _first_dict(text, "labels")
    entries = found["labels"] if found is not None and isinstance(found["labels"], list) else []
    out: dict[tuple[int, str], Score] = {}
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        turn = _round_of(entry)
        if turn is None or turn not in rounds:
            continue
        for metric in metrics:
            label = parse_label(entry.get(metric))
            if label is None or (turn, metric) in out:
                continue
            why = entry.get(f"{metric}_explanation")
            out[(turn, metric)] = Score(turn=turn, metric=metric, value=1 if label else 0, scale="good-bad",
                                        explanation=why.strip() if isinstance(why, str) and why.strip() else None)
    return out


def stop_decision(transcript: Sequence[Message]) -> str | None:
    """The stop decision stored on the last player reply (None when there is none yet)."""
    for m in reversed(transcript):
        if m.role == "assistant":
            return m.notes.get("stop")
    return None


class Dmt(Method):
    name = "dmt"
    scripted_authors = SCRIPTED_AUTHORS["dmt"]
    metrics = DMT_METRICS
    scale = "good-bad"
    people_rate = "rounds"

    def rated_metrics(self, character: Character) -> tuple[str, ...]:
        """Only the metrics the card's role type calls for (METHOD.md), as the judges label them."""
        return metrics_for(character.role_type)

    async def converse(self, engine: "SessionEngine") -> None:
        turn, role = engine.resume_point()
        if stop_decision(engine.transcript) in STOPPED:
            return
        while turn <= engine.num_turns:
            if role == "user":
                await engine.gate("user")
                if turn == 1 and engine.situation.data.get("initial_query") and not engine.control.ending:
                    self._seed_query(engine)
                    role = "assistant"
                    continue
                notes: dict[str, str] = {}

                async def write(e: "SessionEngine", t: int, who: str,
                                notes: dict[str, str] = notes) -> tuple[str, "Usage"]:
                    return await self._user_line(e, t, who, notes)

                message = await engine.user_message(turn, write)
                if message is None:
                    if engine.control.ending:
                        self._ended_by_person(engine)
                    return
                if message.author == HUMAN:
                    notes = {"quality": "human",
                             "suggested_sub_intent": suggest_sub_intent(engine.situation.intent, turn)}
                engine.complete(message.model_copy(update={"notes": {**message.notes, **notes}}))
            await engine.gate("assistant")
            reply = await engine.player_message(turn)
            decision = await self._stop_check(engine, turn, reply)
            engine.complete(reply.model_copy(update={"notes": {**reply.notes, **decision}}))
            if decision["stop"] != CONTINUE:
                return
            turn, role = turn + 1, "user"

    # -- the user's side -----------------------------------------------------------------

    def _seed_query(self, engine: "SessionEngine") -> None:
        """Round 1: the seed's initial query as written, whoever holds the seat (its author is the seed)."""
        from pingpong.core.events import TurnStarted

        situation = engine.situation
        engine.emit(TurnStarted(1, "user", SEED_AUTHOR))
        engine.complete(Message(turn=1, role="user", author=SEED_AUTHOR, speaker="user",
                                text=situation.data["initial_query"],
                                notes={"sub_topic": situation.topic or "", "quality": "seed",
                                       "sub_intent": situation.intent.value if situation.intent else ""}))

    async def _user_line(self, engine: "SessionEngine", turn: int, who: str,
                         notes: dict[str, str]) -> tuple[str, "Usage"]:
        from pingpong.core.engine import Usage

        usage = Usage()
        rejected: list[tuple[str, str]] = []
        while True:
            query = await self._generate(engine, turn, who, rejected, usage)
            accepted, reason = await self._check(engine, turn, who, query, usage)
            notes.update(sub_topic=query.sub_topic, sub_intent=query.sub_intent, rejections=str(len(rejected)))
            if accepted is not False:
                notes["quality"] = "accepted" if accepted else "unchecked"
                if reason:
                    notes["quality_reason"] = reason
                return query.text, usage
            rejected.append((query.text, reason))
            if len(rejected) >= MAX_REJECTIONS:
                notes.update(quality="forced", rejections=str(len(rejected)), quality_reason=reason)
                return query.text, usage

    async def _generate(self, engine: "SessionEngine", turn: int, who: str,
                        rejected: list[tuple[str, str]], usage: "Usage") -> Query:
        """The generator's proposal, asked again once when its JSON is unusable."""
        messages = dmt_prompts.generate(engine.character, engine.situation, engine.transcript, turn=turn,
                                        max_rounds=engine.num_turns, lang=engine.lang, rejected=rejected)
        for _ in range(2):
            completion = await engine.seat_call("interrogator", who, "dmt_generate", messages, turn)
            usage.add(completion)
            query = parse_query(completion.text)
            if query is not None:
                return query
            messages = [*messages, {"role": "assistant", "content": completion.text},
                        {"role": "user", "content": 'Answer with the JSON object only: '
                         '{"sub_topic": "...", "sub_intent": "...", "next_query": "..."}'}]
        engine.fail(f"interrogator '{who}' gave no usable next_query after a re-ask{completion.why_unusable(who)}",
                    "interrogator", who)

    async def _check(self, engine: "SessionEngine", turn: int, who: str, query: Query,
                     usage: "Usage") -> tuple[bool | None, str]:
        """(accepted, reason); accepted None when the check could not be made (the query is used)."""
        messages = dmt_prompts.check(engine.character, engine.situation, engine.transcript,
                                     sub_topic=query.sub_topic, sub_intent=query.sub_intent,
                                     query=query.text, lang=engine.lang)
        try:
            completion = await engine.call(who, "dmt_check", messages, turn)
        except ModelCallError as exc:
            return None, f"quality check failed: {exc.reason}"
        usage.add(completion)
        verdict = parse_verdict(completion.text, "accept")
        if verdict is None:
            return False, "the quality check gave no usable answer"
        return verdict

    # -- the stop check ------------------------------------------------------------------

    def _ended_by_person(self, engine: "SessionEngine") -> None:
        """Record on the last reply that a person ended the dialogue there (keeping what the stop
        check had said)."""
        last = next((m for m in reversed(engine.transcript) if m.role == "assistant"), None)
        if last is None:
            return
        notes = {**last.notes, "stop": ENDED_BY_PERSON, "stop_reason": "a person ended the dialogue",
                 "stop_by": HUMAN, "stop_check": last.notes.get("stop", ""),
                 "stop_check_reason": last.notes.get("stop_reason", "")}
        engine.amend(last, notes)

    def _stopper(self, engine: "SessionEngine") -> str | None:
        """Who runs the stop check: the interrogator seat's model, else the first judge."""
        who = engine.seats["interrogator"]
        if who != HUMAN:
            return who
        return next((j for j in engine.spec.judges if j != HUMAN), None)

    async def _stop_check(self, engine: "SessionEngine", turn: int, reply: Message) -> dict[str, str]:
        if turn >= engine.num_turns:
            return {"stop": MAX_ROUNDS, "stop_reason": f"round limit {engine.num_turns} reached"}
        who = self._stopper(engine)
        if who is None:
            return {"stop": CONTINUE, "stop_reason": "no model to run the stop check"}
        messages = dmt_prompts.stop(engine.character, engine.situation, [*engine.transcript, reply])
        try:
            completion = await engine.call(who, "dmt_stop", messages, turn)
        except ModelCallError as exc:
            return {"stop": CONTINUE, "stop_reason": f"stop check failed: {exc.reason}", "stop_by": who}
        verdict = parse_verdict(completion.text, "stop")
        if verdict is None:
            return {"stop": CONTINUE, "stop_reason": "the stop check gave no usable answer", "stop_by": who}
        stop, reason = verdict
        return {"stop": GOAL_REACHED if stop else CONTINUE, "stop_reason": reason, "stop_by": who}

    # -- labels --------------------------------------------------------------------------

    async def judge(self, engine: "SessionEngine") -> None:
        metrics = metrics_for(engine.character.role_type)
        names = [n for n in dict.fromkeys(engine.spec.judges) if n != HUMAN]
        work = [(name, turns) for name in names if (turns := owed_turns(engine, name, metrics))]
        if work:
            await asyncio.gather(*(self._label(engine, name, turns, metrics) for name, turns in work))

    async def _label(self, engine: "SessionEngine", name: str, turns: list[int],
                     metrics: Sequence[str]) -> None:
        from pingpong.core.events import JudgeStarted

        engine.emit(JudgeStarted(name, tuple(turns)))
        messages = dmt_prompts.label(engine.character, engine.transcript, rounds=turns, metrics=metrics)
        try:
            completion = await engine.call(name, "dmt_label", messages, None, turns)
        except ModelCallError as exc:
            engine.verdict(name, failed_scores(turns, metrics, "good-bad", f"judge call failed: {exc.reason}"))
            return
        found = parse_labels(completion.text, turns, metrics)
        missing = [(t, m) for t in turns for m in metrics if (t, m) not in found]
        attempts, error = 1, "the judge gave no good/bad label for this round and metric"
        if missing:
            again = dmt_prompts.label_reask(messages, completion.text, missing)
            attempts = 2
            try:
                completion = await engine.call(name, "dmt_label", again, None, sorted({t for t, _ in missing}))
            except ModelCallError as exc:
                error = f"no label in the first answer, and asking again failed: {exc.reason}"
            else:
                more = parse_labels(completion.text, turns, metrics)
                found.update({key: more[key] for key in missing if key in more})
                error = ("the judge gave no good/bad label for this round and metric, also when asked again"
                         f"{completion.why_unusable(name)}")
        scores = [found.get((t, m)) or Score(turn=t, metric=m, scale="good-bad", status="failed", error=error)
                  for t in turns for m in metrics]
        engine.verdict(name, scores, attempts)


METHOD = Dmt()
