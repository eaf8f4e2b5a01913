"""Opening a database: migrations on an empty file, and refusing files we must not touch."""

from __future__ import annotations

import hashlib
import sqlite3

import pytest

from pingpong.core.errors import UserError
from pingpong.sessions.migrations import MIGRATIONS
from pingpong.sessions.store import Store

EXPECTED = {
    "runs": {"id", "name", "created_at", "config"},
    "sessions": {"id", "run_id", "status", "version", "lang", "character", "situation", "player",
                 "interrogator", "judges", "num_turns", "character_snapshot", "situation_snapshot",
                 "spec", "error", "pid", "host", "created_at", "updated_at", "finished_at",
                 "player_chars", "player_messages", "method", "parent_session", "fork_turn", "cast_snapshot",
                 "seats"},
    "messages": {"id", "session_id", "turn", "role", "author", "text", "prompt_tokens", "notes",
                 "completion_tokens", "tokens_estimated", "latency_ms", "attempt", "created_at",
                 "speaker", "seq"},
    "model_calls": {"id", "session_id", "role", "model", "turn", "attempt", "status", "error",
                    "prompt_tokens", "completion_tokens", "tokens_estimated", "latency_ms", "created_at",
                    "pair_score_id"},
    "scores": {"id", "session_id", "turn", "metric", "value", "scale", "source", "by", "explanation", "status",
               "error", "created_at"},
    "judge_totals": {"session_id", "judge", "ic_sum", "ic_n", "en_sum", "en_n", "fl_sum", "fl_n", "refusal",
                     "ov_sum", "ov_n"},
    "pair_scores": {"id", "session_a", "session_b", "shown", "metric", "value", "scale", "source", "by", "explanation",
                    "status", "error", "created_at"},
    "annotation_queues": {"id", "author", "spec", "created_at"},
    "annotation_items": {"queue_id", "position", "session_id", "done_at"},
    "session_changes": {"seq", "session_id"},
    "_migrations": {"name", "applied_at"},
}


def _digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_migrating_an_empty_database_gives_the_expected_columns(tmp_path):
    path = tmp_path / "deep" / "folder" / "pingpong.db"  # parent folders are created
    store = Store(path)
    try:
        for table, columns in EXPECTED.items():
            assert set(store.db[table].columns_dict) == columns, table
        assert store.applied_migrations() == [fn.__name__ for fn in MIGRATIONS]
        assert store.db.execute("pragma journal_mode").fetchone()[0] == "wal"
        unique = {tuple(i.columns) for i in store.db["messages"].indexes if i.unique}
        assert ("session_id", "seq") in unique  # transcript order; (turn, role, speaker) is unique too
        assert any(cols[:3] == ("session_id", "turn", "role") for cols in unique)
        assert not any("key" in c for t in EXPECTED for c in EXPECTED[t] if t != "_migrations")
    finally:
        store.close()


def test_reopening_applies_nothing_twice(tmp_path):
    path = tmp_path / "pingpong.db"
    Store(path).close()
    store = Store(path)
    try:
        assert store.db.execute("select count(*) from _migrations").fetchone()[0] == len(MIGRATIONS)
    finally:
        store.close()


