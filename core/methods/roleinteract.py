"""RoleInteract (method `roleinteract`): social interaction, scored by rule without a judge model.

This module holds the method's entry points; a session whose situation is a group scene runs
through core.methods.roleinteract_scene (the cast, who speaks next, the questions and their rule
scores). Probe sessions (multiple-choice and memory probes) come with the probe sets' own module.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pingpong.core.methods.base import Method
from pingpong.core.methods.roleinteract_scene import METRIC, converse_scene, is_scene, judge_scene

if TYPE_CHECKING:
    from pingpong.core.engine import SessionEngine


class RoleInteract(Method):
    name = "roleinteract"
    metrics = (METRIC,)
    scale = "0-1"

    async def converse(self, engine: "SessionEngine") -> None:
        if not is_scene(engine.situation):
            engine.fail(f"situation '{engine.situation.name}' is not a group scene", "interrogator",
                        engine.seats["interrogator"])
        await converse_scene(engine)

    async def judge(self, engine: "SessionEngine") -> None:
        if is_scene(engine.situation):
            await judge_scene(engine)


METHOD = RoleInteract()
