"""The sandboxed Jinja environment prompts render in, with keys of plain dicts read first.

Every variable a prompt template gets is plain data: dicts of strings, numbers and lists
(a card, a situation, transcript lines). Templates read them as attributes (`m.text`,
`character.char_name`), which Jinja resolves by trying the real attribute first: on a dict that
raises and catches an AttributeError before the key is read, and the sandbox checks the name on
the way. Reading the key first gives the same value (no variable has a key named like a dict
method) at less than half the cost: prompt rendering is about an eighth of a batch run's CPU.
Anything that is not a key, and any object that is not a plain dict, goes the sandbox's way.

Imported only where prompts are rendered: it imports jinja2.
"""

from __future__ import annotations

from typing import Any

from jinja2.sandbox import SandboxedEnvironment


class PromptEnvironment(SandboxedEnvironment):
    """SandboxedEnvironment whose `a.b` on a plain dict reads the key `b` first."""

    def getattr(self, obj: Any, attribute: str) -> Any:
        if type(obj) is dict:
            try:
                return obj[attribute]
            except KeyError:
                pass
        return super().getattr(obj, attribute)
