"""What a watcher of batch runs sees (the TUI's Watch screen), read from the database by what changed.

A run of thousands of sessions changes a few dozen of them a second. RunWatch remembers where it
last looked (the newest session, message and score ids) and reads again only the sessions created
or written to since, and those whose status moved: every status change starts or ends at
"running", so the sessions that started or stopped running since the last look cover them all.
Nothing is read while the database has not changed (SQLite's data_version).
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from dataclasses import dataclass, field

from pingpong.sessions import queries

NO_RUN = 0  # pseudo-run: sessions started one at a time (pingpong play, the TUI)
SINGLE = "single sessions"
STATUSES = ("running", "finished", "failed", "interrupted")


@dataclass(frozen=True)
class RunRow:
    id: int
    name: str
    total: int  # sessions written so far
    counts: tuple[int, ...]  # per STATUSES
    planned: int  # sessions the run will have (its plan), at least those written


@dataclass(frozen=True)
class SessionRow:
    id: int
    character: str
    situation: str
    player: str
    status: str
    turns: int
    num_turns: int | None
    judged: int


@dataclass
class WatchUpdate:
    """What changed since the last update. `whole`: `sessions` are all of run_id's sessions (the run
    is new to the watcher); otherwise they are the changed and the new ones. `generation` counts
    whole updates, so a consumer can tell a change from before its last whole update."""

    runs: list[RunRow]
    run_id: int | None
    sessions: list[SessionRow]
    whole: bool
    generation: int


def _key(run_id: int) -> int | None:
    return None if run_id == NO_RUN else run_id


def _planned(config: str | None) -> int:
    try:
        return int(json.loads(config or "{}").get("planned") or 0)
    except (ValueError, TypeError, AttributeError):
        return 0


def _session(row: tuple) -> SessionRow:
    sid, _run, character, situation, player, status, num_turns, turns, judged = row
    return SessionRow(sid, character, situation, player, status, int(turns or 0), num_turns, int(judged or 0))


@dataclass
class RunWatch:
    """Reads one run's sessions and every run's counts, a little at a time (one thread at a time)."""

    run_id: int | None = None
    generation: int = 0
    sessions: dict[int, SessionRow] = field(default_factory=dict)
    _version: int | None = None
    _marks: tuple[int, int, int] = (0, 0, 0)
    _running: set[int] = field(default_factory=set)
    _counts: dict[int | None, tuple[int, ...]] = field(default_factory=dict)
    runs: list[RunRow] = field(default_factory=list)  # as the last update gave them

    def read(self, conn: sqlite3.Connection, run_id: int | None) -> WatchUpdate | None:
        """What changed since the last call (None: nothing). run_id None: the run shown so far, else the
        newest; a run other than the last call's starts over with all of its sessions."""
        version = queries.data_version(conn)
        first = self._version is None
        if not first and version == self._version and run_id in (None, self.run_id):
            return None
        self._version = version
        marks, running = queries.last_ids(conn), queries.running_ids(conn)  # before the rows they cover
        if first:
            self._counts = queries.status_counts(conn, STATUSES)
            rows: list[tuple] = []
        else:
            changed = queries.touched_sessions(conn, self._marks, marks) | (running ^ self._running)
            rows = queries.sessions_by_id(conn, sorted(changed)) if changed else []
        self._marks, self._running = marks, running
        meta = queries.runs(conn)
        singles = bool(self._counts.get(None, (0,))[0]) or any(r[1] is None for r in rows)
        ids = [rid for rid, _name, _config in meta] + ([NO_RUN] if singles else [])
        if run_id not in ids:
            run_id = self.run_id if self.run_id in ids else (ids[0] if ids else None)
        whole = first or run_id != self.run_id
        recount = {r[1] for r in rows}
        if whole and self.run_id is not None:
            recount.add(_key(self.run_id))  # its counts were kept from the rows it showed
        out: list[SessionRow] = []
        if whole:
            self.run_id, self.generation = run_id, self.generation + 1
            found = queries.run_sessions(conn, _key(run_id)) if run_id is not None else []
            self.sessions = {r[0]: _session(r) for r in found}
            out = list(self.sessions.values())
        elif run_id is not None:
            for row in rows:
                if row[1] == _key(run_id) and self.sessions.get(row[0]) != (new := _session(row)):
                    self.sessions[row[0]] = new
                    out.append(new)
        if run_id is not None:
            recount.discard(_key(run_id))
            tally = Counter(s.status for s in self.sessions.values())
            self._counts[_key(run_id)] = (len(self.sessions), *(tally[s] for s in STATUSES))
        if recount:
            counted = queries.status_counts(conn, STATUSES, list(recount))
            self._counts.update({k: counted.get(k, (0,) * (len(STATUSES) + 1)) for k in recount})
        runs = [self._row(rid, name, _planned(config)) for rid, name, config in meta]
        if self._counts.get(None, (0,))[0]:
            runs.append(self._row(NO_RUN, SINGLE, 0))
        if not whole and not out and runs == self.runs:
            return None
        self.runs = runs
        return WatchUpdate(runs, run_id, out, whole, self.generation)

    def _row(self, run_id: int, name: str, planned: int) -> RunRow:
        total, *counts = self._counts.get(_key(run_id)) or (0,) * (len(STATUSES) + 1)
        return RunRow(run_id, name, total, tuple(counts), max(planned, total))

