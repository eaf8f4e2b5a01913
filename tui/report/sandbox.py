"""The report's Jinja environment: the immutable sandbox, with its checks skipped where they cannot fail.

A report of a thousand conversations reads some 700,000 attributes in its templates, and the
sandbox checks every one (is it internal, could it change a list) after reading it: a third of
the report's time. For an object of pingpong's own classes (the report's rows, the stored
session's models) and a name that does not start with `_`, those checks always pass: they refuse
only such names, the internals of functions, types, frames and generators, and the methods of
lists, dicts and sets. So such a read is a plain one, with the same result; and a plain dict's key
is read at once when no dict attribute has its name (the sandbox would try the attribute, fail,
then read the key). Everything else goes the sandbox's way.
"""

from __future__ import annotations

from typing import Any

from jinja2.sandbox import ImmutableSandboxedEnvironment


class ReportEnvironment(ImmutableSandboxedEnvironment):

    def getattr(self, obj: Any, attribute: str) -> Any:
        if not attribute.startswith("_"):
            kind = type(obj)
            if kind is dict:
                if attribute in obj and not hasattr(dict, attribute):
                    return obj[attribute]
            elif kind.__module__.startswith("pingpong."):
                try:
                    return getattr(obj, attribute)
                except AttributeError:
                    pass
        return super().getattr(obj, attribute)
