"""A folder-backed collection of YAML items: bundled ones shipped with us, user ones in $PINGPONG_HOME.

Shared by CardLibrary and SituationLibrary. A user file whose `name` equals a
bundled one overrides it. A broken user file does not hide the rest of the
library: it is skipped and its one-line error kept in `problems`.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Hashable, Sequence
from pathlib import Path
from typing import Generic, TypeVar

from pingpong.core.errors import UserError

from .files import to_yaml, write_atomic

T = TypeVar("T")
K = TypeVar("K", bound=Hashable)


def yaml_files(folder: Path | None) -> list[Path]:
    """The YAML files directly in folder; a missing or unreadable folder is a UserError only when
    it exists but cannot be listed."""
    if folder is None or not folder.is_dir():
        return []
    try:
        return sorted(p for p in folder.iterdir() if p.suffix in (".yaml", ".yml") and not p.name.startswith("."))
    except OSError as exc:
        raise UserError(f"{folder}: cannot list the folder ({exc.strerror or exc})") from None


class Scan(Generic[K, T]):
    """What scan_folders found: items by key, where each came from, and the files it skipped."""

    def __init__(self) -> None:
        self.items: dict[K, T] = {}
        self.paths: dict[K, Path] = {}
        self.sources: dict[K, str] = {}
        self.problems: list[str] = []


def scan_folders(folders: Sequence[tuple[str, Path | None]], load: Callable[[Path], T], key: Callable[[T], K],
                 describe: Callable[[T], str], files: Callable[[Path | None], list[Path]] = yaml_files) -> Scan[K, T]:
    """Load every file of the ("bundled" | "user", folder) pairs in order; a later source's item
    replaces an earlier one with the same key. A broken bundled file is an error (a bug of
    ours); a broken or duplicated user file is skipped, its one line kept in `problems`."""
    scan: Scan[K, T] = Scan()
    for source, folder in folders:
        try:
            paths = files(folder)
        except UserError as exc:
            if source == "bundled":
                raise
            scan.problems.append(str(exc))
            continue
        for path in paths:
            try:
                item = load(path)
            except UserError as exc:
                if source == "bundled":
                    raise
                scan.problems.append(str(exc))
                continue
            k = key(item)
            if k in scan.items and scan.sources[k] == source:
                scan.problems.append(f"{path}: {describe(item)} is also defined in {scan.paths[k]}; ignored")
                continue
            scan.items[k] = item
            scan.paths[k] = path
            scan.sources[k] = source
    return scan


def _folded(name: str) -> str:
    return unicodedata.normalize("NFC", name).strip().casefold().replace("ё", "е")


def find_named(items: Sequence[T], name: str, what: str, names: Callable[[T], tuple[str, ...]],
               where: str = "") -> T:
    """The one item whose names (id first, then others) match `name` ignoring case, spaces around and
    the dots of ё (Russians type е for it), trying each kind of name in turn; UserError (with close
    names as hints) when none or several do."""
    key = _folded(name)
    kinds = max((len(names(item)) for item in items), default=0)
    for kind in range(kinds):
        matches = [item for item in items if kind < len(names(item)) and _folded(names(item)[kind]) == key]
        if len(matches) == 1:
            return matches[0]
        if matches:
            ids = ", ".join(sorted(names(item)[0] for item in matches))
            raise UserError(f"'{name}' is the name of several {what}s{where} ({ids}); give one of these")
    known = {n: names(item)[0] for item in items for n in names(item) if n}
    import difflib

    close = difflib.get_close_matches(name, list(known), n=4, cutoff=0.5)
    hints = list(dict.fromkeys(known[c] for c in close))
    hint = f" (did you mean: {', '.join(hints)}?)" if hints else f" ({len(items)} known; see the list command)"
    raise UserError(f"unknown {what} '{name}'{where}{hint}")


class YamlCollection(Generic[T]):
    what = "item"

    def __init__(self, bundled_dir: Path, user_dir: Path | None, load: Callable[[Path], T]):
        self.bundled_dir = bundled_dir
        self.user_dir = user_dir
        self._load = load
        self._items: dict[str, T] | None = None
        self._paths: dict[str, Path] = {}
        self._sources: dict[str, str] = {}
        self.problems: list[str] = []

    def _scan(self) -> dict[str, T]:
        if self._items is not None:
            return self._items
        scan = scan_folders((("bundled", self.bundled_dir), ("user", self.user_dir)), self._load,
                            key=lambda item: item.name,  # type: ignore[attr-defined]
                            describe=lambda item: f"{self.what} '{item.name}'")  # type: ignore[attr-defined]
        self._items, self._paths, self._sources = scan.items, scan.paths, scan.sources
        self.problems.extend(scan.problems)
        return scan.items

    def all(self, lang: str | None = None) -> list[T]:
        """Every item (user ones replacing bundled ones of the same name), sorted by lang and name."""
        items = [i for i in self._scan().values() if lang is None or i.lang == lang]  # type: ignore[attr-defined]
        return sorted(items, key=lambda i: (i.lang, i.name))  # type: ignore[attr-defined]

    def names(self) -> set[str]:
        return set(self._scan())

    def display_name(self, item: T) -> str:
        """The name an item goes by besides its id ("" when none): a card's character name."""
        return ""

    def get(self, name: str) -> T:
        """The item called name: its id, its file name, or its display name, ignoring case; an exact
        id always wins. A name shared by several items is a UserError listing their ids."""
        items = self._scan()
        if name in items:
            return items[name]
        return find_named(list(items.values()), name, self.what,
                          lambda item: (item.name, self.path(item.name).stem,  # type: ignore[attr-defined]
                                        self.display_name(item)))

    def source(self, name: str) -> str:
        """'bundled' or 'user'."""
        self._scan()
        return self._sources[name]

    def path(self, name: str) -> Path:
        self._scan()
        return self._paths[name]

    def save(self, item: T) -> Path:
        """Write item as YAML into the user folder (replacing the user file that defines the same name)."""
        if self.user_dir is None:
            raise UserError(f"cannot save {self.what}: no home folder")
        name = item.name  # type: ignore[attr-defined]
        self._scan()
        path = self._paths.get(name) if self._sources.get(name) == "user" else None
        path = path or self.user_dir / f"{name}.yaml"
        try:
            write_atomic(path, to_yaml(item))  # type: ignore[arg-type]
        except OSError as exc:
            raise UserError(f"{path}: cannot save the {self.what} ({exc.strerror})") from None
        assert self._items is not None
        self._items[name] = item
        self._paths[name] = path
        self._sources[name] = "user"
        return path
