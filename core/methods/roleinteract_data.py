"""The RoleInteract data: probe sets, padding pools and group scenes, as validated models.

RoleInteract is scored by exact rules, so a broken question (an answer that is not an option,
two answers where one is expected, a memory probe with an odd number of padding utterances)
would silently skew a leaderboard. These models refuse such files at load time, with a message
that names the question. The YAML loaders live in `situations.probes`; scoring in
`roleinteract_rules`.
"""

from __future__ import annotations

from collections import Counter
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from pingpong.core.domain import NAME_PATTERN
from pingpong.core.vocabulary import MAX_TURNS

DIMENSIONS: tuple[str, ...] = ("self_style", "self_knowledge", "emotion", "situation", "social_preference")
"""The multiple-choice dimensions. Only `situation` questions may have several correct options."""

MULTIPLE_DIMENSION = "situation"
"""The one dimension scored by Acc_multiple (partial credit); the others by Acc_single."""

MEMORY_DIMENSIONS: tuple[str, ...] = ("memory_short", "memory_long")
"""Conversation-memory dimensions, scored by keyword coverage."""

MEMORY_SHORT_LIMIT = 40
"""A memory question asked again within this many utterances of the plant is short-term."""

PREFERENCES: tuple[str, ...] = ("positive", "neutral", "negative")
"""Social preferences of a group member: cooperates/mediates/leads, neither, refuses/competes."""

OPTION_LETTERS = "ABCDEFGH"
"""Option letters, always Latin, whatever the language of the question."""

MIN_OPTIONS, MAX_OPTIONS = 2, 8
MIN_MEMBERS, MAX_MEMBERS = 2, 10

Dimension = Literal["self_style", "self_knowledge", "emotion", "situation", "social_preference"]
Preference = Literal["positive", "neutral", "negative"]
PaddingSource = Literal["pool", "interrogator"]

_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]*$"
_CYRILLIC_LOOKALIKES = {"А": "A", "В": "B", "С": "C", "Е": "E", "Н": "H"}


class _Model(BaseModel):
    # Numbers in YAML (a year as an option, a house number as a keyword) are taken as text.
    model_config = ConfigDict(extra="forbid", coerce_numbers_to_str=True)


def _letter_problem(letter: str) -> str:
    latin = _CYRILLIC_LOOKALIKES.get(letter)
    if latin:
        return f"option letter '{letter}' is Cyrillic; use the Latin '{latin}'"
    return f"option letter '{letter}' is not one of {', '.join(OPTION_LETTERS)}"


class ChoiceQuestion(_Model):
    """One multiple-choice question: options A.. and the correct letter(s)."""

    id: str = Field(pattern=_ID_PATTERN, description="unique within its file, e.g. 'style-01'")
    dimension: Dimension
    context: str | None = Field(None, description="a short scene or quoted line the question is about")
    question: str = Field(min_length=1)
    options: dict[str, str]
    answer: list[str] = Field(min_length=1, description="correct letters; several only for `situation`")

    @field_validator("question")
    @classmethod
    def _question_not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("question is blank")
        return value

    @field_validator("options")
    @classmethod
    def _letters_in_order(cls, options: dict[str, str]) -> dict[str, str]:
        if not MIN_OPTIONS <= len(options) <= MAX_OPTIONS:
            raise ValueError(f"expected {MIN_OPTIONS} to {MAX_OPTIONS} options, found {len(options)}")
        for letter in options:
            if letter not in OPTION_LETTERS:
                raise ValueError(_letter_problem(letter))
        expected = OPTION_LETTERS[: len(options)]
        if "".join(sorted(options)) != expected:
            raise ValueError(f"option letters must run A, B, ... without gaps: expected {', '.join(expected)}, "
                             f"found {', '.join(sorted(options))}")
        for letter, text in options.items():
            if not text.strip():
                raise ValueError(f"option {letter} is blank")
        return {letter: options[letter] for letter in expected}

    @model_validator(mode="after")
    def _answers_are_options(self) -> ChoiceQuestion:
        for letter in self.answer:
            if letter not in OPTION_LETTERS:
                raise ValueError(f"question {self.id}: answer: {_letter_problem(letter)}")
            if letter not in self.options:
                raise ValueError(f"question {self.id}: answer {letter} is not one of the options "
                                 f"({', '.join(self.options)})")
        repeated = [letter for letter, n in Counter(self.answer).items() if n > 1]
        if repeated:
            raise ValueError(f"question {self.id}: answer {repeated[0]} is given twice")
        if len(self.answer) > 1 and self.dimension != MULTIPLE_DIMENSION:
            raise ValueError(f"question {self.id}: dimension {self.dimension} takes exactly one answer, "
                             f"found {len(self.answer)} (only `{MULTIPLE_DIMENSION}` may have several)")
        return self

    @property
    def letters(self) -> tuple[str, ...]:
        """The option letters in order: ('A', 'B', ...)."""
        return tuple(self.options)

    @property
    def multiple(self) -> bool:
        """True when several options may be correct (scored by Acc_multiple)."""
        return self.dimension == MULTIPLE_DIMENSION

    @property
    def correct(self) -> frozenset[str]:
        return frozenset(self.answer)


