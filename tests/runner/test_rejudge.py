"""A run whose judge fails ends with exit 1; `pingpong judge` completes it later without calling the
player or the interrogator again; forks start from a stored prefix and run on with new seats."""

from __future__ import annotations

import json
import sqlite3

import pytest

from pingpong.core.methods.dmt_rules import DMT_METRICS
from tests.fakeserver import FakeServer, judge_json, server_error
from tests.runner.conftest import pingpong


def _config(root, url: str) -> None:
    root.mkdir(parents=True, exist_ok=True)
    lines = []
    for name in ("player", "asker", "judge"):
        lines += [f"[models.{name}]", f'base_url = "{url}"', f'model = "{name}"', "timeout = 2", "deadline = 1", ""]
    (root / "config.toml").write_text("\n".join(lines), encoding="utf-8")


def _rows(root, sql):
    conn = sqlite3.connect(root / "pingpong.db")
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def _judge_down(body):
    """The model called "judge" answers 500; the others as usual."""
    return server_error(500) if body.get("model") == "judge" else _default(body)


def test_failed_judge_exits_1_then_pingpong_judge_completes_it_without_the_seats(tmp_path):
    with FakeServer(responder=_judge_down) as server:
        root = tmp_path / "home"
        _config(root, server.base_url)
        run = pingpong(root, "run", "--player", "player", "--interrogator", "asker", "--judge", "judge",
                       "--characters", "tally", "--situations", "casual-greeting", "--run", "r")
        assert run.rc == 1, run.err
        assert "judge turn(s) failed" in run.err
        # who failed and why, without a look in the database
        assert "(judge: 2 (judge call failed: HTTP 500: internal error" in run.err and run.err.count("\n") == 1, run.err
        failed = _rows(root, "select count(*) from scores where status = 'failed'")[0][0]
        assert failed > 0
        server.responder = _default  # the judge is back
        seats_before = [r for r in server.chat_requests if r.body["model"] in ("player", "asker")]
        again = pingpong(root, "judge", "--run", "r", "--judge", "judge")
        assert again.rc == 0, again.err
        seats_after = [r for r in server.chat_requests if r.body["model"] in ("player", "asker")]
        assert len(seats_after) == len(seats_before)  # no player or interrogator call
    assert _rows(root, "select count(*) from scores where status = 'failed'")[0][0] == 0
    ok = _rows(root, "select count(*) from scores where status = 'ok' and source = 'judge'")[0][0]
    assert ok > 0


def test_rerunning_the_same_run_retries_failed_judge_turns(tmp_path):
    down = {"on": True}

    def responder(body):
        if down["on"] and body.get("model") == "judge":
            return server_error(500)
        return _default(body)

    with FakeServer(responder=responder) as server:
        root = tmp_path / "home"
        _config(root, server.base_url)
        args = ("run", "--player", "player", "--interrogator", "asker", "--judge", "judge",
                "--characters", "tally", "--situations", "casual-greeting", "--run", "r")
        assert pingpong(root, *args).rc == 1
        down["on"] = False
        player_calls = sum(1 for r in server.chat_requests if r.body["model"] == "player")
        second = pingpong(root, *args)
        assert second.rc == 0, second.err
        assert sum(1 for r in server.chat_requests if r.body["model"] == "player") == player_calls
    assert _rows(root, "select count(*) from scores where status = 'failed'")[0][0] == 0


