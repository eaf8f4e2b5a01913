"""The cards and situations we ship: all load, names match files, enough of each language."""

from __future__ import annotations

import re

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


def test_every_bundled_card_has_two_to_four_catchphrases():
    for card in CardLibrary(None).all():
        assert 2 <= len(card.catchphrases) <= 4, card.name
        assert all(line.strip() == line and line for line in card.catchphrases), card.name
        assert len(set(card.catchphrases)) == len(card.catchphrases), card.name


def test_russian_cards_have_russian_catchphrases():
    for card in CardLibrary(None).all("ru"):
        for line in card.catchphrases:
            assert re.search("[а-яё]", line, re.IGNORECASE), (card.name, line)
