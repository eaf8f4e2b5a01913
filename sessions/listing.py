"""The sessions list of the Home screen, light on a database of any size.

A screen keeps only the ids of the listed sessions, in order, and reads the rows of the part it
shows (`rows`). A filter and a sort are answered by the database (sessions.queries, over an index
of the listed columns); a refresh reads only the sessions written since the last look
(`queries.sessions_changed`) and places them in the order (`Listing.place`), so nothing else is
read again. The filter matches what the row shows: every word must be part of one of its cells.
"""

from __future__ import annotations

import re
import sqlite3
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pingpong.sessions import queries

if TYPE_CHECKING:
    from pingpong.sessions.store import Store

SORTS: tuple[str, ...] = ("id", "character", "situation", "status", "final", "player", "interrogator", "created")
"""The columns of the list, in order; each can sort it."""

Key = tuple
"""A session's place in a sort: compared as a whole (the id last, so no two are equal)."""

_FINAL_NOTES = ("refusal", "no judges", "-")
_NUMBER = re.compile(r"[0-9.*]+")  # may be part of a final score as shown: 4.40, 4.40*
_CLOCK = re.compile(r"[0-9:-]+")  # may be part of the creation time as shown: 11-23 17:35
_DIGITS = re.compile(r"[0-9]+")


@dataclass(frozen=True)
class ListQuery:
    """What the list shows: filter words (as typed), the sort, and the sessions this app runs
    (their status reads "live")."""

    words: tuple[str, ...] = ()
    sort: str = "id"
    descending: bool = True
    live: frozenset[int] = frozenset()


@dataclass
class Row:
    """One listed session as the table shows it."""

    id: int
    character: str
    situation: str
    player: str
    interrogator: str
    status: str
    final: float | None
    final_text: str  # the final cell: '4.40', '4.40*' (a person changed a score), 'refusal', 'no judges', '-'
    created: str

    def cells(self) -> tuple[str, ...]:
        """The cells in the order of SORTS."""
        return (str(self.id), self.character, self.situation, self.status, self.final_text, self.player,
                self.interrogator, self.created)


def final_cell(text: str, status: str, has_judges: bool) -> str:
    """What the final column says: the final as sessions.scoring writes it, else why there is none."""
    if text:
        return text  # a score, or 'refusal' (a judge flagged one: that scoring is left out of the final)
    if not has_judges:
        return "no judges"
    return "-" if status == "finished" else ""  # finished but unscored (a judge failed, say)


def created_cell(created_at: str | None) -> str:
    return (created_at or "")[5:16].replace("T", " ")


def rows(store: Store, ids: Iterable[int], live: frozenset[int]) -> dict[int, Row]:
    """The rows of these sessions (the part of the list in view), by id."""
    ids = list(ids)
    if not ids:
        return {}
    from pingpong.sessions.seats import interrogator_words

    out = {}
    for s in store.session_rows(ids=ids):
        status = "live" if s["status"] == "running" and s["id"] in live else s["status"]
        seat = interrogator_words(s["method"], s["interrogator_seat"])  # as every other view words it
        out[s["id"]] = Row(s["id"], s["character"], s["situation"], s["player"], seat, status,
                           s["final"], final_cell(s["final_text"], s["status"], bool(s["judges"])),
                           created_cell(s["created_at"]))
    return out


def newest(conn: sqlite3.Connection, query: ListQuery, limit: int) -> list[int] | None:
    """The top of the list without reading the whole order, when that is cheap (newest first,
    unfiltered: the first screen of Home); None otherwise."""
    if query.words or query.sort != "id" or not query.descending:
        return None
    return queries.list_newest(conn, limit)


# ---------------------------------------------------------------- the order


@dataclass
class Listing:
    """The ids of the listed sessions in order, with what it takes to place a changed one."""

    query: ListQuery
    ids: list[int] = field(default_factory=list)
    keys: dict[int, Key] = field(default_factory=dict)  # by id; empty when sorted by id (the id is the key)

    def key(self, sid: int) -> Key:
        return self.keys[sid] if self.query.sort != "id" else (sid,)

    def _before(self, a: Key, b: Key) -> bool:
        return a > b if self.query.descending else a < b

    def _search(self, key: Key) -> int:
        """Where a session with this key goes (binary search)."""
        lo, hi = 0, len(self.ids)
        while lo < hi:
            mid = (lo + hi) // 2
            if self._before(self.key(self.ids[mid]), key):
                lo = mid + 1
            else:
                hi = mid
        return lo

    def position(self, sid: int) -> int | None:
        """The session's index in the list, or None when it is not listed."""
        if self.query.sort != "id" and sid not in self.keys:
            return None
        at = self._search(self.key(sid))
        return at if at < len(self.ids) and self.ids[at] == sid else None

    def place(self, changed: dict[int, Key | None]) -> None:
        """Move changed sessions to their new place: a key None takes the session off the list."""
        for sid, key in changed.items():
            at = self.position(sid)
            if at is not None:
                del self.ids[at]
                self.keys.pop(sid, None)
            if key is None:
                continue
            if self.query.sort != "id":
                self.keys[sid] = key
            self.ids.insert(self._search(key), sid)


