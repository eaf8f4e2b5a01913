"""`pingpong compare`, `sessions score --versus` and `leaderboard --by prompting` through the real CLI,
with players and judges on the local server (and the offline model)."""

from __future__ import annotations

import json

from tests.fakeserver import reply
from tests.runner.conftest import pingpong, rows, run_args


def judge_pairs_reply(body: dict) -> str:
    """judge-two on the local server: prefers whichever conversation's player is alpha."""
    text = body["messages"][-1]["content"]
    first = text.split("# Conversation 2")[0]
    better = "1" if "from alpha-model" in first else "2"
    return json.dumps({"reason": f"alpha's line reads better (shown as {better})", "better": better})


def serve_players_and_judge(fake) -> None:
    from tests.fakeserver import default_responder

    fake.responder = lambda body: (judge_pairs_reply(body) if body.get("model") == "judge-two-model"
                                   and "# Conversation 2" in body["messages"][-1]["content"]
                                   else default_responder(body))


def test_compare_judges_both_orders_and_prints_win_rates_and_ratings(home, fake):
    serve_players_and_judge(fake)
    assert pingpong(home, *run_args()).rc == 0
    sent = len(fake.chat_requests)
    result = pingpong(home, "compare", "--baseline", "beta", "--judge", "judge-two", "--format", "json")
    assert result.rc == 0, result.err
    # what it is about to ask, before the first call: a big database can plan thousands of pairs
    assert result.err.startswith("compare: 2 players over 4 conversation(s), 4 pair(s); 8 judgement(s) to ask "
                                 "judge-two (each pair in both orders); --player or --run narrows it\n"), result.err
    report = json.loads(result.out)
    assert (report["baseline"], report["judge"], report["pairs"], report["comparisons"]) == ("beta", "judge-two", 4, 4)
    [rate] = report["win_rates"]
    assert (rate["player"], rate["n"], rate["wins"], rate["ties"], rate["losses"], rate["win_rate"]) == (
        "alpha", 4, 4, 0, 0, 1.0)
    assert (rate["ci_low"], rate["ci_high"]) == (1.0, 1.0)
    assert [r["player"] for r in report["ratings"]] == ["alpha", "beta"]
    assert report["ratings"][0]["rating"] > 1000 > report["ratings"][1]["rating"]
    assert len(fake.chat_requests) == sent + 8  # 4 pairs x 2 orders
    assert rows(home, "SELECT count(*), count(DISTINCT shown) FROM pair_scores WHERE status = 'ok'") == [(8, 2)]
    detail = report["details"][0]
    assert set(detail) >= {"session_a", "session_b", "player_a", "player_b", "judge", "explanations", "outcome"}
    assert set(detail["judge"]) == {"ab", "ba"} and "alpha's line" in detail["explanations"]["ab"]

    again = pingpong(home, "compare", "--baseline", "beta", "--judge", "judge-two")
    assert again.rc == 0, again.err
    assert len(fake.chat_requests) == sent + 8  # nothing asked twice
    assert "Win rate against beta" in again.out and "Bradley-Terry" in again.out
    assert "judged 0 order(s) of 4 pair(s)" in again.err and "press v" in again.err
    assert again.err.startswith("compare: 2 players over 4 conversation(s), 4 pair(s); all judged by judge-two\n")


def test_a_persons_preference_from_the_command_line_overrides_the_judge(home, fake):
    serve_players_and_judge(fake)
    assert pingpong(home, *run_args()).rc == 0
    assert pingpong(home, "compare", "--baseline", "beta", "--judge", "judge-two").rc == 0
    a, b = rows(home, "SELECT session_a, session_b FROM pair_scores LIMIT 1")[0]
    beta_session = rows(home, "SELECT id FROM sessions WHERE id IN (?, ?) AND player = 'beta'", (a, b))[0][0]
    alpha_session = a if beta_session == b else b
    result = pingpong(home, "sessions", "score", str(beta_session), "--versus", str(alpha_session), "--value", "1",
                      "--author", "dana", "--reason", "beta stays calmer")
    assert result.rc == 0, result.err
    assert "pairwise = 1 by dana" in result.out
    stored = rows(home, "SELECT by, explanation, shown, created_at FROM pair_scores WHERE source = 'human'")
    assert stored[0][:3] == ("dana", "beta stays calmer", None) and stored[0][3]
    report = json.loads(pingpong(home, "compare", "--baseline", "beta", "--judge", "judge-two",
                                 "--format", "json").out)
    assert (report["win_rates"][0]["wins"], report["win_rates"][0]["losses"]) == (3, 1)

    for bad in (["--value", "2"], ["--value", "1", "--turn", "1"], ["--metric", "fluency", "--value", "1"], []):
        refused = pingpong(home, "sessions", "score", str(beta_session), "--versus", str(alpha_session), *bad)
        assert refused.rc == 2 and refused.err.count("\n") == 1, refused.err


