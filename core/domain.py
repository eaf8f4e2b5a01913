"""The nouns of pingpong: cards, situations, messages, verdicts and specs.

Everything the engine, the store and the screens pass around is one of these
pydantic models, so a bad YAML file or a bad import fails at the boundary with
a field name instead of deep inside a run.
"""

from __future__ import annotations

from enum import Enum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from pingpong.core.vocabulary import HUMAN as HUMAN
from pingpong.core.vocabulary import INTEGER_SCALES as INTEGER_SCALES
from pingpong.core.vocabulary import LANG_PATTERN as LANG_PATTERN
from pingpong.core.vocabulary import MAX_TURNS, TESTER_SCORES
from pingpong.core.vocabulary import METHODS as METHODS
from pingpong.core.vocabulary import METRICS as METRICS
from pingpong.core.vocabulary import NAME_PATTERN as NAME_PATTERN
from pingpong.core.vocabulary import OFFLINE as OFFLINE
from pingpong.core.vocabulary import PAIRWISE as PAIRWISE
from pingpong.core.vocabulary import PROMPT_FORMATS as PROMPT_FORMATS
from pingpong.core.vocabulary import SCALE_BOUNDS as SCALE_BOUNDS

Scale = Literal["1-5", "1-10", "good-bad", "0-1"]
"""Every score's scale: Likert 1-5 (PingPong v2), 1-10 (v1), per-round labels (DMT: 1 good,
0 bad), shares and flags in 0..1 (refusal, Rouge-L, keyword coverage, pairwise preference)."""

Role = Literal["user", "assistant"]
"""Message roles as PingPong stores them: user = interrogator, assistant = player."""

SeatRole = Literal["player", "interrogator", "judge"]

PromptFormat = Literal["minimal", "overview", "detailed"]
"""The player's system-prompt format (METHOD.md, DMT-RoleBench), all built from the same card:
the name only, the name and summary, or the full card with role-play instructions."""


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
    model_config = ConfigDict(extra="forbid", defer_build=True)


class ExampleTurn(_Model):
    """One exchange of example dialogue, shown to the player as real prior turns."""

    user: str
    char: str


class Character(_Model):
    """A character card in our own format (YAML on disk)."""

    name: str = Field(pattern=NAME_PATTERN, description="unique id, e.g. 'lighthouse-keeper'")
    char_name: str = Field(min_length=1, description="the name the character goes by")
    lang: str = Field(pattern=LANG_PATTERN)
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
    lang: str = Field(pattern=LANG_PATTERN)
    text: str = Field(min_length=1)
    num_turns: int = Field(ge=1, le=MAX_TURNS, strict=True)  # `true` or "3" in a YAML file is a mistake, not 1 or 3
    tags: list[str] = Field(default_factory=list)
    topic: str | None = None
    intent: Intent | None = None
    data: dict[str, Any] = Field(default_factory=dict, description="method-specific material: a DMT seed's goal, a RoleBench question's references")


CUT_NOTE: tuple[str, str] = ("finish_reason", "length")
"""The note a message carries when the model stopped at its max_tokens (the text is cut short)."""

PLAIN_FINISHES = frozenset({"stop", "eos", "eos_token", "stop_sequence", "end_turn"})
"""finish_reason values of a reply that ended as the model meant it to (servers spell it several
ways): a message carries no note for them. Any other value is kept in its notes."""

_FINISH_LABELS = {"length": "cut at max_tokens", "content_filter": "stopped by the provider's content filter"}


def finish_notes(finish: str | None) -> dict[str, str]:
    """The notes of a model's message whose reply ended with ``finish``: the finish_reason unless
    it is a plain stop (``length``, ``content_filter``, ``tool_calls``, ... are kept)."""
    return {} if finish is None or finish in PLAIN_FINISHES else {CUT_NOTE[0]: finish}


def finish_label(finish: str | None) -> str | None:
    """How a screen marks a reply that ended with ``finish`` ("cut at max_tokens"), or None for a
    plain stop."""
    if finish is None or finish in PLAIN_FINISHES:
        return None
    return _FINISH_LABELS.get(finish, f"ended with finish_reason {finish}")


