"""The DMT seed library: bundled seeds plus the user's own under $PINGPONG_HOME/situations/dmt.

Seeds live in their own folder beside the situations, one YAML file per seed. As in the card and
situation libraries, a user seed with a bundled seed's name replaces it, a broken bundled file is
an error, and a broken user file is skipped with its one-line error kept in `problems`.
"""

from __future__ import annotations

from pathlib import Path

from pingpong.characters.collection import YamlCollection
from pingpong.characters.files import load_model_file
from pingpong.core.domain import Situation
from pingpong.core.home import Home
from pingpong.core.methods.dmt_seed import Seed

BUNDLED_DMT_DIR = Path(__file__).parent / "bundled" / "dmt"
SEEDS_SUBDIR = "dmt"
"""The seeds' folder under the situations folder, bundled and in the user's home alike."""


def load_seed_file(path: Path | str) -> Seed:
    """One seed in our YAML format; UserError names the file, the field and the line."""
    return load_model_file(path, Seed, "seed")


class SeedLibrary(YamlCollection[Seed]):
    """Seeds by name. `all(lang)`, `get(name)`, `for_character(name)`, `save(seed)`, `source(name)`, `problems`."""

    what = "seed"

    def __init__(self, home: Home | None = None, bundled_dir: Path | None = None):
        user_dir = home.situations_dir / SEEDS_SUBDIR if home else None
        super().__init__(bundled_dir or BUNDLED_DMT_DIR, user_dir, load_seed_file)

    def for_character(self, name: str, lang: str | None = None) -> list[Seed]:
        """The seeds written for the card called name (optionally in one language), sorted by name."""
        return [seed for seed in self.all(lang) if seed.character == name]


def seed_situation(seed: Seed) -> Situation:
    """The situation a dmt session runs and snapshots: the seed's fields, its goal and first
    query kept in `data` (the method reads them from there), max_rounds as the turn count."""
    return Situation(
        name=seed.name, lang=seed.lang, text=f"{seed.topic}. {seed.goal}", num_turns=seed.max_rounds,
        tags=list(seed.tags), topic=seed.topic, intent=seed.intent,
        data={"character": seed.character, "goal": seed.goal, "initial_query": seed.initial_query},
    )
