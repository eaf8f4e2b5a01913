"""Home on more sessions than it holds: moving past the rows read reads on, the ends are a key
away, a refresh puts new and changed sessions in place without reading the others again, and the
filter and the sort ask the database, not the rows on screen."""

from __future__ import annotations

from textual.widgets import DataTable

from pingpong.tui.screens.home import MOST, PAGE, HomeScreen
from tests.tui.conftest import CARDS, SITUATIONS, write_session
from tests.tui.helpers import wait_for

SIZE = (80, 24)
MANY = MOST + PAGE + 30  # ids MANY (newest, first in the list) down to 1


def many(store, n: int = MANY) -> None:
    with store.transaction():  # one commit
        for _ in range(n):
            write_session(store, judges=(), turns=1)


def selected_id(home: HomeScreen) -> int | None:
    row = home.selected()
    return row.id if row else None


def held(table) -> list[int]:
    return [int(table.get_row_at(i)[0]) for i in range(table.row_count)]


async def loaded(app, pilot) -> HomeScreen:
    await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen) and app.screen.loaded)
    home = app.screen
    await wait_for(pilot, lambda: home.query_one(DataTable).row_count >= PAGE)
    return home


async def test_moving_past_the_rows_read_reads_on_and_the_ends_are_a_key_away(app, store):
    many(store)
    async with app.run_test(size=SIZE) as pilot:
        home = await loaded(app, pilot)
        table = home.query_one(DataTable)
        assert table.row_count == PAGE  # not every session is read
        assert selected_id(home) == MANY
        for _ in range(PAGE + 5):  # down, past the last row read at first
            await pilot.press("down")
        await wait_for(pilot, lambda: selected_id(home) == MANY - PAGE - 5)
        assert PAGE < table.row_count <= MOST
        for _ in range(100):  # on down the list, page by page, past what the table holds at most
            await pilot.press("pagedown")
            await pilot.pause()
            if selected_id(home) < MANY - MOST - 20:
                break
        assert selected_id(home) < MANY - MOST - 20
        rows = held(table)
        assert table.row_count <= MOST and MANY not in rows  # the first rows were let go
        assert rows == list(range(rows[0], rows[0] - len(rows), -1))  # in order, none missing
        assert rows[table.cursor_row] == selected_id(home)
        await pilot.press("ctrl+end")  # the oldest session, at the very end
        await wait_for(pilot, lambda: selected_id(home) == 1)
        assert held(table)[-1] == 1 and table.row_count <= MOST
        assert f"page {-(-MANY // PAGE)}/{-(-MANY // PAGE)}" in str(home.query_one("#home-count").render())
        await pilot.press("up")
        assert selected_id(home) == 2
        await pilot.press("ctrl+home")  # and back to the newest
        await wait_for(pilot, lambda: selected_id(home) == MANY)
        assert held(table)[0] == MANY


async def test_scrolling_to_the_end_of_the_rows_read_reads_on(app, store):
    many(store)
    async with app.run_test(size=SIZE) as pilot:
        home = await loaded(app, pilot)
        table = home.query_one(DataTable)
        first = table.row_count
        table.scroll_end(animate=False)  # the mouse wheel, all the way down
        await wait_for(pilot, lambda: table.row_count > first)
        assert MANY - first in held(table)


async def test_a_new_session_comes_in_without_the_others_read_again(app, store):
    many(store, 60)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen) and app.screen.loaded)
        home = app.screen
        table = home.query_one(DataTable)
        await wait_for(pilot, lambda: table.row_count == 60)
        for _ in range(30):  # down the list: the view scrolls
            await pilot.press("down")
        await pilot.pause()
        assert table.scroll_y > 0
        line = table.cursor_row - round(table.scroll_y)  # where the selected session is on screen
        before = {row.id: row for row in home.rows}
        chosen = selected_id(home)
        new = write_session(store, judges=(), turns=1)  # another process writes
        await wait_for(pilot, lambda: table.row_count == 61)
        await pilot.pause()
        assert table.get_row_at(0)[0] == str(new)
        assert selected_id(home) == chosen  # the same session selected, on the same line of the screen
        assert table.cursor_row - round(table.scroll_y) == line
        after = {row.id: row for row in home.rows}
        assert all(after[sid] is row for sid, row in before.items())  # the others were not read again
        store.set_status(chosen, "failed")  # a change to a shown session is seen, in place
        await wait_for(pilot, lambda: home.selected().status == "failed")
        assert selected_id(home) == chosen and table.cursor_row - round(table.scroll_y) == line
        assert all(home._rows[sid] is row for sid, row in before.items() if sid != chosen)


async def test_the_filter_asks_the_database_not_the_rows_on_screen(app, store):
    oldest = write_session(store, character=CARDS[1], situation=SITUATIONS[2], judges=(), turns=1)
    many(store, PAGE + 10)
    async with app.run_test(size=SIZE) as pilot:
        home = await loaded(app, pilot)
        table = home.query_one(DataTable)
        assert str(oldest) not in {table.get_row_at(i)[0] for i in range(table.row_count)}  # not read yet
        await pilot.press("slash", *"chess first")
        await wait_for(pilot, lambda: table.row_count == 1 and table.get_row_at(0)[0] == str(oldest))
        assert f"1 of {PAGE + 11} sessions" in str(home.query_one("#home-count").render())
        await pilot.press("escape")
        home.query_one("#home-filter").value = str(oldest + 1)  # a number finds the id too
        await wait_for(pilot, lambda: str(oldest + 1) in {table.get_row_at(i)[0] for i in range(table.row_count)})


async def test_sorting_by_final_sorts_every_session(app, store):
    best = write_session(store, judges=("offline",), turns=1)  # the oldest: not on the first page
    store.add_human_score(best, 1, "in_character", 5, "dana")
    for _ in range(PAGE + 10):
        write_session(store, judges=("offline",), turns=1)
    async with app.run_test(size=SIZE) as pilot:
        home = await loaded(app, pilot)
        table = home.query_one(DataTable)
        for _ in range(4):  # id, character, situation, status, final
            await pilot.press("s")
        assert "sort final↓" in str(home.query_one("#home-count").render())
        await wait_for(pilot, lambda: table.row_count and table.get_row_at(0)[0] == str(best))
        assert table.get_row_at(0)[4].endswith("*")  # a person changed a score


async def test_a_narrow_screen_cuts_long_names_so_the_player_stays_in_view(app, store):
    """At 80 columns the character's and the situation's names end in an ellipsis (the player column
    stays on screen); widened, the whole names come back, with the selected session kept."""
    from tests.tui.helpers import home_loaded

    write_session(store)
    sid = write_session(store, player="a-player-model")
    async with app.run_test(size=SIZE) as pilot:
        await home_loaded(pilot)
        home, table = app.screen, app.screen.query_one(DataTable)
        assert table.get_row(str(sid))[1] == "lighthouse-keep…"
        assert "a-player-model" in app.export_screenshot()
        table.move_cursor(row=1)
        selected = selected_id(home)
        await pilot.resize_terminal(140, 30)
        await wait_for(pilot, lambda: table.get_row(str(sid))[1] == "lighthouse-keeper")
        assert selected_id(home) == selected
        await pilot.resize_terminal(*SIZE)
        await wait_for(pilot, lambda: table.get_row(str(sid))[1] == "lighthouse-keep…")
