"""The Home list from the database (sessions.listing): the filter and the sorts give what the rows
show, a changed session is put in place as a fresh read would, and what changed is found."""

from __future__ import annotations

import pytest

from pingpong.core.domain import Message
from pingpong.sessions import listing, queries
from pingpong.sessions.listing import SORTS, ListQuery
from tests.scores import judged, turn_scores
from tests.store.conftest import make_character, make_situation, make_spec

WORDS = ["ferry", "FERRY", "cargo", "offline", "human", "fin", "failed", "run", "live", "4.00", "4", "3.67", "*",
         "refusal", "no", "judges", "-", "1", "01-0", "10:0", "%", "_", "кот", "Кот", "КОТ", "Кот-учёный", "кот-учёный", "player-b", "ferry 4.00",
         "human failed", "e", ".", "zzz"]


def write(store, *, character="ferry-captain", player="player-a", judges=("judge-a",), status="finished",
          human_turn=False, scores=(4, 3, 5), refusal=False, day=1) -> int:
    spec = make_spec(character=character, player=player, judges=list(judges), num_turns=2)
    sid = store.create_session(spec, make_character(), make_situation(2))
    for turn in (1, 2):
        author = "human" if human_turn and turn == 1 else "offline"
        store.add_message(sid, Message(turn=turn, role="user", author=author, text=f"Question {turn}?"))
        store.add_message(sid, Message(turn=turn, role="assistant", author=player, text=f"Answer {turn}."))
    for judge in judges if status == "finished" else ():
        store.add_verdict(sid, judged(judge, turns=[
            turn_scores(t, is_refusal=refusal and t == 1, in_character=scores[0], entertaining=scores[1],
                        fluency=scores[2]) for t in (1, 2)]))
    store.set_status(sid, status)
    stamp = f"2026-01-0{day}T10:0{sid % 10}:00"
    store.db.execute("update sessions set created_at = ? where id = ?", [stamp, sid])
    return sid


@pytest.fixture
def filled(store):
    write(store)
    write(store, player="player-b", scores=(3, 3, 5), day=2)
    write(store, character="Кот-учёный", human_turn=True, day=3)
    write(store, judges=(), day=4)
    write(store, refusal=True, day=5)
    write(store, status="failed", player="player-b", human_turn=True, day=6)
    write(store, status="running", day=7)
    write(store, status="running", player="player-b", day=8)
    scored = write(store, judges=("judge-a", "judge-b"), day=9)
    store.add_human_score(scored, 1, "in_character", 5, "dana")
    return store


def reference(store, query: ListQuery) -> list[int]:
    """What the list must be: every word in the shown cells, sorted as the columns read."""
    summaries = {s.id: s for s in store.sessions(newest_first=True)}
    rows = listing.rows(store, list(summaries), query.live)
    shown = [rows[sid] for sid in summaries
             if all(w.lower() in " ".join(rows[sid].cells()).lower() for w in query.words)]
    if query.sort == "final":  # scored after unscored; ties newest first, as a stable sort leaves them
        shown.sort(key=lambda r: (r.final is not None, r.final or 0.0), reverse=query.descending)
        return [r.id for r in shown]
    value = {"id": lambda r: r.id, "status": lambda r: (r.status, r.id),
             "interrogator": lambda r: (summaries[r.id].interrogator, r.id),
             "created": lambda r: (summaries[r.id].created_at, r.id)}.get(
        query.sort, lambda r: (getattr(r, query.sort), r.id))
    return [r.id for r in sorted(shown, key=value, reverse=query.descending)]


def test_the_filter_and_every_sort_list_what_the_rows_show(filled):
    running = [s.id for s in filled.sessions(status="running")]
    live = frozenset(running[:1])  # this app runs one of them: its status reads "live"
    finals = listing.FinalCells()
    for word in WORDS:
        query = ListQuery(tuple(word.split()), live=live)  # as typed
        assert listing.listing(filled.conn, query, finals).ids == reference(filled, query), word
    for sort in SORTS:
        for descending in (True, False):
            for words in ((), ("ferry",), ("4",)):
                query = ListQuery(words, sort, descending, live)
                assert listing.listing(filled.conn, query, finals).ids == reference(filled, query), (sort, words)


def test_the_newest_come_without_the_whole_order(filled):
    assert listing.newest(filled.conn, ListQuery(), 3) == [9, 8, 7]
    assert listing.newest(filled.conn, ListQuery(("ferry",)), 3) is None  # filtered: read the order


@pytest.mark.parametrize("sort", SORTS)
def test_changed_sessions_are_put_in_place_as_a_fresh_read_would(filled, sort):
    finals = listing.FinalCells()
    for query in (ListQuery(sort=sort), ListQuery(("ferry",), sort, False), ListQuery(("4",), sort)):
        kept = listing.listing(filled.conn, query, finals)
        stamp = queries.sessions_stamp(filled.conn)
        new = write(filled, player="player-c", scores=(5, 5, 5), day=1)
        filled.set_status(2, "failed")  # leaves "4", moves in the status order
        filled.add_human_score(1, 2, "fluency", 1, "dana")  # a person's score: only the scores change
        changed = queries.sessions_changed(filled.conn, stamp)
        assert {new, 2, 1} <= set(changed)
        kept.place(listing.changes(filled.conn, query, finals, changed))
        assert kept.ids == listing.listing(filled.conn, query, listing.FinalCells()).ids, query