class Message(_Model):
    """One completed utterance. Turn n holds a user message then an assistant message."""

    turn: int = Field(ge=1)
    role: Role
    author: str = Field(description="model name, or 'human'")
    text: str
    speaker: str | None = Field(None, description="who speaks in the story: a card name, or 'user'")
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    tokens_estimated: bool = False
    latency_ms: float | None = None
    attempt: int = 1
    notes: dict[str, str] = Field(default_factory=dict, description="why the message is what it is (DMT: sub-topic, checks; finish_reason: how the reply ended when not a plain stop, e.g. length when cut short)")

    @property
    def truncated(self) -> bool:
        """The model stopped at its max_tokens: the text may end mid-sentence."""
        return self.notes.get(CUT_NOTE[0]) == CUT_NOTE[1]

    @property
    def ending(self) -> str | None:
        """How the reply ended when that is worth a mark ("cut at max_tokens", "stopped by the
        provider's content filter"), from its notes; None for a plain end."""
        return finish_label(self.notes.get(CUT_NOTE[0]))


class Score(_Model):
    """One value on one scale: a judge's or a person's, for one turn or (turn None) the session.

    status="failed" carries no value, never an invented one; an ok score always lies on its scale.
    """

    turn: int | None = Field(None, ge=1)
    metric: str = Field(min_length=1)
    value: float | None = None
    scale: Scale
    explanation: str | None = None
    status: Literal["ok", "failed"] = "ok"
    error: str | None = None

    @model_validator(mode="after")
    def _on_scale(self) -> "Score":
        if self.status == "failed":
            if self.value is not None:
                raise ValueError("a failed score carries no value")
            return self
        if self.value is None:
            raise ValueError(f"{self.metric}: an ok score needs a value")
        lo, hi = SCALE_BOUNDS[self.scale]
        if not lo <= self.value <= hi or (self.scale in INTEGER_SCALES and not float(self.value).is_integer()):
            raise ValueError(f"{self.metric}: {self.value} is not on the {self.scale} scale")
        return self


class TurnView:
    """One judge's scores of one turn, read by metric: what the screens and the PingPong
    exchange formats show per turn. Failed when any of its scores failed."""

    __slots__ = ("turn", "scores")

    def __init__(self, turn: int | None, scores: dict[str, Score]):
        self.turn = turn
        self.scores = scores

    @property
    def status(self) -> Literal["ok", "failed"]:
        return "failed" if any(s.status == "failed" for s in self.scores.values()) else "ok"

    @property
    def error(self) -> str | None:
        return next((s.error for s in self.scores.values() if s.error), None)

    def value(self, metric: str) -> float | None:
        score = self.scores.get(metric)
        return score.value if score is not None and score.status == "ok" else None

    @property
    def explanations(self) -> dict[str, str]:
        return {m: s.explanation for m, s in self.scores.items() if s.explanation}

    @property
    def is_refusal(self) -> bool | None:
        value = self.value("is_refusal")
        return None if value is None else bool(value)

    @property
    def in_character(self) -> float | None:
        return self.value("in_character")

    @property
    def entertaining(self) -> float | None:
        return self.value("entertaining")

    @property
    def fluency(self) -> float | None:
        return self.value("fluency")

    @property
    def overall(self) -> float | None:
        return self.value("overall")


class JudgeVerdict(_Model):
    """What one judge said in one go: scores for one or more turns (or the whole session)."""

    judge: str
    scores: list[Score]
    attempts: int = 1

    @property
    def failed(self) -> list[Score]:
        return [s for s in self.scores if s.status == "failed"]

    @property
    def turns(self) -> list[TurnView]:
        """The scores grouped by turn, in turn order (the whole-session ones last)."""
        grouped: dict[int | None, dict[str, Score]] = {}
        for s in self.scores:
            grouped.setdefault(s.turn, {})[s.metric] = s
        return [TurnView(t, grouped[t]) for t in sorted(grouped, key=lambda t: (t is None, t or 0))]


class Price(_Model):
    """What a model's provider bills per million tokens (config `price = {input, output}`), in
    whatever currency the user writes; only used to show what runs cost."""

    input: float = Field(ge=0, allow_inf_nan=False, strict=True, description="per million prompt tokens")
    output: float = Field(ge=0, allow_inf_nan=False, strict=True, description="per million completion tokens")

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        return (prompt_tokens * self.input + completion_tokens * self.output) / 1_000_000


