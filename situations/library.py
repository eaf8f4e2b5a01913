"""The situation library: bundled situations plus the user's own under $PINGPONG_HOME/situations."""

from __future__ import annotations

from pathlib import Path

from pingpong.characters.collection import YamlCollection
from pingpong.characters.files import load_model_file
from pingpong.core.domain import Situation
from pingpong.core.home import Home

BUNDLED_DIR = Path(__file__).parent / "bundled"


def load_situation_file(path: Path | str) -> Situation:
    """One situation in our YAML format; UserError names the file, the field and the line."""
    return load_model_file(path, Situation, "situation")


class SituationLibrary(YamlCollection[Situation]):
    """Situations by name. `all(lang)`, `get(name)`, `save(situation)`, `source(name)`, `problems`."""

    what = "situation"

    def __init__(self, home: Home | None = None, bundled_dir: Path | None = None):
        super().__init__(bundled_dir or BUNDLED_DIR, home.situations_dir if home else None, load_situation_file)
