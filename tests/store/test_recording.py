"""Recorder, people's scores, verdict rows, claiming and orphans, replay, all on a real database."""

from __future__ import annotations

import subprocess
import sys

import pytest

from pingpong.core.domain import CallRecord, Message
from pingpong.core.errors import UserError
from pingpong.core.events import (
    CallFinished,
    Delta,
    MessageCompleted,
    SessionFailed,
    SessionFinished,
    TurnStarted,
    VerdictReady,
)
from pingpong.sessions.recorder import Recorder
from pingpong.sessions.replay import replay
from tests.scores import judged, turn_scores

from .conftest import make_spec


def _score(turn, ic=4, en=3, fl=5, refusal=False):
    return turn_scores(turn, is_refusal=refusal, in_character=ic, entertaining=en, fluency=fl,
                     explanations={"in_character": f"turn {turn} fits"})


def _record_two_turns(store, character, situation, judges=("offline",)):
    sid = store.create_session(make_spec(judges=list(judges)), character, situation)
    rec = Recorder(store, sid)
    for turn in (1, 2):
        rec.handle(TurnStarted(turn, "user", "offline"))
        rec.handle(Delta(turn, "user", "half a sent"))
        rec.handle(MessageCompleted(Message(turn=turn, role="user", author="offline", text=f"q{turn}")))
        rec.handle(CallFinished(CallRecord(role="player", model="offline", turn=turn, status="ok",
                                           prompt_tokens=10, completion_tokens=5, latency_ms=3.5)))
        rec.handle(MessageCompleted(Message(turn=turn, role="assistant", author="offline", text=f"a{turn}",
                                            prompt_tokens=10, completion_tokens=5)))
    return sid, rec


def test_recorder_writes_messages_calls_verdicts_and_the_end(store, character, situation):
    sid, rec = _record_two_turns(store, character, situation)
    rec.handle(VerdictReady(judged("offline", turns=[_score(1), _score(2, ic=2)])))
    rec.handle(SessionFinished())

    s = store.session(sid)
    assert s.status == "finished" and s.finished_at
    assert [(m.turn, m.role, m.text) for m in s.messages] == [
        (1, "user", "q1"), (1, "assistant", "a1"), (2, "user", "q2"), (2, "assistant", "a2")]
    assert "half a sent" not in str(store.db.execute("select group_concat(text) from messages").fetchone())
    assert len(store.calls(sid)) == 2 and store.calls(sid)[0].latency_ms == 3.5
    assert s.verdicts[0].turns[1].in_character == 2
    assert s.verdicts[0].turns[0].explanations == {"in_character": "turn 1 fits"}
    assert s.final.value == pytest.approx((3 + 3 + 5) / 3) and not s.final.overridden
    assert s.character == character and s.situation == situation  # snapshots


def test_a_failed_session_keeps_its_error(store, character, situation):
    sid, rec = _record_two_turns(store, character, situation)
    rec.handle(SessionFailed("endpoint said 401", role="player", model="offline"))
    s = store.session(sid)
    assert s.status == "failed" and "401" in s.error and "player" in s.error


def test_a_duplicated_turn_is_refused_by_the_database(store, character, situation):
    sid, _ = _record_two_turns(store, character, situation)
    with pytest.raises(Exception, match="UNIQUE"):
        store.add_message(sid, Message(turn=2, role="assistant", author="offline", text="again"))
    assert len(store.messages(sid)) == 4


def test_judge_rows_are_never_rewritten_but_failed_ones_may_be_retried(store, character, situation):
    sid, _ = _record_two_turns(store, character, situation)
    failed = turn_scores(2, status="failed", error="bad JSON")
    store.add_verdict(sid, judged("j", turns=[_score(1, ic=5), failed]))
    store.add_verdict(sid, judged("j", turns=[_score(1, ic=1), _score(2, ic=3)]))
    (verdict,) = store.verdicts(sid)
    assert [(t.turn, t.status, t.in_character) for t in verdict.turns] == [(1, "ok", 5), (2, "ok", 3)]


def test_human_scores_are_append_only_and_the_newest_is_current(store, character, situation):
    sid, _ = _record_two_turns(store, character, situation)
    first = store.add_human_score(sid, 1, "fluency", 2, "ana", "typos")
    second = store.add_human_score(sid, 1, "fluency", 4, "ben")
    store.add_human_score(sid, 2, "is_refusal", True, "ana")
    assert second > first
    s = store.session(sid)
    assert [(h.author, h.value) for h in s.human_scores if h.metric == "fluency"] == [("ana", 2), ("ben", 4)]
    assert s.current_human_score(1, "fluency").author == "ben"
    assert s.current_human_score(2, "is_refusal").value == 1
    assert store.sessions()[0].human_turns == 2
    shown = s.to_json()["human_scores"]
    assert [h["current"] for h in shown] == [False, True, True] and shown[2]["value"] is True


@pytest.mark.parametrize("turn, metric, value, problem", [
    (9, "fluency", 3, "turn 9"),
    (1, "fluency", 6, "1 to 5"),
    (1, "fluency", 0, "1 to 5"),
    (1, "charm", 3, "charm"),
    (1, "is_refusal", 2, "true or false"),
])
def test_bad_human_scores_are_user_errors(store, character, situation, turn, metric, value, problem):
    sid, _ = _record_two_turns(store, character, situation)
    with pytest.raises(UserError, match=problem):
        store.add_human_score(sid, turn, metric, value, "ana")
    assert store.human_scores(sid) == []


