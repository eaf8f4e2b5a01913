"""README's keys are the bindings' keys: the help, the footer and the palette read the bindings, so
a key the README names must be one of them on that screen."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from textual.app import App

from pingpong.tui.app import PingPongApp
from pingpong.tui.screens.characters import CharactersScreen
from pingpong.tui.screens.home import HomeScreen
from pingpong.tui.screens.leaderboard import LeaderboardScreen
from pingpong.tui.screens.live import LiveScreen
from pingpong.tui.screens.replay import ReplayScreen
from pingpong.tui.screens.situations import SituationsScreen
from pingpong.tui.screens.watch import WatchScreen
from pingpong.tui.widgets.tables import PagedTable
from pingpong.tui.widgets.transcript import Transcript

README = Path(__file__).resolve().parents[2] / "README.md"
SCREENS = {"Home": HomeScreen, "Live session": LiveScreen, "Replay": ReplayScreen, "Watch a run": WatchScreen,
           "Leaderboard": LeaderboardScreen, "Characters": CharactersScreen, "Situations": SituationsScreen}
WIDGET_KEYS = {"enter"}  # the tables' own: enter selects a row
NAMES = {"/": "slash", "?": "question_mark", "[": "left_square_bracket", "]": "right_square_bracket"}


def keys_of(*classes) -> set[str]:
    return {k.strip() for cls in classes for b in cls.BINDINGS for k in b.key.split(",")}


def tui_section() -> dict[str, str]:
    text = README.read_text(encoding="utf-8")
    section = text[text.index("### In the TUI"):text.index("## Models")]
    return dict(re.findall(r"^- \*\*(.+?)\*\*: (.*?)(?=^- |\n\n|\Z)", section, re.M | re.S))


@pytest.mark.parametrize("screen", SCREENS)
def test_every_key_the_readme_names_is_bound_on_that_screen(screen):
    described = tui_section()[screen]
    bound = keys_of(SCREENS[screen], PingPongApp, App, Transcript) | WIDGET_KEYS | {App.COMMAND_PALETTE_BINDING}
    if screen == "Home":
        bound |= keys_of(PagedTable)  # the sessions table's own: ctrl+home, ctrl+end
    named = [k for k in re.findall(r"`([^`]+)`", described) if " " not in k and not k.startswith("pingpong")]
    assert named, screen
    for key in named:
        assert NAMES.get(key, key) in bound, (screen, key)


def test_the_help_uses_no_hand_written_key_list():
    from pingpong.tui.screens import help

    assert "`r`" not in help.INTRO and " r " not in help.INTRO  # keys come from the bindings only
