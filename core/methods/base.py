"""What every method module provides to the engine.

A method decides who speaks next and what each seat is told (``converse``), what is
scored on which scale (``judge``, ``metrics``), and which stored verdicts count as done
when a session resumes. The engine supplies the primitives (seats, gates, calls).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar, Literal

from pingpong.core.domain import Character, JudgeVerdict, Message, Scale, Situation
from pingpong.core.errors import UserError
from pingpong.core.prompts import Messages
from pingpong.core.vocabulary import ASKS_AS_WRITTEN

if TYPE_CHECKING:
    from pingpong.core.engine import SessionEngine


class Method(ABC):
    """One evaluation protocol. Instances are stateless: per-session state lives in the engine."""

    name: ClassVar[str]
    metrics: ClassVar[tuple[str, ...]]
    """Scored metrics, in display order (refusal flags included where the method has them)."""
    scale: ClassVar[Scale]
    scripted_authors: ClassVar[frozenset[str]] = frozenset()
    """Authors of the lines the method writes itself (a seed's first query, a probe's question): no
    seat's occupant, so views of who sat in a seat leave them out."""
    min_reply_chars: ClassVar[int] = 2
    """A shorter player reply is asked for again (PingPong's rule); 1 where one letter is an answer."""
    scorer: ClassVar[str | None] = None
    """Who scores its sessions when judge models do not ("their tester", "exact rules"), which no other
    model can stand in for; None: judge models do, and `pingpong judge` can add one."""

    def check_judgeable(self, session_id: int, judges: Sequence[str], interrogator: str) -> None:
        """UserError when ``judges`` cannot score this session (re-judging would store nothing).
        ``interrogator``: the session's interrogator seat (PingPong v1's tester)."""
        if self.scorer is not None:
            raise UserError(f"session {session_id}: {self.name} sessions are scored by {self.scorer}, "
                            "not by judge models")

    @property
    def writes_questions(self) -> bool:
        """True where the method writes every user line itself (core.vocabulary.ASKS_AS_WRITTEN)."""
        return self.name in ASKS_AS_WRITTEN

    people_ask: ClassVar[bool] = True
    """A person may hold the interrogator seat; False where that seat also scores the replies
    (PingPong v1's tester): a person there would leave the session without scores; or where the
    method writes every user line itself (RoleBench's instructions): a person there writes nothing."""
    interrogator_needed: ClassVar[str] = ""
    """Why a person may not sit in the interrogator seat (shown where people_ask is False)."""

    def people_ask_in(self, situation: Situation) -> bool:
        """Whether a person in the interrogator seat writes any line of a session in ``situation``
        (what offers the seat to a person, or refuses it, asks this)."""
        return self.people_ask

    def interrogator_refusal(self, situation: Situation | None = None) -> str | None:
        """Why a person may not sit in the interrogator seat (of a session in ``situation``, when
        known), or None when a person may."""
        allowed = self.people_ask if situation is None else self.people_ask_in(situation)
        if allowed:
            return None
        return f"{self.name} needs a model in the interrogator seat: {self.interrogator_needed}"

    people_rate: ClassVar[Literal["conversation", "rounds"] | None] = None
    """What a person rates in the blind rating queue (`pingpong annotate`): the whole conversation,
    each round, or nothing (None: scored by exact rules, which a person corrects rather than rates)."""

    def rated_metrics(self, character: Character) -> tuple[str, ...]:
        """The metrics a person rates for this card, each on ``scale_of`` (refusal flag included where
        the method has one)."""
        return self.metrics

    def scale_of(self, metric: str) -> Scale | None:
        """The scale ``metric`` is scored on in this method (None: not one of its metrics)."""
        if metric == "is_refusal" and metric in self.metrics:
            return "0-1"
        return self.scale if metric in self.metrics else None

    def planned_turns(self, situation: Situation) -> int:
        """How many turns a session plans (the spec may override it)."""
        return situation.num_turns

    def check_history(self, history: Sequence[Message]) -> None:
        """History must read user, assistant, user, ... with turns 1, 1, 2, 2, ...; anything else
        would make a resumed session lie about who said what. ValueError names the message."""
        for i, m in enumerate(history):
            want_turn, want_role = i // 2 + 1, ("user" if i % 2 == 0 else "assistant")
            if m.turn != want_turn or m.role != want_role:
                raise ValueError(f"history message {i + 1} is turn {m.turn} {m.role}; "
                                 f"expected turn {want_turn} {want_role}")

    def warm(self) -> None:
        """Import now what scoring will need, before a session's first call: an import on the
        way to a score would stop the event loop (the TUI's drawing, every other conversation
        of a run) for as long as it takes. Safe in a thread."""

    def player_prompt(self, engine: "SessionEngine") -> Messages:
        """The player's request for the next reply (card, examples, the chat so far)."""
        return engine.renderer.player(engine.character, engine.transcript, engine.spec.prompting,
                                      engine.spec.prompt_format)

    @abstractmethod
    async def converse(self, engine: "SessionEngine") -> None:
        """Produce the conversation's messages until the method says it is over."""

    @abstractmethod
    async def judge(self, engine: "SessionEngine") -> None:
        """Score what the conversation produced (after its end)."""

    def done_verdicts(self, verdicts: Sequence[JudgeVerdict]) -> list[JudgeVerdict]:
        """The stored verdicts a resumed session treats as done (failed scores are not done)."""
        out = []
        for verdict in verdicts:
            ok = [s for s in verdict.scores if s.status == "ok"]
            if ok:
                out.append(verdict.model_copy(update={"scores": ok}))
        return out
