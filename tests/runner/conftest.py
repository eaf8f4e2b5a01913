"""Fixtures for the batch runner: a fake OpenAI server, a temp home with config, cards, situations.

Every model in the config points at tests/fakeserver.py on 127.0.0.1 and is
reached through the real openai client; the runner is driven through the real
CLI (`tui.cli.main`, in-process or as a subprocess).
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.fakeserver import FakeServer
from tests.hardening.support import Result, cli

ROOT = Path(__file__).resolve().parents[2]
KEY_ENV = "PINGPONG_RUNNER_TEST_KEY"
CHARACTERS = ("tin-sailor", "clock-maker")
SITUATIONS = ("lost-map", "rainy-day")


def card(name: str) -> dict:
    title = name.replace("-", " ").title()
    return {"name": name, "char_name": title, "lang": "en",
            "summary": f"{title}, a test character.",
            "persona": f"You are {title}. You speak briefly and stay calm.",
            "greeting": f"Hello, I am {title}."}


def situation(name: str, turns: int) -> dict:
    return {"name": name, "lang": "en", "num_turns": turns,
            "text": f"The user wants help with '{name.replace('-', ' ')}' and keeps asking questions."}


def model_entry(base_url: str, model: str, *, concurrency: int = 16, key_env: str = KEY_ENV) -> str:
    return (f'base_url = "{base_url}"\nmodel = "{model}"\napi_key_env = "{key_env}"\n'
            f"max_concurrency = {concurrency}\ntimeout = 10\ndeadline = 30\n")


def write_config(root: Path, models: dict[str, str]) -> None:
    """models: name -> the TOML body of its [models.NAME] table (see model_entry)."""
    root.mkdir(parents=True, exist_ok=True)
    text = "".join(f"[models.{name}]\n{body}\n" for name, body in models.items())
    (root / "config.toml").write_text(text, encoding="utf-8")


def write_library(root: Path, turns: int = 2, characters=CHARACTERS, situations=SITUATIONS) -> None:
    for folder, items in (("characters", [card(n) for n in characters]),
                          ("situations", [situation(n, turns) for n in situations])):
        (root / folder).mkdir(parents=True, exist_ok=True)
        for item in items:
            (root / folder / f"{item['name']}.yaml").write_text(
                yaml.safe_dump(item, allow_unicode=True, sort_keys=False), encoding="utf-8")


def standard_models(base_url: str) -> dict[str, str]:
    return {name: model_entry(base_url, f"{name}-model")
            for name in ("alpha", "beta", "asker", "judge-one", "judge-two")}


def run_args(*extra: str, players=("alpha", "beta")) -> list[str]:
    """A run of the players against the fake server's models; judges only where the method has them
    (PingPong v1's tester scores)."""
    args = ["run"]
    for p in players:
        args += ["--player", p]
    judges = [] if "pingpong-v1" in extra else ["--judge", "judge-one", "--judge", "judge-two"]
    args += ["--interrogator", "asker", *judges,
             "--characters", ",".join(CHARACTERS), "--situations", ",".join(SITUATIONS)]
    return args + list(extra)


def pingpong(root: Path, *args: str) -> Result:
    """Run the real CLI in this process on the home root; stdout is not a TTY, so progress comes
    as plain lines."""
    return cli("--home", str(root), *args)


def spawn(root: Path, *args: str, **kw) -> subprocess.Popen:
    """The real CLI in a child process (for SIGKILL / SIGINT tests), which takes Ctrl-C as it
    would from a shell whatever this test process ignores or blocks (a child inherits both)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen([sys.executable, "-m", "pingpong.tui.cli", "--home", str(root), *args],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, preexec_fn=_ctrl_c_as_from_a_shell, **kw)


def _ctrl_c_as_from_a_shell() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def rows(root: Path, sql: str, params=()) -> list[tuple]:
    conn = sqlite3.connect(root / "pingpong.db", timeout=30)
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


def assert_complete_once(root: Path, players=("alpha", "beta"), turns: int = 2, judges: int = 2) -> None:
    """Each planned pair has exactly one finished session, with every message once and all verdicts."""
    finished = rows(root, "SELECT player, character, situation, count(*) FROM sessions"
                          " WHERE status = 'finished' GROUP BY 1, 2, 3")
    expected = {(p, c, s) for p in players for c in CHARACTERS for s in SITUATIONS}
    assert {r[:3] for r in finished} == expected
    assert all(r[3] == 1 for r in finished), finished
    counts = rows(root, "SELECT s.id, count(m.id), count(DISTINCT m.turn || m.role) FROM sessions s"
                        " LEFT JOIN messages m ON m.session_id = s.id WHERE s.status = 'finished'"
                        " GROUP BY s.id")
    assert all(n == 2 * turns and distinct == 2 * turns for _, n, distinct in counts), counts
    scored = rows(root, "SELECT s.id, count(DISTINCT t.by) FROM sessions s LEFT JOIN scores t"
                        " ON t.session_id = s.id AND t.source = 'judge' AND t.status = 'ok'"
                        " WHERE s.status = 'finished' GROUP BY s.id")
    assert all(n == judges for _, n in scored), scored


@pytest.fixture
def fake():
    with FakeServer() as srv:
        yield srv


@pytest.fixture
def home(tmp_path, monkeypatch, fake) -> Path:
    """A home whose five models (alpha, beta, asker, judge-one, judge-two) all live on `fake`."""
    monkeypatch.setenv(KEY_ENV, "not-a-real-key")
    root = tmp_path / "home"
    write_config(root, standard_models(fake.base_url))
    write_library(root)
    return root


@pytest.fixture
def slow_home(home, fake):
    """Three-turn conversations at 50 ms a request: long enough to be caught midway."""
    write_library(home, turns=3)
    fake.latency = 0.05
    return home
