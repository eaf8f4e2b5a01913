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

TESTER_SCORES: frozenset[str] = frozenset({"pingpong-v1"})
"""Methods whose interrogator (the tester) also scores: a session's judges are its interrogator alone."""

ASKS_AS_WRITTEN: frozenset[str] = frozenset({"rolebench"})
"""Methods that write every user line themselves (RoleBench's instructions): the interrogator seat's
model is never called, and views say so. Here, not only on the method, so that listing sessions
(Home, `sessions list`) words the seat without importing the methods."""

SCALE_BOUNDS: dict[str, tuple[float, float]] = {"1-5": (1, 5), "1-10": (1, 10), "good-bad": (0, 1), "0-1": (0, 1)}
INTEGER_SCALES: frozenset[str] = frozenset({"1-5", "1-10", "good-bad"})

SEED_AUTHOR = "seed"
"""The author of a DMT dialogue's first message: the seed's initial query, sent as written."""
ROLEBENCH_AUTHOR = "rolebench"
"""The author of RoleLLM's instructions (written by the question set, not by a model)."""
ROLEINTERACT_AUTHOR = "roleinteract"
"""The author of the user messages RoleInteract's probe sets write (questions, plants, padding)."""
SCENE_AUTHOR = "scene"
"""The author of a group scene's narration (written by the scene file, not by a model)."""

SCRIPTED_AUTHORS: dict[str, frozenset[str]] = {
    "dmt": frozenset({SEED_AUTHOR}),
    "rolebench": frozenset({ROLEBENCH_AUTHOR}),
    "roleinteract": frozenset({ROLEINTERACT_AUTHOR, SCENE_AUTHOR}),
}
"""By method: the authors of the lines a method writes itself, which no seat wrote (a session's
list row names only who sat in the seats). Each method's `scripted_authors`."""

PROMPT_FORMATS: tuple[str, ...] = ("minimal", "overview", "detailed")
"""The player's system-prompt formats (core.domain.PromptFormat)."""

NAME_PATTERN = r"^[a-z0-9][a-z0-9_-]*$"
"""What a card's or situation's `name` (its id) may be."""

LANG_PATTERN = r"^[a-z]{2}$"
"""What a card's or situation's `lang` may be: a two-letter code."""

MAX_TURNS = 50
"""The most turns a situation or a session's spec may plan (the least is 1)."""

ISO_639_1 = frozenset("""
    aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs cu cv cy da
    de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht hu hy hz
    ia id ie ig ii ik io is it iu ja jv ka kg ki kj kk kl km kn ko kr ks ku kv kw ky la lb lg li ln
    lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne ng nl nn no nr nv ny oc oj om or os pa pi
    pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl sm sn so sq sr ss st su sv sw ta te tg th ti
    tk tl tn to tr ts tt tw ty ug uk ur uz ve vi vo wa wo xh yi yo za zh zu
""".split())
"""The two-letter language codes (ISO 639-1): a folder is read as a language only when it is one."""


def prompting_problem(prompting: str | None, prompt_format: str) -> str | None:
    """Why a prompting strategy cannot go with a prompt format, or None. The strategy says how the
    card's examples reach the player; the minimal and overview formats send none, so the pair would
    be stored and reported as a strategy that was never used."""
    if prompting not in (None, "zsp") and prompt_format != "detailed":  # zsp sends none either way
        return (f"prompting {prompting}: the {prompt_format} prompt format sends the player no examples; "
                "a prompting strategy goes with the detailed prompt format")
    return None
