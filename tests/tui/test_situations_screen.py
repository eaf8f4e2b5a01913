"""The situations screen as people use it: opened from Home and the palette, switched between methods
and languages, showing what `situations show` prints, warning about a broken file of one's own, and
starting a session with the item chosen."""

from __future__ import annotations

import io
from argparse import Namespace
from pathlib import Path

import yaml
from rich.console import Console
from textual.widgets import Select, Static

from pingpong.core.home import Home
from pingpong.core.methods.roleinteract_data import ChoiceQuestion, MemoryProbe, ProbeSet
from pingpong.tui.screens.characters import CharactersScreen
from pingpong.tui.screens.home import HomeScreen
from pingpong.tui.screens.live import LiveScreen
from pingpong.tui.screens.new_session import NewSessionScreen
from pingpong.tui.screens.situations import SituationsScreen, session_defaults
from tests.tui.conftest import CARDS, SEEDS
from tests.tui.helpers import form_filled, run_palette_command, wait_for

SIZE = (100, 30)
PROBES = ProbeSet(
    character=CARDS[0].name, lang="en",
    questions=[ChoiceQuestion(id="style-01", dimension="self_style", question="A gull steals your bread. Which line is yours?",
                              options={"A": "Thief. Feathered thief.", "B": "Oh no, my lovely sandwich!"}, answer=["A"])],
    memory=[MemoryProbe(id="mem-01", plant="My name is Ansel, I row the mail boat.", padding=2,
                        ask="Who rows the mail boat, do you remember?", keywords=["Ansel"])])
"""A probe set for the fixed keeper card: one question, one memory probe."""


def write_probes(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{PROBES.character}.yaml").write_text(
        yaml.safe_dump(PROBES.model_dump(mode="json", exclude_defaults=True), allow_unicode=True, sort_keys=False),
        encoding="utf-8")


def names(screen: SituationsScreen) -> list[str]:
    return [e.name for e in screen.rows]


async def opened(pilot) -> SituationsScreen:
    """Home, then t: the situations screen with its first list read."""
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, HomeScreen) and pilot.app.screen.loaded)
    await pilot.press("t")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, SituationsScreen) and pilot.app.screen.loaded)
    return pilot.app.screen


async def switched(pilot, screen: SituationsScreen, *keys: str) -> None:
    await pilot.press(*keys)
    await wait_for(pilot, lambda: screen.loaded)


def cli_show(home: Home, name: str, method: str | None = None) -> str:
    """What `pingpong situations show NAME` prints (piped: 200 columns wide)."""
    from pingpong.tui.commands import situations

    out = io.StringIO()
    console = Console(file=out, width=200, highlight=False)
    original = situations.console
    situations.console = lambda: console  # type: ignore[assignment]
    try:
        situations.show_situation(Namespace(name=name, method=method, format="table"), home)
    finally:
        situations.console = original  # type: ignore[assignment]
    return out.getvalue()


def shown_details(screen: SituationsScreen) -> str:
    """The details pane's content drawn as the CLI draws it, 200 columns wide."""
    out = io.StringIO()
    Console(file=out, width=200, highlight=False).print(screen.query_one("#sit-text", Static).content)
    return out.getvalue()


async def test_t_on_home_opens_the_screen_and_escape_goes_back(app):
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        assert names(screen) == ["bot-check", "storm-night", "first-lesson"]  # by language, then name
        assert "situation (the interrogator sees this)" in shown_details(screen)  # the first is shown
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen))


async def test_the_palette_opens_the_screen_from_another_screen(app):
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen) and app.screen.loaded)
        await pilot.press("c")  # the cards: no key of theirs leads to the situations
        await wait_for(pilot, lambda: isinstance(app.screen, CharactersScreen))
        await run_palette_command(pilot, "situations")
        await wait_for(pilot, lambda: isinstance(app.screen, SituationsScreen) and app.screen.loaded)


async def test_switching_method_and_language_changes_what_is_listed(app, bundled):
    write_probes(bundled[1] / "probes")
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        await switched(pilot, screen, "g")  # all -> en
        assert names(screen) == ["bot-check", "storm-night"]
        await switched(pilot, screen, "g")  # en -> ru
        assert names(screen) == ["first-lesson"]
        await switched(pilot, screen, "m", "m")  # pingpong-v1, then dmt: its seeds (none in Russian)
        assert screen.method == "dmt" and screen.query_one("#sit-method", Select).value == "dmt"
        assert names(screen) == []
        assert "Nothing here" in str(screen.query_one("#sit-text", Static).content)
        screen.query_one("#sit-lang", Select).value = "all"  # the selects switch too
        await wait_for(pilot, lambda: screen.loaded and screen.lang == "all")
        assert names(screen) == [SEEDS[0].name] and screen.rows[0].character == CARDS[0].name
        screen.query_one("#sit-method", Select).value = "roleinteract"
        await wait_for(pilot, lambda: screen.loaded and screen.method == "roleinteract")
        assert [(e.name, e.kind) for e in screen.rows] == [(PROBES.character, "probe_set")]
        await pilot.press("enter")  # a set opens on its probes, and closes again
        assert names(screen) == [PROBES.character, "lighthouse-keeper-style-01", "lighthouse-keeper-mem-01"]
        await pilot.press("enter")
        assert names(screen) == [PROBES.character]


