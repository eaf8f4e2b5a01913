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
    import csv

    [cells] = list(csv.DictReader(pingpong(tmp_path, "leaderboard", "--curves", "--format", "csv").stdout.splitlines()))
    assert json.loads(cells["by_turn"]) == row["by_turn"] and json.loads(cells["good_streak"]) == row["good_streak"]


def test_options_only_the_pingpong_boards_have_are_refused_elsewhere(tmp_path):
    """The other boards would print themselves unchanged, as if the option had been applied."""
    for method in ("dmt", "roleinteract", "rolebench"):
        for option in (["--weights", "2,1,1"], ["--curves"]):
            out = pingpong(tmp_path, "leaderboard", "--method", method, *option)
            assert out.returncode == 2 and out.stderr.count("\n") == 1, out.stderr
            assert f"{option[0]}: only the PingPong boards" in out.stderr and f"--method {method}" in out.stderr


def test_each_language_row_has_the_curves_of_its_own_conversations(tmp_path):
    """A row is a (player, lang): without --lang the curves mixed both languages into both rows."""
    for lang, situations in (("en", "casual-greeting"), ("ru", None)):
        args = ["run", "--player", "offline", "--interrogator", "offline", "--judge", "offline", "--lang", lang,
                "--every", "12"]
        if situations:
            args += ["--situations", situations]
        assert pingpong(tmp_path, *args).returncode == 0
    rows = {r["lang"]: r for r in json.loads(pingpong(tmp_path, "leaderboard", "--curves", "--format", "json").stdout)}
    for lang in ("en", "ru"):
        [alone] = json.loads(pingpong(tmp_path, "leaderboard", "--curves", "--lang", lang, "--format", "json").stdout)
        assert rows[lang]["by_turn"] == alone["by_turn"] and rows[lang]["good_streak"] == alone["good_streak"]
    assert rows["en"]["by_turn"] != rows["ru"]["by_turn"]
