"""The TUI on a database it cannot write, driven by Pilot in a child process (test_read_only.py).

Root ignores file permissions, so the test runs this module in a process that has dropped the
capabilities that override them (tests.hardening.support.bound_by_permissions). It reads a JSON
object {"home", "cards", "situations"} on stdin and prints what it saw as one JSON object.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

SIZE = (80, 24)


def _last_notice(app) -> str:
    notes = list(app._notifications)
    return notes[-1].message if notes else ""


async def scenario(home: Path, bundled: tuple[Path, Path]) -> dict[str, Any]:
    from textual.widgets import DataTable

    from pingpong.core.home import Home
    from pingpong.tui.app import create_app
    from tests.tui.helpers import home_loaded, settled, wait_for

    app = create_app(Home(home), bundled=bundled, watch_interval=0.1)
    seen: dict[str, Any] = {}
    async with app.run_test(size=SIZE) as pilot:
        await home_loaded(pilot)
        table = app.screen.query_one(DataTable)
        seen["title"] = app.title
        seen["rows"] = [int(row.key.value or 0) for row in table.ordered_rows]
        seen["started"] = [(n.title, n.message) for n in app._notifications]
        app.clear_notifications()
        await settled(pilot)
        seen["home_svg"] = app.export_screenshot(title="pingpong")

        def screen() -> str:
            return type(app.screen).__name__

        refused: dict[str, tuple[str, str]] = {}
        for key in ("n", "a"):
            app.clear_notifications()
            await pilot.press(key)
            await pilot.pause()
            refused[key] = (screen(), _last_notice(app))
        table.move_cursor(row=seen["rows"].index(2))  # the interrupted session: r would resume it
        app.clear_notifications()
        await pilot.press("r")
        await pilot.pause()
        refused["r"] = (screen(), _last_notice(app))

        table.move_cursor(row=seen["rows"].index(1))  # the finished one: replay, rate, fork
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen() == "ReplayScreen" and app.screen.stored is not None)
        seen["replay"] = "stubbornness" in app.export_screenshot()  # (the picture's spaces are not plain)
        for key in ("o", "f"):
            app.clear_notifications()
            await pilot.press(key)
            await pilot.pause()
            refused[f"replay {key}"] = (screen(), _last_notice(app))
        await pilot.press("escape")

        await pilot.press("l")
        await wait_for(pilot, lambda: screen() == "LeaderboardScreen" and "offline" in app.export_screenshot())
        seen["leaderboard"] = True
        await pilot.press("escape")

        await pilot.press("c")
        await wait_for(pilot, lambda: screen() == "CharactersScreen" and "Maren" in app.export_screenshot())
        seen["characters"] = True
        app.clear_notifications()
        await pilot.press("s")
        await pilot.pause()
        refused["cards s"] = (screen(), _last_notice(app))
        seen["refused"] = refused
    return seen


def main() -> None:
    given = json.load(sys.stdin)
    seen = asyncio.run(scenario(Path(given["home"]), (Path(given["cards"]), Path(given["situations"]))))
    json.dump(seen, sys.stdout)


if __name__ == "__main__":
    main()
