"""Fixtures for the card and situation tests: a temp home and a stand-in bundled folder."""

from __future__ import annotations

import pytest


@pytest.fixture
def home(tmp_path):
    from pingpong.core.home import Home

    return Home(tmp_path / "home")


@pytest.fixture
def bundled(tmp_path):
    """A stand-in bundled folder with one card, so library tests do not depend on the shipped ones."""
    folder = tmp_path / "bundled"
    folder.mkdir()
    (folder / "ranger.yaml").write_text(
        "name: ranger\nchar_name: Ranger Ola\nlang: en\nsummary: A park ranger.\n"
        "persona: |\n  You are Ola, a park ranger.\ntags: [outdoors]\n", encoding="utf-8")
    return folder
