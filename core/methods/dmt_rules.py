"""DMT-RoleBench's facts and arithmetic: which metrics apply to which role, and the DMT-Score.

Judges label every round of a conversation good or bad per metric; this module turns those
labels into numbers. The DMT-Score treats a conversation like a user who leaves at the first
bad round: for a prefix of tau rounds a conversation passes only if ALL its rounds so far are
good, except for interactivity and knowledge exposure, where ANY good round so far is enough.
Score_tau is the share of conversations that pass; a metric's score is the mean of its curve
Score_1..Score_T; a model's DMT-Score is the mean over the metrics it has a score for.
Pure functions and constants, no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

ROLE_TYPES: tuple[str, ...] = ("fictional", "historical", "professional", "companion", "assistant", "npc")
"""The six role types, spelled as the cards' `role_type` field spells them."""

DEFAULT_ROLE_TYPE = "fictional"
"""Used for cards without a role type (or with one we do not know)."""

DMT_METRICS: tuple[str, ...] = (
    "instruction_following",
    "role_embodying",
    "fluency",
    "coherence",
    "consistency",
    "diversity",
    "human_likeness",
    "knowledge_accuracy",
    "knowledge_hallucination",
    "knowledge_exposure",
    "empathy",
    "personality_trait",
    "interactivity",
    "game_completion",
)
"""The 14 metrics, tier by tier (basic, conversation, imitation)."""

METRIC_TIERS: dict[str, tuple[str, ...]] = {
    "basic": ("instruction_following", "role_embodying"),
    "conversation": ("fluency", "coherence", "consistency", "diversity", "human_likeness"),
    "imitation": (
        "knowledge_accuracy",
        "knowledge_hallucination",
        "knowledge_exposure",
        "empathy",
        "personality_trait",
        "interactivity",
        "game_completion",
    ),
}
"""The three tiers of metrics; together they hold each of DMT_METRICS exactly once."""

_CONVERSATION = METRIC_TIERS["conversation"]

_FACTUAL: tuple[str, ...] = ("instruction_following", *_CONVERSATION, "knowledge_accuracy", "knowledge_hallucination")

METRICS_BY_ROLE_TYPE: dict[str, tuple[str, ...]] = {
    "fictional": (
        "role_embodying",
        *_CONVERSATION,
        "knowledge_accuracy",
        "knowledge_hallucination",
        "knowledge_exposure",
        "personality_trait",
    ),
    "historical": ("instruction_following", *_CONVERSATION, "knowledge_accuracy", "personality_trait"),
    "professional": _FACTUAL,
    "assistant": _FACTUAL,
    "companion": ("instruction_following", *_CONVERSATION, "empathy", "personality_trait", "interactivity"),
    "npc": ("game_completion",),
}
"""The metrics the judges label for a character of each role type (in DMT_METRICS order)."""

ANY_METRICS: frozenset[str] = frozenset({"interactivity", "knowledge_exposure"})
"""Metrics where a prefix passes when ANY of its rounds is good; all others need ALL rounds good."""

METRIC_DESCRIPTIONS: dict[str, str] = {
    "instruction_following": (
        "The reply does what the user asked in this round, within the limits the role allows, "
        "and follows any format or length the user requested."
    ),
    "role_embodying": (
        "The reply speaks as the character in the first person, never admits to being an AI or a model, "
        "and never describes the character from the outside in the third person."
    ),
    "fluency": (
        "The reply reads as natural, correct language in the conversation's language: right grammar, "
        "word forms and spelling, and no stray words from another language."
    ),
    "coherence": (
        "The reply answers what was just said and fits the conversation so far, without non sequiturs "
        "or a jump to an unrelated subject."
    ),
    "consistency": (
        "The reply agrees with what the character said and did in earlier rounds and with the card: "
        "no contradicted facts, changed names or reversed opinions."
    ),
    "diversity": (
        "The reply brings something new in content and wording instead of repeating phrases, "
        "jokes or structures the character already used."
    ),
    "human_likeness": (
        "The reply sounds like a living person in that situation, not like a template or a lecture: "
        "natural length, tone and reactions."
    ),
    "knowledge_accuracy": (
        "Every fact the reply states about the character's world, history or field is correct "
        "for that character and their time."
    ),
    "knowledge_hallucination": (
        "The reply claims no knowledge the character could not have, such as things from after "
        "their time or outside their world, and invents no false facts about them."
    ),
    "knowledge_exposure": (
        "The reply shows some of the character's own knowledge, such as a fact, a memory, a term "
        "or a skill of their world, where it fits the conversation."
    ),
    "empathy": (
        "The reply notices how the user feels, responds to that feeling warmly and appropriately, "
        "and does not brush it aside or lecture."
    ),
    "personality_trait": (
        "The reply shows the character's own temperament, manners and way of speaking as the card "
        "describes them, not a generic polite voice."
    ),
    "interactivity": (
        "The reply keeps the conversation going by engaging the user, for instance with a question, "
        "an invitation or a remark that asks for an answer."
    ),
    "game_completion": (
        "The reply plays the character's part in the game: it follows the game's rules and facts, "
        "keeps the scene on track and moves the user closer to finishing it."
    ),
}
"""What a GOOD round is, per metric, in one sentence each: the criterion the judge is given."""