async def test_the_details_are_what_situations_show_prints(app, home, bundled):
    """Items from the user's own folders, which the command line and the app both read."""
    user = home.situations_dir
    seed = SEEDS[0].model_copy(update={"name": "keeper-fog", "topic": "fog over the point"})
    (user / "dmt").mkdir(parents=True)
    (user / "dmt" / "keeper-fog.yaml").write_text(yaml.safe_dump(seed.model_dump(mode="json")), encoding="utf-8")
    write_probes(user / "probes")
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        screen.query_one("#sit-method", Select).value = "dmt"
        await wait_for(pilot, lambda: screen.loaded and screen.method == "dmt")
        assert names(screen) == ["keeper-fog", SEEDS[0].name] and screen.current().name == "keeper-fog"
        assert shown_details(screen) == cli_show(home, "keeper-fog")
        screen.query_one("#sit-method", Select).value = "roleinteract"
        await wait_for(pilot, lambda: screen.loaded and screen.method == "roleinteract")
        set_details = shown_details(screen)  # the set, its probes, after how to open it
        assert set_details == "enter: list what is in it; n: start a session with its first item\n" + cli_show(
            home, PROBES.character, "roleinteract")
        await pilot.press("enter", "down", "down")  # the memory probe
        assert screen.current().name == "lighthouse-keeper-mem-01"
        assert shown_details(screen) == cli_show(home, "lighthouse-keeper-mem-01")
        assert "Ansel" in shown_details(screen)


async def test_a_broken_file_of_ones_own_is_a_warning_and_the_rest_is_listed(app, home):
    home.situations_dir.mkdir(parents=True, exist_ok=True)
    (home.situations_dir / "half-written.yaml").write_text("name: [unclosed\n", encoding="utf-8")
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        assert names(screen) == ["bot-check", "storm-night", "first-lesson"]
        warnings = [n for n in app._notifications if n.severity == "warning"]
        assert len(warnings) == 1 and "half-written.yaml" in warnings[0].message
        assert "1 file skipped" in str(screen.query_one("#sit-count", Static).content)
        await switched(pilot, screen, "m")  # the same library again: not told twice
        assert len([n for n in app._notifications if n.severity == "warning"]) == 1


async def test_n_opens_the_new_session_form_prefilled_and_it_starts(app, home, store):
    """A seed names its card: the form opens on it, not on the first card of the language."""
    first = CARDS[0].model_copy(update={"name": "harbour-master", "char_name": "Hal"})  # listed before the keeper
    home.characters_dir.mkdir(parents=True, exist_ok=True)
    (home.characters_dir / "harbour-master.yaml").write_text(
        yaml.safe_dump(first.model_dump(mode="json", exclude_defaults=True)), encoding="utf-8")
    async with app.run_test(size=(100, 40)) as pilot:
        screen = await opened(pilot)
        await switched(pilot, screen, "m", "m")  # dmt
        assert screen.current().name == SEEDS[0].name
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, NewSessionScreen) and form_filled(app.screen))
        form = app.screen
        await wait_for(pilot, lambda: form.query_one("#new-situation", Select).value == SEEDS[0].name)
        assert form.query_one("#new-method", Select).value == "dmt"
        assert form.query_one("#new-lang", Select).value == "en"
        assert form.query_one("#new-character", Select).value == CARDS[0].name
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, LiveScreen))
        spec = store.session(app.screen.session_id).spec
        assert (spec.method, spec.character, spec.situation) == ("dmt", CARDS[0].name, SEEDS[0].name)


async def test_enter_on_a_situation_starts_with_it_too(app):
    async with app.run_test(size=(100, 40)) as pilot:
        screen = await opened(pilot)
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, NewSessionScreen) and form_filled(app.screen))
        await wait_for(pilot, lambda: app.screen.query_one("#new-situation", Select).value == "storm-night")
        assert app.screen.query_one("#new-method", Select).value == "pingpong"
        assert screen.method == "pingpong"


def test_a_set_starts_with_its_first_item_a_card_has_answers_for():
    from pingpong.situations.catalog import Catalog, listing

    catalog = Catalog.of(None)
    general = next(e for e in listing(catalog, "rolebench", "en").entries if e.name == "general-en")
    defaults = session_defaults(general, "rolebench")
    first = next(c for c in general.children() if c.character)
    assert defaults == {"method": "rolebench", "lang": "en", "situation": first.name, "character": first.character}
    probes = next(e for e in listing(catalog, "roleinteract", "ru").entries if e.name == "koschei")
    assert session_defaults(probes, "roleinteract") == {"method": "roleinteract", "lang": "ru",
                                                        "situation": "koschei-style-01", "character": "koschei"}


async def test_on_a_narrow_screen_the_counts_and_how_to_open_a_set_still_show(app, home, bundled):
    """At 60 columns the counts were cut to '28' and the hint that enter opens a set never showed;
    an untagged situation of one's own was listed without words to tell it by."""
    home.situations_dir.mkdir(parents=True, exist_ok=True)
    (home.situations_dir / "mine.yaml").write_text(
        "name: mine\nlang: en\nnum_turns: 2\ntext: Ask the keeper about the fog horn.\n", encoding="utf-8")
    write_probes(bundled[1] / "probes")
    async with app.run_test(size=(60, 20)) as pilot:
        screen = await opened(pilot)
        from pingpong.tui.widgets.tables import SizedTable

        assert isinstance(screen.query_one("#sit-table"), SizedTable)  # no rows cut to their headers' width
        row = screen.query_one("#sit-table", SizedTable).get_row_at(names(screen).index("mine"))
        assert "Ask the keeper about the fog horn." in [str(c) for c in row]
        await switched(pilot, screen, "m", "m", "m")  # roleinteract: probe sets and scenes
        count = screen.query_one("#sit-count", Static)
        text = str(count.content)
        assert text == "1 probe set" and count.parent is screen  # on a line of its own, not after the selectors
        assert count.region.height * count.content_region.width >= len(text)  # wrapped whole, not cut
        assert "enter: list what is in it" in shown_details(screen)
