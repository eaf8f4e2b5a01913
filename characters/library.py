"""The character library: bundled cards plus the user's own under $PINGPONG_HOME/characters."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from pingpong.core.home import Home

from .collection import YamlCollection
from .files import load_model_file
from .listing import CardEntry, IndexedLoader

if TYPE_CHECKING:
    from pingpong.core.domain import Character

BUNDLED_DIR = Path(__file__).parent / "bundled"


def load_card_file(path: Path | str) -> Character:
    """One card in our YAML format; UserError names the file, the field and the line."""
    from pingpong.core.domain import Character

    return load_model_file(path, Character, "card")


class CardLibrary(YamlCollection["Character"]):
    """Cards by name. `all(lang)`, `get(name)`, `save(card)`, `source(name)`, `problems`."""

    what = "character"

    def __init__(self, home: Home | None = None, bundled_dir: Path | None = None):
        super().__init__(bundled_dir or BUNDLED_DIR, home.characters_dir if home else None, load_card_file)

    def display_name(self, item: Character) -> str:
        """A card also goes by its character's name ("Seraphina" for "seraphina.yaml")."""
        return item.char_name

    def names_for_import(self, origin: str, *, take: bool = False) -> set[str]:
        """The names a file's imported cards must not take (they get "-2"): those of cards imported
        from other files. A file imported again keeps the names it got; with `take` (--force) a file
        never imported before takes its names, replacing the cards that hold them."""
        library = self.all()
        if take and not any(c.origin == origin for c in library):
            return set()
        return {c.name for c in library if c.origin != origin}


class CardListing(YamlCollection[CardEntry]):
    """The same files as CardLibrary, with the same sources and problems, as `cards list` shows
    them: each card read without pydantic when it can be, a bundled one from the index when it is
    unchanged (characters.listing)."""

    what = CardLibrary.what

    def __init__(self, home: Home | None = None, bundled_dir: Path | None = None):
        bundled = bundled_dir or BUNDLED_DIR
        super().__init__(bundled, home.characters_dir if home else None, IndexedLoader(bundled))
