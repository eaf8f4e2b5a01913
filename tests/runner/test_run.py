"""`pingpong run` end to end against the fake server: complete, skip, faults, failures."""

from __future__ import annotations

from tests.fakeserver import Faults, bad_request, default_responder
from tests.runner.conftest import (
    CHARACTERS,
    SITUATIONS,
    assert_complete_once,
    model_entry,
    pingpong,
    rows,
    run_args,
    standard_models,
    write_config,
)


def test_small_run_completes_every_pair(home, fake):
    result = pingpong(home, *run_args("--concurrency", "4"))
    assert result.rc == 0, result.err
    assert_complete_once(home)
    # 8 conversations x (2 turns x 2 seats + 2 judges)
    assert len(fake.chat_requests) == 8 * 6
    runs = rows(home, "SELECT name, config FROM runs")
    assert runs[0][0] == "alpha+beta-vs-asker-judged-by-judge-one+judge-two-en"
    assert rows(home, "SELECT count(*) FROM sessions WHERE run_id IS NULL") == [(0,)]
    assert "8/8 done" in result.out
    assert "run summary" in result.out


def test_second_run_skips_everything(home, fake):
    assert pingpong(home, *run_args()).rc == 0
    sent = len(fake.chat_requests)
    again = pingpong(home, *run_args())
    assert again.rc == 0, again.err
    assert len(fake.chat_requests) == sent
    assert rows(home, "SELECT count(*) FROM sessions") == [(8,)]


def test_named_run_and_every_keeps_a_balanced_subset(home, fake):
    result = pingpong(home, *run_args("--every", "2", "--run", "half"))
    assert result.rc == 0, result.err
    pairs = rows(home, "SELECT DISTINCT character, situation FROM sessions s JOIN runs r"
                       " ON r.id = s.run_id WHERE r.name = 'half'")
    assert len(pairs) == 2
    assert {c for c, _ in pairs} == set(CHARACTERS)
    assert {s for _, s in pairs} == set(SITUATIONS)


def test_flaky_endpoint_still_completes_every_conversation(home, fake):
    fake.faults = Faults(p429=0.10, p500=0.05, pcut=0.05, retry_after=0.01, seed=11)
    result = pingpong(home, *run_args("--concurrency", "8"))
    assert result.rc == 0, result.err
    assert_complete_once(home)
    retried = rows(home, "SELECT count(*) FROM model_calls WHERE status = 'retry'")[0][0]
    assert retried > 0
    assert fake.cuts > 0


def test_failing_player_gives_exit_1_and_a_retry_starts_fresh(tmp_path, monkeypatch, fake):
    from tests.runner.conftest import KEY_ENV, write_library

    monkeypatch.setenv(KEY_ENV, "k")
    root = tmp_path / "home"
    models = standard_models(fake.base_url)
    models["broken"] = model_entry(fake.base_url, "broken-model")
    write_config(root, models)
    write_library(root)
    fake.responder = lambda body: (bad_request("no such thing") if body.get("model") == "broken-model"
                                   else default_responder(body))
    args = run_args(players=("alpha", "broken"))
    result = pingpong(root, *args)
    assert result.rc == 1
    assert "4 of 8 conversations failed" in result.err
    assert "Traceback" not in result.err
    assert rows(root, "SELECT player, status, count(*) FROM sessions GROUP BY 1, 2 ORDER BY 1") == [
        ("alpha", "finished", 4), ("broken", "failed", 4)]
    # Again: alpha is skipped, broken gets fresh sessions (failed ones stay, never counted).
    again = pingpong(root, *args)
    assert again.rc == 1
    assert rows(root, "SELECT player, status, count(*) FROM sessions GROUP BY 1, 2 ORDER BY 1") == [
        ("alpha", "finished", 4), ("broken", "failed", 8)]


