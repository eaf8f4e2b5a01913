"""Reading and parsing untrusted files (JSON, TOML) so that every failure is one UserError line.

Python's own parsers fail in ways a user should never see: an integer with more
than 4,300 digits raises ValueError, deep nesting raises RecursionError, a
symlink loop raises RuntimeError. Each becomes a UserError naming the file.
Every parsed document is also walked once (iteratively, so the walk itself
cannot overflow) and refused when it is nested deeper than MAX_DEPTH or holds
values JSON cannot carry (NaN, infinities, lone surrogates, non-text keys):
nothing downstream (pydantic serialisation, YAML dumping, the SQLite store)
ever meets a structure it cannot handle. The YAML side lives in
characters/files.py; this module is pure so core can use it too.
"""

from __future__ import annotations

import datetime
import json
import math
import re
import stat
import sys
from pathlib import Path
from typing import Any

from pingpong.core.errors import UserError

MAX_DEPTH = 64
"""Deepest nesting of lists and objects accepted in any file (a card needs fewer than ten)."""
MAX_INT_BITS = 14_000
"""Larger integers (hex ones, say) have more than 4,200 decimal digits: Python could not print them."""
MAX_CONFIG_BYTES = 1024 * 1024
"""config.toml and template overrides above this are refused."""

JSON_SCALARS: tuple[type, ...] = (str, int, float, bool, type(None))
TOML_SCALARS: tuple[type, ...] = (*JSON_SCALARS, datetime.date, datetime.time)

_LONG_NUMBER = re.compile(r"[0-9_]{4301,}")
_KIND = {datetime.datetime: "a date and time", datetime.date: "a date", datetime.time: "a time of day",
         bytes: "binary data", set: "a set", tuple: "a pair list"}


class _Constant(ValueError):
    """NaN or Infinity in JSON (Python accepts them; JSON does not)."""


def int_digits() -> int:
    """The interpreter's limit on digits in an integer read from text (4,300 by default)."""
    return sys.get_int_max_str_digits() or 4300


def _mb(n: int) -> str:
    return f"{n / (1024 * 1024):.1f} MB"


