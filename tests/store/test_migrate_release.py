"""A database written by the first release (schema of migrations 1-2) migrates with nothing lost.

The fixture was written by release 0.1 itself: an offline v2 run, an offline v1 run and three
people's scores (two on one turn, one refusal flag); `release-0.1-leaderboard.json` is what that
release's `pingpong leaderboard --run <the v2 run> --format json` printed.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from pingpong.sessions.leaderboard import compute_leaderboard
from pingpong.sessions.store import Store

FIXTURES = Path(__file__).parent / "fixtures"
V2_RUN = "offline-vs-offline-judged-by-offline-en"


@pytest.fixture
def old_db(tmp_path):
    path = tmp_path / "pingpong.db"
    conn = sqlite3.connect(path)
    conn.executescript((FIXTURES / "release-0.1.sql").read_text(encoding="utf-8"))
    conn.close()
    return path


def _old(path, sql):
    conn = sqlite3.connect(path)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def test_every_message_and_score_survives(old_db):
    messages = _old(old_db, "select session_id, turn, role, author, text from messages order by session_id, turn, role desc")
    judged = _old(old_db, "select session_id, judge, turn, is_refusal, in_character, entertaining, fluency, overall,"
                          " status from turn_scores order by id")
    people = _old(old_db, "select session_id, turn, metric, value, author, reason, created_at from human_scores"
                          " order by id")
    versions = dict(_old(old_db, "select id, version from sessions"))
    with Store(old_db) as store:
        assert "m003_methods_and_scores" in store.applied_migrations()
        for sid, version in versions.items():
            assert store.session(sid).spec.method == ("pingpong-v1" if version == 1 else "pingpong")
        after = [(sid, m.turn, m.role, m.author, m.text) for sid in sorted(versions)
                 for m in store.messages(sid)]
        assert sorted(after) == sorted(messages)
        assert all(m.speaker for sid in versions for m in store.messages(sid))
        for sid, judge, turn, refusal, ic, en, fl, overall, status in judged:
            view = next(t for v in store.verdicts(sid) if v.judge == judge for t in v.turns if t.turn == turn)
            assert view.status == (status or "ok")
            assert (view.is_refusal, view.in_character, view.entertaining, view.fluency, view.overall) == (
                None if refusal is None else bool(refusal), ic, en, fl, overall)
        kept = [(sid, h.turn, h.metric, h.value, h.author, h.reason, h.created_at)
                for sid in sorted(versions) for h in store.human_scores(sid)]
        assert sorted(kept) == sorted(people)


def test_the_leaderboard_is_unchanged_and_v1_has_its_own(old_db):
    (before,) = json.loads((FIXTURES / "release-0.1-leaderboard.json").read_text(encoding="utf-8"))
    with Store(old_db) as store:
        (row,) = compute_leaderboard(store, run=V2_RUN)
        after = row.to_json()
        for key, value in before.items():
            assert after[key] == pytest.approx(value, abs=1e-9), key
        assert after["method"] == "pingpong"
        v2_all = compute_leaderboard(store)[0]
        assert v2_all.conversations == before["conversations"]  # the v1 sessions are not counted here
        (v1,) = compute_leaderboard(store, method="pingpong-v1")
        assert v1.method == "pingpong-v1" and v1.conversations == len(
            _old(old_db, "select id from sessions where version = 1 and status = 'finished'"))


def test_sessions_list_shows_the_merged_final_marked_where_people_scored(old_db):
    with Store(old_db) as store:
        rows = {s.id: s for s in store.sessions()}
        leaderboard_final = {}
        for sid in rows:
            leaderboard_final[sid] = store.session(sid).final
        assert rows[1].final_text.endswith("*") and not rows[3].final_text.endswith("*")
        for sid, summary in rows.items():
            final = leaderboard_final[sid]
            assert summary.final == final.to_json()
