"""The nouns of pingpong: cards, situations, messages, verdicts and specs.

Everything the engine, the store and the screens pass around is one of these
pydantic models, so a bad YAML file or a bad import fails at the boundary with
a field name instead of deep inside a run.
"""

from __future__ import annotations

from enum import Enum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

HUMAN = "human"
OFFLINE = "offline"

METRICS: tuple[str, ...] = ("in_character", "entertaining", "fluency")
"""The three Likert metrics every judge scores per player turn (1-5)."""

Role = Literal["user", "assistant"]
"""Message roles as PingPong stores them: user = interrogator, assistant = player."""

SeatRole = Literal["player", "interrogator", "judge"]

NAME_PATTERN = r"^[a-z0-9][a-z0-9_-]*$"


class Intent(str, Enum):
    """DMT-RoleBench evaluation intents a situation may declare."""

    identity_recognition = "identity_recognition"
    role_knowledge_qa = "role_knowledge_qa"
    personality_trait = "personality_trait"
    knowledge_boundary = "knowledge_boundary"
    conversation_steering = "conversation_steering"
    professional_skill = "professional_skill"
    game_interaction = "game_interaction"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ExampleTurn(_Model):
    """One exchange of example dialogue, shown to the player as real prior turns."""

    user: str
    char: str


class Character(_Model):
    """A character card in our own format (YAML on disk)."""

    name: str = Field(pattern=NAME_PATTERN, description="unique id, e.g. 'lighthouse-keeper'")
    char_name: str = Field(min_length=1, description="the name the character goes by")
    lang: str = Field(pattern=r"^[a-z]{2}$")
    summary: str = Field(min_length=1, description="short description the interrogator sees")
    persona: str = Field(min_length=1, description="full description the player sees")
    example_dialogue: list[ExampleTurn] = Field(default_factory=list)
    example_text: str = Field("", description="example dialogue that could not be split into turns")
    greeting: str = ""
    catchphrases: list[str] = Field(default_factory=list, description="lines the character is known to say")
    tags: list[str] = Field(default_factory=list)
    source_kind: str | None = Field(None, description="game, book, film, anime, historical, companion, npc, professional, original")
    role_type: str | None = Field(None, description="fictional, historical, professional, companion, assistant, npc")
    prompt_style: str | None = Field(None, description="prose, attributes or first_person")
    extensions: dict[str, Any] = Field(default_factory=dict)
    origin: str | None = Field(None, description="file the card was imported from")


class Situation(_Model):
    """What the interrogator is trying to do, and for how many turns."""

    name: str = Field(pattern=NAME_PATTERN)
    lang: str = Field(pattern=r"^[a-z]{2}$")
    text: str = Field(min_length=1)
    num_turns: int = Field(ge=1, le=50)
    tags: list[str] = Field(default_factory=list)
    topic: str | None = None
    intent: Intent | None = None


class Message(_Model):
    """One completed utterance. Turn n holds a user message then an assistant message."""

    turn: int = Field(ge=1)
    role: Role
    author: str = Field(description="model name, or 'human'")
    text: str
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    tokens_estimated: bool = False
    latency_ms: float | None = None
    attempt: int = 1


class TurnScore(_Model):
    """One judge's scores for one player turn. status='failed' means no scores, never invented ones."""

    turn: int = Field(ge=1)
    is_refusal: bool | None = None
    in_character: int | None = Field(None, ge=1, le=5)
    entertaining: int | None = Field(None, ge=1, le=5)
    fluency: int | None = Field(None, ge=1, le=5)
    overall: float | None = Field(None, ge=1, le=10, description="version 1 mode: 10-point score")
    explanations: dict[str, str] = Field(default_factory=dict)
    status: Literal["ok", "failed"] = "ok"
    error: str | None = None


class JudgeVerdict(_Model):
    """Everything one judge said about one conversation (or, in version 1, one reply)."""

    judge: str
    turns: list[TurnScore]
    attempts: int = 1


class ModelSpec(_Model):
    """One entry of [models.NAME] in config.toml, or the built-in offline model."""

    name: str
    kind: Literal["openai", "offline"] = "openai"
    base_url: str | None = None
    model: str | None = None
    api_key_env: str | None = None
    max_concurrency: int = Field(16, ge=1)
    merge_system: bool = False
    params: dict[str, Any] = Field(default_factory=dict)
    timeout: float = Field(120.0, gt=0, description="seconds for one attempt")
    deadline: float = Field(600.0, gt=0, description="seconds for all attempts of one call")


class SessionSpec(_Model):
    """What to run: who sits where, with which card, situation and judges."""

    character: str
    situation: str
    player: str
    interrogator: str
    judges: list[str] = Field(default_factory=list)
    num_turns: int | None = Field(None, ge=1, le=50, description="overrides the situation's count")
    version: Literal[1, 2] = 2
    lang: str | None = None


class CallRecord(_Model):
    """One attempt at one model request, for the call log (retries are visible here)."""

    role: SeatRole
    model: str
    turn: int | None = None
    attempt: int = 1
    status: Literal["ok", "retry", "failed"]
    error: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    tokens_estimated: bool = False
    latency_ms: float | None = None
