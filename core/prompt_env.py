"""The sandboxed Jinja environment prompts render in: keys of plain dicts read first, plain globals.

Every variable a prompt template gets is plain data: dicts of strings, numbers and lists
(a card, a situation, transcript lines). Templates read them as attributes (`m.text`,
`character.char_name`), which Jinja resolves by trying the real attribute first: on a dict that
raises and catches an AttributeError before the key is read, and the sandbox checks the name on
the way. Reading the key first gives the same value (no variable has a key named like a dict
method) at less than half the cost. Anything that is not a key, and any object that is not a
plain dict, goes the sandbox's way. With the globals below, a judge's prompt renders in 90 µs
instead of 234, an interrogator's in 61 instead of 142: prompts were an eighth of a batch
run's CPU.

Imported only where prompts are rendered: it imports jinja2.

The sandbox keeps a template from reaching Python's internals, but not from asking for a string or a
list of a billion items (`'a' * 10**9`, `2 ** 10**9`): a user's template override could hang or
exhaust the machine on every prompt. `*` and `**` are checked here, and so are the widths asked of
padding and formatting (`center(10**9)`, `'%09999999d'`, `'{:>9999999}'`) and what `replace` would
make: an answer past MAX_ITEMS (far more than any prompt needs) is a SecurityError, which names the
file as any template error does. Loops multiply instead (`range` gives at most 100,000 items, but one
loop inside another ran for hours), so the loops of one render take at most MAX_STEPS steps in all.
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Callable, Iterable, Iterator, MutableMapping
from typing import Any

from jinja2 import Template, nodes
from jinja2.sandbox import SandboxedEnvironment, SecurityError

MAX_ITEMS = 1_000_000  # characters of a repeated string or items of a repeated list; digits of a power
MAX_STEPS = 1_000_000
"""Steps of all the loops of one render together; a prompt's loops take a few hundred."""
STEPS_FILTER = "_counted_steps"
"""The filter every `{% for %}` loop's iterable passes through, added when a template is parsed."""
WIDTH_FILTERS = ("center", "indent", "wordwrap", "truncate")
"""Filters whose whole-number arguments are widths: each is at most MAX_ITEMS."""
WIDTH_METHODS = frozenset({"center", "ljust", "rjust", "zfill", "expandtabs"})
"""The same for a string's own methods."""
_WIDE = re.compile(r"%[-#0 +]*\d{7}|%[-#0 +]*\d*\.\d{7}|\{[^{}]*:[^{}]*\d{7}")
"""A printf or format() field asking for a width or precision of seven digits or more."""


def _narrow(values: tuple[Any, ...], what: str) -> None:
    for value in values:
        if type(value) is int and value > MAX_ITEMS:
            raise SecurityError(f"{what}: a width of {value:,} (at most {MAX_ITEMS:,})")
        if isinstance(value, str) and _WIDE.search(value):
            raise SecurityError(f"{what}: a field of seven digits' width or more")


def _bounded(name: str, f: Callable[..., Any], spec_only: bool = False) -> Callable[..., Any]:
    """The filter, refusing widths past MAX_ITEMS among its arguments (spec_only: in its first, the
    format string; the values it formats may be any numbers)."""
    @functools.wraps(f)  # keeps Jinja's mark of what the filter is passed first
    def checked(*args: Any, **kwargs: Any) -> Any:
        _narrow(args[:1] if spec_only else (*args, *kwargs.values()), f"filter {name}")
        return f(*args, **kwargs)

    return checked


def _replaced_size(text: object, old: object, new: object, count: object = None) -> None:
    if isinstance(text, str) and isinstance(old, str) and isinstance(new, str) and len(new) > len(old):
        times = text.count(old) if old else len(text) + 1
        if isinstance(count, int) and 0 <= count < times:
            times = count
        if len(text) + times * (len(new) - len(old)) > MAX_ITEMS:
            raise SecurityError(f"replace would make more than {MAX_ITEMS:,} characters")


