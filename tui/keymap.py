"""`[keymap]` in config.toml: bindings remapped by their ids.

    [keymap]
    take_seat = "ctrl+t"            # short id, when only one binding ends with it
    "live.hand_back" = "ctrl+b,h"   # the full id (or a [keymap.live] table)

Ids are those of the app's and screens' BINDINGS (the help screen lists each key's id); an
unknown or ambiguous id is a one-line error naming it, before the app starts.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from textual.binding import Binding
from textual.dom import DOMNode

from pingpong.core.errors import UserError
from pingpong.core.home import Home


def _screens() -> Iterator[type[DOMNode]]:
    """Every class with BINDINGS a keymap may remap: the app, and whatever the modules of
    tui/screens and tui/widgets define (imported here, not at start-up; a new screen counts at once)."""
    import importlib
    import pkgutil

    from pingpong.tui import screens, widgets
    from pingpong.tui.app import PingPongApp

    yield PingPongApp
    for package in (screens, widgets):
        for info in pkgutil.iter_modules(package.__path__):
            module = importlib.import_module(f"{package.__name__}.{info.name}")
            for value in vars(module).values():
                if (isinstance(value, type) and issubclass(value, DOMNode) and value.__module__ == module.__name__
                        and value.BINDINGS):
                    yield value


def binding_ids() -> dict[str, Binding]:
    """{id: binding} of every remappable binding."""
    out: dict[str, Binding] = {}
    for cls in _screens():
        for binding in cls.BINDINGS:
            if isinstance(binding, Binding) and binding.id:
                out.setdefault(binding.id, binding)
    return out


def _flatten(table: dict[str, Any], prefix: str = "") -> Iterator[tuple[str, Any]]:
    for key, value in table.items():
        if isinstance(value, dict):
            yield from _flatten(value, f"{prefix}{key}.")
        else:
            yield f"{prefix}{key}", value


def load_keymap(home: Home) -> dict[str, str]:
    """{binding id: keys} from config.toml's [keymap]; UserError names a wrong entry."""
    from pingpong.core.config import read_config

    table = read_config(home).get("keymap", {})
    where = f"{home.config_path}: keymap"
    if not isinstance(table, dict):
        raise UserError(f"{where}: expected a table, e.g. [keymap] take_seat = \"ctrl+t\"")
    if not table:  # finding the ids imports every screen: not on every start
        return {}
    known = binding_ids()
    out: dict[str, str] = {}
    for name, keys in _flatten(table):
        if not isinstance(keys, str) or not keys.strip():
            raise UserError(f"{where}.{name}: expected keys in quotes, e.g. \"ctrl+t\" or \"t,ctrl+t\"")
        matches = [name] if name in known else [i for i in known if i.rsplit(".", 1)[-1] == name]
        if not matches:
            raise UserError(f"{where}.{name}: no binding has this id (F1 in the app lists the ids of each screen)")
        if len(matches) > 1:
            raise UserError(f"{where}.{name}: several bindings end with this id; give one of {', '.join(matches)}")
        out[matches[0]] = ",".join(k.strip() for k in keys.split(","))
    _check_clashes(out, where)
    return out


def _check_clashes(keymap: dict[str, str], where: str) -> None:
    """UserError when a remapped key is also another binding's on the same screen (the app's keys,
    and the command palette's, count on every screen): one of them would silently lose it."""
    from textual.screen import Screen

    from pingpong.tui.app import PingPongApp

    everywhere = [b for b in PingPongApp.BINDINGS if isinstance(b, Binding)]
    if PingPongApp.ENABLE_COMMAND_PALETTE:  # Textual's own key, in no BINDINGS: it wins over a screen's
        everywhere.append(Binding(PingPongApp.COMMAND_PALETTE_BINDING, "the command palette"))
    for cls in _screens():
        own = [b for b in cls.BINDINGS if isinstance(b, Binding)]
        seen: dict[str, Binding] = {}
        for binding in own + (everywhere if issubclass(cls, Screen) else []):
            for key in keys_of(binding, keymap):
                other = seen.setdefault(key, binding)
                if other is not binding and (binding.id in keymap or other.id in keymap):
                    raise UserError(f"{where}: '{key}' would be both {other.id or other.action} and "
                                    f"{binding.id or binding.action}; give one of them another key")


def keys_of(binding: Binding, keymap: dict[str, str]) -> list[str]:
    """The keys a binding answers to now (its keymap entry, or its own)."""
    keys = keymap.get(binding.id or "", binding.key)
    return [k.strip() for k in keys.split(",") if k.strip()]


def shown_key(keymap: dict[str, str], binding_id: str, default: str) -> str:
    """The key a hint written on a screen names for a binding: the first of its `[keymap]` keys, else
    `default` (the binding's own), so the hint says what the footer and help say."""
    keys = keymap.get(binding_id)
    return keys.split(",")[0].strip() if keys else default
