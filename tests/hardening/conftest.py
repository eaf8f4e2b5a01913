"""A home with a seeded database, shared by the bad-input tests (it must never change)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from .support import digest, seed_home


@dataclass
class Seeded:
    root: Path
    before: dict[str, str]

    def assert_unchanged(self) -> None:
        assert digest(self.root) == self.before


@pytest.fixture(scope="session")
def seeded(tmp_path_factory) -> Seeded:
    root = tmp_path_factory.mktemp("seeded-home")
    seed_home(root)
    return Seeded(root, digest(root))
