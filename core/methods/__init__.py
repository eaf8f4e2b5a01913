"""Evaluation methods: one module per method (turn policy, prompts, rubric).

The registry maps a CLI name to its module; modules are imported when first asked for,
so a command that uses one method never pays for the others.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from pingpong.core.domain import METHODS
from pingpong.core.errors import UserError

if TYPE_CHECKING:
    from pingpong.core.methods.base import Method

_MODULES: dict[str, str] = {
    "pingpong": "pingpong.core.methods.pingpong",
    "pingpong-v1": "pingpong.core.methods.pingpong_v1",
    "dmt": "pingpong.core.methods.dmt",
    "roleinteract": "pingpong.core.methods.roleinteract",
    "rolebench": "pingpong.core.methods.rolebench",
}


def available() -> tuple[str, ...]:
    """Methods this build can run, in the order of DESIGN.md."""
    return tuple(m for m in METHODS if m in _MODULES)


def get_method(name: str) -> "Method":
    """The method called ``name``; UserError naming the choices otherwise."""
    module = _MODULES.get(name)
    if module is None:
        raise UserError(f"method '{name}': expected one of {', '.join(available())}")
    return importlib.import_module(module).METHOD  # type: ignore[no-any-return]
