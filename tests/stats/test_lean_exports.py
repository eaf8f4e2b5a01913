"""The exports read a large database in batches: the same bytes as reading it whole, a bounded number
of reads per batch instead of a database in memory or four reads per session."""

from __future__ import annotations

import io
import json
import re
from collections import defaultdict
from contextlib import contextmanager

from pingpong.core.domain import CallRecord, Score
from pingpong.sessions.exchange_annotations import export_annotations
from pingpong.sessions.exchange_jsonl import export_jsonl, session_documents
from pingpong.sessions.exchange_pingpong_export import (
    VERSIONS,
    file_paths,
    judge_entry,
    results_document,
    results_files,
)
from tests.scores import judged, turn_scores
from tests.stats.conftest import add_session

GOOD = [(4, 3, 5, 0), (2, 5, 4, 0)]


@contextmanager
def statements(store):
    """The SQL statements the store's connection runs inside the block."""
    seen: list[str] = []
    store.conn.set_trace_callback(seen.append)
    try:
        yield seen
    finally:
        store.conn.set_trace_callback(None)


def reading(seen: list[str], table: str) -> list[str]:
    return [s for s in seen if re.search(rf"\bfrom {table}\b", s, re.IGNORECASE)]


def busy_database(store) -> list[int]:
    """Eleven sessions: two methods, several players, two judges, a fork, an unfinished one, one without
    a reply, pairwise verdicts whose calls sit under either session, people's scores."""
    ids = []
    for i in range(8):
        player = ("p/1", "p:1", "q")[i % 3]  # p/1 and p:1 make the same file name
        method = "pingpong-v1" if i % 4 == 3 else "pingpong"
        judges = {"j1": GOOD, "j2": GOOD[:1]} if i % 2 == 0 else {"j1": GOOD}
        ids.append(add_session(store, player, judges, method=method, lang="en" if i < 6 else "de",
                               character=f"hero{i % 2}", situation="chat"))
    ids.append(add_session(store, "q", {"j1": GOOD}, status="running"))
    silent = add_session(store, "q", {}, status="finished")
    store.db.execute("delete from messages where session_id = ? and role = 'assistant'", [silent])
    ids.append(silent)
    ids.append(store.fork(ids[0], 1, player="q"))
    call = CallRecord(role="judge", model="j1", status="ok", prompt_tokens=10, completion_tokens=2)
    for a, b, shown in ((ids[0], ids[7], "ab"), (ids[0], ids[7], "ba"), (ids[2], ids[4], "ba")):
        store.add_pair_verdict(a, b, "j1", shown, Score(metric="pairwise", value=1.0, scale="0-1"), calls=[call])
    store.add_pair_preference(ids[5], ids[1], 0, "dana", "livelier")
    store.add_human_score(ids[1], 1, "fluency", 4, "dana")
    return ids


# --- JSONL ------------------------------------------------------------------------------------------

