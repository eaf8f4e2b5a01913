"""The Watch screen updates the rows that changed and appends new sessions: the rows already shown
stay the same rows, and the cursor and scroll position stay where the person put them. Changes to
rows far out of view are drawn a few polls later, or as soon as the table scrolls to them."""

from __future__ import annotations

from textual.widgets import DataTable
from textual.widgets._data_table import RowKey

from pingpong.core.domain import Message
from pingpong.tui.screens.watch import WatchScreen
from tests.tui.conftest import write_session
from tests.tui.helpers import wait_for


def _second_turn(store, sid: int) -> None:
    store.add_message(sid, Message(turn=2, role="user", author="offline", text="And the fog?"))
    store.add_message(sid, Message(turn=2, role="assistant", author="offline", text="Thick as wool."))


async def _watching(pilot, rows: int) -> DataTable:
    app = pilot.app
    await pilot.press("w")
    await wait_for(pilot, lambda: isinstance(app.screen, WatchScreen)
                   and app.screen.query_one("#run-sessions", DataTable).row_count == rows)
    table = app.screen.query_one("#run-sessions", DataTable)
    table.focus()
    await wait_for(pilot, lambda: app.focused is table)
    return table


async def test_a_changed_row_is_updated_and_a_new_session_appended_in_place(app, store):
    run = store.run_id("nightly", {"planned": 40})
    ids = [write_session(store, run_id=run, status="running", turns=1, planned=3) for _ in range(30)]
    async with app.run_test(size=(100, 24)) as pilot:
        table = await _watching(pilot, 30)
        table.move_cursor(row=25)
        await wait_for(pilot, lambda: table.scroll_y > 0)
        scroll, first = table.scroll_y, table.rows[RowKey(str(ids[0]))]

        _second_turn(store, ids[25])
        store.set_status(ids[3], "failed", "the judge went quiet")
        new = write_session(store, run_id=run, status="running", turns=1, planned=3)

        await wait_for(pilot, lambda: table.row_count == 31)
        await wait_for(pilot, lambda: table.get_row(str(ids[25]))[4] == "2/3")
        assert table.get_row(str(ids[3]))[3] == "failed"
        assert table.get_row_at(30)[0] == str(new)  # appended at the end
        assert table.rows[RowKey(str(ids[0]))] is first  # the rows shown were not built again
        assert (table.cursor_row, table.scroll_y) == (25, scroll)
        assert pilot.app.focused is table
        counts = str(pilot.app.screen.query_one("#watch-counts").render())
        assert counts.startswith("0 of 40 sessions done, running 30, failed 1")


async def test_rows_far_out_of_view_are_drawn_a_few_polls_later_without_another_change(app, store):
    run = store.run_id("nightly")
    ids = [write_session(store, run_id=run, status="running", turns=1, planned=3) for _ in range(80)]
    async with app.run_test(size=(100, 24)) as pilot:
        table = await _watching(pilot, 80)
        _second_turn(store, ids[70])  # the cursor is on the first row: these are far below
        new = write_session(store, run_id=run, status="running", turns=1, planned=3)
        await wait_for(pilot, lambda: table.row_count == 81 and table.get_row(str(ids[70]))[4] == "2/3")
        assert table.get_row_at(80)[0] == str(new)
        assert (table.cursor_row, table.scroll_y) == (0, 0)
        store.set_status(ids[75], "interrupted")
        table.move_cursor(row=79)  # the person scrolls down to it
        await wait_for(pilot, lambda: table.get_row(str(ids[75]))[3] == "interrupted")
        assert table.cursor_row == 79


async def test_tab_switches_between_the_runs_and_the_sessions(app, store):
    run = store.run_id("nightly", {"planned": 2})
    write_session(store, run_id=run, status="running", turns=1, planned=3)
    async with app.run_test(size=(100, 24)) as pilot:
        sessions = await _watching(pilot, 1)
        runs = app.screen.query_one("#runs-table", DataTable)
        await pilot.press("tab")
        await wait_for(pilot, lambda: app.focused is runs)
        await pilot.press("tab")
        await wait_for(pilot, lambda: app.focused is sessions)


async def test_every_column_fits_a_narrow_terminal_and_one_made_narrower(make_app, store):
    """At 60 columns the names are cut until the last column shows whole; shrunk from 120, the name
    columns narrow too (a DataTable only ever widens a column by itself)."""
    for _ in range(3):
        write_session(store)
    for size in ((60, 20), (120, 40)):
        app = make_app()
        async with app.run_test(size=size) as pilot:
            table = await _watching(pilot, 3)
            if size[0] == 120:
                await pilot.resize_terminal(60, 20)
            await wait_for(pilot, lambda: table.virtual_size.width <= table.size.width)
            assert table.get_row_at(0)[-1] == "offline"  # the player column, whole
