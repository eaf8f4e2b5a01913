from pingpong.tui.screens.home import HomeScreen


async def test_home_empty(app):
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)
        from tests.tui.helpers import wait_for
        await wait_for(pilot, lambda: app.screen.loaded)
        assert app.screen.query_one("#home-empty").display
