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