def test_what_changed_is_found_and_nothing_else(store):
    first, second = write(store), write(store)
    stamp = queries.sessions_stamp(store.conn)
    assert queries.sessions_changed(store.conn, stamp) == []
    assert queries.sessions_stamp(store.conn) == stamp  # nothing written: the same stamp
    store.set_status(first, "interrupted")
    assert queries.sessions_changed(store.conn, stamp) == [first]
    stamp = queries.sessions_stamp(store.conn)
    imported = write(store)
    store.db.execute("update sessions set updated_at = '2020-01-01T00:00:00' where id = ?", [imported])
    assert queries.sessions_changed(store.conn, stamp) == [imported]  # an import keeps its old times
    stamp = queries.sessions_stamp(store.conn)
    store.add_human_score(second, 1, "fluency", 2, "dana")
    assert queries.sessions_stamp(store.conn) != stamp
    assert queries.sessions_changed(store.conn, stamp) == [second]
    store.db.execute("update sessions set updated_at = '2999-01-01T00:00:00' where id = ?", [first])
    stamp = queries.sessions_stamp(store.conn)  # a row from the future does not hide later writes
    store.set_status(second, "failed")
    assert queries.sessions_changed(store.conn, stamp) == [second]


def test_a_second_write_in_the_same_millisecond_is_seen(store):
    """Two writes of one session may carry the same `updated_at` (its last message, then its end):
    a look between them must still see the second."""
    sid = write(store)
    same = "2026-11-26T12:00:00.000"
    store.db.execute("update sessions set updated_at = ? where id = ?", [same, sid])
    stamp = queries.sessions_stamp(store.conn)
    store.db.execute("update sessions set status = 'finished', updated_at = ? where id = ?", [same, sid])
    assert queries.sessions_stamp(store.conn) != stamp
    assert queries.sessions_changed(store.conn, stamp) == [sid]


def test_a_message_counts_once_and_a_new_judge_is_seen(store):
    """A player's message also moves the session's character total (a trigger): one change, not two."""
    sid = write(store)
    before = queries.sessions_stamp(store.conn)
    store.add_message(sid, Message(turn=9, role="assistant", author="player-a", text="One more answer."))
    assert queries.sessions_stamp(store.conn).change == (before.change or 0) + 1
    stamp = queries.sessions_stamp(store.conn)
    store.add_judge(sid, "judge-z")  # an import merging files: only the judges column changes
    assert queries.sessions_changed(store.conn, stamp) == [sid]


def test_a_removed_session_leaves_no_change_behind(store):
    kept, removed = write(store), write(store)
    store.db.execute("delete from scores where session_id = ?", [removed])
    store.db.execute("delete from judge_totals where session_id = ?", [removed])
    store.db.execute("delete from messages where session_id = ?", [removed])
    store.db.execute("delete from sessions where id = ?", [removed])
    assert [r[0] for r in store.db.execute("select session_id from session_changes")] == [kept]


def test_the_whole_list_is_read_from_an_index_not_the_sessions_rows(filled):
    """The rows carry the card and situation snapshots (kilobytes each): a filter or a sort over every
    session must scan the index of the listed columns (migration 12), whatever the words."""
    statements: list[str] = []
    filled.conn.set_trace_callback(statements.append)
    try:
        for sort in SORTS:
            listing.listing(filled.conn, ListQuery(("ferry", "4", "-", "human"), sort, live=frozenset({7})),
                            listing.FinalCells())
    finally:
        filled.conn.set_trace_callback(None)
    lists = [sql for sql in statements if sql.startswith("SELECT s.id") and "FROM sessions s" in sql]
    assert len(lists) >= len(SORTS)  # the order, and what the final cells need besides the scores
    for sql in lists:
        plan = [row[3] for row in filled.conn.execute("EXPLAIN QUERY PLAN " + sql)]
        assert plan[0] == "SCAN s USING COVERING INDEX idx_sessions_list", plan


def test_a_name_in_mixed_case_is_found_as_typed_in_any_script(store):
    """SQLite's LIKE ignores case for ASCII letters only: 'ЯндексГПТ' typed exactly as the player
    column shows it found nothing."""
    wanted = write(store, player="ЯндексГПТ")
    write(store, player="player-b")
    for typed in ("ЯндексГПТ", "яндекс", "Яндекс", "ГПТ"):
        assert listing.listing(store.conn, ListQuery((typed,)), listing.FinalCells()).ids == [wanted], typed


def test_finding_an_imported_session_by_its_creation_reads_an_index_not_every_session(store):
    """Import asks once per session whether it is stored already: a scan of every session of its
    method made importing into a big database take time in proportion to the database times the file."""
    statements: list[str] = []
    store.conn.set_trace_callback(statements.append)
    try:
        assert store.find_session("2026-01-01T00:00:00", "p", None, None, None, "pingpong", "en") is None
    finally:
        store.conn.set_trace_callback(None)
    sql = next(s for s in statements if s.startswith("select min(id) from sessions"))
    plan = " ".join(row[3] for row in store.conn.execute("EXPLAIN QUERY PLAN " + sql.replace("?", "NULL")))
    assert "USING INDEX idx_sessions_created" in plan, plan
