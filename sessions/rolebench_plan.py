"""What a RoleBench run owes: player x character x question, for the characters with references.

A character takes part when the language's question sets hold references for it: the general
instructions that have its in-role answers (RAW, CUS) and its own role-specific set (SPE).
"""

from __future__ import annotations

from collections.abc import Sequence

from pingpong.core.domain import Character, Situation
from pingpong.core.errors import UserError
from pingpong.core.methods.rolebench import general_situations, role_situations
from pingpong.sessions.plan import PlanItem


def questions_for(library, character: Character, lang: str) -> list[Situation]:
    """The character's questions in ``lang`` as one-turn situations (general first, then its own)."""
    out: list[Situation] = []
    general = library.general(lang)
    if general is not None:
        out += general_situations(general, character.name)
    own = library.role_set(character.name, lang)
    if own is not None:
        out += role_situations(own)
    return out


def rolebench_plan(library, players: Sequence[str], cards: Sequence[Character], lang: str,
                   only: Sequence[str] | None = None, every: int = 1) -> list[PlanItem]:
    """Every player answers every question of every card that has some; ``only`` keeps questions whose
    name or set is listed; ``every`` keeps every k-th question of each card. UserError when none is left."""
    if every < 1:
        raise UserError(f"--every: must be 1 or more, got {every}")
    if len(set(players)) != len(players):
        raise UserError("--player: a player is given twice")
    items: list[PlanItem] = []
    for card in cards:
        questions = questions_for(library, card, lang)
        if only:
            wanted = set(only)
            questions = [q for q in questions if q.name in wanted or (q.data or {}).get("set") in wanted]
        for question in questions[::every]:
            items += [PlanItem(player, card, question) for player in players]
    if not items:
        raise UserError(f"no RoleBench questions with references for these characters in lang {lang}")
    return items