def metrics_for(role_type: str | None) -> tuple[str, ...]:
    """The metrics that apply to a character of this role type.

    The role type is matched as the cards spell it, ignoring case and surrounding spaces. A card
    without a role type (None) or with one outside ROLE_TYPES is treated as fictional, the most
    common kind of card.
    """
    key = (role_type or "").strip().lower()
    return METRICS_BY_ROLE_TYPE.get(key, METRICS_BY_ROLE_TYPE[DEFAULT_ROLE_TYPE])


def conversation_passes(labels: Sequence[bool], tau: int, any_rule: bool) -> bool:
    """Whether one conversation scores 1 at prefix length tau.

    labels are the conversation's rounds in order (True = good). The prefix is its first tau
    rounds, or all of them when it has fewer (it ended early because its goal was reached).
    ALL rule: every round in the prefix is good. ANY rule: at least one is. A conversation with
    no labels passes nothing.
    """
    if tau < 1:
        raise ValueError(f"tau must be at least 1, got {tau}")
    prefix = [bool(label) for label in labels[:tau]]
    if not prefix:
        return False
    return any(prefix) if any_rule else all(prefix)


def dmt_curve(conversations: Sequence[Sequence[bool | None]], metric: str) -> list[float]:
    """Score_tau for tau = 1..T for one metric over N conversations (one model's).

    Each inner sequence is one conversation's labels for `metric`, round by round (already
    combined over judges, see majority_label). A None label (the judge failed, or the round is
    missing) is left out: the conversation is judged on its labelled rounds in order, as if the
    unlabelled round had not been there. A conversation with no labelled round at all is not
    counted, so N is the number of conversations with at least one label. T is the length of
    the longest (labelled) conversation. No countable conversation gives [].
    """
    if metric not in DMT_METRICS:
        raise ValueError(f"unknown DMT metric '{metric}'; expected one of {', '.join(DMT_METRICS)}")
    any_rule = metric in ANY_METRICS
    labelled = [[bool(label) for label in conv if label is not None] for conv in conversations]
    labelled = [conv for conv in labelled if conv]
    if not labelled:
        return []
    n = len(labelled)
    longest = max(len(conv) for conv in labelled)
    return [sum(conversation_passes(conv, tau, any_rule) for conv in labelled) / n for tau in range(1, longest + 1)]


def dmt_metric_score(curve: Sequence[float]) -> float | None:
    """Score_m: the mean of the curve Score_1..Score_T; None for an empty curve."""
    if not curve:
        return None
    return sum(curve) / len(curve)


def dmt_overall(scores: Mapping[str, float | None]) -> float | None:
    """The DMT-Score: the mean of Score_m over the metrics that have a score; None if none has."""
    values = [value for value in scores.values() if value is not None]
    if not values:
        return None
    return sum(values) / len(values)


def majority_label(labels: Sequence[bool | None]) -> bool | None:
    """Several judges' labels of one round for one metric, combined by majority.

    Missing labels (None) do not vote. A tie counts as bad (False): a round is good only when
    more judges call it good than bad. No label at all gives None.
    """
    votes = [bool(label) for label in labels if label is not None]
    if not votes:
        return None
    return sum(votes) * 2 > len(votes)
