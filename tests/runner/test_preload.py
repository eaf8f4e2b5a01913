"""Heavy modules a session needs (openai for its calls, rouge_score with nltk and scipy for RoleBench's
scores) are imported before they are needed and away from the event loop's work: in a worker thread
when the TUI runs the session (its drawing goes on), before the first conversation starts in a batch
run. Imported on the way, openai stopped the TUI for 0.8 s and RoleBench's scorer for 1.8 s.
Checked, not timed: a finder in the child process notes where each import happens
(benchmarks are where time is measured)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

import pytest

from tests.runner.conftest import ROOT, rows

WATCH = """
import sqlite3, sys, threading

HEAVY = ("openai", "rouge_score")
SEEN = {}

class Where:
    '''Notes, for each heavy package, the thread that first imports it and how many sessions existed.'''
    def find_spec(self, name, path=None, target=None):
        if name in HEAVY and name not in SEEN:
            db = DB()
            sessions = sqlite3.connect(db).execute("select count(*) from sessions").fetchone()[0] if db else None
            SEEN[name] = {"main": threading.current_thread() is threading.main_thread(), "sessions": sessions}
        return None

DB = lambda: None
sys.meta_path.insert(0, Where())
"""

TUI_SESSION = WATCH + """
import asyncio, json
from pathlib import Path
from pingpong.core.home import Home
from pingpong.core.llm import ModelPool
from pingpong.sessions.live import run_session, start_session
from pingpong.sessions.runner import prepare_run
from pingpong.sessions.store import Store

async def main(root):
    home = Home(Path(root))
    setup, specs = prepare_run(home, players=["alpha"], interrogator="asker", judges=["judge-one"],
                               characters=["sherlock-holmes"], method="rolebench")
    store, pool = Store(home.db_path), ModelPool(specs)
    item = setup.items[0]
    sid = start_session(store, setup.spec(item), item.character, item.situation)
    async for _event in run_session(store, pool, sid, offload=True):  # as the TUI runs a session
        pass
    await pool.aclose()
    print(json.dumps({"status": store.session(sid).status, "seen": SEEN}))

asyncio.run(main(sys.argv[1]))
"""

BATCH_RUN = WATCH + """
import json
from pingpong.tui.cli import main

DB = lambda: sys.argv[2] if __import__("os").path.exists(sys.argv[2]) else None
code = main(["--home", sys.argv[1], "run", "--method", "rolebench", "--player", "alpha", "--interrogator",
             "asker", "--judge", "judge-one", "--characters", "sherlock-holmes", "--every", "20"])
print(json.dumps({"code": code, "seen": SEEN}))
"""


def _probe(script: str, *argv: str) -> dict:
    done = subprocess.run([sys.executable, "-c", script, *argv], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_session_run_as_the_tui_runs_it_imports_openai_and_its_scorer_in_a_thread(home):
    report = _probe(TUI_SESSION, str(home))
    assert report["status"] == "finished"
    assert report["seen"]["openai"]["main"] is False
    assert report["seen"]["rouge_score"]["main"] is False


def test_a_batch_run_imports_openai_and_its_scorer_before_its_first_conversation(home):
    report = _probe(BATCH_RUN, str(home), str(home / "pingpong.db"))
    assert report["code"] == 0
    assert report["seen"]["openai"]["sessions"] == 0
    assert report["seen"]["rouge_score"]["sessions"] == 0
    assert rows(home, "select count(*) from sessions where status = 'finished'")[0][0] > 0


async def test_a_session_stopped_while_its_imports_load_is_interrupted_not_left_running(home):
    """The TUI stops a session (Ctrl-C on its screen) before its first call: it must read
    `interrupted`, as one stopped a moment later does, not `running` for a live process."""
    from contextlib import aclosing

    from pingpong.core.home import Home
    from pingpong.core.llm import ModelPool
    from pingpong.sessions.live import run_session, start_session
    from pingpong.sessions.runner import prepare_run
    from pingpong.sessions.store import Store

    root = Home(home)
    setup, specs = prepare_run(root, players=["alpha"], interrogator="asker", judges=["judge-one"])
    store, pool = Store(root.db_path), ModelPool(specs)
    item = setup.items[0]
    sid = start_session(store, setup.spec(item), item.character, item.situation)
    events: list = []

    async def drive() -> None:
        async with aclosing(run_session(store, pool, sid, offload=True)) as stream:
            async for event in stream:
                events.append(event)

    task = asyncio.create_task(drive())
    await asyncio.sleep(0)   # one step: claimed, and waiting for the thread that imports
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await pool.aclose()
    assert events == []
    assert store.session(sid).status == "interrupted"
    store.close()
