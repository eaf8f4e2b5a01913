"""What a RoleInteract run owes in group scenes: player x scene, for the scenes that test one of the
run's characters. The player sits as the tested member; the other members sit with the run's
interrogator model, so every player meets the same group.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pingpong.core.domain import Character
from pingpong.core.errors import UserError
from pingpong.core.methods.roleinteract_data import GroupScene
from pingpong.core.methods.roleinteract_scene import scene_situation
from pingpong.sessions.plan import PlanItem


def scene_plan(scenes: Sequence[GroupScene], tested: Sequence[Character], library: Sequence[Character],
               players: Sequence[str], only: Sequence[str] | None = None, every: int = 1, *,
               where: Callable[[str], object] | None = None, skipped: list[str] | None = None) -> list[PlanItem]:
    """Every player plays every scene whose tested member is in ``tested`` (scenes in library order;
    ``only`` keeps the scenes so named, other names are left to the caller; ``every`` keeps every k-th
    scene). ``library`` holds the cards of every member; a scene with a member without a card is a
    bad file (``where`` names it): a line in ``skipped`` when one is given and the scene was not
    named in ``only``, else a UserError."""
    if every < 1:
        raise UserError(f"--every: must be 1 or more, got {every}")
    if len(set(players)) != len(players):
        raise UserError("--player: a player is given twice")
    wanted = {card.name for card in tested}
    cards = {card.name: card for card in library}
    chosen = [s for s in scenes if s.tested in wanted and (not only or s.name in set(only))]
    items: list[PlanItem] = []
    for scene in chosen[::every]:
        missing = [m.character for m in scene.members if m.character not in cards]
        if missing:
            line = (f"{where(scene.name) if where else f'group scene {scene.name!r}'}: "
                    f"no character card '{missing[0]}' for lang {scene.lang}")
            if skipped is None or only:
                raise UserError(line)
            skipped.append(f"{line}; skipped")
            continue
        cast = tuple(cards[m.character] for m in scene.members)
        situation = scene_situation(scene)
        items += [PlanItem(player, cards[scene.tested], situation, cast) for player in players]
    return items
