"""`pingpong leaderboard --curves` adds the score by turn and the good-streak approximation to every row."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def pingpong(home, *args):
    return subprocess.run([sys.executable, "-m", "pingpong.tui.cli", "--home", str(home), *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_curves_after_an_offline_run(tmp_path):
    run = pingpong(tmp_path, "run", "--player", "offline", "--interrogator", "offline", "--judge", "offline",
                   "--characters", "sherlock-holmes,juniper", "--situations", "casual-greeting,riddle-game")
    assert run.returncode == 0, run.stderr
    out = pingpong(tmp_path, "leaderboard", "--curves", "--format", "json")
    assert out.returncode == 0, out.stderr
    [row] = json.loads(out.stdout)
    assert len(row["by_turn"]) == 4  # the longest situation has 4 turns
    assert all(1 <= v <= 5 for v in row["by_turn"])
    assert set(row["good_streak"]) == {"in_character", "entertaining", "fluency"}
    assert all(0 <= v <= 1 for v in row["good_streak"].values())
    table = pingpong(tmp_path, "leaderboard", "--curves")
    assert "good streaks" in table.stdout and "T4" in table.stdout and "DMT" not in table.stdout
