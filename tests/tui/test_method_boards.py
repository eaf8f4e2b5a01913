"""The TUI's leaderboard holds every method's board: d goes from PingPong through DMT, RoleInteract,
RoleBench and PingPong version 1, and the rule-scored boards show the columns the CLI prints."""

from __future__ import annotations

import pytest
from textual.widgets import DataTable, Static
from textual_plotext import PlotextPlot

from pingpong.core.home import Home
from pingpong.tui.app import create_app
from pingpong.tui.screens.leaderboard import LeaderboardScreen
from tests.hardening.support import cli
from tests.tui.helpers import wait_for


@pytest.fixture
def root(tmp_path):
    """A home with offline runs of three methods (made before the test's event loop starts)."""
    root = tmp_path / "home"
    for method in ("roleinteract", "rolebench", "pingpong-v1"):
        done = cli("--home", str(root), "run", "--method", method, "--player", "offline", "--interrogator",
                   "offline", "--judge", "offline", "--every", "12")
        assert done.rc == 0, done.err
    return root


async def _open_board(pilot) -> tuple[LeaderboardScreen, DataTable, Static]:
    """The leaderboard opened, with its table and the note under it."""
    app = pilot.app
    app.action_leaderboard()
    await wait_for(pilot, lambda: isinstance(app.screen, LeaderboardScreen) and bool(app.screen.query(DataTable)))
    board = app.screen
    return board, board.query_one(DataTable), board.query_one("#board-note", Static)


async def test_d_shows_the_roleinteract_rolebench_and_version_1_boards(root):
    app = create_app(Home(root))
    async with app.run_test(size=(80, 24)) as pilot:
        board, table, note = await _open_board(pilot)
        plot = board.query_one(PlotextPlot)

        async def next_board(name: str) -> list[str]:
            await pilot.press("d")
            await wait_for(pilot, lambda: board.board == name and table.row_count == 1
                           and name in str(note.render()))
            return [str(c.label) for c in table.columns.values()]

        await wait_for(pilot, lambda: "No judged sessions yet" in str(note.render()))   # no v2 sessions
        await pilot.press("d")   # the DMT board: none either
        await wait_for(pilot, lambda: board.board == "dmt" and "No labelled dmt sessions" in str(note.render()))
        await pilot.press("c")  # no curve over an empty board: the note stays
        await pilot.pause()
        assert "No labelled dmt sessions" in str(note.render())

        columns = await next_board("roleinteract")
        assert columns[:4] == ["Rank", "Player", "Lang", "Mean"] and "Questions" in columns
        assert table.fixed_columns == 4  # the ranking score never scrolls out of view
        assert table.get_row_at(0)[:3] == ["1", "offline", "en"]
        assert "RoleInteract" in str(note.render()) and not plot.display

        columns = await next_board("rolebench")
        assert columns == ["Rank", "Player", "Lang", "Mean", "RAW", "±", "CUS", "±", "SPE", "±", "Questions"]
        assert table.get_row_at(0)[:3] == ["1", "offline", "en"]
        assert all(0 <= float(cell) <= 1 for cell in table.get_row_at(0)[3:10])
        assert "scores: Rouge-L" in str(note.render())

        columns = await next_board("pingpong-v1")
        assert columns[:2] == ["#", "player"] and plot.display
        final = table.get_row_at(0)[7]
        assert 1 <= float(final.split("±")[0]) <= 10

        await pilot.press("d")
        await wait_for(pilot, lambda: board.board == "pingpong" and table.row_count == 0)


async def test_an_empty_board_says_which_filter_leaves_its_sessions_out(root):
    """With finished sessions stored, a board emptied by m (people's scores) or g (a language none is in)
    told people to run sessions; the note says what the filter leaves out, on every board."""
    app = create_app(Home(root))
    async with app.run_test(size=(120, 30)) as pilot:
        board, table, note = await _open_board(pilot)

        def says(text: str) -> bool:
            return text in str(note.render()) and "computing" not in str(note.render())

        for name in ("roleinteract", "rolebench", "pingpong-v1"):
            while board.board != name:
                await pilot.press("d")
            await wait_for(pilot, lambda: table.row_count == 1 and says("scores: "))
            await pilot.press("m", "m")  # people's scores: nobody scored these sessions
            await wait_for(pilot, lambda: says("No sessions people scored in this board yet"))
            assert "pingpong run" not in str(note.render()) and table.row_count == 0
            await pilot.press("m", "g")  # merged scores; g offers the stored languages only: en
            await wait_for(pilot, lambda: says("language: en") and table.row_count == 1)
            await pilot.press("g")
            await wait_for(pilot, lambda: says("language: all") and table.row_count == 1)


def test_the_empty_board_note_names_the_filter_on_every_board():
    from pingpong.tui.screens.leaderboard import BOARDS, empty_note

    def key(binding: str, default: str) -> str:
        return {"board.lang": "L", "home.new": "N"}.get(binding, default)

    for board in BOARDS:
        assert empty_note(board, "merged", "ru", ["en"], key) == (
            f"No {board} sessions in ru; stored languages: en (L switches the language).")
        assert empty_note(board, "human", "en", ["en"], key).startswith(
            "No sessions people scored in this board in en yet: rate some (")
        assert "pingpong run" in empty_note(board, "merged", None, [], key) or "N on the home screen" in \
            empty_note(board, "merged", None, [], key)


async def test_g_goes_through_every_language_a_session_is_in(app, store):
    """`g` offered all, en and ru only: sessions of a user's own German card could not be shown apart."""
    from pingpong.core.domain import Character
    from pingpong.tui.screens.leaderboard import LeaderboardScreen
    from tests.tui.conftest import CARDS, write_session
    from tests.tui.helpers import home_loaded, wait_for

    german = Character(name="waechterin", char_name="Wächterin", lang="de", summary="Eine Wärterin.",
                       persona="Sie hütet das Licht.")
    write_session(store)
    write_session(store, character=german)
    assert CARDS[0].lang == "en"
    async with app.run_test(size=(120, 40)) as pilot:
        await home_loaded(pilot)
        await pilot.press("l")
        await wait_for(pilot, lambda: isinstance(app.screen, LeaderboardScreen) and app.screen.langs != (None, "en", "ru"))
        board = app.screen
        assert board.langs == (None, "de", "en")
        await pilot.press("g")
        await wait_for(pilot, lambda: "language: de" in str(board.query_one("#board-note").render()))
