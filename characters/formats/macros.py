"""{{char}}/{{user}} macros and example dialogue of imported cards, handled as plain text (never as a template).

Decision: import keeps `{{char}}`, `{{user}}`, `<BOT>` and `<USER>` exactly as the
card wrote them, as SillyTavern does; they become names when a prompt is built
(core.macros.with_names), where `{{user}}` is whoever sits in the interrogator's
seat. Speaker tags are recognised ignoring case and inner spaces (`{{Char}}:`,
`{{ user }}:`). Every other `{{...}}` or `{% ... %}` is left exactly as written.
"""

from __future__ import annotations

import re

from pingpong.core.domain import ExampleTurn

__all__ = ["drop_original", "example_fields", "split_examples"]

_ORIGINAL = re.compile(r"\{\{\s*original\s*\}\}", re.IGNORECASE)
_START = re.compile(r"^\s*<START>\s*$", re.IGNORECASE | re.MULTILINE)
_SPEAKER = re.compile(r"^\s*(\{\{\s*(?:user|char)\s*\}\}|<(?:USER|BOT)>|user|char)\s*:[ \t]?(.*)$", re.IGNORECASE)


def drop_original(text: str) -> str:
    """V2 system prompts may say {{original}} (the app's default prompt); we have none to insert."""
    return _ORIGINAL.sub("", text).strip()


def _speaker(line: str, char_name: str) -> tuple[str, str] | None:
    m = _SPEAKER.match(line)
    if m:
        tag = m.group(1).lower()
        return ("user" if "user" in tag else "char"), m.group(2)
    if char_name and line.startswith(char_name + ":"):
        return "char", line[len(char_name) + 1 :].lstrip(" \t")
    return None


def split_examples(text: str, char_name: str) -> list[tuple[str, str]] | None:
    """(user, char) pairs from "<START>" blocks of "{{user}}: ..." / "{{char}}: ..." lines.

    None when the text does not split cleanly into alternating user/char lines
    (the caller then keeps it whole as example_text). Macros inside the lines are kept.
    """
    pairs: list[tuple[str, str]] = []
    for block in _START.split(text):
        if not block.strip():
            continue
        lines: list[list[str]] = []
        for raw in block.splitlines():
            found = _speaker(raw, char_name)
            if found:
                if lines and lines[-1][0] == found[0]:
                    lines[-1][1] += "\n" + found[1]
                else:
                    lines.append(list(found))
            elif lines:
                lines[-1][1] += "\n" + raw
            elif raw.strip():
                return None
        if len(lines) % 2 or any(s != ("user" if i % 2 == 0 else "char") for i, (s, _) in enumerate(lines)):
            return None
        for i in range(0, len(lines), 2):
            user, char = lines[i][1].strip(), lines[i + 1][1].strip()
            if not user or not char:
                return None
            pairs.append((user, char))
    return pairs or None


def example_fields(text: str, char_name: str, lang: str) -> dict:
    """example_dialogue (as turns) when text splits cleanly, else example_text; macros kept as written.

    lang is unused since the macros are kept; it stays so every importer calls this the same way."""
    text = text.strip()
    if not text:
        return {}
    pairs = split_examples(text, char_name)
    if pairs is None:
        return {"example_text": text}
    return {"example_dialogue": [ExampleTurn(user=u, char=c) for u, c in pairs]}
