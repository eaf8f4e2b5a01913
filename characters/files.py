"""Guarded reading of user files and YAML (de)serialisation with one-line errors.

Every problem a user can cause here becomes a UserError that names the file,
the field path and the YAML line when known, so the CLI prints one line and
exits 2. Used by the card and the situation libraries alike.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from pingpong.core.errors import UserError

MAX_TEXT_BYTES = 5 * 1024 * 1024
"""Text cards (YAML, JSON) above this are refused."""
MAX_CONTAINER_BYTES = 16 * 1024 * 1024
"""PNG and .charx cards carry an image, so they may be larger; the card inside is still capped."""

M = TypeVar("M", bound=BaseModel)


def _mb(n: int) -> str:
    return f"{n / (1024 * 1024):.1f} MB"


def too_large(where: str, size: int, limit: int) -> UserError:
    return UserError(f"{where}: too large ({_mb(size)}; the limit is {_mb(limit)})")


def read_bytes(path: Path | str, limit: int = MAX_TEXT_BYTES) -> bytes:
    """The file's bytes, refusing missing files, folders and files larger than limit."""
    p = Path(path)
    try:
        if p.is_dir():
            raise UserError(f"{p}: is a folder, not a card file")
        size = p.stat().st_size
        if size > limit:
            raise too_large(str(p), size, limit)
        with p.open("rb") as f:
            data = f.read(limit + 1)
    except FileNotFoundError:
        raise UserError(f"{p}: no such file") from None
    except OSError as exc:
        raise UserError(f"{p}: cannot read ({exc.strerror or exc})") from None
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


def read_text(path: Path | str, limit: int = MAX_TEXT_BYTES) -> str:
    return decode_text(read_bytes(path, limit), str(path))


def _loader():
    import yaml

    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_yaml(text: str, where: str) -> Any:
    """Parse one YAML document safely; aliases are refused (they can blow up on expansion)."""
    import yaml

    try:
        data = yaml.load(text, Loader=_loader())
        if "*" in text and any(isinstance(e, yaml.AliasEvent) for e in yaml.parse(text, Loader=_loader())):
            raise UserError(f"{where}: YAML aliases (*name) are not allowed in cards")
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        at = f" at line {mark.line + 1}" if mark is not None else ""
        problem = exc.problem or exc.context or "syntax error"
        raise UserError(f"{where}: invalid YAML{at}: {problem}") from None
    except yaml.YAMLError as exc:
        raise UserError(f"{where}: invalid YAML: {str(exc).splitlines()[0]}") from None
    return data


def yaml_line(text: str, loc: tuple) -> int | None:
    """1-based line of the node at field path loc in YAML text (the nearest parent if missing)."""
    import yaml

    try:
        node = yaml.compose(text, Loader=_loader())
    except yaml.YAMLError:
        return None
    line = node.start_mark.line + 1 if node is not None else None
    for key in loc:
        if isinstance(node, yaml.MappingNode):
            match = [(k, v) for k, v in node.value if isinstance(k, yaml.ScalarNode) and k.value == str(key)]
            if not match:
                return line
            key_node, node = match[0]
            line = key_node.start_mark.line + 1
        elif isinstance(node, yaml.SequenceNode) and isinstance(key, int) and key < len(node.value):
            node = node.value[key]
            line = node.start_mark.line + 1
        else:
            return line
    return line


def describe_validation(where: str, exc: ValidationError, text: str | None = None, prefix: str = "") -> str:
    """One line for the first pydantic error: file, field path, problem, YAML line."""
    errors = exc.errors()
    err = errors[0]
    loc = tuple(err.get("loc", ()))
    field = prefix + ".".join(str(p) for p in loc) if loc else (prefix.rstrip(".") or "card")
    msg = err.get("msg", "invalid value")
    if err.get("type") == "extra_forbidden":
        msg = "unknown field"
    line = yaml_line(text, loc) if text is not None else None
    at = f" (line {line})" if line else ""
    more = f" (+{len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"{where}: {field}: {msg}{at}{more}"


def load_model_file(path: Path | str, model: type[M], what: str) -> M:
    """Read our YAML file at path into model (Character or Situation) with one-line errors."""
    where = str(path)
    text = read_text(path)
    data = load_yaml(text, where)
    if not isinstance(data, dict):
        kind = "empty" if data is None else f"a {type(data).__name__}"
        raise UserError(f"{where}: expected a mapping of {what} fields, found {kind}")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise UserError(describe_validation(where, exc, text)) from None


def dump_yaml(data: Any) -> str:
    """YAML for humans: keys in model order, Unicode kept, multi-line text as literal blocks."""
    import yaml

    class _Dumper(yaml.SafeDumper):
        pass

    def _str(dumper, value: str):
        style = "|" if "\n" in value else None
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)

    _Dumper.add_representer(str, _str)
    return yaml.dump(data, Dumper=_Dumper, allow_unicode=True, sort_keys=False, width=100)


def write_atomic(path: Path, text: str) -> None:
    """Write text to path via a temporary file, so a crash never leaves half a card."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
