"""Helpers for Pilot tests: wait for a condition by letting the app run (bounded, not timed)."""

from __future__ import annotations

from collections.abc import Callable


async def wait_for(pilot, condition: Callable[[], bool], *, steps: int = 400, delay: float = 0.05) -> None:
    """Let the app run until condition() holds; fail after `steps` pauses."""
    for _ in range(steps):
        if condition():
            return
        await pilot.pause(delay)
    assert condition(), "condition never became true"


async def run_palette_command(pilot, text: str) -> None:
    """Open the command palette, type `text`, wait for the search to list a highlighted match
    (it runs in the background), then press enter."""
    from textual.command import CommandList, CommandPalette

    await pilot.press("ctrl+p")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, CommandPalette))
    await pilot.press(*text)
    palette = pilot.app.screen
    await wait_for(pilot, lambda: palette.query_one(CommandList).option_count > 0
                   and palette.query_one(CommandList).highlighted is not None)
    await pilot.press("enter")


def form_filled(screen) -> bool:
    """The new-session form is composed and its on_mount has filled the card list."""
    from textual.widgets import Select

    found = screen.query("#new-character")
    return bool(found) and found.first(Select).value is not Select.NULL


async def home_loaded(pilot) -> None:
    """Home has listed the sessions, its columns fit them and every refresh has settled."""
    await wait_for(pilot, lambda: getattr(pilot.app.screen, "loaded", False))
    await wait_for(pilot, lambda: columns_fit(pilot.app.screen))
    await settled(pilot)


def columns_fit(screen) -> bool:
    """The table's columns have grown to their content (DataTable sizes them on a later refresh)."""
    from textual.widgets import DataTable

    tables = screen.query(DataTable)
    if not tables:
        return True
    table = tables.first()
    for key, column in table.columns.items():
        widest = max((len(str(table.get_cell(row, key))) for row in table.rows), default=0)
        if column.content_width < widest:
            return False
    return True


async def settled(pilot) -> None:
    """Let pending refreshes (column widths, scores drawn under messages, scrolling) finish."""
    for _ in range(3):
        await pilot.pause()
        await pilot.wait_for_scheduled_animations()
    await pilot.pause(0.3)  # DataTable sizes columns and the transcript scrolls on later idle passes
