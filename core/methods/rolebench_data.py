"""RoleBench question sets: single-turn instructions with the reference answers Rouge-L compares against.

Two kinds of set (METHOD.md "RoleLLM"). A *general* set (one per language) holds instructions any
assistant could answer, each with plain references (RAW: is the answer still right?) and, per
character card, in-role references (CUS: does it sound like the role?). A *role-specific* set (one
per character) holds questions only that role answers well, with in-role references (SPE: does it
know its own life and world?). Sets are YAML files; these models check them at the boundary.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, model_validator

from pingpong.core.domain import NAME_PATTERN

Answer = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]
References = Annotated[list[Answer], Field(min_length=1)]
CardName = Annotated[str, StringConstraints(pattern=NAME_PATTERN)]
QuestionId = Annotated[str, StringConstraints(pattern=NAME_PATTERN)]
Lang = Annotated[str, StringConstraints(pattern=r"^[a-z]{2}$")]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class GeneralQuestion(_Model):
    """A general instruction; ``references`` are plain answers, ``in_role`` answers per card name."""

    id: QuestionId
    instruction: Answer
    references: References
    in_role: dict[CardName, References] = Field(default_factory=dict)


class RoleQuestion(_Model):
    """A question about one role's own life, world or knowledge; ``references`` are in-role answers."""

    id: QuestionId
    instruction: Answer
    references: References


def _unique_ids(questions: list[GeneralQuestion] | list[RoleQuestion]) -> None:
    seen: set[str] = set()
    for q in questions:
        if q.id in seen:
            raise ValueError(f"question id '{q.id}' appears more than once")
        seen.add(q.id)


class GeneralSet(_Model):
    """The general instructions of one language (file ``general-<lang>.yaml``)."""

    kind: Literal["general"]
    lang: Lang
    questions: list[GeneralQuestion] = Field(min_length=1)

    @model_validator(mode="after")
    def _ids(self) -> GeneralSet:
        _unique_ids(self.questions)
        return self

    @property
    def name(self) -> str:
        """The set's library name: ``general-<lang>``."""
        return f"general-{self.lang}"

    def characters(self) -> list[str]:
        """Card names with in-role references on at least one question, sorted."""
        return sorted({name for q in self.questions for name in q.in_role})


class RoleSet(_Model):
    """The role-specific questions of one character card (file ``<character>.yaml``)."""

    kind: Literal["role_specific"]
    character: CardName
    lang: Lang
    questions: list[RoleQuestion] = Field(min_length=1)

    @model_validator(mode="after")
    def _ids(self) -> RoleSet:
        _unique_ids(self.questions)
        return self

    @property
    def name(self) -> str:
        """The set's library name: the character's card name."""
        return self.character


QuestionSet = GeneralSet | RoleSet
QUESTION_SETS: dict[str, type[GeneralSet | RoleSet]] = {"general": GeneralSet, "role_specific": RoleSet}
"""The model for each value of a file's ``kind``."""
