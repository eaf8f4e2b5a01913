"""What `cards list`, `leaderboard` on an empty database and the TUI's first screen may not import
(checked, not timed): each library below costs tens of milliseconds of start-up, and one import at
the top of a module on the way brings it back. benchmarks/startup_bench.py prints the times."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

CLI_PROBE = """
import json, sys
from pingpong.tui.cli import main
code = main(sys.argv[1:])
print(json.dumps({"code": code, "modules": sorted(sys.modules)}), file=sys.stderr)
"""

TUI_PROBE = """
import json, sys
from pingpong.tui.app import PingPongApp
from pingpong.tui.cli import main

async def until_home_is_loaded(pilot):
    from pingpong.tui.screens.home import HomeScreen

    for _ in range(600):
        if isinstance(pilot.app.screen, HomeScreen) and pilot.app.screen.loaded:
            break
        await pilot.pause(0.05)
    print(json.dumps({"shown": type(pilot.app.screen).__name__, "modules": sorted(sys.modules)}), file=sys.stderr)
    pilot.app.exit()

run = PingPongApp.run
PingPongApp.run = lambda app: run(app, headless=True, size=(120, 40), auto_pilot=until_home_is_loaded)
main(sys.argv[1:])
"""

PYDANTIC_AND_DATA = {"pydantic", "pydantic_core", "numpy", "scipy", "sqlite_utils"}
HEAVY = PYDANTIC_AND_DATA | {"yaml", "jinja2", "openai", "textual", "tiktoken"}


def _loaded(probe: str, *argv: str) -> dict:
    done = subprocess.run([sys.executable, "-c", probe, *argv], cwd=REPO, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stderr.splitlines()[-1])
    report["top"] = {name.split(".")[0] for name in report["modules"]}
    report["out"] = done.stdout
    return report


@pytest.mark.parametrize("fmt", ["table", "json", "tsv"])
def test_cards_list_reads_no_yaml_and_builds_no_model(tmp_path, fmt):
    """The bundled cards come from their index; dataclasses (and inspect with it) are not needed either."""
    report = _loaded(CLI_PROBE, "cards", "list", "--format", fmt, "--home", str(tmp_path))
    assert report["code"] == 0 and "tally" in report["out"]
    assert not report["top"] & (HEAVY | {"dataclasses"}), sorted(report["top"] & (HEAVY | {"dataclasses"}))


def test_cards_list_with_a_card_of_ones_own_reads_it_without_pydantic(tmp_path):
    (tmp_path / "characters").mkdir()
    (tmp_path / "characters" / "zed.yaml").write_text(
        "name: zed\nchar_name: Zed\nlang: en\nsummary: A test card.\npersona: Zed tests.\n", encoding="utf-8")
    report = _loaded(CLI_PROBE, "cards", "list", "--home", str(tmp_path))
    assert report["code"] == 0 and "zed" in report["out"]
    assert "yaml" in report["top"] and not report["top"] & PYDANTIC_AND_DATA, sorted(report["top"])


@pytest.mark.parametrize("fmt", ["table", "json", "csv", "markdown", "tsv"])
def test_leaderboard_of_an_empty_database_needs_neither_numpy_nor_the_models(tmp_path, fmt):
    assert _loaded(CLI_PROBE, "leaderboard", "--home", str(tmp_path))["code"] == 0  # creates and migrates it
    report = _loaded(CLI_PROBE, "leaderboard", "--format", fmt, "--home", str(tmp_path))
    assert report["code"] == 0
    assert not report["top"] & (HEAVY | {"rich"}), sorted(report["top"] & (HEAVY | {"rich"}))


def test_the_tui_shows_home_on_an_empty_database_without_the_models(tmp_path):
    assert _loaded(TUI_PROBE, "--home", str(tmp_path))["shown"] == "HomeScreen"  # creates the database
    report = _loaded(TUI_PROBE, "--home", str(tmp_path))
    assert report["shown"] == "HomeScreen"
    assert "textual" in report["top"]
    unwanted = HEAVY - {"textual"}
    assert not report["top"] & unwanted, sorted(report["top"] & unwanted)


def test_the_tui_lists_stored_sessions_without_the_models(tmp_path):
    """Home's rows are plain rows from the store: a database with sessions needs pydantic no more
    than an empty one (numpy still computes their finals)."""
    made = _loaded(CLI_PROBE, "run", "--player", "offline", "--interrogator", "offline", "--judge", "offline",
                   "--every", "16", "--home", str(tmp_path))
    assert made["code"] == 0
    report = _loaded(TUI_PROBE, "--home", str(tmp_path))
    assert report["shown"] == "HomeScreen"
    assert "numpy" in report["top"]  # the finals were computed: the rows are there
    assert not report["top"] & {"pydantic", "pydantic_core", "jinja2", "openai"}, sorted(report["top"])


def test_a_run_on_an_existing_database_writes_without_sqlite_utils(tmp_path):
    """The run's commits go through the store's bare connection: importing sqlite_utils (and numpy
    with it) on the first commit held up every conversation of the first wave for about 0.2 s."""
    offline = ("run", "--player", "offline", "--interrogator", "offline", "--judge", "offline", "--every", "16")
    assert _loaded(CLI_PROBE, *offline, "--home", str(tmp_path))["code"] == 0   # creates and migrates it
    report = _loaded(CLI_PROBE, *offline, "--run", "again", "--home", str(tmp_path))
    assert report["code"] == 0 and "done" in report["out"]
    assert not report["top"] & {"sqlite_utils", "numpy"}, sorted(report["top"] & {"sqlite_utils", "numpy"})


def test_the_model_layer_does_not_import_aiohttp():
    """openai imports its optional aiohttp client when aiohttp is installed (`serve` needs it):
    a fifth of a second of every run's start, for a client pingpong never uses."""
    probe = ("import json, sys\nimport pingpong.core.openai_client\nimport openai\n"
             "print(json.dumps({'modules': sorted(sys.modules), 'aio': openai.DefaultAioHttpClient.__name__}),"
             " file=sys.stderr)")
    report = _loaded(probe)
    assert "openai" in report["top"] and "aiohttp" not in report["top"]
    assert report["aio"] == "_MissingAioHttpClient"


def test_the_side_by_side_screen_reads_pairs_without_scipy():
    """The TUI's compare screen lists a session's pairs and their judged outcomes through
    sessions.compare; importing scipy's optimiser for Bradley-Terry with it held the screen
    for 0.7 s before it showed. The fit imports it when it runs."""
    probe = ("import json, sys\nimport pingpong.sessions.compare\nimport pingpong.tui.screens.compare\n"
             "print(json.dumps({'modules': sorted(sys.modules)}), file=sys.stderr)")
    assert "scipy" not in _loaded(probe)["top"]
