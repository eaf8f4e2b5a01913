"""The character library: bundled cards plus the user's own under $PINGPONG_HOME/characters."""

from __future__ import annotations

from pathlib import Path

from pingpong.core.domain import Character
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

    def display_name(self, item: Character) -> str:
        """A card also goes by its character's name ("Seraphina" for "seraphina.yaml")."""
        return item.char_name
