"""RoleBench (RoleLLM): single-turn instructions answered in role, scored by rule with Rouge-L.

Each question is a one-turn session. The user message is the instruction itself (no interrogator
model is called; its author is ``rolebench``), the player answers in role, and the answer is scored
by Rouge-L F1 against the question's references (METHOD.md "RoleLLM"): a general instruction gets
``raw`` (plain references: still right?) and ``cus`` (the character's in-role references: its
style); a role-specific question gets ``spe`` (in-role references: its own knowledge). No judge
model is asked; the scores are recorded under the judge name ``rouge-l``.

A question travels as a ``Situation`` whose ``data`` holds its references, so the session's stored
snapshot is enough to score it again.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pingpong.core.domain import Message, Score, Situation
from pingpong.core.methods import rouge
from pingpong.core.methods.base import Method
from pingpong.core.methods.rolebench_data import GeneralSet, RoleSet
from pingpong.core.vocabulary import ROLEBENCH_AUTHOR, SCRIPTED_AUTHORS

if TYPE_CHECKING:
    from pingpong.core.engine import SessionEngine

AUTHOR = ROLEBENCH_AUTHOR
SCORER = "rouge-l"
"""The judge name rule-based scores are stored under."""
METRICS: tuple[str, ...] = ("raw", "cus", "spe")


def general_situations(general: GeneralSet, character: str) -> list[Situation]:
    """The general instructions with in-role references for ``character``, as one-turn situations."""
    return [
        Situation(name=f"{general.name}-{q.id}", lang=general.lang, text=q.instruction, num_turns=1,
                  tags=["rolebench", "general"],
                  data={"kind": "general", "set": general.name, "question": q.id,
                        "references": list(q.references), "in_role": list(q.in_role[character])})
        for q in general.questions if character in q.in_role
    ]


def role_situations(role_set: RoleSet) -> list[Situation]:
    """The role-specific questions of one character, as one-turn situations."""
    return [
        Situation(name=f"{role_set.name}-{q.id}", lang=role_set.lang, text=q.instruction, num_turns=1,
                  tags=["rolebench", "role_specific"],
                  data={"kind": "role_specific", "set": role_set.name, "question": q.id,
                        "in_role": list(q.references)})
        for q in role_set.questions
    ]


def score_answer(answer: str, data: dict[str, Any] | None) -> list[Score]:
    """The Rouge-L scores (turn 1) of one answer to the question described by ``data``."""
    if not data:
        return [Score(turn=1, metric="raw", scale="0-1", status="failed",
                      error="the question's references are missing from the session")]
    scores = []
    wanted: list[tuple[str, Sequence[str]]] = (
        [("raw", data.get("references") or []), ("cus", data.get("in_role") or [])]
        if data.get("kind") == "general" else [("spe", data.get("in_role") or [])])
    for metric, references in wanted:
        if references:
            value = round(rouge.rouge_l(answer, references), 6)
            scores.append(Score(turn=1, metric=metric, value=min(1.0, max(0.0, value)), scale="0-1",
                                explanation=f"Rouge-L F1, best of {len(references)} reference(s)"))
    return scores


class RoleBench(Method):
    name = "rolebench"
    scripted_authors = SCRIPTED_AUTHORS["rolebench"]
    metrics = METRICS
    scale = "0-1"
    scorer = "exact rules"
    people_ask = False
    interrogator_needed = "the question is the instruction itself, asked as written"

    def planned_turns(self, situation: Situation) -> int:
        return 1

    def warm(self) -> None:
        rouge.warm()  # rouge_score pulls in nltk and scipy: 1.6 s on a slow machine

    async def converse(self, engine: "SessionEngine") -> None:
        if not engine.transcript:
            await engine.gate("user")
            engine.complete(Message(turn=1, role="user", author=AUTHOR, text=engine.situation.text,
                                    speaker="user"))
        if len(engine.transcript) == 1:
            await engine.gate("assistant")
            engine.complete(await engine.player_message(1))

    async def judge(self, engine: "SessionEngine") -> None:
        if any(v.judge == SCORER and v.scores for v in engine.verdicts):
            return
        answer = next((m.text for m in engine.transcript if m.role == "assistant"), None)
        if answer is None:
            return
        engine.verdict(SCORER, score_answer(answer, engine.situation.data))


METHOD = RoleBench()
