"""A process that records a stored session with the offline models until it is killed.

Run as `python -m tests.store.record_child DB NUM_TURNS STOP_AFTER`: it starts a
session of the test card and situation (as the TUI and the runner do) and runs it. After
STOP_AFTER messages it keeps writing call rows in a loop, so the SIGKILL of the
test lands while the process is busy writing, in the middle of the session.
"""

from __future__ import annotations

import asyncio
import sys

from pingpong.core.config import offline_spec
from pingpong.core.domain import CallRecord
from pingpong.core.events import MessageCompleted
from pingpong.core.llm import ModelPool
from pingpong.sessions.live import run_session, start_session
from pingpong.sessions.store import Store
from tests.store.conftest import make_character, make_situation, make_spec


async def record(db: str, num_turns: int, stop_after: int) -> None:
    store = Store(db)
    session_id = start_session(store, make_spec(num_turns=num_turns), make_character(), make_situation())
    pool = ModelPool({"offline": offline_spec()})
    seen = 0
    async for event in run_session(store, pool, session_id):
        if isinstance(event, MessageCompleted):
            seen += 1
            print(f"message {seen}", flush=True)
            if seen >= stop_after:
                while True:  # busy writing when the kill arrives
                    store.add_call(session_id, CallRecord(role="player", model="offline", status="ok"))
                    await asyncio.sleep(0)


if __name__ == "__main__":
    asyncio.run(record(sys.argv[1], int(sys.argv[2]), int(sys.argv[3])))