class ModelSpec(_Model):
    """One entry of [models.NAME] in config.toml, or the built-in offline model."""

    name: str
    kind: Literal["openai", "offline"] = "openai"
    base_url: str | None = None
    model: str | None = None
    api_key_env: str | None = Field(None, pattern=r"^[A-Za-z_][A-Za-z0-9_]*$",
                                    description="the NAME of the variable that holds the key, never the key")
    max_concurrency: int = Field(16, ge=1)
    merge_system: bool = False
    params: dict[str, Any] = Field(default_factory=dict)
    timeout: float = Field(120.0, gt=0, description="seconds for one attempt")
    deadline: float = Field(600.0, gt=0, description="seconds for all attempts of one call")
    price: Price | None = Field(None, description="per million tokens; None: costs are not shown")


class CastSeat(_Model):
    """One member of a group scene and who plays it: a model name, or 'human' (a person)."""

    character: str = Field(pattern=NAME_PATTERN, description="card name")
    seat: str = Field(min_length=1, description="model name, or 'human'")


MIN_CAST, MAX_CAST = 2, 10
"""A group session seats 2 to 10 characters."""

NextSpeaker = Literal["turn", "narrator"]
"""How a group scene picks who speaks next: in turn (round robin), or by the narrator seat (the
interrogator's: a model is asked, a person chooses with a key). A person may always choose."""


class SessionSpec(_Model):
    """What to run: which method, who sits where, with which card, situation and judges.

    A group session (``cast`` not empty) seats several characters; ``character`` is the member under
    test and sits in the player seat, the interrogator seat is the scene's narrator.
    """

    method: str = "pingpong"
    character: str
    situation: str
    player: str
    interrogator: str
    judges: list[str] = Field(default_factory=list)
    num_turns: int | None = Field(None, ge=1, le=MAX_TURNS, description="overrides the situation's count")
    lang: str | None = None
    prompting: Literal["zsp", "fsp", "fsd"] | None = Field(
        None, description="player prompting strategy; None sends every card example as prior turns")
    seats: dict[str, dict[str, Any]] = Field(
        default_factory=dict, description="each seat's set-up as PingPong results files record it, by "
        "'player', 'interrogator' or 'judge:NAME': {'params': {...}, 'system_prompt': ...}")
    origin: dict[str, Any] = Field(
        default_factory=dict, description="what an imported PingPong results file held beyond what pingpong "
        "models (its version, the character and situation blocks as written, an opening message, other "
        "keys of a judge's entry), so an export gives it back")
    cast: list[CastSeat] = Field(default_factory=list, description="a group scene's members and their seats")
    next_speaker: NextSpeaker = "narrator"

    @model_validator(mode="after")
    def _the_tester_is_the_judge(self) -> "SessionSpec":
        """PingPong v1's tester scores as it asks: no other judge sits, whatever a caller passed."""
        if self.method in TESTER_SCORES and self.interrogator != HUMAN and self.judges != [self.interrogator]:
            self.judges = [self.interrogator]
        return self

    @model_validator(mode="after")
    def _cast_holds_the_tested_member(self) -> "SessionSpec":
        if not self.cast:
            return self
        names = [c.character for c in self.cast]
        if not MIN_CAST <= len(names) <= MAX_CAST:
            raise ValueError(f"cast: a group scene seats {MIN_CAST} to {MAX_CAST} characters, found {len(names)}")
        repeated = next((n for n in names if names.count(n) > 1), None)
        if repeated:
            raise ValueError(f"cast: character '{repeated}' is seated twice")
        if self.character not in names:
            raise ValueError(f"cast: the character under test '{self.character}' is not in the cast "
                             f"({', '.join(names)})")
        return self

    def seat_of(self, character: str) -> str:
        """Who the spec seats as ``character``: the player for the member under test."""
        if character == self.character:
            return self.player
        return next(c.seat for c in self.cast if c.character == character)
    prompt_format: PromptFormat = Field(
        "detailed", description="how much of the card the player's system prompt carries (DMT's formats)")
    user_name: str | None = Field(
        None, description="what {{user}} becomes in the card (config user_name); None: the language's neutral name")

    @model_validator(mode="before")
    @classmethod
    def _version_alias(cls, data: Any) -> Any:
        """Specs stored before methods existed say `version: 1|2`; 1 is pingpong-v1."""
        if isinstance(data, dict) and "version" in data:
            data = dict(data)
            version = data.pop("version")
            data.setdefault("method", "pingpong-v1" if version == 1 else "pingpong")
        return data


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