def test_a_file_that_is_not_sqlite_is_refused_and_left_alone(tmp_path):
    path = tmp_path / "notes.db"
    path.write_bytes(b"these are my notes, not a database\n" * 50)
    before = _digest(path)
    with pytest.raises(UserError) as err:
        Store(path)
    assert str(path) in str(err.value) and "not a database" in str(err.value)
    assert _digest(path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.db"]


def test_a_database_from_a_newer_version_is_refused_and_left_alone(tmp_path):
    path = tmp_path / "pingpong.db"
    Store(path).close()
    conn = sqlite3.connect(path)
    conn.execute("insert into _migrations (name, applied_at) values ('m999_from_the_future', 'later')")
    conn.commit()
    conn.close()
    before = _digest(path)
    with pytest.raises(UserError) as err:
        Store(path)
    assert str(path) in str(err.value) and "m999_from_the_future" in str(err.value)
    assert _digest(path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pingpong.db"]


def test_someone_elses_sqlite_database_is_refused(tmp_path):
    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    conn.execute("create table recipes (name text)")
    conn.commit()
    conn.close()
    before = _digest(path)
    with pytest.raises(UserError, match="not a pingpong"):
        Store(path)
    assert _digest(path) == before


def test_player_length_totals_follow_the_messages_also_after_upgrading(tmp_path):
    """Migration 2 backfills the totals of a version-1 database; its triggers keep them."""
    import sqlite_utils

    from pingpong.sessions.migrations import m001_initial

    path = tmp_path / "old.db"
    old = sqlite_utils.Database(path)
    m001_initial(old)
    old.execute("create table _migrations (name text primary key, applied_at text not null)")
    old.execute("insert into _migrations values ('m001_initial', 'then')")
    old["sessions"].insert({"id": 1, "status": "finished"})
    old["messages"].insert_all([
        {"session_id": 1, "turn": 1, "role": "user", "text": "hello there"},
        {"session_id": 1, "turn": 1, "role": "assistant", "text": "abcd"},
    ])
    old.conn.commit()
    old.close()
    store = Store(path)
    try:
        totals = "select player_chars, player_messages from sessions where id = 1"
        assert store.db.execute(totals).fetchone() == (4, 1)
        with store.transaction() as db:
            db.execute("insert into messages (session_id, turn, role, text) values (1, 2, 'assistant', 'xyz')")
            db.execute("insert into messages (session_id, turn, role, text) values (1, 2, 'user', 'ignored')")
        assert store.db.execute(totals).fetchone() == (7, 2)
        with store.transaction() as db:
            db.execute("delete from messages where turn = 1 and role = 'assistant'")
        assert store.db.execute(totals).fetchone() == (3, 1)
    finally:
        store.close()


def test_judge_totals_go_on_adding_up_after_the_upsert_triggers_replace_the_old_ones(tmp_path):
    """Migration 14 replaces migration 4's triggers: totals kept by the old ones stand, and the
    new ones add new scores and retried turns to them."""
    import sqlite_utils

    path = tmp_path / "old.db"
    old = sqlite_utils.Database(path)
    old.execute("create table _migrations (name text primary key, applied_at text not null)")
    before = [fn for fn in MIGRATIONS if fn.__name__ < "m014"]
    for fn in before:
        fn(old)
        old.execute("insert into _migrations values (?, 'then')", [fn.__name__])
    old.execute("insert into sessions (id, status) values (1, 'finished')")
    insert = ("insert into scores (session_id, turn, metric, value, scale, source, by, status, created_at)"
              " values (1, ?, ?, ?, '1-5', 'judge', 'j', ?, 'then')")
    old.execute(insert, [1, "in_character", 4, "ok"])
    old.execute(insert, [2, "in_character", None, "failed"])
    old.conn.commit()
    old.close()
    store = Store(path)
    try:
        totals = "select ic_sum, ic_n, refusal from judge_totals where session_id = 1 and judge = 'j'"
        assert store.db.execute(totals).fetchone() == (4, 1, 0)
        with store.transaction() as db:
            db.execute(insert, [3, "in_character", 2, "ok"])
            db.execute(insert, [3, "is_refusal", 1, "ok"])
            db.execute("update scores set value = 5, status = 'ok' where turn = 2")   # the retried turn
        assert store.db.execute(totals).fetchone() == (11, 3, 1)
    finally:
        store.close()


def test_opening_an_up_to_date_database_takes_no_write_lock(tmp_path):
    import sqlite3

    path = tmp_path / "pingpong.db"
    Store(path).close()
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another process is writing
    try:
        with Store(path) as store:  # would wait for the lock (and time out) if opening wrote
            assert "m003_methods_and_scores" in store.applied_migrations()
    finally:
        holder.execute("ROLLBACK")
        holder.close()


def test_an_older_v1_session_run_with_another_judge_names_its_tester_after_upgrading(tmp_path):
    """Migration 17: earlier releases stored `--judge X` on v1 sessions the tester scored alone."""
    import json

    import sqlite_utils

    path = tmp_path / "old.db"
    old = sqlite_utils.Database(path)
    old.execute("create table _migrations (name text primary key, applied_at text not null)")
    for fn in [fn for fn in MIGRATIONS if fn.__name__ < "m017"]:
        fn(old)
        old.execute("insert into _migrations values (?, 'then')", [fn.__name__])
    for sid, method, interrogator in ((1, "pingpong-v1", "tester"), (2, "pingpong", "asker"), (3, "pingpong-v1", "human")):
        spec = {"method": method, "character": "c", "situation": "s", "player": "p", "interrogator": interrogator,
                "judges": ["never-scored"]}
        old.execute("insert into sessions (id, status, method, interrogator, judges, spec) values (?, 'finished', ?, ?, ?, ?)",
                    [sid, method, interrogator, '["never-scored"]', json.dumps(spec)])
    old.conn.commit()
    old.close()
    store = Store(path)
    try:
        got = store.db.execute("select id, judges, json_extract(spec, '$.judges') from sessions order by id").fetchall()
        assert got == [(1, '["tester"]', '["tester"]'), (2, '["never-scored"]', '["never-scored"]'),
                       (3, '["never-scored"]', '["never-scored"]')]
    finally:
        store.close()