def read_limited(path: Path | str, limit: int, what: str = "file") -> bytes:
    """The file's bytes; missing files, folders, unreadable paths (symlink loops included) and
    files larger than limit are UserErrors naming the path."""
    p = Path(path)
    try:
        if p.is_dir():
            raise UserError(f"{p}: is a folder, not a {what}")
        info = p.stat()
        if not stat.S_ISREG(info.st_mode):  # a pipe would block, a device (/dev/zero) never end
            raise UserError(f"{p}: not a regular file (a device, pipe or socket), not a {what}")
        size = info.st_size
        if size > limit:
            raise UserError(f"{p}: too large ({_mb(size)}; the limit is {_mb(limit)})")
        with p.open("rb") as f:
            data = f.read(limit + 1)
    except FileNotFoundError:
        raise UserError(f"{p}: no such file") from None
    except (OSError, RuntimeError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
        raise UserError(f"{p}: cannot read ({reason})") from None
    if len(data) > limit:
        raise UserError(f"{p}: too large (more than {_mb(limit)})")
    return data


def decode_text(data: bytes, where: str) -> str:
    """UTF-8 text (BOM allowed); binary content and other encodings are refused."""
    if b"\x00" in data:
        raise UserError(f"{where}: binary content, not a text file")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise UserError(f"{where}: not UTF-8 text (bad byte at line {line})") from None


def real_path(path: Path | str) -> Path:
    """Path.resolve() with symlink loops and unreadable folders as a UserError."""
    try:
        return Path(path).resolve()
    except (RuntimeError, OSError) as exc:
        reason = "a symlink loop" if isinstance(exc, RuntimeError) or "symbolic links" in str(exc) else str(exc)
        raise UserError(f"{path}: cannot resolve the path ({reason})") from None


def long_number_line(text: str) -> str:
    """' (line N)' for the first run of more than 4,300 digits in text, or '' (also for one-line
    text, such as one line of a JSONL file whose caller names the line)."""
    found = _LONG_NUMBER.search(text)
    return f" (line {text.count(chr(10), 0, found.start()) + 1})" if found and "\n" in text.strip() else ""


def too_many_digits(where: str, text: str) -> UserError:
    return UserError(f"{where}: a number has more than {int_digits()} digits{long_number_line(text)}")


def show(key: object, width: int = 40) -> str:
    """A key or value from a file as it may appear in a one-line message (control characters
    escaped, long ones cut)."""
    text = str(key)
    if not text.isprintable():
        text = repr(text)[1:-1]
    return text if len(text) <= width else text[: width - 1] + "…"


def _field(path: list[str | int]) -> str:
    shown = [show(p) for p in path]
    if len(shown) > 6:
        shown = [*shown[:3], "…", *shown[-2:]]
    return ".".join(shown)


def _at(where: str, path: list[str | int]) -> str:
    return f"{where}: {_field(path)}" if path else where


def _unwind(node: tuple | None) -> list[str | int]:
    keys: list[str | int] = []
    while node is not None:
        node, key = node
        keys.append(key)
    return keys[::-1]


def _problem(item: Any, scalars: tuple[type, ...]) -> str | None:
    """Why a scalar cannot stay in a document (None when it can)."""
    if isinstance(item, str):
        if not item.isascii():
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return "text holds an invalid character (a lone surrogate)"
        return None
    if isinstance(item, float):
        return None if math.isfinite(item) else f"{item} is not a finite number"
    if isinstance(item, int):
        too_long = item.bit_length() > MAX_INT_BITS
        return f"number too large (more than {MAX_INT_BITS * 3 // 10} digits)" if too_long else None
    if item is None or isinstance(item, scalars):
        return None
    kind = next((k for t, k in _KIND.items() if isinstance(item, t)), type(item).__name__)
    return f"{kind} is not allowed here (text, numbers, lists and objects only)"


def check_plain(value: Any, where: str, path: list[str | int] | None = None, *,
                limit: int = MAX_DEPTH, scalars: tuple[type, ...] = JSON_SCALARS) -> None:
    """UserError unless value is plain data: objects with text keys, lists, text (no lone
    surrogates), whole numbers, finite numbers, true/false, null, nested at most limit deep.
    path names where value sits (e.g. ["extensions"]); messages name the offending field.
    Iterative, and paths are only spelled out for the message, so a 5 MB card takes a fraction of a second."""
    base: tuple | None = None
    for key in path or []:
        base = (base, key)
    if not isinstance(value, (dict, list)):
        problem = _problem(value, scalars)
        if problem:
            raise UserError(f"{_at(where, _unwind(base))}: {problem}")
        return
    stack: list[tuple[dict | list, tuple | None, int]] = [(value, base, 0)]
    while stack:
        item, node, depth = stack.pop()
        if depth >= limit:
            raise UserError(f"{_at(where, _unwind(node))}: nested deeper than {limit} levels")
        if isinstance(item, dict):
            for key in item:
                if not isinstance(key, str):
                    raise UserError(f"{_at(where, _unwind(node))}: key {show(repr(key))} is not text")
            children: Any = item.items()
        else:
            children = enumerate(item)
        for key, child in children:
            kind = type(child)
            if kind is dict or kind is list or isinstance(child, (dict, list)):
                stack.append((child, (node, key), depth + 1))
            elif (kind is str and child.isascii()) or (kind is int and child.bit_length() <= MAX_INT_BITS) \
                    or kind is bool or child is None:
                continue  # the common cases, spared a call
            else:
                problem = _problem(child, scalars)
                if problem:
                    raise UserError(f"{_at(where, _unwind((node, key)))}: {problem}")


def _constant(name: str) -> Any:
    raise _Constant(name)


def loads_json(text: str, where: str, limit: int = MAX_DEPTH) -> Any:
    """json.loads for untrusted text, for callers that word syntax errors themselves: a
    json.JSONDecodeError passes through; every other failure, and any value check_plain refuses
    (nesting deeper than limit included), is a UserError."""
    try:
        data = json.loads(text, parse_constant=_constant)
    except json.JSONDecodeError:
        raise
    except _Constant as exc:
        raise UserError(f"{where}: {exc} is not a JSON number") from None
    except RecursionError:
        raise UserError(f"{where}: nested deeper than {limit} levels") from None
    except ValueError as exc:
        if "integer string conversion" in str(exc):
            raise too_many_digits(where, text) from None
        raise UserError(f"{where}: invalid JSON: {exc}") from None
    check_plain(data, where, limit=limit)
    return data


def parse_json(text: str, where: str, limit: int = MAX_DEPTH) -> Any:
    """json.loads for untrusted text: every failure, and any value check_plain refuses, is a UserError."""
    try:
        return loads_json(text, where, limit)
    except json.JSONDecodeError as exc:
        raise UserError(f"{where}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None


def parse_toml(text: str, where: str) -> dict[str, Any]:
    """tomllib.loads for untrusted text, with the same guarantees as parse_json (dates allowed)."""
    import tomllib  # here, not at the top: the card and situation readers need no TOML

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UserError(f"{where}: invalid TOML: {str(exc).splitlines()[0] if str(exc) else 'syntax error'}") from None
    except RecursionError:
        raise UserError(f"{where}: nested deeper than {MAX_DEPTH} levels") from None
    except ValueError as exc:
        if "integer string conversion" in str(exc):
            raise too_many_digits(where, text) from None
        raise UserError(f"{where}: invalid TOML: {exc}") from None
    check_plain(data, where, scalars=TOML_SCALARS)
    return data
