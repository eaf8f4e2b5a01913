"""Files the commands write for people (exports, the HTML report): each written whole or not at all.

A file is written beside its target under a new name and renamed over it. An export or a report
that stops halfway leaves no cut-off file, and a symlink someone planted at the target, or at the
name written first, is replaced rather than followed (a report written into a shared folder such as
/tmp would otherwise overwrite whatever the link points to).
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO


@contextlib.contextmanager
def replacing(target: Path) -> Iterator[TextIO]:
    """A text file to write; renamed to `target` when the block ends without an error."""
    partial = target.with_name(f".{target.name}.{secrets.token_hex(4)}.partial")
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # never follows a link; umask applies
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            yield fh
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)


def write_text(target: Path, text: str) -> None:
    with replacing(target) as fh:
        fh.write(text)
