"""The Characters screen's card pane lists a card's catchphrases, and shows no empty section without them."""

from __future__ import annotations

from pingpong.characters.library import CardLibrary
from pingpong.core.domain import Character
from pingpong.tui.screens.characters import card_text


def _card(**kw) -> Character:
    return Character(name="keeper", char_name="Maren", lang="en", summary="A lighthouse keeper.",
                     persona="{{char}} keeps the light.", greeting="Wipe your boots.", **kw)


def test_catchphrases_follow_the_persona_in_order():
    text = card_text(_card(catchphrases=["Wipe your boots.", "[bold]Storm's coming[/]"])).plain
    assert text.index("Persona") < text.index("Catchphrases") < text.index("Greeting")
    assert "Catchphrases\n• Wipe your boots.\n• [bold]Storm's coming[/]\n" in text


def test_no_catchphrases_no_heading():
    assert "Catchphrases" not in card_text(_card()).plain


def test_a_bundled_russian_card_shows_its_catchphrases():
    card = CardLibrary(None).get("baba-yaga")
    text = card_text(card).plain
    assert all(f"• {line}" in text for line in card.catchphrases)
