"""The character library: bundled cards plus the user's own under $PINGPONG_HOME/characters."""

from __future__ import annotations

import difflib
from pathlib import Path

from pingpong.core.domain import Character
from pingpong.core.errors import UserError
from pingpong.core.home import Home

from .collection import YamlCollection
from .files import load_model_file

BUNDLED_DIR = Path(__file__).parent / "bundled"


def load_card_file(path: Path | str) -> Character:
    """One card in our YAML format; UserError names the file, the field and the line."""
    return load_model_file(path, Character, "card")


class CardLibrary(YamlCollection[Character]):
    """Cards by name. `all(lang)`, `get(name)`, `save(card)`, `source(name)`, `problems`."""

    what = "character"

    def __init__(self, home: Home | None = None, bundled_dir: Path | None = None):
        super().__init__(bundled_dir or BUNDLED_DIR, home.characters_dir if home else None, load_card_file)

    def get(self, name: str) -> Character:
        """The card called name: its id, its file name, or the name the character goes by
        ("Seraphina" for "seraphina.yaml"), ignoring case; an exact id always wins.
        A display name shared by several cards is a UserError listing their ids."""
        items = self._scan()
        if name in items:
            return items[name]
        key = name.strip().casefold()
        for matches in (
            [card for card in items.values() if card.name.casefold() == key],
            [card for card in items.values() if self.path(card.name).stem.casefold() == key],
            [card for card in items.values() if card.char_name.strip().casefold() == key],
        ):
            if len(matches) == 1:
                return matches[0]
            if matches:
                ids = ", ".join(sorted(card.name for card in matches))
                raise UserError(f"'{name}' is the name of several characters ({ids}); give one of these")
        by_display = {card.char_name: card.name for card in items.values()}
        close = difflib.get_close_matches(name, [*items, *by_display], n=4, cutoff=0.5)
        hints = list(dict.fromkeys(by_display.get(c, c) for c in close))
        hint = f" (did you mean: {', '.join(hints)}?)" if hints else f" ({len(items)} known; see the list command)"
        raise UserError(f"unknown {self.what} '{name}'{hint}")
