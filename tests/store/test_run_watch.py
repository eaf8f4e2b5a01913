"""RunWatch (the Watch screen's reader) sees every change another connection commits, reading only the
sessions that changed, and agrees with a fresh full read after any mix of writes."""

from __future__ import annotations

import pytest

from pingpong.core.domain import Message
from pingpong.sessions.run_watch import NO_RUN, STATUSES, RunWatch, WatchUpdate
from pingpong.sessions.store import Store
from tests.scores import likert, verdict
from tests.store.conftest import make_spec


@pytest.fixture
def reader(store):
    other = Store(store.path)  # the watcher's own connection, as in the TUI's worker thread
    yield other
    other.close()


def _session(store, character, situation, run_id=None) -> int:
    return store.create_session(make_spec(), character, situation, run_id)


def _reply(store, sid: int, turn: int) -> None:
    store.add_message(sid, Message(turn=turn, role="user", author="offline", text=f"Question {turn}?"))
    store.add_message(sid, Message(turn=turn, role="assistant", author="offline", text=f"Answer {turn}."))


def _read(watch: RunWatch, reader: Store, run_id: int | None = None) -> WatchUpdate:
    update = watch.read(reader.conn, run_id)
    assert update is not None
    return update


def test_a_first_read_shows_the_newest_run_whole_then_nothing_until_a_commit(store, reader, character, situation):
    old, new = store.run_id("old"), store.run_id("new", {"planned": 5})
    _session(store, character, situation, old)
    a, b = (_session(store, character, situation, new) for _ in range(2))
    store.set_status(a, "finished")
    watch = RunWatch()
    update = _read(watch, reader)
    assert (update.whole, update.run_id) == (True, new)
    assert [s.id for s in update.sessions] == [a, b]
    counts = {r.id: (r.name, r.total, dict(zip(STATUSES, r.counts)), r.planned) for r in update.runs}
    assert counts[new] == ("new", 2, {"running": 1, "finished": 1, "failed": 0, "interrupted": 0}, 5)
    assert counts[old][1:3] == (1, {"running": 1, "finished": 0, "failed": 0, "interrupted": 0})
    assert watch.read(reader.conn, None) is None  # nothing committed since


def test_only_changed_and_new_sessions_come_back(store, reader, character, situation):
    run = store.run_id("nightly")
    first, second = (_session(store, character, situation, run) for _ in range(2))
    watch = RunWatch()
    _read(watch, reader)
    _reply(store, second, 1)
    update = _read(watch, reader, run)
    assert not update.whole and [(s.id, s.turns) for s in update.sessions] == [(second, 1)]
    store.add_verdict(second, verdict("judge-a", likert(1, 4, 3, 5)))
    third = _session(store, character, situation, run)
    update = _read(watch, reader, run)
    assert [(s.id, s.judged) for s in update.sessions] == [(second, 1), (third, 0)]
    store.set_status(first, "interrupted")  # a status change alone (no message): it was running
    update = _read(watch, reader, run)
    assert [(s.id, s.status) for s in update.sessions] == [(first, "interrupted")]
    assert dict(zip(STATUSES, update.runs[0].counts))["interrupted"] == 1


def test_another_runs_changes_update_its_counts_but_send_no_sessions(store, reader, character, situation):
    shown, other = store.run_id("shown"), store.run_id("other")
    _session(store, character, situation, shown)
    watch = RunWatch()
    _read(watch, reader, shown)
    sid = _session(store, character, situation, other)
    _session(store, character, situation)  # outside any run: the single sessions appear
    update = _read(watch, reader, shown)
    assert update.sessions == [] and not update.whole
    assert [(r.id, r.total) for r in update.runs] == [(other, 1), (shown, 1), (NO_RUN, 1)]
    store.set_status(sid, "failed", "boom")
    update = _read(watch, reader, shown)
    assert dict(zip(STATUSES, update.runs[0].counts))["failed"] == 1


def test_choosing_another_run_reads_it_whole_in_a_new_generation(store, reader, character, situation):
    a, b = store.run_id("a"), store.run_id("b")
    in_a = _session(store, character, situation, a)
    watch = RunWatch()
    first = _read(watch, reader)
    assert first.run_id == b and first.sessions == []
    update = _read(watch, reader, a)  # nothing committed, yet another run: whole
    assert (update.whole, update.run_id, [s.id for s in update.sessions]) == (True, a, [in_a])
    assert update.generation == first.generation + 1


def test_after_any_mix_of_writes_the_increments_add_up_to_a_fresh_read(store, reader, character, situation):
    run, other = store.run_id("nightly"), store.run_id("other")
    watch = RunWatch()
    _read(watch, reader, run)
    ids: list[int] = []
    turns: dict[int, int] = {}
    for step in range(12):
        ids.append(_session(store, character, situation, run if step % 3 else other))
        for sid in ids[-3:]:
            if step % 2:
                turns[sid] = turns.get(sid, 0) + 1
                _reply(store, sid, turns[sid])
            else:
                store.add_verdict(sid, verdict(f"judge-{step}", likert(1, 4, 3, 5)))
        if step % 4 == 3:
            store.set_status(ids[-2], ("finished", "failed", "interrupted")[step % 3])
        watch.read(reader.conn, run)
    fresh = RunWatch()
    whole = _read(fresh, reader, run)
    assert watch.sessions == fresh.sessions and len(whole.sessions) == 8
    assert watch.read(reader.conn, run) is None
    assert _read(RunWatch(), reader, run).runs == whole.runs
    assert watch.runs == whole.runs  # what the last update said of every run
