"""The cards and situations we ship: all load, names match files, enough of each language."""

from __future__ import annotations

from pingpong.characters.library import CardLibrary
from pingpong.situations.library import SituationLibrary


def test_bundled_cards():
    lib = CardLibrary(None)
    cards = lib.all()
    assert lib.problems == []
    assert len(lib.all("en")) >= 8 and len(lib.all("ru")) >= 8
    for card in cards:
        assert lib.path(card.name).stem == card.name
        assert card.summary.strip() and card.persona.strip() and card.tags
        assert card.example_dialogue or card.example_text


def test_bundled_situations():
    lib = SituationLibrary(None)
    assert lib.problems == []
    assert len(lib.all("en")) >= 8 and len(lib.all("ru")) >= 8
    for s in lib.all():
        assert lib.path(s.name).stem == s.name
        assert 1 <= s.num_turns <= 6 and s.tags
