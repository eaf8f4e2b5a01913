"""The footer is rebuilt only when the keys it shows change, not on every focus change."""

from __future__ import annotations

from textual.widgets import DataTable
from textual.widgets._footer import FooterKey

from pingpong.tui.screens.home import HomeScreen
from pingpong.tui.widgets.footer import KeysFooter
from tests.tui.conftest import write_session
from tests.tui.helpers import wait_for


async def test_home_footer_keeps_its_keys_through_focus_changes(app, store):
    write_session(store)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen) and app.screen.loaded)
        await pilot.pause()
        home = app.screen
        footer = home.query_one(KeysFooter)
        keys = list(footer.query(FooterKey))
        assert {"New", "Resume", "Find", "Quit"} <= {k.description for k in keys}
        table = home.query_one(DataTable)
        home.set_focus(None)  # focus changes and refreshes that leave the keys as they are
        await pilot.pause()
        table.focus()
        for _ in range(3):
            home.refresh_bindings()
        await pilot.pause()
        await pilot.pause()
        assert home.focused is table
        assert list(footer.query(FooterKey)) == keys  # the same widgets: nothing was rebuilt
        assert all(key.is_attached for key in keys)


async def test_home_footer_changes_with_its_keys(app, store):
    """The filter box takes the letter keys: the footer drops them, and shows them again after."""
    write_session(store)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen) and app.screen.loaded)
        await pilot.pause()
        footer = app.screen.query_one(KeysFooter)

        def shown() -> set[str]:
            return {key.description for key in footer.query(FooterKey)}

        assert "New" in shown()
        await pilot.press("slash")
        await wait_for(pilot, lambda: "New" not in shown())
        await pilot.press("escape")
        await wait_for(pilot, lambda: {"New", "Resume", "Find", "Quit"} <= shown())
