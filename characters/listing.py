"""What `cards list` shows of a card file, read without pydantic when the file is plainly valid.

Importing pydantic and building the card model costs more than reading every bundled card, and a
listing needs neither: a file whose data has exactly the fields of core.domain.Character, each of
exactly the type and within the bounds the model asks for, is listed as it is. Any other file goes
through the model, so it is refused with the same one line as everywhere (or listed, when the
model accepts it after all). tests/cards/test_listing.py keeps these rules and the model in step.

Importing PyYAML alone costs more than the rest of the listing, so the bundled cards' entries are
also kept in bundled/index.json with each file's SHA-256: a bundled file whose bytes still match is
listed from there, any other is read. `python -m pingpong.characters.listing` writes the index
again after a bundled card changes (a test says when it is due).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from pingpong.core.vocabulary import LANG_PATTERN, NAME_PATTERN

from .collection import yaml_files
from .files import load_yaml, read_bytes, read_text, validate_data

INDEX_NAME = "index.json"


class CardEntry(NamedTuple):
    """One line of `cards list`: the card's id, language, names and labels."""

    name: str
    lang: str
    char_name: str
    summary: str
    tags: list[str]
    source_kind: str | None
    role_type: str | None
    prompt_style: str | None

    @classmethod
    def of(cls, card: Any) -> CardEntry:
        """The entry of a validated card (a core.domain.Character)."""
        return cls(card.name, card.lang, card.char_name, card.summary, list(card.tags), card.source_kind,
                   card.role_type, card.prompt_style)


def _text(value: object) -> bool:
    return type(value) is str


def _some_text(value: object) -> bool:
    return type(value) is str and len(value) > 0


def _text_or_none(value: object) -> bool:
    return value is None or type(value) is str


def _texts(value: object) -> bool:
    return type(value) is list and all(type(item) is str for item in value)


def _turns(value: object) -> bool:
    return type(value) is list and all(
        type(turn) is dict and turn.keys() == {"user", "char"} and type(turn["user"]) is str
        and type(turn["char"]) is str for turn in value)


def _table(value: object) -> bool:
    return type(value) is dict  # text keys: load_yaml allows no others


def _like(pattern: str) -> Callable[[object], bool]:
    compiled = re.compile(pattern)
    # fullmatch: `$` may not stop before a final newline, as in pydantic's patterns
    return lambda value: type(value) is str and compiled.fullmatch(value) is not None


CARD_FIELDS: dict[str, Callable[[object], bool]] = {
    "name": _like(NAME_PATTERN), "char_name": _some_text, "lang": _like(LANG_PATTERN), "summary": _some_text,
    "persona": _some_text, "example_dialogue": _turns, "example_text": _text, "greeting": _text,
    "catchphrases": _texts, "tags": _texts, "source_kind": _text_or_none, "role_type": _text_or_none,
    "prompt_style": _text_or_none, "extensions": _table, "origin": _text_or_none,
}
"""Each field of a Character and what its value plainly is when the model would take it unchanged."""
REQUIRED = frozenset({"name", "char_name", "lang", "summary", "persona"})


def plainly_valid(data: object) -> bool:
    """True when Character would accept data (parsed by load_yaml) as it is; False says only
    "ask the model", never that the card is bad."""
    return type(data) is dict and REQUIRED <= data.keys() and all(
        key in CARD_FIELDS and CARD_FIELDS[key](value) for key, value in data.items())


def load_card_entry(path: Path) -> CardEntry:
    """The listing's entry of our YAML card at path; UserError as load_card_file gives it."""
    where = str(path)
    text = read_text(path)
    data = load_yaml(text, where)
    if plainly_valid(data):
        return CardEntry(data["name"], data["lang"], data["char_name"], data["summary"], list(data.get("tags", [])),
                         data.get("source_kind"), data.get("role_type"), data.get("prompt_style"))
    from pingpong.core.domain import Character

    return CardEntry.of(validate_data(data, Character, "card", where, text))


def _digest(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()


def index_document(bundled_dir: Path) -> dict[str, Any]:
    """What index.json holds for the cards in bundled_dir: each file's digest and entry."""
    return {"cards": {path.name: {"sha256": _digest(read_bytes(path)), "entry": load_card_entry(path)._asdict()}
                      for path in yaml_files(bundled_dir)}}


def index_text(bundled_dir: Path) -> str:
    """index.json as written: sorted and indented, so a changed card shows as a small diff."""
    return json.dumps(index_document(bundled_dir), ensure_ascii=False, indent=1, sort_keys=True) + "\n"


class IndexedLoader:
    """load_card_entry, with bundled_dir's index.json standing in for the files it knows unchanged."""

    def __init__(self, bundled_dir: Path):
        self.bundled_dir = bundled_dir
        self._known: dict[str, dict[str, Any]] | None = None

    def _index(self) -> dict[str, dict[str, Any]]:
        if self._known is None:
            try:  # no index (a test's own bundled folder) or an unreadable one: every file is read
                self._known = json.loads((self.bundled_dir / INDEX_NAME).read_text(encoding="utf-8"))["cards"]
            except (OSError, ValueError, KeyError, TypeError):
                self._known = {}
        return self._known

    def __call__(self, path: Path) -> CardEntry:
        if path.parent == self.bundled_dir:
            known = self._index().get(path.name)
            if known is not None and known["sha256"] == _digest(read_bytes(path)):
                return CardEntry(**known["entry"])
        return load_card_entry(path)


def main() -> None:
    """Write the bundled cards' index.json (after a bundled card changed)."""
    from .library import BUNDLED_DIR

    path = BUNDLED_DIR / INDEX_NAME
    path.write_text(index_text(BUNDLED_DIR), encoding="utf-8")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
