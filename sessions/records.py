"""What the store hands back: a whole session, a person's score, a row of the sessions list.

Kept apart from the Store so screens, exchange and statistics can use the shapes
without opening a database; `to_json()` gives the documents the CLI prints.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from pingpong.core.domain import Character, JudgeVerdict, Message, SessionSpec, Situation

if TYPE_CHECKING:
    from pingpong.sessions.scoring import Final

STATUSES: tuple[str, ...] = ("running", "interrupted", "finished", "failed")


class _Record(BaseModel):
    """Validators are built on first use, not on import: a listing may never need one."""

    model_config = ConfigDict(defer_build=True)


class HumanScore(_Record):
    """A person's score for one turn (or, turn None, the whole session); never overwritten:
    the newest one (by time, then id) is current."""

    id: int | None = None
    turn: int | None = None
    metric: str
    value: float
    scale: str = "1-5"
    author: str
    reason: str | None = None
    created_at: str | None = None

    def to_json(self) -> dict[str, Any]:
        data = self.model_dump()
        if self.metric == "is_refusal":
            data["value"] = bool(self.value)
        elif self.scale == "good-bad":
            data["value"] = "good" if self.value == 1 else "bad"
        elif float(self.value).is_integer():
            data["value"] = int(self.value)
        return data


class StoredSession(_Record):
    """A session as stored: the snapshots it ran with, what was said, and every score."""

    id: int
    run: str | None = None
    run_id: int | None = None
    status: str
    spec: SessionSpec
    character: Character
    situation: Situation
    cast: list[Character] = Field(default_factory=list)
    """A group scene's member cards, in the spec's cast order (empty for one-character sessions)."""
    messages: list[Message] = Field(default_factory=list)
    verdicts: list[JudgeVerdict] = Field(default_factory=list)
    human_scores: list[HumanScore] = Field(default_factory=list)
    seats: dict[str, str] = Field(default_factory=dict)  # who holds each seat now, when it changed hands
    parent_session: int | None = None
    fork_turn: int | None = None
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
    def method(self) -> str:
        return self.spec.method

    @property
    def going_on(self) -> bool:
        """Whether more turns can still be written (not finished)."""
        return self.status != "finished"

    def seat(self, role: str) -> str:
        """Who holds the "interrogator" or "player" seat now (and so writes its next message)."""
        return self.seats.get(role) or (self.spec.interrogator if role == "interrogator" else self.spec.player)

    def seat_spans(self, role: str) -> list[tuple[str, int, int]]:
        """(author, first turn, last turn) of the stretches of turns each occupant of a seat wrote."""
        from pingpong.core.methods import get_method
        from pingpong.sessions.seats import spans

        kind = "user" if role == "interrogator" else "assistant"
        scripted = get_method(self.spec.method).scripted_authors
        return spans((m.turn, m.author) for m in self.messages if m.role == kind and m.author not in scripted)

    def seat_label(self, role: str = "interrogator") -> str:
        """Who sat in the seat, as every view says it (sessions.seats)."""
        from pingpong.sessions.seats import seat_label

        return seat_label(self.seat_spans(role), self.seat(role), self.going_on)

    def seat_detail(self, role: str = "interrogator") -> str:
        from pingpong.sessions.seats import seat_detail

        return seat_detail(self.seat_spans(role), self.seat(role), self.going_on)

    @property
    def final(self) -> "Final":
        """The merged final every view shows (sessions.scoring), marked when people changed it."""
        from pingpong.sessions.scoring import stored_final

        return stored_final(self)

    def current_human_scores(self) -> dict[tuple[int | None, str], HumanScore]:
        """The newest person's score per (turn, metric); older ones stay in `human_scores`."""
        current: dict[tuple[int | None, str], HumanScore] = {}
        for score in sorted(self.human_scores, key=lambda s: (s.created_at or "", s.id or 0)):
            current[(score.turn, score.metric)] = score
        return current

    def current_human_score(self, turn: int | None, metric: str) -> HumanScore | None:
        return self.current_human_scores().get((turn, metric))

    def summary(self) -> "SessionSummary":
        return SessionSummary(
            id=self.id, status=self.status, character=self.spec.character,
            situation=self.spec.situation, player=self.spec.player,
            interrogator=self.spec.interrogator, interrogator_seat=self.seat_label(), judges=list(self.spec.judges),
            turns=self.turns_done, num_turns=self.num_turns,
            human_turns=len({s.turn for s in self.human_scores}), final=self.final.to_json(),
            final_text=self.final.text(), run=self.run, lang=self.spec.lang or self.character.lang,
            method=self.spec.method, parent_session=self.parent_session, fork_turn=self.fork_turn,
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
            "interrogator_seat": self.seat_label(),
            "seats": {role: self.seat(role) for role in ("interrogator", "player")},
            "judges": list(self.spec.judges),
            "cast": [{"character": c.character, "seat": self.spec.seat_of(c.character)} for c in self.spec.cast],
            "turns": self.turns_done,
            "num_turns": self.num_turns,
            "method": self.spec.method,
            "lang": self.spec.lang or self.character.lang,
            "final": self.final.to_json(),
            "final_overridden": self.final.overridden,
            "parent_session": self.parent_session,
            "fork_turn": self.fork_turn,
            "spec": self.spec.model_dump(mode="json"),
            "messages": [m.model_dump(mode="json") for m in self.messages],
            "verdicts": [v.model_dump(mode="json") for v in self.verdicts],
            "human_scores": human,
            "error": self.error,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "finished_at": self.finished_at,
        }


class Draft(_Record):
    """A message still being streamed, as far as it has come (not part of the transcript)."""

    turn: int
    role: str
    author: str
    text: str = ""


class SessionSummary(_Record):
    """One line of the sessions list."""

    id: int
    status: str
    character: str
    situation: str
    player: str
    interrogator: str  # the seat's first occupant (the spec's)
    interrogator_seat: str = ""  # who sat in it, as every view says it: "offline", "offline+human → offline"
    judges: list[str] = Field(default_factory=list)
    turns: int = 0  # completed turns
    num_turns: int | None = None  # planned turns
    human_turns: int = 0  # turns that carry at least one person's score
    final: float | None = None
    final_text: str = ""  # as screens show it: '4.40', '4.40*' (a person changed a score), 'refusal'
    run: str | None = None
    lang: str | None = None
    method: str = "pingpong"
    parent_session: int | None = None
    fork_turn: int | None = None
    created_at: str | None = None
    updated_at: str | None = None

    def to_json(self) -> dict[str, Any]:
        data = self.model_dump(mode="json", exclude={"final_text"})
        data["final_overridden"] = self.final_text.endswith("*")
        return data