def test_rerunning_a_run_with_a_judge_added_scores_its_finished_sessions_with_it(tmp_path):
    """It said "already finished" and left the new judge out without a word."""
    root = tmp_path / "home"
    root.mkdir()
    (root / "config.toml").write_text('[models.offline-j]\nkind = "offline"\n', encoding="utf-8")
    args = ("run", "--player", "offline", "--interrogator", "offline", "--every", "20", "--run", "r")
    assert pingpong(root, *args, "--judge", "offline").rc == 0
    sessions = _rows(root, "select count(*) from sessions")[0][0]
    messages = _rows(root, "select count(*) from messages")[0][0]
    again = pingpong(root, *args, "--judge", "offline", "--judge", "offline-j")
    assert again.rc == 0, again.err
    assert _rows(root, "select count(*) from sessions")[0][0] == sessions  # nothing played again
    assert _rows(root, "select count(*) from messages")[0][0] == messages
    assert _rows(root, "select count(distinct session_id) from scores where by = 'offline-j' and status = 'ok'") \
        == [(sessions,)]
    assert all(json.loads(j) == ["offline", "offline-j"] for (j,) in _rows(root, "select judges from sessions"))
    calls = _rows(root, "select count(*) from model_calls")[0][0]
    assert pingpong(root, *args, "--judge", "offline", "--judge", "offline-j").rc == 0  # nothing left to do
    assert _rows(root, "select count(*) from model_calls")[0][0] == calls