def test_unknown_session_is_a_user_error(store):
    with pytest.raises(UserError, match="session 42"):
        store.session(42)
    with pytest.raises(UserError, match="session 42: no such session"):
        store.add_message(42, Message(turn=1, role="user", author="asker", text="Anyone there?"))
    with pytest.raises(UserError, match="session 42: no such session"):
        store.add_verdict(42, judged("judge-a", [turn_scores(1, fluency=3)]))
    assert store.db.execute("select count(*) from messages").fetchone()[0] == 0
    assert store.db.execute("select count(*) from scores").fetchone()[0] == 0


def test_sessions_filters_and_run_names(store, character, situation):
    run = store.run_id("nightly", {"players": ["a"]})
    assert store.run_id("nightly") == run
    a = store.create_session(make_spec(player="a"), character, situation, run)
    store.create_session(make_spec(player="b"), character, situation)
    store.set_status(a, "finished")
    assert [s.id for s in store.sessions(run="nightly")] == [a]
    assert [s.id for s in store.sessions(run=run)] == [a]
    assert [s.player for s in store.sessions(status="running")] == ["b"]
    assert [s.player for s in store.sessions(newest_first=True, limit=1)] == ["b"]
    assert store.sessions(player="a")[0].run == "nightly"


def test_orphans_of_dead_processes_become_interrupted_and_live_ones_are_left(store, character, situation):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    mine = store.create_session(make_spec(), character, situation)
    orphan = store.create_session(make_spec(), character, situation)
    store.db.execute("update sessions set pid = ? where id = ?", [dead.pid, orphan])
    assert store.mark_orphans_interrupted() == 1
    assert store.session(orphan).status == "interrupted"
    assert store.session(mine).status == "running"


def test_claim_refuses_finished_sessions_and_sessions_alive_elsewhere(store, character, situation, tmp_path):
    sid = store.create_session(make_spec(), character, situation)
    alive = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        store.db.execute("update sessions set pid = ? where id = ?", [alive.pid, sid])
        with pytest.raises(UserError, match="another process"):
            store.claim(sid)
        assert store.mark_orphans_interrupted() == 0
    finally:
        alive.kill()
        alive.wait()
    store.claim(sid)
    assert store.session(sid).pid is not None
    store.set_status(sid, "finished")
    with pytest.raises(UserError, match="already finished"):
        store.claim(sid)


def test_replay_gives_turns_in_order_with_judges_and_people(store, character, situation):
    sid, rec = _record_two_turns(store, character, situation)
    rec.handle(VerdictReady(judged("j1", turns=[_score(1), _score(2)])))
    rec.handle(VerdictReady(judged("j2", turns=[_score(1, ic=2), _score(2)])))
    store.add_human_score(sid, 2, "in_character", 1, "ana")
    store.add_human_score(sid, 2, "in_character", 5, "ana", "changed my mind")
    steps = replay(store, sid)
    assert [s.turn for s in steps] == [1, 2]
    assert steps[0].user.text == "q1" and steps[0].assistant.text == "a1"
    assert list(steps[0].judges) == ["j1", "j2"] and steps[0].judge_mean("in_character") == 3
    assert [p.current for p in steps[1].people] == [False, True]
    assert steps[1].current("in_character").value == 5 and steps[0].people == []


def test_a_write_that_fails_inside_a_transaction_leaves_nothing(store, character, situation):
    sid = store.create_session(make_spec(), character, situation)
    with pytest.raises(RuntimeError):
        with store.transaction() as db:
            db["messages"].insert({"session_id": sid, "turn": 1, "role": "user", "author": "x", "text": "t"})
            store.add_message(sid, Message(turn=1, role="assistant", author="x", text="t"))
            raise RuntimeError("boom")
    assert store.messages(sid) == []


def test_the_judge_totals_agree_with_the_score_rows_after_retries(store, character, situation):
    """The leaderboard reads per (session, judge) totals kept by triggers; the screens read the rows.
    Both must give the same final, also after a failed turn was retried."""
    from pingpong.sessions.scoring import session_finals

    sid = store.create_session(make_spec(), character, situation)
    for t in (1, 2):
        store.add_message(sid, Message(turn=t, role="user", author="i", text="q"))
        store.add_message(sid, Message(turn=t, role="assistant", author="p", text="a"))
    store.add_verdict(sid, judged("j", turns=[turn_scores(1, in_character=5, entertaining=4, fluency=3,
                                                          is_refusal=False),
                                              turn_scores(2, status="failed", error="bad JSON")]))
    store.add_verdict(sid, judged("j", turns=[turn_scores(2, in_character=1, entertaining=2, fluency=3,
                                                          is_refusal=False)]))
    store.add_verdict(sid, judged("k", turns=[turn_scores(1, overall=7.0), turn_scores(2, overall=9.0)]))
    by_totals = session_finals(store.conn, {sid: "pingpong"})[sid]
    by_rows = store.session(sid).final
    assert by_totals == by_rows
    assert by_rows.value == pytest.approx(((5 + 1) / 2 + (4 + 2) / 2 + 3) / 3 / 2 + 8 / 2)
