"""Files the commands write for people (exports, the HTML report): each written whole or not at all.

A file is written beside its target under a new name and renamed over it. An export or a report
that stops halfway leaves no cut-off file, and a symlink someone planted at the target, or at the
name written first, is replaced rather than followed (a report written into a shared folder such as
/tmp would otherwise overwrite whatever the link points to).
"""

from __future__ import annotations

import contextlib
import glob
import os
import re
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

PARTIAL = re.compile(r"\..+\.[0-9a-f]{8}\.partial")
"""The names files are written under before they are renamed into place."""


def _partial(target: Path) -> Path:
    return target.with_name(f".{target.name}.{secrets.token_hex(4)}.partial")


def _open_new(partial: Path) -> TextIO:
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # never follows a link; umask applies
    return os.fdopen(fd, "w", encoding="utf-8", newline="\n")


@contextlib.contextmanager
def replacing(target: Path) -> Iterator[TextIO]:
    """A text file to write; renamed to `target` when the block ends without an error. What an
    earlier write of the same target left when it was killed goes first."""
    remove_leftovers(target.parent, target.name)
    partial = _partial(target)
    try:
        with _open_new(partial) as fh:
            yield fh
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)


def write_text(target: Path, text: str) -> None:
    with replacing(target) as fh:
        fh.write(text)


class Staged:
    """Files that replace their targets together: each is written whole under a hidden name, and
    all are renamed into place at the end, in the order written. A report stopped while its pages
    are written (the long part) leaves the earlier report whole instead of old pages beside new
    ones; what it wrote is removed, or, after a kill, by the next one (`remove_leftovers`)."""

    def __init__(self) -> None:
        self._pending: list[tuple[Path, Path]] = []

    def write(self, target: Path, text: str) -> None:
        partial = _partial(target)
        self._pending.append((partial, target))
        with _open_new(partial) as fh:
            fh.write(text)

    def commit(self) -> None:
        for partial, target in self._pending:
            os.replace(partial, target)
        self._pending.clear()

    def discard(self) -> None:
        for partial, _ in self._pending:
            partial.unlink(missing_ok=True)
        self._pending.clear()


def remove_leftovers(folder: Path, name: str | None = None) -> None:
    """The hidden files a write stopped by a kill left in `folder` (only names these writes give;
    of the file `name` alone, when given)."""
    for path in folder.glob(f".{glob.escape(name)}.*.partial" if name else ".*.partial"):
        if PARTIAL.fullmatch(path.name) and not path.is_symlink() and path.is_file():
            path.unlink(missing_ok=True)