def test_failed_judgements_exit_1_and_the_same_command_retries_them(home, fake):
    assert pingpong(home, *run_args()).rc == 0
    fake.script(*[reply("I would rather not say.")] * 2, model="judge-two-model")  # one order, asked twice
    args = ["compare", "--baseline", "beta", "--judge", "judge-two", "--concurrency", "1"]
    serve_players_and_judge(fake)
    failed = pingpong(home, *args)
    assert failed.rc == 1
    assert "1 pairwise judgement(s) failed" in failed.err and "run the same command again" in failed.err
    assert "(judge-two: 1 (no usable answer after a re-ask: " in failed.err  # who failed, and why
    assert rows(home, "SELECT count(*) FROM pair_scores WHERE status = 'failed'") == [(1,)]
    retried = pingpong(home, *args)
    assert retried.rc == 0, retried.err
    assert rows(home, "SELECT count(*) FROM pair_scores WHERE status = 'ok'") == [(8,)]


def test_rolebench_answers_to_the_same_question_are_compared_by_the_offline_judge(home, fake):
    result = pingpong(home, "run", "--method", "rolebench", "--player", "alpha", "--player", "beta",
                      "--interrogator", "offline", "--judge", "offline", "--every", "25", "--run", "rb")
    assert result.rc == 0, result.err
    questions = rows(home, "SELECT count(DISTINCT character || '/' || situation) FROM sessions"
                           " WHERE method = 'rolebench'")[0][0]
    report = json.loads(pingpong(home, "compare", "--baseline", "alpha", "--judge", "offline", "--run", "rb",
                                 "--format", "json").out)
    assert report["pairs"] == questions > 0
    assert all(d["method"] == "rolebench" and {d["player_a"], d["player_b"]} == {"alpha", "beta"}
               for d in report["details"])
    assert report["win_rates"][0]["n"] == questions


def test_bad_compare_input_is_one_line_and_exit_2(home, fake):
    assert pingpong(home, *run_args("--every", "4")).rc == 0
    cases = [
        (["--baseline", "beta", "--judge", "nobody"], "unknown model 'nobody'"),
        (["--baseline", "beta", "--judge", "human"], "--judge: a judge must be a model"),
        (["--baseline", "gamma", "--judge", "offline"], "--baseline: no finished sessions of 'gamma'"),
        (["--baseline", "beta", "--judge", "offline", "--player", "gamma"], "--player: no finished sessions"),
        (["--baseline", "beta", "--judge", "offline", "--run", "nope"], "--run: no run named 'nope'"),
        (["--baseline", "beta", "--judge", "offline", "--concurrency", "0"], "--concurrency"),
        (["--baseline", "beta", "--judge", "offline", "--player", "beta"], "not the baseline"),
    ]
    for args, message in cases:
        result = pingpong(home, "compare", *args)
        assert result.rc == 2, (args, result.err)
        assert message in result.err and result.err.count("\n") == 1, result.err
    assert rows(home, "SELECT count(*) FROM pair_scores") == [(0,)]


def test_leaderboard_by_prompting_splits_each_players_row(home, fake):
    for strategy in ("zsp", "fsd"):
        args = run_args("--prompting", strategy, "--run", f"p-{strategy}", players=("alpha",))
        assert pingpong(home, *args).rc == 0
    assert pingpong(home, *run_args("--run", "plain", players=("alpha",))).rc == 0
    result = pingpong(home, "leaderboard", "--by", "prompting", "--format", "json")
    assert result.rc == 0, result.err
    board = json.loads(result.out)
    assert sorted((r["player"], r["prompting"] or "") for r in board) == [
        ("alpha", ""), ("alpha", "fsd"), ("alpha", "zsp")]
    assert any(r["prompting"] is None for r in board)  # the default strategy
    assert all(r["conversations"] == 4 for r in board)
    assert list(board[0])[:2] == ["player", "prompting"]
    table = pingpong(home, "leaderboard", "--by", "prompting", "--format", "markdown")
    assert "| Prompting |" in table.out and "| default |" in table.out and "| zsp |" in table.out
    plain = json.loads(pingpong(home, "leaderboard", "--format", "json").out)
    assert len(plain) == 1 and "prompting" not in plain[0] and plain[0]["conversations"] == 12


def test_rolebench_leaderboard_by_prompting(home, fake):
    for strategy in ("zsp", "fsp"):
        result = pingpong(home, "run", "--method", "rolebench", "--player", "alpha", "--interrogator", "offline",
                          "--judge", "offline", "--every", "25", "--prompting", strategy)
        assert result.rc == 0, result.err
    board = json.loads(pingpong(home, "leaderboard", "--method", "rolebench", "--by", "prompting",
                                "--format", "json").out)
    assert sorted(r["prompting"] for r in board) == ["fsp", "zsp"]
    assert [r["rank"] for r in board] == [1, 1]  # each strategy is a board of its own, as each language is
    assert all({"raw", "cus", "spe", "raw_ci"} <= set(r) for r in board)
    table = pingpong(home, "leaderboard", "--method", "rolebench", "--by", "prompting")
    assert table.rc == 0 and "Prompting" in table.out and "fsp" in table.out


def test_leaderboard_by_says_which_combinations_are_not_supported_yet(home, fake):
    cases = [(["--by", "prompting", "--method", "roleinteract"],
              "--by prompting: not supported for --method roleinteract yet"),
             (["--by", "role_type", "--method", "rolebench"], "--by role_type: not supported for --method rolebench yet"),
             (["--by", "intent", "--method", "rolebench"], "--by intent: not supported")]
    for args, message in cases:
        result = pingpong(home, "leaderboard", *args)
        assert result.rc == 2 and message in result.err and result.err.count("\n") == 1, result.err
