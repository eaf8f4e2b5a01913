"""`pingpong sessions list|show|score|resume` through the real command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pingpong.core.domain import Message
from pingpong.sessions.store import Store
from tests.scores import judged, turn_scores

from .conftest import make_character, make_situation, make_spec

ROOT = Path(__file__).resolve().parents[2]


def cli(home: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pingpong.tui.cli", "--home", str(home), *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={"PATH": "/usr/bin:/bin", "USER": "tester", "HOME": str(home)})


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    """A home with two sessions: #1 finished and judged (2 turns), #2 interrupted after turn 1."""
    root = tmp_path_factory.mktemp("home")
    store = Store(root / "pingpong.db")
    run = store.run_id("nightly")
    first = store.create_session(make_spec(judges=["j1", "j2"], num_turns=2), make_character(),
                                 make_situation(), run)
    for turn in (1, 2):
        store.add_message(first, Message(turn=turn, role="user", author="offline", text=f"What is below deck? ({turn})"))
        store.add_message(first, Message(turn=turn, role="assistant", author="offline", text=f"Rope and onions. ({turn})"))
    for judge, ic in (("j1", 4), ("j2", 2)):
        store.add_verdict(first, judged(judge, turns=[
            turn_scores(t, is_refusal=False, in_character=ic, entertaining=3, fluency=5) for t in (1, 2)]))
    store.set_status(first, "finished")
    second = store.create_session(make_spec(player="human"), make_character(), make_situation())
    store.add_message(second, Message(turn=1, role="user", author="offline", text="Hello"))
    store.add_message(second, Message(turn=1, role="assistant", author="human", text="Hi."))
    store.set_status(second, "interrupted")
    store.close()
    return root


def _error_line(result: subprocess.CompletedProcess) -> str:
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("pingpong: error: ")
    return lines[0]


def test_list_as_json(home):
    result = cli(home, "sessions", "list", "--format", "json")
    assert result.returncode == 0, result.stderr
    items = json.loads(result.stdout)
    assert [i["id"] for i in items] == [2, 1]  # newest first
    one = items[1]
    assert {k: one[k] for k in ("status", "character", "situation", "player", "interrogator", "judges",
                                "turns", "run")} == {
        "status": "finished", "character": "ferry-captain", "situation": "cargo-question",
        "player": "offline", "interrogator": "offline", "judges": ["j1", "j2"], "turns": 2, "run": "nightly"}
    assert one["final"] == pytest.approx(((4 + 3 + 5) / 3 + (2 + 3 + 5) / 3) / 2)
    filtered = json.loads(cli(home, "sessions", "list", "--status", "interrupted", "--format", "json").stdout)
    assert [i["id"] for i in filtered] == [2]


def test_list_as_a_table(home):
    result = cli(home, "sessions", "list")
    assert result.returncode == 0, result.stderr
    assert "ferry-captain" in result.stdout and "finished" in result.stdout
    none = cli(home, "sessions", "list", "--status", "running")
    assert none.returncode == 0 and none.stdout.strip() == "no sessions match"
    unknown = cli(home, "sessions", "list", "--run", "nosuch")  # as leaderboard, judge and report say it
    assert unknown.returncode == 2 and unknown.stderr.strip() == "pingpong: error: --run: no run named 'nosuch'"


def test_show_as_json_has_the_whole_session(home):
    result = cli(home, "sessions", "show", "1", "--format", "json")
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["id"] == 1 and doc["status"] == "finished"
    assert doc["character"]["name"] == "ferry-captain" and doc["situation"]["num_turns"] == 3
    assert doc["spec"]["judges"] == ["j1", "j2"]
    assert [(m["turn"], m["role"], m["author"]) for m in doc["messages"]][:2] == [
        (1, "user", "offline"), (1, "assistant", "offline")]
    assert [v["judge"] for v in doc["verdicts"]] == ["j1", "j2"]


def test_show_as_text(home):
    result = cli(home, "sessions", "show", "1")
    assert result.returncode == 0, result.stderr
    assert "Rope and onions" in result.stdout and "j2" in result.stdout


def test_score_appends_and_show_marks_the_current_one(home):
    first = cli(home, "sessions", "score", "1", "--turn", "2", "--metric", "fluency", "--value", "2")
    assert first.returncode == 0, first.stderr
    assert "by tester" in first.stdout  # the OS user by default
    second = cli(home, "sessions", "score", "1", "--turn", "2", "--metric", "fluency", "--value", "4",
                 "--author", "ana", "--reason", "reads fine to me")
    assert second.returncode == 0, second.stderr
    refusal = cli(home, "sessions", "score", "1", "--turn", "1", "--refusal", "true", "--author", "ana")
    assert refusal.returncode == 0, refusal.stderr
    doc = json.loads(cli(home, "sessions", "show", "1", "--format", "json").stdout)
    fluency = [h for h in doc["human_scores"] if h["metric"] == "fluency"]
    assert [(h["value"], h["author"], h["current"]) for h in fluency] == [(2, "tester", False), (4, "ana", True)]
    assert fluency[1]["reason"] == "reads fine to me"
    assert [h["value"] for h in doc["human_scores"] if h["metric"] == "is_refusal"] == [True]


@pytest.mark.parametrize("args, expected", [
    (("sessions", "show", "99"), "session 99"),
    (("sessions", "score", "99", "--turn", "1", "--metric", "fluency", "--value", "3"), "session 99"),
    (("sessions", "score", "1", "--turn", "7", "--metric", "fluency", "--value", "3"), "turn 7"),
    (("sessions", "score", "1", "--turn", "1", "--metric", "fluency"), "--value"),
    (("sessions", "score", "1", "--turn", "1", "--value", "3"), "--metric"),
    (("sessions", "score", "1", "--turn", "1"), "--metric"),
    (("sessions", "score", "1", "--turn", "1", "--refusal", "true", "--metric", "fluency", "--value", "3"),
     "--refusal"),
    (("sessions", "resume", "1"), "already finished"),
    (("sessions", "resume", "2"), "a person sits in one of its seats; run `pingpong --home"),
])
def test_bad_input_is_one_line_and_exit_2(home, args, expected):
    assert expected in _error_line(cli(home, *args))


def test_a_database_that_is_not_sqlite_is_named(tmp_path):
    bad = tmp_path / "notes.txt"
    bad.write_text("shopping: bread, milk\n" * 20)
    line = _error_line(cli(tmp_path, "--db", str(bad), "sessions", "list"))
    assert str(bad) in line
    assert bad.read_text() == "shopping: bread, milk\n" * 20
