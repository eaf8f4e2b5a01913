"""One DMT-RoleBench seed: where a dynamic multi-turn conversation starts and what it is after.

A DMT conversation is not scripted turn by turn. The seed fixes the character, the topic, the
evaluation intent and the user's first message; every later user message is written by a
generator model, and a stop check ends the dialogue once the seed's goal has been reached or
`max_rounds` rounds have been played. The YAML loader lives in `situations.seeds`.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from pingpong.core.domain import NAME_PATTERN, Intent

DEFAULT_MAX_ROUNDS = 6
MAX_ROUNDS_LIMIT = 20


class Seed(BaseModel):
    """A seed for one DMT conversation, in our YAML format (one file per seed)."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=NAME_PATTERN, description="unique id, the file stem, e.g. 'sherlock-holmes-ash'")
    lang: str = Field(pattern=r"^[a-z]{2}$", description="language of the query, topic and goal")
    character: str = Field(pattern=NAME_PATTERN, description="the card this seed is written for, by card name")
    topic: str = Field(min_length=1, description="what the conversation is about; sub-topics are derived from it")
    intent: Intent = Field(description="what the conversation tests; sub-intents are derived from it")
    initial_query: str = Field(min_length=1, description="the user's first message, round 1, sent as written")
    goal: str = Field(
        min_length=1, description="what the dialogue is trying to reach; the stop check ends it once reached"
    )
    max_rounds: int = Field(DEFAULT_MAX_ROUNDS, ge=1, le=MAX_ROUNDS_LIMIT, strict=True, description="hard limit on rounds")
    tags: list[str] = Field(default_factory=list)