class FinalCells:
    """The final cell and value of every session, for the filter words and the sort that need them:
    read in one pass over the scores the first time, then kept up to date with changed sessions."""

    def __init__(self) -> None:
        self._lock = threading.Lock()  # the list's loader and its refresh check run in threads
        self._cells: dict[int, str] | None = None
        self._values: dict[int, float | None] = {}

    def get(self, conn: sqlite3.Connection) -> tuple[dict[int, str], dict[int, float | None]]:
        with self._lock:
            if self._cells is None:
                self._cells = {}
                self._read(conn, None)
            return self._cells, self._values

    def update(self, conn: sqlite3.Connection, ids: Sequence[int]) -> None:
        """Read these sessions' finals again (when the others were read already)."""
        with self._lock:
            if self._cells is not None and ids:
                self._read(conn, ids)

    def _read(self, conn: sqlite3.Connection, within: Sequence[int] | None) -> None:
        from pingpong.sessions.scoring import session_finals

        assert self._cells is not None
        facts = queries.list_facts(conn, within)
        scored = session_finals(conn, {sid: method for sid, _, method, _ in facts}, every=within is None)
        for sid, status, _, has_judges in facts:
            final = scored.get(sid)
            self._cells[sid] = final_cell(final.text() if final else "", status, has_judges)
            self._values[sid] = final.value if final else None


def read(conn: sqlite3.Connection, query: ListQuery, finals: FinalCells,
         within: Sequence[int] | None = None) -> tuple[list[int], dict[int, Key]]:
    """The ids the query lists, in list order, and their sort keys (none when sorted by id: the id
    is the key). within: only these sessions."""
    cells: dict[int, str] = {}
    values: dict[int, float | None] = {}
    if query.sort == "final" or any(_may_be_final(w.lower()) for w in query.words):
        cells, values = finals.get(conn)
    found = queries.list_order(conn, _words(conn, query.words, cells), query.live, query.sort, query.descending,
                               within)
    if query.sort == "id":
        return [row[0] for row in found], {}
    if query.sort != "final":
        by_value: dict[int, Key] = {sid: ("" if value is None else value, sid) for sid, value in found}
        return list(by_value), by_value
    # scored sessions after unscored ones, ties newest first in both directions (as a stable sort
    # of the newest-first list would leave them)
    sign = 1 if query.descending else -1
    keys: dict[int, Key] = {sid: (values.get(sid) is not None, values.get(sid) or 0.0, sign * sid) for (sid,) in found}
    ids = sorted(keys, key=keys.__getitem__, reverse=query.descending)
    return ids, keys


def listing(conn: sqlite3.Connection, query: ListQuery, finals: FinalCells) -> Listing:
    """The whole order of the query (ids and keys only)."""
    ids, keys = read(conn, query, finals)
    return Listing(query, ids, keys)


def changes(conn: sqlite3.Connection, query: ListQuery, finals: FinalCells,
            changed: Sequence[int]) -> dict[int, Key | None]:
    """{id: new sort key, or None when the query no longer lists it} of the changed sessions."""
    if not changed:
        return {}
    finals.update(conn, changed)
    ids, keys = read(conn, query, finals, within=changed)
    listed = set(ids)
    return {sid: (keys[sid] if query.sort != "id" else (sid,)) if sid in listed else None for sid in changed}


def _may_be_final(word: str) -> bool:
    return bool(_NUMBER.fullmatch(word)) or any(word in note for note in _FINAL_NOTES)


def _words(conn: sqlite3.Connection, words: Sequence[str], finals: dict[int, str]) -> list[queries.ListWord]:
    """Each filter word with the cells it can be part of (the seat's authors read once)."""
    if not words:
        return []
    from pingpong.core.methods import available, get_method

    scripted = set().union(*(get_method(m).scripted_authors for m in available()))  # a seed's lines: no seat's
    authors = [a for a in queries.user_authors(conn) if a not in scripted]
    out = []
    for typed in words:
        word = typed.lower()
        escaped = typed.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        # SQLite's LIKE ignores the case of ASCII letters only: other letters as typed ('ЯндексГПТ'),
        # in lower case, capitalised and in capitals
        low = escaped.lower()
        forms = dict.fromkeys([low] if escaped.isascii() else [escaped, low, low.capitalize(), low.upper()])
        out.append(queries.ListWord(
            patterns=tuple(f"%{f}%" for f in forms), digits=bool(_DIGITS.fullmatch(word)),
            clock=bool(_CLOCK.fullmatch(word)), authors=tuple(a for a in authors if word in a.lower()),
            finals=frozenset(sid for sid, cell in finals.items() if word in cell) if _may_be_final(word) else None))
    return out
