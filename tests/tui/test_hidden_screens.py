"""A screen another full screen covers does no polling (Home under Watch, Watch under a session):
they poll only while in_view says the person can see them."""

from __future__ import annotations

from pingpong.tui.screens import in_view
from pingpong.tui.screens.help import HelpScreen
from pingpong.tui.screens.home import HomeScreen
from pingpong.tui.screens.watch import WatchScreen
from tests.tui.conftest import write_session
from tests.tui.helpers import wait_for


async def test_a_screen_is_in_view_on_top_or_under_a_dialog_but_not_under_another_screen(app, store):
    write_session(store)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen) and app.screen.loaded)
        home = app.screen
        assert in_view(home)
        app.push_screen(HelpScreen(home))   # a dialog over Home: Home is still seen
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        assert in_view(home)
        app.pop_screen()
        await pilot.press("w")
        await wait_for(pilot, lambda: isinstance(app.screen, WatchScreen))
        assert home.is_current and not in_view(home)   # Textual still counts it as current
        app.pop_screen()
        await wait_for(pilot, lambda: app.screen is home)
        assert in_view(home)
