"""Text from a server, a file or the database never acts on the terminal: escape sequences (a
clipboard write, a screen clear, a link) and C1 controls come out written out, and square
brackets in a run's name are not read as rich markup."""

from __future__ import annotations

import json

import yaml

from tests.fakeserver import Error, FakeServer
from tests.runner.conftest import pingpong

ESCAPES = "\x1b]52;c;SGVsbG8=\x07\x1b[2J\x1b]8;;http://e/\x1b\\L\x1b]8;;\x1b\\\x9b31m"


def _clean(text: str) -> bool:
    return "\x1b" not in text and "\x9b" not in text and "\x07" not in text


def _answer(body):
    words = " ".join(m["content"] for m in body["messages"] if isinstance(m.get("content"), str))
    if "next_utterance" in words:
        return json.dumps({"next_utterance": "hi"})
    return Error(400, "bad " + ESCAPES)  # the player's call fails, naming the server's words


def test_failure_lines_run_names_and_stored_text_reach_the_terminal_written_out(tmp_path):
    root = tmp_path / "home"
    (root / "situations").mkdir(parents=True)
    (root / "situations" / "loud.yaml").write_text(yaml.safe_dump(
        {"name": "loud", "lang": "en", "num_turns": 1, "text": "Ask about " + ESCAPES}), encoding="utf-8")
    with FakeServer(responder=_answer) as server:
        (root / "config.toml").write_text(f'[models.f]\nbase_url = "{server.base_url}"\nmodel = "f"\n'
                                          "timeout = 5\ndeadline = 10\n", encoding="utf-8")
        run = pingpong(root, "run", "--player", "f", "--interrogator", "f", "--judge", "f",
                       "--characters", "tally", "--situations", "loud", "--run", "r[/]\x1b[2Jx")
    assert run.rc == 1 and "failed: " in run.err and "bad \\x1b]52" in run.err, run.err
    assert "r[/]\\x1b[2Jx" in run.out and _clean(run.out + run.err)
    shown = pingpong(root, "sessions", "show", "1")
    assert shown.rc == 0 and "bad \\x1b]52" in shown.out and "run r[/]\\x1b[2Jx" in shown.out, shown.out
    assert _clean(shown.out)
    listed = pingpong(root, "situations", "show", "loud")
    assert listed.rc == 0 and "Ask about \\x1b]52" in listed.out and _clean(listed.out)
    as_json = pingpong(root, "sessions", "show", "1", "--format", "json")
    assert as_json.rc == 0 and _clean(as_json.out)
    assert ESCAPES in json.loads(as_json.out)["error"]  # the same string to a parser
