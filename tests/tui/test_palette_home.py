"""The command palette, the help screen and the paged home table."""

from __future__ import annotations

from textual.widgets import DataTable

from pingpong.tui.screens.help import HelpScreen
from pingpong.tui.screens.home import PAGE, HomeScreen
from pingpong.tui.screens.leaderboard import LeaderboardScreen
from pingpong.tui.screens.live import LiveScreen
from tests.tui.conftest import write_session
from tests.tui.helpers import run_palette_command, wait_for


async def test_palette_opens_leaderboard(app):
    async with app.run_test(size=(80, 24)) as pilot:
        await run_palette_command(pilot, "leaderboard")
        await wait_for(pilot, lambda: isinstance(app.screen, LeaderboardScreen))


async def test_palette_takes_the_seat_in_a_live_session(app, store):
    sid = write_session(store, status="interrupted", turns=1, planned=2)
    async with app.run_test(size=(100, 30)) as pilot:
        app.open_live(sid, paused=True)
        await wait_for(pilot, lambda: isinstance(app.screen, LiveScreen) and app.screen.control is not None)
        live = app.screen
        await run_palette_command(pilot, "take interrogator")
        await wait_for(pilot, lambda: app.screen is live)
        live.control.resume()
        await wait_for(pilot, lambda: live.control.human.waiting and app.focused is live.query_one("#human-input"))
        await pilot.press(*"hello", "enter")
        await wait_for(pilot, lambda: live.status == "finished" and not live.running)
    users = [(m.turn, m.author) for m in store.session(sid).messages if m.role == "user"]
    assert users == [(1, "offline"), (2, "human")]


async def test_help_screen(app):
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f1")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen))


async def test_home_pages_many_sessions(app, store):
    for _ in range(PAGE + 20):
        write_session(store, judges=("offline",), turns=1)
    async with app.run_test(size=(80, 24)) as pilot:
        home = app.screen
        await wait_for(pilot, lambda: isinstance(home, HomeScreen) and home.loaded)
        table = home.query_one(DataTable)
        assert table.row_count == PAGE  # one page read, not every session
        assert table.get_row_at(0)[0] == str(PAGE + 20)  # newest first
        assert "page 1/2" in str(home.query_one("#home-count").render())
        await pilot.press("right_square_bracket")
        await wait_for(pilot, lambda: home.selected() is not None and home.selected().id == 20)  # the 201st
        assert "page 2/2" in str(home.query_one("#home-count").render())
        await pilot.press("s")  # sort by character
        assert "sort character" in str(home.query_one("#home-count").render())


async def test_home_filter_matches_every_word_and_shows_final_at_80_columns(app, store):
    from tests.tui.conftest import SITUATIONS

    keep = write_session(store, situation=SITUATIONS[0], judges=("offline",), turns=1)
    write_session(store, situation=SITUATIONS[1], judges=("offline",), turns=1)
    async with app.run_test(size=(80, 24)) as pilot:
        home = app.screen
        await wait_for(pilot, lambda: isinstance(home, HomeScreen) and home.loaded)
        await pilot.press("slash", *"lighthouse storm")  # character and situation words together
        table = home.query_one(DataTable)
        await wait_for(pilot, lambda: [table.get_row_at(i)[0] for i in range(table.row_count)] == [str(keep)])
        # the status and the final score are in view without scrolling sideways
        visible = home.query_one(DataTable).render_line(1).text
        assert "finished" in visible and "4.00" in visible


async def _listed(pilot) -> list[str]:
    """The palette's commands with nothing typed (each command's text, its key dropped)."""
    from textual.command import CommandList, CommandPalette

    await pilot.press("ctrl+p")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, CommandPalette))
    commands = pilot.app.screen.query_one(CommandList)
    await wait_for(pilot, lambda: commands.option_count > 5)
    await pilot.pause(0.3)  # discovery streams in: let the last providers finish
    texts = [str(commands.get_option_at_index(i).prompt).split("\n")[0].split("  ")[0].strip()
             for i in range(commands.option_count)]
    await pilot.press("escape")
    return texts


async def test_the_palette_lists_one_quit_and_no_way_to_the_screen_it_is_over(app):
    async with app.run_test(size=(100, 30)) as pilot:
        home = await _listed(pilot)
        assert sum("Quit" in t for t in home) == 1, home
        assert "Leaderboard" in home
        await pilot.press("l")
        await wait_for(pilot, lambda: isinstance(app.screen, LeaderboardScreen))
        board = await _listed(pilot)
        assert "Leaderboard" not in board and "DMT leaderboard" not in board and "Character cards" in board, repr(board)


async def test_handing_the_seat_back_offers_the_model_that_held_it_first(app, store):
    from textual.widgets import OptionList

    from pingpong.tui.screens.pickers import ModelPicker

    (app.home.root / "config.toml").write_text('[models.another-model]\nkind = "offline"\n', encoding="utf-8")
    sid = write_session(store, status="interrupted", turns=1, planned=3)
    async with app.run_test(size=(100, 30)) as pilot:
        app.open_live(sid, paused=True)
        await wait_for(pilot, lambda: isinstance(app.screen, LiveScreen) and app.screen.control is not None)
        live = app.screen
        assert list(app.models)[0] != "offline"  # the first in the list is not the seat's model
        await run_palette_command(pilot, "take interrogator")
        await wait_for(pilot, lambda: app.screen is live)
        await pilot.press("ctrl+b")
        await wait_for(pilot, lambda: isinstance(app.screen, ModelPicker))
        options = app.screen.query_one(OptionList)
        assert options.get_option_at_index(options.highlighted).id == "offline"
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is live)
        live.control.resume()
        await wait_for(pilot, lambda: live.status == "finished" and not live.running)
    assert {m.author for m in store.session(sid).messages if m.role == "user"} == {"offline"}
