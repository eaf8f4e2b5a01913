"""A process that writes a pingpong database in a loop for some seconds, then prints its counts.

Run as `python -m tests.store.writer DB SECONDS LABEL`. Used by the concurrency
test and by benchmarks/concurrent_writers.py: several of these at once must
never see "database is locked".
"""

from __future__ import annotations

import json
import sys
import time

from pingpong.core.domain import CallRecord, Message
from pingpong.sessions.store import Store
from tests.scores import judged, turn_scores
from tests.store.conftest import make_character, make_situation, make_spec


def write_for(db: str, seconds: float, label: str) -> dict[str, int]:
    store = Store(db)
    character, situation = make_character(), make_situation(3)
    counts = {"sessions": 0, "messages": 0, "calls": 0, "verdicts": 0, "human_scores": 0, "reads": 0}
    deadline = time.monotonic() + seconds
    run = store.run_id(f"writers-{label}")
    while time.monotonic() < deadline:
        sid = store.create_session(make_spec(player=label), character, situation, run)
        counts["sessions"] += 1
        for turn in range(1, 4):
            for role in ("user", "assistant"):
                store.add_message(sid, Message(turn=turn, role=role, author=label, text=f"{label} {turn} {role}"))
                counts["messages"] += 1
            store.add_call(sid, CallRecord(role="player", model=label, turn=turn, status="ok", latency_ms=1.0))
            counts["calls"] += 1
        store.add_verdict(sid, judged(label, turns=[
            turn_scores(t, is_refusal=False, in_character=3, entertaining=4, fluency=5) for t in range(1, 4)]))
        counts["verdicts"] += 1
        store.add_human_score(sid, 2, "fluency", 4, label)
        counts["human_scores"] += 1
        store.set_status(sid, "finished")
        store.sessions(limit=5, newest_first=True)
        store.session(sid)
        store.mark_orphans_interrupted()
        counts["reads"] += 1
    store.close()
    return counts


if __name__ == "__main__":
    db, seconds, label = sys.argv[1], float(sys.argv[2]), sys.argv[3]
    print(json.dumps(write_for(db, seconds, label)))
