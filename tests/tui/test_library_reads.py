"""The card screen and the new-session form read the card library in a worker thread, and so does a
card import on the card screen: a person's library of a thousand cards takes most of a second to
read, and the screen must keep drawing and taking keys meanwhile. Checked by noting the thread of
every read (a spy that reads as before)."""

from __future__ import annotations

import threading

import pytest

from pingpong.characters.library import CardLibrary
from pingpong.tui.screens.characters import CharactersScreen
from pingpong.tui.screens.home import HomeScreen
from pingpong.tui.screens.new_session import NewSessionScreen
from tests.tui.helpers import form_filled, wait_for


@pytest.fixture
def reads(monkeypatch) -> list[bool]:
    """For each read of the card library: whether it ran on the main thread (the event loop's)."""
    seen: list[bool] = []
    read = CardLibrary.all

    def noted(self, lang=None):
        seen.append(threading.current_thread() is threading.main_thread())
        return read(self, lang)

    monkeypatch.setattr(CardLibrary, "all", noted)
    return seen


async def test_cards_are_read_off_the_event_loop(app, reads):
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen) and app.screen.loaded)
        await pilot.press("c")
        await wait_for(pilot, lambda: isinstance(app.screen, CharactersScreen) and app.screen.loaded)
        cards = app.screen
        assert [c.name for c in cards.cards] == ["lighthouse-keeper", "chess-tutor"]   # en, then ru
        await pilot.press("g")   # English only: read again
        await wait_for(pilot, lambda: cards.loaded and [c.name for c in cards.cards] == ["lighthouse-keeper"])
        await pilot.press("escape", "n")
        await wait_for(pilot, lambda: isinstance(app.screen, NewSessionScreen) and form_filled(app.screen))
    assert len(reads) == 3 and not any(reads), reads


async def test_an_imported_card_is_read_and_saved_off_the_event_loop(app, reads, tmp_path):
    from pingpong.tui.screens.pickers import PathPrompt

    card = tmp_path / "brine.yaml"
    card.write_text("name: brine\nchar_name: Brine\nlang: en\nsummary: A salt merchant.\npersona: Brine haggles.\n",
                    encoding="utf-8")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen) and app.screen.loaded)
        await pilot.press("c")
        await wait_for(pilot, lambda: isinstance(app.screen, CharactersScreen) and app.screen.loaded)
        cards = app.screen
        await pilot.press("i")
        await wait_for(pilot, lambda: isinstance(app.screen, PathPrompt))
        await pilot.press(*str(card), "enter")
        await wait_for(pilot, lambda: app.screen is cards and cards.loaded and "brine" in [c.name for c in cards.cards])
    assert len(reads) == 3 and not any(reads), reads   # the screen's read, the import's, the read after it
