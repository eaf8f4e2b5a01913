"""RoleInteract's files: probe sets per character, padding pools per language, group scenes.

Bundled ones ship in situations/bundled/probes/ and situations/bundled/scenes/; the user's own
live in $PINGPONG_HOME/situations/probes/ and .../scenes/ and override bundled ones with the
same key. As in the card and situation libraries, a broken bundled file is an error, a broken
user file is skipped and its one-line error kept in `problems`.
"""

from __future__ import annotations

import difflib
from pathlib import Path

from pingpong.characters.collection import YamlCollection, scan_folders, yaml_files
from pingpong.characters.files import load_model_file
from pingpong.core.errors import UserError
from pingpong.core.home import Home
from pingpong.core.methods.roleinteract_data import GroupScene, PaddingPool, ProbeSet

BUNDLED_PROBES_DIR = Path(__file__).parent / "bundled" / "probes"
BUNDLED_SCENES_DIR = Path(__file__).parent / "bundled" / "scenes"
PADDING_PREFIX = "padding-"
"""Files named padding-<lang>.yaml in a probes folder are padding pools, not probe sets."""


def load_probe_file(path: Path | str) -> ProbeSet:
    """One probe set in our YAML format; UserError names the file, the field and the line."""
    return load_model_file(path, ProbeSet, "probe set")


def load_padding_file(path: Path | str) -> PaddingPool:
    return load_model_file(path, PaddingPool, "padding pool")


def load_scene_file(path: Path | str) -> GroupScene:
    return load_model_file(path, GroupScene, "group scene")


def _user_probes_dir(home: Home | None) -> Path | None:
    return home.situations_dir / "probes" if home else None


def _probe_files(folder: Path | None) -> list[Path]:
    return [p for p in yaml_files(folder) if not p.name.startswith(PADDING_PREFIX)]


class ProbeLibrary:
    """Probe sets by (character, lang). `all(lang)`, `get(character, lang)`, `find`, `characters`, `problems`."""

    what = "probe set"

    def __init__(self, home: Home | None = None, bundled_dir: Path | None = None):
        self.bundled_dir = bundled_dir or BUNDLED_PROBES_DIR
        self.user_dir = _user_probes_dir(home)
        self._items: dict[tuple[str, str], ProbeSet] | None = None
        self._paths: dict[tuple[str, str], Path] = {}
        self._sources: dict[tuple[str, str], str] = {}
        self.problems: list[str] = []

    def _scan(self) -> dict[tuple[str, str], ProbeSet]:
        if self._items is not None:
            return self._items
        scan = scan_folders((("bundled", self.bundled_dir), ("user", self.user_dir)), load_probe_file,
                            key=lambda item: (item.character, item.lang),
                            describe=lambda item: f"{self.what} for '{item.character}' ({item.lang})",
                            files=_probe_files)
        self._items, self._paths, self._sources = scan.items, scan.paths, scan.sources
        self.problems.extend(scan.problems)
        return scan.items

    def all(self, lang: str | None = None) -> list[ProbeSet]:
        """Every probe set (user ones replacing bundled ones), sorted by lang and character."""
        items = [p for (_, item_lang), p in self._scan().items() if lang is None or item_lang == lang]
        return sorted(items, key=lambda p: (p.lang, p.character))

    def characters(self, lang: str | None = None) -> set[str]:
        """Names of the characters that have a probe set (in lang, when given)."""
        return {p.character for p in self.all(lang)}

    def find(self, character: str, lang: str | None = None) -> ProbeSet | None:
        """The character's probe set, or None. Without lang, the only one there is (UserError if several)."""
        items = self._scan()
        if lang is not None:
            return items.get((character, lang))
        found = [p for (name, _), p in items.items() if name == character]
        if len(found) > 1:
            langs = ", ".join(sorted(p.lang for p in found))
            raise UserError(f"{self.what} for '{character}' exists in several languages ({langs}); give the language")
        return found[0] if found else None

    def get(self, character: str, lang: str | None = None) -> ProbeSet:
        """The character's probe set; UserError naming close names when there is none."""
        found = self.find(character, lang)
        if found is not None:
            return found
        names = sorted(self.characters(lang))
        close = difflib.get_close_matches(character, names, n=4, cutoff=0.5)
        where = f" in '{lang}'" if lang else ""
        hint = f" (did you mean: {', '.join(close)}?)" if close else f" ({len(names)} known{where})"
        raise UserError(f"no {self.what} for character '{character}'{where}{hint}")

    def path(self, character: str, lang: str) -> Path:
        self._scan()
        return self._paths[(character, lang)]

    def source(self, character: str, lang: str) -> str:
        """'bundled' or 'user'."""
        self._scan()
        return self._sources[(character, lang)]


def load_padding(lang: str, home: Home | None = None, bundled_dir: Path | None = None) -> PaddingPool:
    """The padding pool for lang: the user's padding-<lang>.yaml if there is one, else the bundled one."""
    name = f"{PADDING_PREFIX}{lang}.yaml"
    folders = [f for f in (_user_probes_dir(home), bundled_dir or BUNDLED_PROBES_DIR) if f is not None]
    for folder in folders:
        path = folder / name
        if path.is_file():
            pool = load_padding_file(path)
            if pool.lang != lang:
                raise UserError(f"{path}: lang is '{pool.lang}', but the file name says '{lang}'")
            return pool
    raise UserError(f"no padding pool for language '{lang}' (looked for {' and '.join(str(f / name) for f in folders)})")


class SceneLibrary(YamlCollection[GroupScene]):
    """Group scenes by name. `all(lang)`, `get(name)`, `save(scene)`, `source(name)`, `problems`."""

    what = "group scene"

    def __init__(self, home: Home | None = None, bundled_dir: Path | None = None):
        super().__init__(bundled_dir or BUNDLED_SCENES_DIR, home.situations_dir / "scenes" if home else None,
                         load_scene_file)
