"""Helpers for the bad-input tests: the real CLI in-process or as a process, good files to spoil, digests.

Every bad file must end in exit status 2 and exactly one line on stderr (a
bad file in the home's folders: exit 0 and one warning line), never a
traceback; a database seeded beforehand must keep every byte.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import io
import json
import os
import struct
import subprocess
import sys
import zipfile
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
SEED_RUN = ("run", "--player", "offline", "--interrogator", "offline", "--judge", "offline",
            "--characters", "tally", "--situations", "casual-greeting")


@dataclass
class Result:
    rc: int
    out: str
    err: str

    @property
    def err_lines(self) -> list[str]:
        return self.err.strip().splitlines()


def cli(*args: str) -> Result:
    """pingpong.tui.cli.main(args) in this process, its output captured. An exception that escapes
    main is a bug and is left to fail the test."""
    from pingpong.tui.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(list(args))
        except SystemExit as exc:
            rc = exc.code if isinstance(exc.code, int) else 2
    return Result(rc, out.getvalue(), err.getvalue())


def _child(argv: list[str], stdin: str | None = None, env: dict[str, str] | None = None,
           timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run(
        argv, check=False, cwd=REPO, capture_output=True, text=True, input=stdin, encoding="utf-8",
        errors="replace", timeout=timeout,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO), "PYTHONIOENCODING": "utf-8", **(env or {})},
    )


def cli_process(*args: str, env: dict[str, str] | None = None, timeout: float = 60) -> Result:
    """The same command as a real process (for inputs that could crash the interpreter itself)."""
    done = _child([sys.executable, "-m", "pingpong.tui.cli", *args], env=env, timeout=timeout)
    return Result(done.returncode, done.stdout, done.stderr)


_BATCH = """
import dataclasses, json, sys
from tests.hardening.support import cli
json.dump([dataclasses.astuple(cli(*argv)) for argv in json.load(sys.stdin)], sys.stdout)
"""


def cli_batch(commands: list[list[str]], wrapper: Sequence[str] = (), prelude: str = "") -> list[Result]:
    """Several commands through main() in one child process started through wrapper (a command
    that execs the rest of its line in changed conditions), after the Python code prelude; one
    start-up instead of one each."""
    done = _child([*wrapper, sys.executable, "-c", prelude + _BATCH], stdin=json.dumps(commands))
    assert done.returncode == 0, done.stderr
    return [Result(*r) for r in json.loads(done.stdout)]


def bound_by_permissions() -> list[str]:
    """A wrapper under which file permissions apply: root ignores chmod, so as root the child drops
    the capabilities that override them (it stays root, the owner, so it can still run Python)."""
    if os.geteuid() != 0:
        return []
    return ["setpriv", "--bounding-set", "-dac_override,-dac_read_search", "--"]


def read_only_mount(path: Path) -> list[str]:
    """A wrapper whose child sees path (a folder or one file) on a read-only mount, the way a
    read-only disk looks: a private mount namespace (as root, or in a user namespace otherwise)."""
    unshare = ["unshare", "-m"] if os.geteuid() == 0 else ["unshare", "-r", "-m"]
    script = 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" "$1" && shift && exec "$@"'
    return [*unshare, "--", "sh", "-c", script, "sh", str(path)]


def can_mount_read_only() -> bool:
    """Whether this machine lets a test make a private read-only mount (see read_only_mount)."""
    probe = REPO / "tests" / "hardening"
    try:
        return _child([*read_only_mount(probe), "true"], timeout=30).returncode == 0
    except OSError:
        return False


def one_error(result: Result) -> str:
    """The single error line of a refused input (asserts status 2, one line, no traceback)."""
    assert "Traceback" not in result.err, result.err
    assert result.rc == 2, (result.rc, result.err, result.out[-500:])
    assert len(result.err_lines) == 1, result.err
    line = result.err_lines[0]
    assert line.startswith("pingpong: error: "), line
    return line


def refused(home: Path, *args: str) -> str:
    """The single error line of a command on home that must refuse its input (see one_error)."""
    return one_error(cli(*args, "--home", str(home)))


def one_warning(result: Result) -> str:
    """The single warning of a listing that skipped one bad file (status 0)."""
    assert "Traceback" not in result.err, result.err
    assert result.rc == 0, (result.rc, result.err)
    assert len(result.err_lines) == 1, result.err
    line = result.err_lines[0]
    assert line.startswith("pingpong: warning: "), line
    return line


def seed_home(root: Path) -> None:
    """A home with one finished offline session in its database."""
    result = cli(*SEED_RUN, "--home", str(root))
    assert result.rc == 0, result.err
    assert (root / "pingpong.db").is_file()


def digest(folder: Path) -> dict[str, str]:
    """sha256 of every file under folder (the database and its side files included)."""
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


# -- good files, to be spoiled ------------------------------------------------

def card_doc(**fields: object) -> dict:
    doc: dict = {"name": "fuzz-card", "char_name": "Nell Varga", "lang": "en",
                 "summary": "A ferry pilot on a foggy river.",
                 "persona": "You are Nell, who has piloted the night ferry for twenty years.",
                 "greeting": "Mind the rope."}
    doc.update(fields)
    return doc


def situation_doc(**fields: object) -> dict:
    doc: dict = {"name": "fuzz-situation", "lang": "en", "num_turns": 3,
                 "text": "The user missed the last ferry and asks for a ride anyway."}
    doc.update(fields)
    return doc


def seed_doc(**fields: object) -> dict:
    doc: dict = {"name": "fuzz-seed", "lang": "en", "character": "tally", "topic": "the Archive's lost atlas",
                 "intent": "role_knowledge_qa", "initial_query": "Where did the great atlas go?",
                 "goal": "Tally has said who borrowed the atlas last.", "max_rounds": 4}
    doc.update(fields)
    return doc


def probe_doc(**fields: object) -> dict:
    doc: dict = {"character": "tally", "lang": "en", "questions": [
        {"id": "style-01", "dimension": "self_style", "question": "Which line sounds like you?",
         "options": {"A": "Filed and ticked.", "B": "Whatever."}, "answer": ["A"]}]}
    doc.update(fields)
    return doc


def question_doc(**fields: object) -> dict:
    doc: dict = {"kind": "role_specific", "character": "tally", "lang": "en", "questions": [
        {"id": "s01", "instruction": "Who built you?", "references": ["The Guild of Archivists built me."]}]}
    doc.update(fields)
    return doc


def v2_doc(**data: object) -> dict:
    body: dict = {"name": "Nell Varga", "description": "{{char}} pilots the night ferry.",
                  "personality": "calm, dry", "first_mes": "Mind the rope.", "tags": ["river"],
                  "extensions": {"tool": {"ok": [1, 2]}}}
    body.update(data)
    return {"spec": "chara_card_v2", "spec_version": "2.0", "data": body}


def png_chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)


def png_bytes(*chunks: bytes) -> bytes:
    """A real 1x1 grey PNG with extra chunks before IDAT."""
    ihdr = png_chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0))
    idat = png_chunk(b"IDAT", zlib.compress(b"\x00\x80"))
    return PNG_SIGNATURE + ihdr + b"".join(chunks) + idat + png_chunk(b"IEND", b"")


def chara_chunk(card_json: bytes, keyword: bytes = b"chara") -> bytes:
    return png_chunk(b"tEXt", keyword + b"\x00" + base64.b64encode(card_json))


def charx_bytes(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return buf.getvalue()


def dumps(obj: object) -> bytes:
    return json.dumps(obj, ensure_ascii=False).encode("utf-8")


def nested_json(depth: int, style: str = "list") -> str:
    """A JSON value nested depth levels deep."""
    if style == "list":
        return "[" * depth + "]" * depth
    return '{"a": ' * depth + "1" + "}" * depth


def nested_yaml(depth: int, style: str) -> str:
    """A YAML value for `key: VALUE` nested depth levels deep, in flow or block style."""
    if style == "flow-list":
        return "[" * depth + "]" * depth
    if style == "flow-map":
        return "{a: " * depth + "1" + "}" * depth
    if style == "block-seq":
        return "\n  " + "- " * depth + "x"
    lines = "".join("\n" + " " * (2 + i) + "a:" for i in range(depth))
    return lines + " 1"