def test_offline_models_need_no_config(tmp_path):
    from pingpong.characters.library import CardLibrary
    from pingpong.core.home import Home
    from pingpong.situations.library import SituationLibrary

    root = tmp_path / "home"
    result = pingpong(root, "run", "--player", "offline", "--interrogator", "offline",
                      "--judge", "offline", "--every", "8")
    assert result.rc == 0, result.err
    home = Home(root)
    pairs = len(CardLibrary(home).all("en")) * len(SituationLibrary(home).all("en"))
    assert rows(root, "SELECT status, count(*) FROM sessions GROUP BY status") == [
        ("finished", -(-pairs // 8))]


def test_two_runs_of_the_same_plan_never_run_a_pair_twice(home, fake):
    """Both processes plan before either starts (two terminals): the second finds every pair
    taken when it comes to it and creates no session of its own."""
    import asyncio

    from pingpong.core.home import Home
    from pingpong.core.llm import ModelPool
    from pingpong.sessions.runner import BatchRunner, prepare_run
    from pingpong.sessions.store import Store

    setup, specs = prepare_run(Home(home), players=["alpha", "beta"], interrogator="asker",
                               judges=["judge-one", "judge-two"], characters=CHARACTERS,
                               situations=SITUATIONS)

    async def both():
        pool = ModelPool(specs)
        try:
            with Store(home / "pingpong.db") as one, Store(home / "pingpong.db") as two:
                first, second = BatchRunner(one, pool, setup), BatchRunner(two, pool, setup)
                assert first.prepare() == 8 and second.prepare() == 8
                await first.run()
                return await second.run()
        finally:
            await pool.aclose()

    progress = asyncio.run(both())
    assert_complete_once(home)
    assert rows(home, "SELECT count(*) FROM sessions") == [(8,)]
    assert progress.done == 8 and progress.failed == 0 and progress.finished_here == 0


def test_one_run_name_holds_other_methods_strategies_and_players_without_skipping_them(tmp_path):
    """Reusing `--run NAME` for another method, prompting or prompt format runs those conversations
    (they are other conversations of the same pairs); a fork inside the run is no pair's
    conversation, so a player added later still plays every pair."""
    root = tmp_path / "home"
    (root).mkdir()
    (root / "config.toml").write_text('[models.off2]\nkind = "offline"\n', encoding="utf-8")
    seats = ("--interrogator", "offline", "--judge", "offline", "--characters", "sherlock-holmes,count-dracula",
             "--situations", "casual-greeting,you-are-just-a-bot", "--run", "bench")
    for extra in ([], ["--method", "pingpong-v1"], ["--prompting", "zsp"], ["--prompt-format", "minimal"]):
        result = pingpong(root, "run", "--player", "offline", *seats, *extra)
        assert result.rc == 0, result.err
        assert "already finished" not in result.out, extra
    assert rows(root, "SELECT method, count(*) FROM sessions GROUP BY method") == [("pingpong", 12), ("pingpong-v1", 4)]
    again = pingpong(root, "run", "--player", "offline", *seats, "--prompting", "zsp")
    assert "4 already finished" in again.out and rows(root, "SELECT count(*) FROM sessions") == [(16,)]

    first = rows(root, "SELECT min(id) FROM sessions")[0][0]
    assert pingpong(root, "sessions", "fork", str(first), "--turn", "1", "--player", "off2").rc == 0
    added = pingpong(root, "run", "--player", "off2", *seats)
    assert added.rc == 0, added.err
    assert rows(root, "SELECT count(*) FROM sessions WHERE player = 'off2' AND parent_session IS NULL"
                      " AND status = 'finished'") == [(4,)]


def test_pingpong_v1_sessions_name_their_tester_as_their_judge(tmp_path):
    """v1's tester scores: no --judge is needed, another one is refused (it would never score), and
    every path (run, play, fork) stores the tester as the judge, not a model that never scored."""
    from pingpong.core.domain import SessionSpec

    root = tmp_path / "home"
    root.mkdir()
    (root / "config.toml").write_text('[models.off2]\nkind = "offline"\n', encoding="utf-8")
    seats = ("--method", "pingpong-v1", "--player", "offline", "--interrogator", "off2", "--every", "12")
    done = pingpong(root, "run", *seats)
    assert done.rc == 0, done.err
    assert {j for (j,) in rows(root, "SELECT judges FROM sessions")} == {'["off2"]'}
    assert {b for (b,) in rows(root, "SELECT DISTINCT by FROM scores")} == {"off2"}
    assert "judged-by-off2" in rows(root, "SELECT name FROM runs")[0][0]
    stray = pingpong(root, "run", *seats, "--judge", "offline")
    assert stray.rc == 2 and stray.err.strip() == ("pingpong: error: --judge offline: pingpong-v1 sessions are scored "
                                                   "by their tester, the interrogator (off2); leave --judge out")
    assert pingpong(root, "run", *seats, "--judge", "off2").rc == 0  # the tester named as judge is the same seat
    missing = pingpong(root, "run", "--player", "offline", "--interrogator", "off2")
    assert missing.rc == 2 and "--judge: pingpong needs a judge model" in missing.err
    spec = SessionSpec(method="pingpong-v1", character="c", situation="s", player="p", interrogator="t", judges=["j"])
    assert spec.judges == ["t"]
    first = rows(root, "SELECT min(id) FROM sessions")[0][0]
    forked = pingpong(root, "sessions", "fork", str(first), "--turn", "1", "--interrogator", "offline")
    assert forked.rc == 0, forked.err
    assert rows(root, "SELECT judges, json_extract(spec, '$.judges') FROM sessions ORDER BY id DESC LIMIT 1") == [
        ('["offline"]', '["offline"]')]  # a new tester is the fork's judge, in the row and in its spec
    person = pingpong(root, "sessions", "fork", str(first), "--turn", "1", "--interrogator", "human")
    assert person.rc == 2 and "--interrogator: pingpong-v1 needs a model in the interrogator seat" in person.err