def test_the_jsonl_export_reads_a_batch_at_a_time_and_writes_the_same_lines(store):
    ids = busy_database(store)
    whole = [json.dumps(d, sort_keys=True) for d in session_documents(store, batch=10_000)]
    assert len(whole) == len(ids)
    for batch in (1, 2, 3, 5):
        with statements(store) as seen:
            assert [json.dumps(d, sort_keys=True) for d in session_documents(store, batch=batch)] == whole
        batches = -(-len(ids) // batch)
        for table in ("messages", "model_calls", "scores"):  # one read of a table per batch, each a range
            ranges = [s for s in reading(seen, table) if "between" in s.lower()]
            assert len(ranges) == batches, (batch, table)
        assert len(reading(seen, "messages")) == batches
        assert len(reading(seen, "pair_scores")) == 1  # read alongside, once
        with_verdicts = len({0 // batch, 1 // batch, 2 // batch})  # the batches holding a pair's first session
        assert len(reading(seen, "model_calls")) == batches + with_verdicts  # their calls, by verdict


def test_the_first_line_comes_before_later_sessions_are_read(store):
    busy_database(store)
    with statements(store) as seen:
        docs = session_documents(store, batch=2)
        next(docs)
        assert len(reading(seen, "messages")) == 1
        rest = list(docs)
    assert len(rest) == 10 and len(reading(seen, "messages")) == 6


def test_the_jsonl_export_of_the_cli_is_unchanged_by_batches(store):
    busy_database(store)
    out = io.StringIO()
    assert export_jsonl(store, out) == 11
    assert out.getvalue() == "".join(json.dumps(d, ensure_ascii=False, sort_keys=True, separators=(",", ":")) + "\n"
                                     for d in session_documents(store, batch=1))


# --- PingPong results files -------------------------------------------------------------------------

def results_one_session_at_a_time(store) -> dict[str, dict]:
    """The files as the export made them before it read in batches: every finished session whole, one
    at a time, grouped in memory."""
    groups = defaultdict(list)
    for method, version in VERSIONS:
        for summary in store.sessions(status="finished", method=method):
            stored = store.session(summary.id)
            if summary.parent_session is not None or not any(m.role == "assistant" for m in stored.messages):
                continue
            for verdict in stored.verdicts:
                entry = judge_entry(stored, verdict, version)
                if entry is not None:
                    key = (summary.lang or stored.character.lang, version, stored.spec.player,
                           stored.spec.interrogator, verdict.judge)
                    groups[key].append((stored, entry))
    paths = file_paths(list(groups))
    return {paths[key]: results_document(key, items[0][0], [e for _, e in items])
            for key, items in sorted(groups.items())}


def test_the_results_files_are_those_of_reading_every_session_whole(store):
    busy_database(store)
    expected = results_one_session_at_a_time(store)
    assert len(expected) >= 6 and any(re.search(r"_[0-9a-f]{8}\.json$", p) for p in expected)  # a clash is in it
    for batch in (1, 2, 200):
        with statements(store) as seen:
            got = list(results_files(store, batch=batch))
        assert [p for p, _ in got] == list(expected)
        assert [json.dumps(d, indent=4) for _, d in got] == [json.dumps(d, indent=4) for d in expected.values()]
        assert not [s for s in seen if "where s.id = ?" in s]  # no session read on its own


def test_a_clashing_file_name_takes_a_hash_only_when_both_files_have_entries(store):
    """p/1 and p:1 share a file name; p:1's judge scored nothing it could use, so p/1 keeps the plain name."""
    add_session(store, "p/1", {"j": GOOD})
    empty = add_session(store, "p:1", {"j": GOOD})
    store.db.execute("delete from scores where session_id = ?", [empty])
    store.add_verdict(empty, judged("j", [turn_scores(1, status="failed")]))
    paths = [p for p, _ in results_files(store, batch=1)]
    assert paths == list(results_one_session_at_a_time(store)) == ["en/judge_j_player_p_1_interrogator_asker.json"]


def test_the_results_export_reads_each_files_sessions_in_batches(store):
    for i in range(9):
        add_session(store, "p", {"j1": GOOD, "j2": GOOD})
    with statements(store) as seen:
        files = list(results_files(store, batch=4))
    assert len(files) == 2 and all(len(doc["outputs"]) == 9 for _, doc in files)
    assert len(reading(seen, "messages")) == 2 * 3 + 1  # per file, 9 sessions in 3 batches; the light query
    assert len(reading(seen, "sessions")) == 1 + 2 * 3


# --- annotations ------------------------------------------------------------------------------------

def test_the_annotation_export_reads_only_the_sessions_people_rated_as_a_whole(store):
    ids = [add_session(store, "p", {"j": GOOD}, method="pingpong-v1" if i % 5 == 4 else "pingpong") for i in range(20)]
    store.add_human_score(ids[3], 1, "fluency", 2, "dana")  # a turn's score: no line
    store.add_human_score(ids[7], None, "fluency", 2, "dana")
    store.add_human_score(ids[7], None, "fluency", 4, "dana", created_at="2099-01-01T00:00:00")
    store.add_human_score(ids[7], None, "in_character", 5, "eli")
    store.add_human_score(ids[9], None, "entertaining", 7, "eli")
    with statements(store) as seen:
        out = io.StringIO()
        assert export_annotations(store, out) == 3
    lines = [json.loads(x) for x in out.getvalue().splitlines()]
    assert [(x["author"], x["human_scores"], x.get("version")) for x in lines] == [
        ("eli", {"in_character": 5}, None), ("dana", {"fluency": 4}, None),  # dana's of 2099 is the newest
        ("eli", {"entertaining": 7}, 1)]
    assert len(reading(seen, "messages")) == 2  # the rated sessions of each method, in one read
    assert not [s for s in seen if "where s.id = ?" in s]


def test_stored_sessions_reads_many_as_session_reads_one(store):
    ids = busy_database(store)
    assert store.stored_sessions([*reversed(ids), 10_000]) == [store.session(i) for i in ids]
    (first,) = store.stored_sessions([ids[0]], judges=["j2"])
    assert [v.judge for v in first.verdicts] == ["j2"] and first.verdicts == store.session(ids[0]).verdicts[1:]
    assert store.stored_sessions([]) == []
