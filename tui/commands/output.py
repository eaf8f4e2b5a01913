"""Small output helpers shared by the command handlers (kept free of heavy imports)."""

from __future__ import annotations

import json
import sys


def print_json(data) -> None:
    """One JSON document on stdout, the `--format json` contract."""
    json.dump(data, sys.stdout, ensure_ascii=False, indent=2)
    sys.stdout.write("\n")


def warn(problems: list[str]) -> None:
    for problem in problems:
        print(f"pingpong: warning: {problem}", file=sys.stderr)


def clip(text: str, width: int) -> str:
    """One line of at most `width` characters, with an ellipsis when cut."""
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"