def test_a_fork_shares_the_first_turns_then_runs_on_with_new_seats(tmp_path):
    root = tmp_path / "home"
    first = pingpong(root, "run", "--player", "offline", "--interrogator", "offline", "--judge", "offline",
                     "--characters", "tally", "--situations", "casual-greeting", "--run", "r")
    assert first.rc == 0, first.err
    (parent,) = [r[0] for r in _rows(root, "select id from sessions")]
    with FakeServer() as server:
        _config(root, server.base_url)
        fork = pingpong(root, "sessions", "fork", str(parent), "--turn", "1", "--player", "player")
        assert fork.rc == 0, fork.err
    child = _rows(root, "select id, parent_session, fork_turn, status, player from sessions where id != "
                        f"{parent}")[0]
    assert child[1:] == (parent, 1, "finished", "player")
    msgs = {sid: _rows(root, f"select turn, role, author, text from messages where session_id = {sid} order by seq")
            for sid in (parent, child[0])}
    assert msgs[child[0]][:2] == msgs[parent][:2]  # same text, same authors
    assert [m[2] for m in msgs[child[0]][2:] if m[1] == "assistant"] == ["player"] * (len(msgs[child[0]]) // 2 - 1)
    board = json.loads(pingpong(root, "leaderboard", "--format", "json").out)
    assert {r["player"] for r in board} == {"offline"}  # forks are left out...
    forks = json.loads(pingpong(root, "leaderboard", "--format", "json", "--include-forks").out)
    assert {r["player"] for r in forks} == {"offline", "player"}  # ...unless asked


def test_a_fork_whose_inherited_judge_is_gone_is_refused_before_it_is_written(tmp_path):
    """The fork keeps the session's judges: one no longer configured is one line and exit 2, and no
    fork is left behind (each try used to add an interrupted one)."""
    root = tmp_path / "home"
    with FakeServer() as server:
        _config(root, server.base_url)
        first = pingpong(root, "run", "--player", "player", "--interrogator", "asker", "--judge", "judge",
                         "--characters", "tally", "--situations", "casual-greeting", "--run", "r")
        assert first.rc == 0, first.err
        (root / "config.toml").write_text(f'[models.player]\nbase_url = "{server.base_url}"\nmodel = "player"\n'
                                          f'[models.asker]\nbase_url = "{server.base_url}"\nmodel = "asker"\n',
                                          encoding="utf-8")
        for _ in range(2):
            fork = pingpong(root, "sessions", "fork", "1", "--turn", "1", "--player", "player")
            assert fork.rc == 2 and fork.err.strip().endswith("unknown model 'judge' (configured: asker, offline, player)"), \
                fork.err
    assert _rows(root, "select count(*) from sessions") == [(1,)]


def _spoiled(kind: str) -> str:
    """A judge answer for turns 1 and 2 that fails in one way (the situation has two turns)."""
    if kind == "invalid-json":
        return "Both replies were lovely: in character 4, entertaining 3 and fluent 5."
    if kind == "missing-turn":
        return judge_json([1])
    scores = json.loads(judge_json([1, 2]))["scores"]
    if kind == "out-of-scale":
        scores[1]["fluency_score"] = "3/10"
    elif kind == "conflicting":
        scores.append({**scores[1], "fluency_score": 1})
    return json.dumps({"scores": scores})


@pytest.mark.parametrize("kind", ["invalid-json", "missing-turn", "out-of-scale", "conflicting"])
def test_every_way_a_judge_fails_leaves_failed_turns_exit_1_and_pingpong_judge_retries_them(tmp_path, kind):
    broken = {"on": True}

    def responder(body):
        if broken["on"] and body.get("model") == "judge":
            return _spoiled(kind)
        return _default(body)

    with FakeServer(responder=responder) as server:
        root = tmp_path / "home"
        _config(root, server.base_url)
        run = pingpong(root, "run", "--player", "player", "--interrogator", "asker", "--judge", "judge",
                       "--characters", "tally", "--situations", "casual-greeting", "--run", "r")
        assert run.rc == 1 and "judge turn(s) failed in run 'r'" in run.err, run.err
        failed = _rows(root, "select distinct turn from scores where status = 'failed' and source = 'judge'")
        assert failed == [(2,)] or (kind == "invalid-json" and sorted(failed) == [(1,), (2,)])
        still = pingpong(root, "judge", "--run", "r", "--judge", "judge")
        assert still.rc == 1 and "still failed" in still.err
        broken["on"] = False
        assert pingpong(root, "judge", "--run", "r", "--judge", "judge").rc == 0
    assert _rows(root, "select count(*) from scores where status = 'failed'") == [(0,)]
    assert _rows(root, "select count(distinct turn) from scores where status = 'ok' and by = 'judge'") == [(2,)]


def test_a_dmt_judge_without_usable_labels_leaves_failed_rounds_exit_1_and_is_retried(tmp_path):
    broken = {"on": True}

    def responder(body):
        if body.get("model") != "judge":
            return _default(body)
        if broken["on"]:
            return '{"labels": "all good, I think"}'
        rounds = [{"round": r, **{m: "good" for m in DMT_METRICS}} for r in range(1, 31)]
        return json.dumps({"labels": rounds})

    with FakeServer(responder=responder) as server:
        root = tmp_path / "home"
        _config(root, server.base_url)
        run = pingpong(root, "run", "--method", "dmt", "--player", "offline", "--interrogator", "offline",
                       "--judge", "judge", "--characters", "ada-lovelace", "--run", "d")
        assert run.rc == 1 and "judge turn(s) failed in run 'd'" in run.err, run.err
        assert _rows(root, "select count(*) from scores where status = 'ok' and by = 'judge'") == [(0,)]
        broken["on"] = False
        again = pingpong(root, "judge", "--run", "d", "--judge", "judge")
        assert again.rc == 0, again.err
    assert _rows(root, "select count(*) from scores where status = 'failed'") == [(0,)]
    assert _rows(root, "select count(*) from scores where status = 'ok' and by = 'judge'")[0][0] > 0


def _default(body):
    from tests.fakeserver import default_responder

    return default_responder(body)


def test_judge_counts_only_its_own_judges_failed_turns(tmp_path):
    """Another judge's failed turns are not this command's to retry: adding a good judge exits 0."""
    with FakeServer(responder=_judge_down) as server:
        root = tmp_path / "home"
        _config(root, server.base_url)
        (root / "config.toml").write_text((root / "config.toml").read_text() + "[models.second]\n"
                                          f'base_url = "{server.base_url}"\nmodel = "second"\n', encoding="utf-8")
        run = pingpong(root, "run", "--player", "player", "--interrogator", "asker", "--judge", "judge",
                       "--characters", "tally", "--situations", "casual-greeting", "--run", "r")
        assert run.rc == 1, run.err
        again = pingpong(root, "judge", "--run", "r", "--judge", "second")
        assert again.rc == 0, again.err
        still = pingpong(root, "judge", "--run", "r", "--judge", "judge")
        assert still.rc == 1 and "still failed" in still.err
        assert "(judge: 2 (judge call failed: HTTP 500" in still.err and "second" not in still.err, still.err


def test_judge_refuses_what_judge_models_do_not_score_and_a_dead_judge_before_any_call(tmp_path):
    root = tmp_path / "home"
    offline = ("--player", "offline", "--interrogator", "offline", "--judge", "offline", "--every", "20")
    assert pingpong(root, "run", "--method", "rolebench", *offline, "--run", "rolebench").rc == 0
    assert pingpong(root, "run", "--method", "pingpong-v1", *offline[:4], "--every", "20", "--run", "pingpong-v1").rc == 0
    assert pingpong(root, "run", *offline, "--run", "v2").rc == 0
    (root / "config.toml").write_text('[models.dead]\nbase_url = "http://127.0.0.1:9/v1"\nmodel = "x"\n',
                                      encoding="utf-8")
    for method, judge, says in (("pingpong-v1", "dead", "scored by their tester; `--judge offline` retries"),
                                ("rolebench", "offline", "exact rules")):
        refused = pingpong(root, "judge", "--run", method, "--judge", judge)
        assert refused.rc == 2 and refused.err.count("\n") == 1 and says in refused.err, refused.err
    before = _rows(root, "select judges from sessions order by id")
    refused = pingpong(root, "judge", "--session", "1", "--judge", "offline")  # named alone: refused
    assert refused.rc == 2 and "session 1: rolebench sessions are scored by exact rules" in refused.err
    dead = pingpong(root, "judge", "--run", "v2", "--judge", "dead")
    assert dead.rc == 2 and "unreachable" in dead.err and dead.err.count("\n") == 1, dead.err
    assert _rows(root, "select judges from sessions order by id") == before  # no judge added to any session


def test_a_session_another_live_process_is_judging_is_left_to_it(tmp_path):
    """Two `pingpong judge` commands on one run paid each judge twice for every turn. A judge is
    leased per session while it scores; a lease of a live process is left alone, a dead one's is free."""
    import subprocess
    import sys
    import time

    root = tmp_path / "home"
    with FakeServer() as server:
        _config(root, server.base_url)
        assert pingpong(root, "run", "--player", "player", "--interrogator", "asker", "--judge", "judge",
                        "--characters", "tally", "--situations", "casual-greeting", "--run", "r").rc == 0
        (root / "config.toml").write_text((root / "config.toml").read_text() + "[models.second]\n"
                                          f'base_url = "{server.base_url}"\nmodel = "second"\n', encoding="utf-8")
        with subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"]) as other:
            try:
                time.sleep(0.2)  # the lease is taken after its process started, as a real one is
                conn = sqlite3.connect(root / "pingpong.db")
                conn.execute("INSERT INTO judging VALUES (1, 'second', ?, NULL, strftime('%Y-%m-%dT%H:%M:%f+00:00'))",
                             [other.pid])
                conn.commit()
                conn.close()
                sent = len(server.chat_requests)
                busy = pingpong(root, "judge", "--run", "r", "--judge", "second")
                assert busy.rc == 0, busy.err
                assert "judged 0 session(s) with second; 1 being scored by another process now, left to it" in busy.err
                assert len(server.chat_requests) == sent  # the judge was not paid twice
            finally:
                other.kill()
        free = pingpong(root, "judge", "--run", "r", "--judge", "second")  # its process died: the lease is free
        assert free.rc == 0 and "judged 1 session(s) with second" in free.err, free.err
    assert _rows(root, "select count(*) from scores where by = 'second' and status = 'ok'") != [(0,)]
    assert _rows(root, "select count(*) from judging") == [(0,)]  # every lease ended with its judging


def test_a_v1_testers_failed_scores_are_retried_by_a_rerun_and_by_judge_with_its_tester(tmp_path):
    """The tester scores as it asks; when it gave no valid score for a reply, the same command again
    (or `pingpong judge --judge TESTER`) asks it again for that reply, as the run's message says. The
    retry shows the conversation up to that reply only, and no player or new pair is spoiled."""
    broken = {"on": True}

    def responder(body):
        answer = json.loads(_default(body)) if "next_user_utterance" in str(body) else None
        if answer is not None and broken["on"]:
            answer["stay_in_character"] = 11  # out of scale: never stored as a score
            return json.dumps(answer)
        return json.dumps(answer) if answer is not None else _default(body)

    with FakeServer(responder=responder) as server:
        root = tmp_path / "home"
        _config(root, server.base_url)
        args = ("run", "--method", "pingpong-v1", "--player", "player", "--interrogator", "asker",
                "--characters", "tally", "--situations", "casual-greeting", "--run", "v1")
        run = pingpong(root, *args)
        assert run.rc == 1 and "judge turn(s) failed in run 'v1'" in run.err, run.err
        assert f"`pingpong --home {root} judge --run v1 --judge asker`" in run.err  # the tester, named
        assert _rows(root, "select distinct turn from scores where status = 'failed'") == [(1,), (2,)]
        still = pingpong(root, "judge", "--run", "v1", "--judge", "asker")
        assert still.rc == 1 and "still failed" in still.err, still.err
        broken["on"] = False
        before = len(server.chat_requests)
        again = pingpong(root, *args[:-4], "--characters", "tally,ada-lovelace", "--situations", "casual-greeting",
                         "--run", "v1")
        assert again.rc == 0, again.err
        after = server.chat_requests[before:]
        retried = [r for r in after if r.body["model"] == "asker"
                   and "Score player turn 1 and leave" in str(r.body)]
        assert len(retried) == 1 and "PLAYER TURN 2" not in str(retried[0].body)  # seen as it was then
    assert sum(1 for r in after if r.body["model"] == "player") == 2  # ada's new pair only
    assert _rows(root, "select count(*) from scores where status = 'failed'") == [(0,)]
    assert _rows(root, "select status from sessions order by id") == [("finished",), ("finished",)]


def test_judge_says_when_the_sessions_already_had_every_score(tmp_path):
    """It said "judged 2 session(s)" when no judge was asked anything: a user thought they had paid twice."""
    root = tmp_path / "home"
    assert pingpong(root, "run", "--player", "offline", "--interrogator", "offline", "--judge", "offline",
                    "--characters", "tally", "--situations", "casual-greeting,bedtime", "--run", "r").rc == 0
    again = pingpong(root, "judge", "--run", "r", "--judge", "offline")
    assert again.rc == 0 and again.err.strip() == "judged 0 session(s) with offline; 2 already had every score of it"


def test_judge_of_a_run_of_several_methods_skips_the_sessions_no_judge_model_scores(tmp_path):
    """One run may hold several methods: `judge --run` scores those its judges can and names the rest."""
    root = tmp_path / "home"
    (root / "config.toml").parent.mkdir(parents=True)
    (root / "config.toml").write_text('[models.offline-j]\nkind = "offline"\n', encoding="utf-8")
    seats = ("--player", "offline", "--interrogator", "offline")
    for method in ("pingpong", "rolebench", "pingpong-v1"):
        judge = () if method == "pingpong-v1" else ("--judge", "offline")  # v1's tester scores
        assert pingpong(root, "run", "--method", method, *seats, *judge, "--every", "20", "--run", "mix").rc == 0
    judged = pingpong(root, "judge", "--run", "mix", "--judge", "offline-j")
    assert judged.rc == 0, judged.err
    v2 = _rows(root, "select count(*) from sessions where method = 'pingpong'")[0][0]
    rb = _rows(root, "select count(*) from sessions where method = 'rolebench'")[0][0]
    v1 = _rows(root, "select count(*) from sessions where method = 'pingpong-v1'")[0][0]
    assert f"skipped {v1} pingpong-v1 session(s) (scored by their tester, not by judge models); {rb} rolebench session(s)" \
        f" (scored by exact rules, not by judge models)" in judged.err
    assert f"judged {v2} session(s) with offline-j" in judged.err
    assert _rows(root, "select count(distinct session_id) from scores where by = 'offline-j'") == [(v2,)]
