"""The fixed names every layer shares: seats, metrics, methods, scales, the pattern of an id.

Plain values without pydantic, so a command that only lists or counts can import them without
paying for the models; core.domain builds its models on them and offers them too.
"""

from __future__ import annotations

HUMAN = "human"
OFFLINE = "offline"

METRICS: tuple[str, ...] = ("in_character", "entertaining", "fluency")
"""The three Likert metrics every judge scores per player turn (1-5)."""

PAIRWISE = "pairwise"
"""The metric of a pairwise verdict between two sessions (0-1, for the first of the pair: 1 better,
0 worse, 0.5 as good)."""

METHODS: tuple[str, ...] = ("pingpong", "pingpong-v1", "dmt", "roleinteract", "rolebench")
"""Evaluation methods by CLI name (core.methods has one module each)."""

SCALE_BOUNDS: dict[str, tuple[float, float]] = {"1-5": (1, 5), "1-10": (1, 10), "good-bad": (0, 1), "0-1": (0, 1)}
INTEGER_SCALES: frozenset[str] = frozenset({"1-5", "1-10", "good-bad"})

PROMPT_FORMATS: tuple[str, ...] = ("minimal", "overview", "detailed")
"""The player's system-prompt formats (core.domain.PromptFormat)."""

NAME_PATTERN = r"^[a-z0-9][a-z0-9_-]*$"
"""What a card's or situation's `name` (its id) may be."""

LANG_PATTERN = r"^[a-z]{2}$"
"""What a card's or situation's `lang` may be: a two-letter code."""
