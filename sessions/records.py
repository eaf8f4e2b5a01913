"""What the store hands back: a whole session, a person's score, a row of the sessions list.

Kept apart from the Store so screens, exchange and statistics can use the shapes
without opening a database; `to_json()` gives the documents the CLI prints.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from statistics import fmean
from typing import Any

from pydantic import BaseModel, Field

from pingpong.core.domain import METRICS, Character, JudgeVerdict, Message, SessionSpec, Situation, TurnScore

STATUSES: tuple[str, ...] = ("running", "interrupted", "finished", "failed")
HUMAN_METRICS: tuple[str, ...] = (*METRICS, "is_refusal")


def judge_final(scores: Iterable[TurnScore], version: int = 2) -> float | None:
    """One judge's final score for one conversation, per METHOD.md.

    Version 2: the mean of the three metric means over the judged turns, or None when the
    judge flagged a refusal on any turn (that scoring is left out of the means) or scored
    nothing. Version 1: the mean of the 10-point `overall` scores.
    """
    ok = [s for s in scores if s.status == "ok"]
    if version == 1:
        values = [s.overall for s in ok if s.overall is not None]
        return fmean(values) if values else None
    if any(s.is_refusal for s in ok):
        return None
    means = []
    for metric in METRICS:
        values = [getattr(s, metric) for s in ok if getattr(s, metric) is not None]
        if not values:
            return None
        means.append(fmean(values))
    return fmean(means)


def conversation_final(verdicts: Sequence[JudgeVerdict], version: int = 2) -> float | None:
    """The judges' mean final score (judges without a usable scoring are left out)."""
    finals = [f for v in verdicts if (f := judge_final(v.turns, version)) is not None]
    return fmean(finals) if finals else None


class HumanScore(BaseModel):
    """A person's score for one player turn; never overwritten, the newest one is current."""

    id: int | None = None
    turn: int
    metric: str  # in_character | entertaining | fluency | is_refusal
    value: float
    author: str
    reason: str | None = None
    created_at: str | None = None

    def to_json(self) -> dict[str, Any]:
        data = self.model_dump()
        if self.metric == "is_refusal":
            data["value"] = bool(self.value)
        elif float(self.value).is_integer():
            data["value"] = int(self.value)
        return data


class StoredSession(BaseModel):
    """A session as stored: the snapshots it ran with, what was said, and every score."""

    id: int
    run: str | None = None
    run_id: int | None = None
    status: str
    spec: SessionSpec
    character: Character
    situation: Situation
    messages: list[Message] = Field(default_factory=list)
    verdicts: list[JudgeVerdict] = Field(default_factory=list)
    human_scores: list[HumanScore] = Field(default_factory=list)
    error: str | None = None
    pid: int | None = None
    host: str | None = None
    created_at: str | None = None
    updated_at: str | None = None
    finished_at: str | None = None

    @property
    def num_turns(self) -> int:
        """Turns the session is meant to have (the spec may override the situation)."""
        return self.spec.num_turns or self.situation.num_turns

    @property
    def turns_done(self) -> int:
        """Completed turns: a turn is complete once the player's message is stored."""
        return sum(1 for m in self.messages if m.role == "assistant")

    @property
    def final(self) -> float | None:
        return conversation_final(self.verdicts, self.spec.version)

    def current_human_scores(self) -> dict[tuple[int, str], HumanScore]:
        """The newest person's score per (turn, metric); older ones stay in `human_scores`."""
        current: dict[tuple[int, str], HumanScore] = {}
        for score in sorted(self.human_scores, key=lambda s: (s.id or 0)):
            current[(score.turn, score.metric)] = score
        return current

    def current_human_score(self, turn: int, metric: str) -> HumanScore | None:
        return self.current_human_scores().get((turn, metric))

    def summary(self) -> "SessionSummary":
        return SessionSummary(
            id=self.id, status=self.status, character=self.spec.character,
            situation=self.spec.situation, player=self.spec.player,
            interrogator=self.spec.interrogator, judges=list(self.spec.judges),
            turns=self.turns_done, num_turns=self.num_turns,
            human_turns=len({s.turn for s in self.human_scores}), final=self.final,
            run=self.run, lang=self.spec.lang or self.character.lang, version=self.spec.version,
            created_at=self.created_at, updated_at=self.updated_at,
        )

    def to_json(self) -> dict[str, Any]:
        """The document `sessions show --format json` prints: everything, in plain JSON."""
        current = {s.id for s in self.current_human_scores().values()}
        human = []
        for s in self.human_scores:
            item = s.to_json()
            item["current"] = s.id in current
            human.append(item)
        return {
            "id": self.id,
            "status": self.status,
            "run": self.run,
            "character": self.character.model_dump(mode="json"),
            "situation": self.situation.model_dump(mode="json"),
            "player": self.spec.player,
            "interrogator": self.spec.interrogator,
            "judges": list(self.spec.judges),
            "turns": self.turns_done,
            "num_turns": self.num_turns,
            "version": self.spec.version,
            "lang": self.spec.lang or self.character.lang,
            "final": self.final,
            "spec": self.spec.model_dump(mode="json"),
            "messages": [m.model_dump(mode="json") for m in self.messages],
            "verdicts": [v.model_dump(mode="json") for v in self.verdicts],
            "human_scores": human,
            "error": self.error,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "finished_at": self.finished_at,
        }


class SessionSummary(BaseModel):
    """One line of the sessions list."""

    id: int
    status: str
    character: str
    situation: str
    player: str
    interrogator: str
    judges: list[str] = Field(default_factory=list)
    turns: int = 0  # completed turns
    num_turns: int | None = None  # planned turns
    human_turns: int = 0  # turns that carry at least one person's score
    final: float | None = None
    run: str | None = None
    lang: str | None = None
    version: int = 2
    created_at: str | None = None
    updated_at: str | None = None

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json")
