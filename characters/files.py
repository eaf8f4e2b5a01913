"""Guarded reading of user files and YAML (de)serialisation with one-line errors.

Every problem a user can cause here becomes a UserError that names the file,
the field path and the YAML line when known, so the CLI prints one line and
exits 2. Used by the card and the situation libraries alike. pydantic is imported by the
functions that validate, not with the module: `cards list` reads plain cards without it.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from pingpong.core.errors import UserError
from pingpong.core.safe_parse import (
    MAX_DEPTH,
    check_plain,
    decode_text,
    int_digits,
    read_limited,
    real_path,
    show,
)

if TYPE_CHECKING:
    from pydantic import BaseModel, ValidationError

__all__ = ["decode_text", "real_path"]  # re-exported: the card readers take them from here

MAX_TEXT_BYTES = 5 * 1024 * 1024
"""Text cards (YAML, JSON) above this are refused."""
MAX_CONTAINER_BYTES = 16 * 1024 * 1024
"""PNG and .charx cards carry an image, so they may be larger; the card inside is still capped."""

M = TypeVar("M", bound="BaseModel")


_LONG_INT = re.compile(r"[-+]?[0-9_]+(:[0-9_]+)*$")


def _mb(n: int) -> str:
    return f"{n / (1024 * 1024):.1f} MB"


def too_large(where: str, size: int, limit: int) -> UserError:
    return UserError(f"{where}: too large ({_mb(size)}; the limit is {_mb(limit)})")


def read_bytes(path: Path | str, limit: int = MAX_TEXT_BYTES, what: str = "card file") -> bytes:
    """The file's bytes, refusing missing files, folders, symlink loops and files larger than limit."""
    return read_limited(path, limit, what)


def read_text(path: Path | str, limit: int = MAX_TEXT_BYTES, what: str = "card file") -> str:
    return decode_text(read_bytes(path, limit, what), str(path))


def _loader():
    import yaml

    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _line(event: object) -> str:
    mark = getattr(event, "start_mark", None)
    return f" (line {mark.line + 1})" if mark is not None else ""


def _scan(text: str, where: str) -> None:
    """Walk the parser's events before anything is built, refusing nesting deeper than MAX_DEPTH,
    aliases (they can blow up on expansion) and integers too long to convert.

    The parser keeps its own stack, so this pass cannot overflow; PyYAML's C composer recurses
    once per level and crashes the process on a document nested some thousands deep.
    """
    import yaml

    loader = _loader()(text)
    depth, digits = 0, int_digits()
    opening, closing = (yaml.SequenceStartEvent, yaml.MappingStartEvent), (yaml.SequenceEndEvent, yaml.MappingEndEvent)
    try:
        while loader.check_event():
            event = loader.get_event()
            if isinstance(event, opening):
                depth += 1
                if depth > MAX_DEPTH:
                    raise UserError(f"{where}: nested deeper than {MAX_DEPTH} levels{_line(event)}")
            elif isinstance(event, closing):
                depth -= 1
            elif isinstance(event, yaml.AliasEvent):
                raise UserError(f"{where}: YAML aliases (*name) are not allowed{_line(event)}")
            elif isinstance(event, yaml.ScalarEvent) and len(event.value) > digits and _LONG_INT.match(event.value):
                raise UserError(f"{where}: a number has more than {digits} digits{_line(event)}")
    except yaml.MarkedYAMLError as exc:
        # libyaml from PyYAML 6.0.4 on refuses deep flow nesting itself, before the first event
        if "nesting depth" not in (exc.problem or ""):
            raise
        mark = exc.problem_mark
        raise UserError(f"{where}: nested deeper than {MAX_DEPTH} levels"
                        + (f" (line {mark.line + 1})" if mark is not None else "")) from None
    finally:
        loader.dispose()


def load_yaml(text: str, where: str) -> Any:
    """Parse one YAML document safely: nesting capped before parsing, no aliases, plain data only
    (text keys, finite numbers; dates and binary refused), every failure a one-line UserError."""
    import yaml

    try:
        _scan(text, where)
        data = yaml.load(text, Loader=_loader())
    except UserError:
        raise
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        at = f" at line {mark.line + 1}" if mark is not None else ""
        problem = exc.problem or exc.context or "syntax error"
        raise UserError(f"{where}: invalid YAML{at}: {problem}") from None
    except yaml.YAMLError as exc:
        raise UserError(f"{where}: invalid YAML: {str(exc).splitlines()[0]}") from None
    except RecursionError:
        raise UserError(f"{where}: nested deeper than {MAX_DEPTH} levels") from None
    except Exception as exc:  # noqa: BLE001  constructors fail on explicit tags: `!!int x`, `!!timestamp x`, month 13
        raise UserError(f"{where}: invalid YAML value ({show(exc, 80) or type(exc).__name__})") from None
    check_plain(data, where)
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


def describe_validation(where: str, exc: ValidationError, text: str | None = None, prefix: str = "",
                        what: str = "card") -> str:
    """One line for the first pydantic error: file, field path (`what` for a rule of the whole item),
    problem, YAML line."""
    errors = exc.errors()
    err = errors[0]
    loc = tuple(err.get("loc", ()))
    field = prefix + ".".join(show(p) for p in loc) if loc else (prefix.rstrip(".") or what)
    msg = " ".join(str(err.get("msg", "invalid value")).split())
    if err.get("type") == "extra_forbidden":
        msg = "unknown field"
    line = yaml_line(text, loc) if text is not None else None
    at = f" (line {line})" if line else ""
    more = f" (+{len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"{where}: {field}: {msg}{at}{more}"


def load_model_file(path: Path | str, model: type[M], what: str) -> M:
    """Read our YAML file at path into model (Character or Situation) with one-line errors."""
    where = str(path)
    text = read_text(path, what=f"{what} file")
    return validate_data(load_yaml(text, where), model, what, where, text)


def validate_data(data: Any, model: type[M], what: str, where: str, text: str) -> M:
    """The model from a YAML file's parsed data (text: the file, for the line of a bad field)."""
    from pydantic import ValidationError

    if not isinstance(data, dict):
        kind = "empty" if data is None else f"a {type(data).__name__}"
        raise UserError(f"{where}: expected a mapping of {what} fields, found {kind}")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise UserError(describe_validation(where, exc, text, what=what)) from None


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


def to_yaml(item: BaseModel) -> str:
    """The YAML a library saves for item: fields at their defaults are left out."""
    return dump_yaml(item.model_dump(mode="json", exclude_defaults=True))


def check_storable(item: M, where: str, what: str) -> M:
    """item, once it is certain to save as YAML and load back unchanged, as a library will do
    with it; every structure it holds is capped at MAX_DEPTH when saved."""
    import yaml
    from pydantic import ValidationError

    for name, value in item:
        if isinstance(value, dict):  # free-form fields (extensions); the rest pydantic has typed
            check_plain(value, where, [name], limit=MAX_DEPTH - 1)
    try:
        text = to_yaml(item)
        text.encode("utf-8")
    except (ValueError, RecursionError, yaml.YAMLError) as exc:
        raise UserError(f"{where}: cannot be saved as a {what} ({show(exc, 80)})") from None
    data = load_yaml(text, f"{where} (as saved)")
    try:
        again = type(item).model_validate(data)
    except ValidationError as exc:
        raise UserError(describe_validation(f"{where} (as saved)", exc, what=what)) from None
    if again != item:
        changed = [name for name, value in item if getattr(again, name) != value]
        raise UserError(f"{where}: {', '.join(changed) or 'the ' + what} would not load back unchanged once saved")
    return item


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
