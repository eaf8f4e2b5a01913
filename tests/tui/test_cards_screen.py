"""Cards as people look for them: by any of their names, everywhere; importing from the screen."""

from __future__ import annotations

import pytest
import yaml
from textual.widgets import Input

from pingpong.characters.library import CardLibrary
from pingpong.core.errors import UserError
from pingpong.sessions.plan import pick
from pingpong.situations.library import SituationLibrary
from pingpong.tui.screens.characters import CharactersScreen
from pingpong.tui.screens.choice import ChoiceScreen
from pingpong.tui.screens.pickers import PathPrompt
from tests.tui.conftest import CARDS
from tests.tui.helpers import wait_for


def test_a_run_finds_cards_by_display_name_and_situations_ignoring_case():
    cards = CardLibrary().all(lang="en")
    assert [c.name for c in pick(cards, ["sherlock holmes", "Ada-Lovelace"], "character", "en")] == \
        ["ada-lovelace", "sherlock-holmes"]
    with pytest.raises(UserError, match="unknown character 'Sherlok' for lang en \\(did you mean: sherlock-holmes"):
        pick(cards, ["Sherlok"], "character", "en")
    assert SituationLibrary().get("CASUAL-GREETING").name == "casual-greeting"
    ru = CardLibrary().all(lang="ru")
    assert [c.name for c in pick(ru, ["Алена"], "character", "ru")] == ["alyona"]  # е typed for ё


async def _import_prompt(pilot) -> CharactersScreen:
    """The card screen opened from Home, then i: the file prompt of an import, over that screen."""
    app = pilot.app
    await pilot.press("c")
    await wait_for(pilot, lambda: isinstance(app.screen, CharactersScreen) and app.screen.loaded)
    screen = app.screen
    await pilot.press("i")
    await wait_for(pilot, lambda: isinstance(app.screen, PathPrompt))
    return screen


async def test_importing_from_the_screen_keeps_a_failed_path_and_asks_before_replacing(app, home, tmp_path):
    card = tmp_path / "brine.yaml"
    data = CARDS[0].model_dump(mode="json", exclude_defaults=True) | {"name": "brine", "char_name": "Brine"}
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await _import_prompt(pilot)
        await pilot.press(*str(card), "enter")  # not written yet: the import fails
        await wait_for(pilot, lambda: app.screen is screen and any("import failed" in (n.title or "")
                                                                   for n in app._notifications))
        card.write_text(yaml.safe_dump(data), encoding="utf-8")
        await pilot.press("i")
        await wait_for(pilot, lambda: isinstance(app.screen, PathPrompt))
        assert app.screen.query_one(Input).value == str(card)  # the path is still there to fix or retry
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is screen and any(c.name == "brine" for c in screen.cards))
        card.write_text(yaml.safe_dump(data | {"summary": "A second version."}), encoding="utf-8")
        await pilot.press("i")
        await wait_for(pilot, lambda: isinstance(app.screen, PathPrompt))
        assert app.screen.query_one(Input).value == ""  # it worked: a fresh prompt
        await pilot.press(*str(card), "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        await pilot.press("escape")  # keep mine
        await wait_for(pilot, lambda: app.screen is screen)
        assert app.cards().get("Brine").summary == CARDS[0].summary
        await pilot.press("i")
        await wait_for(pilot, lambda: isinstance(app.screen, PathPrompt))
        await pilot.press(*str(card), "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        await pilot.press("r")
        await wait_for(pilot, lambda: app.screen is screen and app.cards().get("brine").summary == "A second version.")


async def test_a_path_typed_with_a_tilde_is_read_from_the_home_folder(app, tmp_path, monkeypatch):
    """A path typed into the prompt never passes through a shell: `~/card.yaml` was "no such file"."""
    monkeypatch.setenv("HOME", str(tmp_path))
    data = CARDS[0].model_dump(mode="json", exclude_defaults=True) | {"name": "tilde", "char_name": "Tilde"}
    (tmp_path / "tilde.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await _import_prompt(pilot)
        await pilot.press(*"~/tilde.yaml", "enter")
        await wait_for(pilot, lambda: app.screen is screen and any(c.name == "tilde" for c in screen.cards))


def test_sessions_started_here_carry_config_user_name(make_app, home, store):
    from pingpong.core.domain import SessionSpec
    from tests.tui.conftest import SITUATIONS

    home.config_path.write_text('user_name = "Alex"\n', encoding="utf-8")
    app = make_app()
    spec = SessionSpec(character=CARDS[0].name, situation=SITUATIONS[0].name, player="offline",
                       interrogator="human", lang="en")
    sid = app.start_session(spec, CARDS[0], SITUATIONS[0])
    assert store.session(sid).spec.user_name == "Alex"
    home.config_path.write_text('user_name = ""\n', encoding="utf-8")
    with pytest.raises(UserError, match="user_name: expected a name in quotes"):
        make_app().start_session(spec, CARDS[0], SITUATIONS[0])


async def test_switching_the_language_keeps_the_selected_card_where_it_is_listed(app, home):
    """g lost the selection (back to the first card), so s spot-checked another card than the one shown."""
    from textual.widgets import OptionList

    home.characters_dir.mkdir(parents=True, exist_ok=True)
    for name in ("zed-one", "zed-two"):  # two more cards of one language, listed after its first
        data = CARDS[0].model_dump(mode="json", exclude_defaults=True) | {"name": name, "char_name": name.title()}
        (home.characters_dir / f"{name}.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("c")
        await wait_for(pilot, lambda: isinstance(app.screen, CharactersScreen) and app.screen.loaded)
        screen = app.screen
        # a card that is not the first of its language's list (there the old reset would land on it too)
        target = next(i for i, c in enumerate(screen.cards)
                      if [d for d in screen.cards if d.lang == c.lang].index(c) > 0)
        screen.query_one(OptionList).focus()
        while screen.query_one(OptionList).highlighted != target:
            await pilot.press("down")
        chosen = screen.current()
        lang = chosen.lang
        while True:  # g until the list is the chosen card's language only
            await pilot.press("g")
            await wait_for(pilot, lambda: screen.loaded)
            if all(c.lang == lang for c in screen.cards):
                break
        assert screen.current() == chosen
