"""RoleInteract (method `roleinteract`): probes of a character's social side, scored by rule.

Every probe is a session (METHOD.md "RoleInteract"):
- a multiple-choice question is one turn: the question with its lettered options is the user
  message (written by the probe set, author ``roleinteract``), the player answers in character,
  and the answer is scored by Acc_single or, for `situation` questions, Acc_multiple;
- a memory probe plants a fact (turn 1), then padding / 2 exchanges of unrelated small talk, each
  a real user message and a real player reply (the user lines from the language's padding pool,
  or written by the interrogator seat when the probe says so), then asks the question again; the
  last reply is scored by keyword coverage, as `memory_short` or `memory_long`.

No judge model is asked: the scores are recorded under the judge name ``roleinteract``, one per
session on the ``0-1`` scale, with the dimension as the metric. Everything a session needs is in
its situation's data (core.methods.roleinteract_probes), so sessions resume and re-score from
their stored snapshot. A group scene (data kind "scene") runs through core.methods.roleinteract_scene:
the cast, who speaks next, and the questions the tested member answers about the group.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pingpong.core.domain import Message, Score, Situation
from pingpong.core.methods.base import Method
from pingpong.core.methods.pingpong import alternate, interrogator_line, seat_lines
from pingpong.core.methods.roleinteract_data import DIMENSIONS, MEMORY_DIMENSIONS, MemoryProbe
from pingpong.core.methods.roleinteract_probes import (
    MEMORY,
    PADDING_BRIEF,
    memory_turns,
    score_choice,
    score_memory,
)
from pingpong.core.methods.roleinteract_scene import METRIC as SCENE_METRIC
from pingpong.core.methods.roleinteract_scene import converse_scene, is_scene, judge_scene
from pingpong.core.vocabulary import ROLEINTERACT_AUTHOR, SCRIPTED_AUTHORS

if TYPE_CHECKING:
    from pingpong.core.engine import SessionEngine, Usage, UserWriter

AUTHOR = ROLEINTERACT_AUTHOR
SCORER = "roleinteract"
"""The judge name the rule-based scores are stored under."""
METRICS: tuple[str, ...] = (*DIMENSIONS, *MEMORY_DIMENSIONS, SCENE_METRIC)


def _user(turn: int, text: str) -> Message:
    return Message(turn=turn, role="user", author=AUTHOR, text=text, speaker="user")


class RoleInteract(Method):
    name = "roleinteract"
    scripted_authors = SCRIPTED_AUTHORS["roleinteract"]
    metrics = METRICS
    scale = "0-1"
    scorer = "exact rules"
    min_reply_chars = 1   # "B" answers a multiple-choice question
    interrogator_needed = "the probe set writes every user line of this probe"

    def people_ask_in(self, situation: Situation) -> bool:
        """A person narrates a group scene and may write a memory probe's padding left to the
        interrogator seat; every other probe's user lines are the probe set's own."""
        if is_scene(situation):
            return True
        data = situation.data  # read as stored, not validated again: screens ask this on every key refresh
        return data.get("kind") == MEMORY and data["probe"].get("padding_from") == "interrogator"

    async def converse(self, engine: "SessionEngine") -> None:
        if is_scene(engine.situation):
            return await converse_scene(engine)
        if engine.situation.data.get("kind") == MEMORY:
            await self._converse_memory(engine)
        else:
            await self._converse_choice(engine)

    async def judge(self, engine: "SessionEngine") -> None:
        if is_scene(engine.situation):
            return await judge_scene(engine)
        if any(v.judge == SCORER and v.scores for v in engine.verdicts):
            return
        score = self._score(engine)
        if score is not None:
            engine.verdict(SCORER, [score])

    # -- multiple choice ---------------------------------------------------------------------

    async def _converse_choice(self, engine: "SessionEngine") -> None:
        if not engine.transcript:
            await engine.gate("user")
            engine.complete(_user(1, engine.situation.text))
        if len(engine.transcript) == 1:
            await engine.gate("assistant")
            engine.complete(await engine.player_message(1))

    # -- memory --------------------------------------------------------------------------------

    async def _converse_memory(self, engine: "SessionEngine") -> None:
        """Plant, padding, the question again: user lines from the probe (or, for padding the probe
        leaves to it, the interrogator seat), each answered by the player."""
        data = engine.situation.data
        probe = MemoryProbe.model_validate(data["probe"])
        last = memory_turns(probe)
        padding = seat_lines(engine, _padding_writer(engine.situation))

        async def line(turn: int) -> Message | None:
            if turn == 1:
                return _user(1, probe.plant)
            if turn == last:
                return _user(turn, probe.ask)
            if probe.padding_from == "interrogator":
                return await padding(turn)
            return _user(turn, data["padding_lines"][turn - 2])

        await alternate(engine, line)

    # -- scoring ---------------------------------------------------------------------------------

    def _score(self, engine: "SessionEngine") -> Score | None:
        """The session's one score, or None while the reply it needs is missing."""
        data = engine.situation.data
        replies = {m.turn: m.text for m in engine.transcript if m.role == "assistant"}
        if data.get("kind") == MEMORY:
            asked = engine.situation.num_turns
            return score_memory(replies[asked], data) if asked in replies else None
        return score_choice(replies[1], data) if 1 in replies else None


def _padding_writer(situation: Situation) -> "UserWriter":
    """The interrogator seat's small-talk line, written as PingPong's interrogator writes its lines,
    but told to chat about unrelated things instead of the probe."""
    brief = situation.model_copy(update={"text": PADDING_BRIEF.get(situation.lang, PADDING_BRIEF["en"]),
                                         "data": {}})

    async def write(engine: "SessionEngine", turn: int, who: str) -> tuple[str, "Usage"]:
        return await interrogator_line(engine, turn, who, situation=brief)

    return write


METHOD = RoleInteract()