def _bounded_replace(f: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(f)
    def checked(eval_ctx: Any, text: object, old: object, new: object, count: object = None) -> Any:
        _replaced_size(str(text), old, new, count)
        return f(eval_ctx, text, old, new, count)

    return checked


_steps = threading.local()
"""The steps left to the render under way in this thread (a render never waits, so one at a time)."""


def _counted(iterable: Iterable[Any]) -> Iterator[Any]:
    for item in iterable:
        _steps.left -= 1
        if _steps.left < 0:
            raise SecurityError(f"the loops of one prompt took more than {MAX_STEPS:,} steps")
        yield item


class _BudgetedTemplate(Template):
    """A template whose every render starts with MAX_STEPS loop steps (its includes share them)."""

    def render(self, *args: Any, **kwargs: Any) -> str:
        _steps.left = MAX_STEPS
        return super().render(*args, **kwargs)


class PromptEnvironment(SandboxedEnvironment):
    """SandboxedEnvironment whose `a.b` on a plain dict reads the key `b` first, and whose
    templates' globals are a plain dict, and whose `*` and `**` refuse answers too big for a prompt."""

    intercepted_binops = frozenset({"*", "**", "%"})
    template_class = _BudgetedTemplate

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for name in WIDTH_FILTERS:
            self.filters[name] = _bounded(name, self.filters[name])
        self.filters["format"] = _bounded("format", self.filters["format"], spec_only=True)
        self.filters["replace"] = _bounded_replace(self.filters["replace"])
        self.filters[STEPS_FILTER] = _counted

    def _parse(self, source: str, name: str | None, filename: str | None) -> nodes.Template:
        """The template's tree, each loop's iterable counted against the render's MAX_STEPS."""
        tree = super()._parse(source, name, filename)
        for loop in tree.find_all(nodes.For):
            loop.iter = nodes.Filter(loop.iter, STEPS_FILTER, [], [], None, None, lineno=loop.lineno)
        return tree

    def make_globals(self, d: MutableMapping[str, Any] | None) -> MutableMapping[str, Any]:
        """The environment's globals and the template's, in one plain dict: Jinja copies this map
        into every render's context, and a ChainMap (its default, so that later changes to the
        environment's globals still show) is several times slower to copy. Ours never change."""
        return {**self.globals, **(d or {})}

    def getattr(self, obj: Any, attribute: str) -> Any:
        if type(obj) is dict:
            try:
                return obj[attribute]
            except KeyError:
                pass
        return super().getattr(obj, attribute)

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        if operator == "*":
            for seq, times in ((left, right), (right, left)):
                if isinstance(seq, (str, list, tuple)) and isinstance(times, int) and len(seq) * times > MAX_ITEMS:
                    raise SecurityError(f"'*' would make {len(seq) * times:,} items (at most {MAX_ITEMS:,})")
        if operator == "**" and isinstance(left, int) and isinstance(right, int) and abs(left) > 1:
            if right * abs(left).bit_length() > MAX_ITEMS * 4:  # about the bits of the answer
                raise SecurityError(f"'**' would make a number of more than {MAX_ITEMS:,} digits")
        if operator == "%" and isinstance(left, str):
            _narrow((left,), "'%'")
        return super().call_binop(context, operator, left, right)

    def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805 (Jinja's names)
        method = getattr(__obj, "__wrapped__", __obj)  # the sandbox wraps str.format
        if isinstance(getattr(method, "__self__", None), str):
            name = getattr(method, "__name__", "")
            if name in WIDTH_METHODS:
                _narrow((*args, *kwargs.values()), f"str.{name}")
            elif name in ("format", "format_map"):
                _narrow((method.__self__,), f"str.{name}")
            elif name == "replace":
                _replaced_size(method.__self__, *args, *kwargs.values())
        return super().call(__context, __obj, *args, **kwargs)