class MemoryProbe(_Model):
    """A fact planted in a user message, `padding` unrelated utterances, then the question again."""

    id: str = Field(pattern=_ID_PATTERN)
    plant: str = Field(min_length=1, description="user message stating the fact")
    padding: int = Field(ge=0, le=2 * (MAX_TURNS - 2), strict=True,  # its session: padding / 2 + 2 turns
                         description="user+player utterances between plant and ask; even")
    ask: str = Field(min_length=1, description="the question asked later")
    keywords: list[str] = Field(min_length=1, description="expected in the reply, case-insensitive substrings")
    padding_from: PaddingSource = Field("pool", description="who writes the padding's user lines: the "
                                        "language's padding pool, or the interrogator seat (small talk)")

    @field_validator("padding")
    @classmethod
    def _even(cls, value: int) -> int:
        if value % 2:
            raise ValueError(f"padding counts user+player utterances in pairs, so it must be even (found {value})")
        return value

    @field_validator("keywords")
    @classmethod
    def _keywords_not_blank(cls, values: list[str]) -> list[str]:
        for i, keyword in enumerate(values):
            if not keyword.strip():
                raise ValueError(f"keyword {i + 1} is blank")
        return values


def memory_dimension(probe: MemoryProbe) -> str:
    """'memory_short' when the question comes back within MEMORY_SHORT_LIMIT utterances of the plant
    (the planted user message and its reply count: padding + 2 <= 40), else 'memory_long'."""
    return "memory_short" if probe.padding + 2 <= MEMORY_SHORT_LIMIT else "memory_long"


def _unique_ids(ids: list[str], where: str) -> None:
    repeated = [i for i, n in Counter(ids).items() if n > 1]
    if repeated:
        raise ValueError(f"id '{repeated[0]}' is used by more than one {where}")


class ProbeSet(_Model):
    """One character's probes in one language: multiple-choice questions and memory probes."""

    character: str = Field(pattern=NAME_PATTERN, description="a card name")
    lang: str = Field(pattern=r"^[a-z]{2}$")
    questions: list[ChoiceQuestion] = Field(default_factory=list)
    memory: list[MemoryProbe] = Field(default_factory=list)

    @model_validator(mode="after")
    def _ids_unique_and_not_empty(self) -> ProbeSet:
        if not self.questions and not self.memory:
            raise ValueError("a probe set needs at least one question or memory probe")
        _unique_ids([q.id for q in self.questions] + [m.id for m in self.memory], "question or memory probe")
        return self

    def by_dimension(self, dimension: str) -> list[ChoiceQuestion]:
        """The multiple-choice questions of one dimension, in file order."""
        return [q for q in self.questions if q.dimension == dimension]


class PaddingPool(_Model):
    """User small-talk lines for one language, used to pad memory probes; unrelated to any fact."""

    lang: str = Field(pattern=r"^[a-z]{2}$")
    lines: list[str] = Field(min_length=1)

    @field_validator("lines")
    @classmethod
    def _lines_not_blank(cls, values: list[str]) -> list[str]:
        for i, line in enumerate(values):
            if not line.strip():
                raise ValueError(f"line {i + 1} is blank")
        return values


class SceneQuestion(ChoiceQuestion):
    """A group scene's question about the tested member's next move: asked at the end of the scene,
    or at a marked point, right after ``after`` group utterances."""

    after: int | None = Field(None, ge=1, description="ask after this many group utterances (default: at the end)")


class SceneMember(_Model):
    """One character in a group scene, with the social preference it is told to keep."""

    character: str = Field(pattern=NAME_PATTERN)
    preference: Preference


class GroupScene(_Model):
    """A group chat of 2-10 characters; the tested member answers questions about its next move."""

    name: str = Field(pattern=NAME_PATTERN, description="slug, the file's stem")
    lang: str = Field(pattern=r"^[a-z]{2}$")
    setting: str = Field(min_length=1, description="the scene every member is told")
    opening: str = Field(min_length=1, description="the narrator's first line")
    tested: str = Field(pattern=NAME_PATTERN, description="the member under test")
    members: list[SceneMember]
    rounds: int = Field(ge=1, strict=True, description="group utterances before the questions")
    questions: list[SceneQuestion] = Field(min_length=1)

    @field_validator("members")
    @classmethod
    def _member_count(cls, members: list[SceneMember]) -> list[SceneMember]:
        if not MIN_MEMBERS <= len(members) <= MAX_MEMBERS:
            raise ValueError(f"a group scene has {MIN_MEMBERS} to {MAX_MEMBERS} members, found {len(members)}")
        repeated = [c for c, n in Counter(m.character for m in members).items() if n > 1]
        if repeated:
            raise ValueError(f"character '{repeated[0]}' is a member twice")
        return members

    @field_validator("questions")
    @classmethod
    def _social_questions(cls, questions: list[SceneQuestion]) -> list[SceneQuestion]:
        for q in questions:
            if q.dimension != "social_preference":
                raise ValueError(f"question {q.id}: scene questions have dimension social_preference, "
                                 f"found {q.dimension}")
        _unique_ids([q.id for q in questions], "question")
        return questions

    @model_validator(mode="after")
    def _tested_is_member(self) -> GroupScene:
        names = [m.character for m in self.members]
        if self.tested not in names:
            raise ValueError(f"tested member '{self.tested}' is not among the members ({', '.join(names)})")
        for q in self.questions:
            if q.after is not None and q.after > self.rounds:
                raise ValueError(f"question {q.id}: after {q.after} utterances, but the scene has only "
                                 f"{self.rounds} rounds")
        if self.rounds + len(self.questions) > MAX_TURNS:  # a session's turns: one per group line and question
            raise ValueError(f"{self.rounds} rounds and {len(self.questions)} questions make more than "
                             f"{MAX_TURNS} turns")
        return self

    def member(self, character: str) -> SceneMember:
        """The member playing character; KeyError if none."""
        for m in self.members:
            if m.character == character:
                return m
        raise KeyError(character)

    @property
    def tested_member(self) -> SceneMember:
        return self.member(self.tested)
