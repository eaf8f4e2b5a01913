"""A stored session read back turn by turn, for the TUI's replay screen.

Each step holds what happened in one turn: the interrogator's line, the
player's answer, every judge's scores for it and every person's score, the
current (newest) one marked.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from statistics import fmean

from pingpong.core.domain import Message, TurnView
from pingpong.sessions.records import HumanScore, StoredSession
from pingpong.sessions.store import Store


@dataclass(frozen=True)
class PersonScore:
    score: HumanScore
    current: bool  # the newest score of this turn and metric


@dataclass(frozen=True)
class ReplayStep:
    turn: int
    user: Message | None
    assistant: Message | None
    judges: dict[str, TurnView] = field(default_factory=dict)  # judge name -> its score, judges in order
    people: list[PersonScore] = field(default_factory=list)  # oldest first

    def current(self, metric: str) -> HumanScore | None:
        """The person's score that counts for this metric, if anyone scored it."""
        return next((p.score for p in self.people if p.current and p.score.metric == metric), None)

    def judge_mean(self, metric: str) -> float | None:
        """Mean over judges with an ok score; for is_refusal the share of judges flagging it."""
        values = [getattr(s, metric) for s in self.judges.values()
                  if s.status == "ok" and getattr(s, metric) is not None]
        return fmean(float(v) for v in values) if values else None


def steps_of(session: StoredSession) -> list[ReplayStep]:
    """Replay steps of an already loaded session, one per turn that has any message."""
    current = {s.id for s in session.current_human_scores().values()}
    turns = sorted({m.turn for m in session.messages})
    steps = []
    for turn in turns:
        msgs = {m.role: m for m in session.messages if m.turn == turn}
        judges = {v.judge: s for v in session.verdicts for s in v.turns if s.turn == turn}
        people = [PersonScore(s, s.id in current) for s in session.human_scores if s.turn == turn]
        steps.append(ReplayStep(turn, msgs.get("user"), msgs.get("assistant"), judges, people))
    return steps


def conversation_people(session: StoredSession) -> list[PersonScore]:
    """People's ratings of the whole conversation (turn None), oldest first, the current ones marked."""
    current = {s.id for s in session.current_human_scores().values()}
    return [PersonScore(s, s.id in current) for s in session.human_scores if s.turn is None]


def replay(store: Store, session_id: int) -> list[ReplayStep]:
    """The ordered steps of a stored session (UserError if the id is unknown)."""
    return steps_of(store.session(session_id))
