"""Import and export of sessions: PingPong results JSON, its annotation JSONL and our JSONL,
format found per file.

The formats live in exchange_pingpong*.py, exchange_annotations.py and exchange_jsonl.py; this
module reads a file, decides which it is (or says clearly that it is none of them), and hands it
over. Every file is written in its own transaction: a file that is not one of the formats leaves
nothing behind (the reference's formats skip single entries they cannot take, with a warning).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TextIO

from pingpong.core.errors import UserError
from pingpong.core.safe_parse import loads_json, read_limited
from pingpong.sessions.exchange_annotations import export_annotations, import_annotations
from pingpong.sessions.exchange_jsonl import JSONL_DEPTH, export_jsonl, import_jsonl, parse_jsonl
from pingpong.sessions.exchange_pingpong import ImportSummary, import_results
from pingpong.sessions.exchange_pingpong_export import export_results

__all__ = ["ImportSummary", "detect_format", "import_file", "import_paths", "export_jsonl", "export_results"]


MAX_IMPORT_BYTES = 4 * 1024 * 1024 * 1024
"""Our JSONL files above this (4 GB; a lossless JSONL of 50,000 sessions is about 800 MB) are refused.
Its lines are parsed one at a time, so an import takes little more memory than the file."""
MAX_WHOLE_BYTES = 1024 * 1024 * 1024
"""Files parsed whole (PingPong results JSON, annotation JSONL) above this (1 GB) are refused: their
objects take several times the file's size."""


def _read(path: Path) -> bytes:
    """The file's bytes without a UTF-8 byte order mark; a missing, unreadable, binary or oversized
    file, or a symlink loop, is one line."""
    if path.is_dir():
        raise UserError(f"{path}: is a folder; give the files inside it")
    data = read_limited(path, MAX_IMPORT_BYTES, "results or JSONL file")
    if b"\x00" in data:
        raise UserError(f"{path}: binary content (expected PingPong results JSON or pingpong JSONL)")
    return data.removeprefix(b"\xef\xbb\xbf")


def _text(data: bytes, path: Path) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise UserError(f"{path}: not UTF-8 text (expected PingPong results JSON or pingpong JSONL)") from None


def _first_line(data: bytes, name: str) -> tuple[object, bool]:
    """(the first line's JSON, or None when it is not JSON; whether other lines follow it), read
    without decoding the rest of the file."""
    lead = _SPACE.match(data).end()  # type: ignore[union-attr]  # \s* always matches
    end = data.find(b"\n", lead)
    if end == -1 or _NOT_SPACE.search(data, end) is None:
        return None, False
    try:
        return loads_json(data[lead:end].removesuffix(b"\r").decode("utf-8"), f"{name}: line 1", JSONL_DEPTH), True
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None, True


def _annotation(data: object) -> bool:
    return isinstance(data, dict) and "human_scores" in data and "messages" in data


_SPACE = re.compile(rb"\s*")
_NOT_SPACE = re.compile(rb"\S")


def detect_format(data: bytes, path: Path) -> tuple[str, object]:
    """("pingpong", document), ("annotations", text) or ("jsonl", the file's bytes); UserError for
    anything else. Our JSONL is told by its first line alone and kept as bytes (its lines are parsed
    one at a time); only the formats parsed whole are decoded whole, up to MAX_WHOLE_BYTES."""
    name = str(path)
    head, several = _first_line(data, name)
    if several and isinstance(head, dict) and "spec" in head:
        return "jsonl", data
    if len(data) > MAX_WHOLE_BYTES:
        raise UserError(f"{name}: too large ({len(data) / 2**20:.1f} MB; the limit is {MAX_WHOLE_BYTES / 2**20:.1f} MB"
                        " for PingPong results and annotations, 4 GB for pingpong JSONL)")
    text = _text(data, path)
    if several and _annotation(head):
        return "annotations", text
    stripped = text.strip()
    try:
        doc = loads_json(stripped, name, JSONL_DEPTH)
    except json.JSONDecodeError as exc:
        if stripped[0] in "{[":
            raise UserError(
                f"{name}: truncated or invalid JSON ({exc.msg.removesuffix(' at')} at line {exc.lineno}"
                f" column {exc.colno})"
            ) from None
        raise UserError(f"{name}: not JSON (expected PingPong results JSON or pingpong JSONL)") from None
    if isinstance(doc, dict) and "outputs" in doc:
        return "pingpong", doc
    if isinstance(doc, dict) and "spec" in doc:
        if not several:
            return "jsonl", data
        raise UserError(f"{name}: one session spread over several lines; pingpong JSONL has one session per line")
    if _annotation(doc):
        return "annotations", text
    raise UserError(f"{name}: not PingPong results JSON (no 'outputs'), annotations (no 'human_scores') "
                    "nor pingpong JSONL (no 'spec')")


def import_file(store, path: Path | str) -> ImportSummary:
    """Import one file in one transaction; UserError (nothing written) when it is bad."""
    path = Path(path)
    name = str(path)
    data = _read(path)
    if _NOT_SPACE.search(data) is None:  # what `export` writes for a database with nothing to export:
        if path.suffix.lower() == ".json":  # imports as nothing, but a results file (.json) is never empty
            raise UserError(f"{name}: empty file, not PingPong results JSON")
        return ImportSummary(name, "empty file")
    kind, payload = detect_format(data, path)
    del data  # a results or annotations file is held as its text from here on
    if kind == "pingpong":
        return import_results(store, payload, name)
    if kind == "annotations":
        return import_annotations(store, str(payload), name)
    return import_jsonl(store, parse_jsonl(payload, name), name)  # type: ignore[arg-type]


def import_paths(store, paths: list[Path | str]) -> tuple[list[ImportSummary], list[str]]:
    """Import every file on its own; returns (summaries of the good ones, error lines of the bad)."""
    done, errors = [], []
    for path in paths:
        try:
            done.append(import_file(store, path))
        except UserError as exc:
            errors.append(str(exc))
    return done, errors


def export(store, fmt: str, out: Path | str | None, stdout: TextIO) -> str:
    """Export everything; returns a one-line summary for the terminal."""
    try:
        return _export(store, fmt, out, stdout)
    except BrokenPipeError:
        raise
    except OSError as exc:
        where = exc.filename or out
        raise UserError(f"{where}: cannot write ({exc.strerror or exc})") from None


def _export(store, fmt: str, out: Path | str | None, stdout: TextIO) -> str:
    if fmt in ("jsonl", "annotations"):
        write, what = (export_jsonl, "sessions") if fmt == "jsonl" else (export_annotations, "rated conversations")
        if out is None or str(out) == "-":
            n = write(store, stdout)
            return f"{n} {what} written"
        target = Path(out)
        if target.is_dir():
            raise UserError(f"{target}: is a folder; --format {fmt} writes one file")
        target.parent.mkdir(parents=True, exist_ok=True)
        from pingpong.sessions.files import replacing

        with replacing(target) as fh:
            n = write(store, fh)
        return f"{target}: {n} {what} written"
    if fmt == "pingpong":
        folder = Path(out) if out else Path("pingpong-results")
        paths = export_results(store, folder)
        return (f"{folder}: {len(paths)} results files written (one per language, player, interrogator and judge, "
                "in a folder per language)")
    raise UserError(f"--format: '{fmt}' is not one of pingpong, jsonl, annotations")
