"""Typed read queries over the store, for the views that aggregate many sessions.

Together with sessions.store this is the only place that holds SQL: the leaderboard,
agreement, the runner, the exchange formats and the screens call these functions.
Each takes a `sqlite3.Connection` (a Store's `conn`), so a screen's worker thread can
use its own connection.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

CHUNK = 500  # ids per IN (...) list, well under SQLite's variable limit


def _chunks(ids: Sequence[int]) -> Iterator[list[int]]:
    ids = list(ids)
    for i in range(0, len(ids), CHUNK):
        yield ids[i:i + CHUNK]


def _marks(n: int) -> str:
    return ",".join("?" * n)


@dataclass(frozen=True)
class SessionFilter:
    """Which finished sessions a view aggregates."""

    method: str | None = None
    lang: str | None = None
    run: str | None = None
    interrogator: str | None = None
    include_forks: bool = False
    status: str | None = "finished"

    def where(self) -> tuple[str, list[object]]:
        where: list[str] = []
        params: list[object] = []
        for column, value in (("s.status", self.status), ("s.method", self.method), ("s.lang", self.lang),
                              ("s.interrogator", self.interrogator)):
            if value is not None:
                where.append(f"{column} = ?")
                params.append(value)
        if self.run:
            where.append("s.run_id IN (SELECT id FROM runs WHERE name = ?)")
            params.append(self.run)
        if not self.include_forks:
            where.append("s.parent_session IS NULL")
        return " AND ".join(where) or "1", params


@dataclass(frozen=True)
class SessionFacts:
    """What aggregation needs of a session besides its scores."""

    id: int
    player: str
    lang: str | None
    method: str
    character: str
    situation: str
    player_chars: int
    player_messages: int
    extra: str | None = None  # the spec's JSON, for breakdowns by its options


def sessions_matching(conn: sqlite3.Connection, flt: SessionFilter, *, with_spec: bool = False) -> list[SessionFacts]:
    where, params = flt.where()
    spec = ", s.spec" if with_spec else ", NULL"
    rows = conn.execute(
        "SELECT s.id, s.player, s.lang, s.method, s.character, s.situation, s.player_chars, s.player_messages"
        f"{spec} FROM sessions s WHERE {where} ORDER BY s.id", params).fetchall()
    return [SessionFacts(*r) for r in rows]


def judge_totals(conn: sqlite3.Connection, session_ids: Sequence[int] | None = None,
                 judges: Sequence[str] | None = None, *, counts: bool = False) -> list[tuple]:
    """(session, judge, in_character mean, entertaining mean, fluency mean, refusal flag, overall mean)
    per (session, judge), a mean NULL where no turn was scored: from the totals migration 4's triggers
    keep of the judges' ok turn scores. counts: also the number of turns behind each of the four means
    (PingPong v1 pools over replies; a million turns read without them take a quarter less time)."""
    base = ("SELECT session_id, judge, ic_sum / NULLIF(ic_n, 0), en_sum / NULLIF(en_n, 0),"
            " fl_sum / NULLIF(fl_n, 0), refusal, ov_sum / NULLIF(ov_n, 0)"
            + (", ic_n, en_n, fl_n, ov_n" if counts else "") + " FROM judge_totals WHERE 1")
    extra, params = "", []
    if judges:
        extra = f" AND judge IN ({_marks(len(judges))})"
        params = list(judges)
    if session_ids is None:
        return conn.execute(base + extra, params).fetchall()
    out: list[tuple] = []
    for chunk in _chunks(session_ids):
        out += conn.execute(base + f" AND session_id IN ({_marks(len(chunk))})" + extra, [*chunk, *params]).fetchall()
    return out


TurnValue = tuple[int, str, int | None, str, float | None, str]
"""(session, judge or person, turn, metric, value, status)."""


def judge_turn_values(conn: sqlite3.Connection, session_ids: Sequence[int],
                      judges: Sequence[str] | None = None) -> list[TurnValue]:
    """Every judge score row of a few sessions (those people scored), oldest first."""
    out: list[TurnValue] = []
    for chunk in _chunks(session_ids):
        out += conn.execute(
            "SELECT session_id, by, turn, metric, value, status FROM scores WHERE source = 'judge'"
            f" AND session_id IN ({_marks(len(chunk))}) ORDER BY id", chunk).fetchall()
    if judges:
        wanted = set(judges)
        out = [r for r in out if r[1] in wanted]
    return out


HumanRow = tuple[int, str, int | None, str, float, str, int]
"""(session, person, turn, metric, value, created_at, id)."""


def human_rows(conn: sqlite3.Connection, session_ids: Sequence[int] | None = None) -> list[HumanRow]:
    """People's scores in the order they count: a later one (by time, then id) replaces an earlier one."""
    sql = ("SELECT session_id, by, turn, metric, value, created_at, id FROM scores WHERE source = 'human'"
           " AND status = 'ok'")
    if session_ids is None:
        return conn.execute(sql + " ORDER BY created_at, id").fetchall()
    out: list[HumanRow] = []
    for chunk in _chunks(session_ids):
        out += conn.execute(sql + f" AND session_id IN ({_marks(len(chunk))})", chunk).fetchall()
    return sorted(out, key=lambda r: (r[5], r[6]))


def judges_of(conn: sqlite3.Connection, flt: SessionFilter) -> list[str]:
    where, params = flt.where()
    return [r[0] for r in conn.execute(
        f"SELECT DISTINCT t.by FROM scores t JOIN sessions s ON s.id = t.session_id WHERE t.source = 'judge'"
        f" AND {where} ORDER BY t.by", params)]


def interrogators_of(conn: sqlite3.Connection, flt: SessionFilter) -> list[str]:
    where, params = flt.where()
    return [r[0] for r in conn.execute(
        f"SELECT DISTINCT s.interrogator FROM sessions s WHERE {where} ORDER BY s.interrogator", params)]


def failed_judge_turns(conn: sqlite3.Connection, session_ids: Sequence[int],
                       judges: Sequence[str] | None = None) -> dict[int, int]:
    """{session: judge (turn, metric) rows still failed} (of those judges only, when given): what
    `pingpong judge` would retry."""
    only, names = (f" AND by IN ({_marks(len(judges))})", list(judges)) if judges else ("", [])
    out: dict[int, int] = {}
    for chunk in _chunks(session_ids):
        for sid, n in conn.execute(
                "SELECT session_id, COUNT(DISTINCT by || '/' || IFNULL(turn, 0)) FROM scores"
                f" WHERE source = 'judge' AND status = 'failed' AND session_id IN ({_marks(len(chunk))}){only}"
                " GROUP BY session_id", [*chunk, *names]):
            out[sid] = n
    return out


def lacking_judges(conn: sqlite3.Connection, session_ids: Sequence[int], judges: Sequence[str]) -> set[int]:
    """The sessions among these whose judges leave out one of `judges`: a rerun of their run with a
    judge added scores them with it."""
    out: set[int] = set()
    wanted = json.dumps(list(judges))
    for chunk in _chunks(session_ids):
        out.update(sid for (sid,) in conn.execute(
            f"SELECT id FROM sessions WHERE id IN ({_marks(len(chunk))}) AND EXISTS (SELECT 1 FROM json_each(?) AS w"
            " WHERE w.value NOT IN (SELECT value FROM json_each(IFNULL(sessions.judges, '[]'))))", [*chunk, wanted]))
    return out


def failed_judges(conn: sqlite3.Connection, session_ids: Sequence[int],
                  judges: Sequence[str] | None = None) -> dict[str, tuple[int, str | None]]:
    """{judge: (its (session, turn) scorings still failed, the newest error)} among these sessions
    (of those judges only, when given): what a user must read to know who failed and why."""
    only, names = (f" AND by IN ({_marks(len(judges))})", list(judges)) if judges else ("", [])
    counts: dict[str, list[int]] = {}
    for chunk in _chunks(session_ids):
        for judge, n, newest in conn.execute(
                "SELECT by, COUNT(DISTINCT session_id || '/' || IFNULL(turn, 0)), MAX(id) FROM scores"
                f" WHERE source = 'judge' AND status = 'failed' AND session_id IN ({_marks(len(chunk))}){only}"
                " GROUP BY by", [*chunk, *names]):
            seen = counts.setdefault(judge, [0, 0])
            seen[0], seen[1] = seen[0] + n, max(seen[1], newest)
    return {judge: (n, conn.execute("SELECT error FROM scores WHERE id = ?", [newest]).fetchone()[0])
            for judge, (n, newest) in sorted(counts.items())}


LIKERT = ("in_character", "entertaining", "fluency")


def turn_means(conn: sqlite3.Connection, flt: SessionFilter) -> list[tuple[str, int, int, str, float]]:
    """(player, session, turn, metric, mean over judges) of the Likert metrics, judges' ok scores,
    leaving out a judge's scoring of a session in which it flagged a refusal (as the leaderboard does)."""
    where, params = flt.where()
    return conn.execute(
        "SELECT s.player, t.session_id, t.turn, t.metric, AVG(t.value) FROM scores t"
        " JOIN sessions s ON s.id = t.session_id"
        f" WHERE t.source = 'judge' AND t.status = 'ok' AND t.turn IS NOT NULL AND t.metric IN {LIKERT}"
        " AND NOT EXISTS (SELECT 1 FROM scores r WHERE r.session_id = t.session_id AND r.by = t.by"
        "  AND r.source = 'judge' AND r.metric = 'is_refusal' AND r.value = 1 AND r.status = 'ok')"
        f" AND {where} GROUP BY t.session_id, t.turn, t.metric ORDER BY s.player, t.session_id, t.turn",
        params).fetchall()


def human_rows_matching(conn: sqlite3.Connection, flt: SessionFilter) -> list[HumanRow]:
    """People's scores of the sessions a filter selects, oldest first."""
    where, params = flt.where()
    return conn.execute(
        "SELECT h.session_id, h.by, h.turn, h.metric, h.value, h.created_at, h.id FROM scores h"
        f" JOIN sessions s ON s.id = h.session_id WHERE h.source = 'human' AND h.status = 'ok' AND {where}"
        " ORDER BY h.created_at, h.id", params).fetchall()


def rows(conn: sqlite3.Connection, table: str, columns: Sequence[str]) -> Iterator[tuple]:
    """Every row of one of our tables, in id order (for the lossless export)."""
    if table not in ("runs", "sessions", "messages", "model_calls", "scores", "pair_scores"):
        raise ValueError(f"not an exported table: {table}")
    order = "session_id, seq" if table == "messages" else "id"
    yield from conn.execute(f"SELECT {', '.join(columns)} FROM {table} ORDER BY {order}")


def sessions_after(conn: sqlite3.Connection, columns: Sequence[str], after: int, limit: int) -> list[tuple]:
    """The next `limit` session rows after id `after`, in id order (the lossless export reads a batch at a time)."""
    return conn.execute(f"SELECT {', '.join(columns)} FROM sessions WHERE id > ? ORDER BY id LIMIT ?",
                        [after, limit]).fetchall()


_SESSION_CHILDREN = {"messages": ("session_id", "session_id, seq"), "model_calls": ("session_id", "session_id, id"),
                     "scores": ("session_id", "session_id, id")}


def session_children(conn: sqlite3.Connection, table: str, columns: Sequence[str], first: int,
                     last: int) -> list[tuple]:
    """The rows of messages, model_calls or scores of sessions `first` to `last` (ids), a session's in the
    order rows() gives them: one indexed range read for a batch of the lossless export."""
    if table not in _SESSION_CHILDREN:
        raise ValueError(f"not a table of a session's rows: {table}")
    column, order = _SESSION_CHILDREN[table]
    return conn.execute(f"SELECT {', '.join(columns)} FROM {table} WHERE {column} BETWEEN ? AND ? ORDER BY {order}",
                        [first, last]).fetchall()


def pair_rows_by_session(conn: sqlite3.Connection, columns: Sequence[str]) -> Iterator[tuple]:
    """Every pairwise verdict ordered by its first session, then id: read alongside the sessions'
    batches (one sort, instead of a scan of the table per batch)."""
    yield from conn.execute(f"SELECT {', '.join(columns)} FROM pair_scores ORDER BY session_a, id")


def pair_calls(conn: sqlite3.Connection, columns: Sequence[str], pair_ids: Sequence[int]) -> list[tuple]:
    """(pair_score_id, *columns) of the model calls made for these pairwise verdicts, a verdict's in id order."""
    out: list[tuple] = []
    for chunk in _chunks(sorted(pair_ids)):
        out += conn.execute(f"SELECT pair_score_id, {', '.join(columns)} FROM model_calls"
                            f" WHERE pair_score_id IN ({_marks(len(chunk))}) ORDER BY id", chunk).fetchall()
    return out


def results_sessions(conn: sqlite3.Connection, methods: Sequence[str]) -> Iterator[tuple[int, str, str, str, str, str]]:
    """(id, method, language, player, interrogator, its judges as a JSON list) of the finished sessions of
    these methods that are not forks and hold a player's message, oldest first: what decides which
    results files a session goes into (the language is the card's when the session has none), read
    without its transcript or scores."""
    yield from conn.execute(
        "SELECT s.id, s.method, COALESCE(NULLIF(s.lang, ''), json_extract(s.character_snapshot, '$.lang')),"
        " json_extract(s.spec, '$.player'), json_extract(s.spec, '$.interrogator'),"
        " (SELECT json_group_array(DISTINCT j.by) FROM scores j WHERE j.session_id = s.id AND j.source = 'judge')"
        f" FROM sessions s WHERE s.status = 'finished' AND s.method IN ({_marks(len(methods))})"
        " AND s.parent_session IS NULL"
        " AND EXISTS (SELECT 1 FROM messages m WHERE m.session_id = s.id AND m.role = 'assistant') ORDER BY s.id",
        list(methods))


def sessions_rated_whole(conn: sqlite3.Connection, method: str, metrics: Sequence[str]) -> list[int]:
    """Sessions of this method that a person scored as a whole (turn NULL) on one of these metrics,
    oldest first: the annotation export's lines, found from people's scores alone."""
    return [sid for (sid,) in conn.execute(
        "SELECT s.id FROM sessions s WHERE s.method = ? AND s.id IN (SELECT h.session_id FROM scores h"
        f" WHERE h.source = 'human' AND h.turn IS NULL AND h.metric IN ({_marks(len(metrics))})) ORDER BY s.id",
        [method, *metrics])]


def session_idents(conn: sqlite3.Connection, ids: Iterable[int], columns: Sequence[str]) -> dict[int, tuple]:
    """{id: columns} of these sessions."""
    out: dict[int, tuple] = {}
    for chunk in _chunks(sorted(ids)):
        for sid, *values in conn.execute(f"SELECT id, {', '.join(columns)} FROM sessions"
                                         f" WHERE id IN ({_marks(len(chunk))})", chunk):
            out[sid] = tuple(values)
    return out


@dataclass(frozen=True)
class SessionsStamp:
    """What the sessions looked like at one moment: equal stamps mean nothing was written between them."""

    change: int | None  # the latest number in session_changes (migration 15): any insert or update
    last_score: int | None  # the newest score row (a person's score leaves the session's row alone)
    count: int  # fewer than before: sessions were removed


def sessions_stamp(conn: sqlite3.Connection) -> SessionsStamp:
    """A cheap "has anything changed?" check for screens (indexes only, whatever the database's size)."""
    change, last_score, count = conn.execute(
        "SELECT (SELECT max(seq) FROM session_changes), (SELECT max(id) FROM scores),"
        " (SELECT count(*) FROM sessions)").fetchone()
    return SessionsStamp(change, last_score, count)


def sessions_changed(conn: sqlite3.Connection, since: SessionsStamp) -> list[int]:
    """Sessions written since the stamp (added, updated, or scored), whatever times their rows hold."""
    return [sid for (sid,) in conn.execute(
        "SELECT session_id FROM session_changes WHERE seq > ? UNION SELECT session_id FROM scores WHERE id > ?",
        [since.change or 0, since.last_score or 0])]


# ---------------------------------------------------------------- the sessions list (Home)

LIST_INDEX = "idx_sessions_list"
"""Migration 12's index of the listed columns: a scan of every session reads it, not the rows."""

LIST_SORT_SQL = {"character": "s.character", "situation": "s.situation", "player": "s.player",
                 "interrogator": "s.interrogator", "created": "s.created_at"}
"""The sort keys SQL orders by besides the id and the status (the final is sorted by sessions.listing)."""


@dataclass(frozen=True)
class ListWord:
    """One word of the Home filter and the cells it may match: a session is listed when every word
    matches one of its cells. sessions.listing decides which cells a word can be part of."""

    patterns: tuple[str, ...]  # LIKE patterns with backslash escapes, e.g. ('%storm%',)
    digits: bool = False  # may be part of the id
    clock: bool = False  # may be part of the creation time as shown (MM-DD HH:MM)
    authors: tuple[str, ...] = ()  # user-side authors whose name holds it (the interrogator seat)
    finals: frozenset[int] | None = None  # sessions whose final cell holds it


def _status_sql(live: frozenset[int]) -> str:
    """The status as listed: 'live' for the sessions this app runs (ids are ints: inlined)."""
    if not live:
        return "s.status"
    ids = ",".join(str(int(i)) for i in sorted(live))
    return f"(CASE WHEN s.status = 'running' AND s.id IN ({ids}) THEN 'live' ELSE s.status END)"


def _word_sql(word: ListWord, n: int, status: str, params: dict[str, object]) -> str:
    ors = []
    for k, pattern in enumerate(word.patterns):
        name = f"w{n}_{k}"
        params[name] = pattern
        ors += [f"{col} LIKE :{name} ESCAPE '\\'" for col in
                ("s.character", "s.situation", "s.player", "s.interrogator", status)]
        ors.append(f"(s.seats IS NOT NULL AND json_extract(s.seats, '$.interrogator') LIKE :{name} ESCAPE '\\')")
        if word.digits:
            ors.append(f"CAST(s.id AS TEXT) LIKE :{name} ESCAPE '\\'")
        if word.clock:
            ors.append(f"replace(substr(s.created_at, 6, 11), 'T', ' ') LIKE :{name} ESCAPE '\\'")
    if word.authors:
        names = []
        for k, author in enumerate(word.authors):
            params[f"a{n}_{k}"] = author
            names.append(f":a{n}_{k}")
        ors.append("EXISTS (SELECT 1 FROM messages m WHERE m.role = 'user' AND m.session_id = s.id"
                   f" AND m.author IN ({', '.join(names)}))")
    if word.finals:
        params[f"f{n}"] = json.dumps(sorted(word.finals))
        ors.append(f"s.id IN (SELECT value FROM json_each(:f{n}))")
    return "(" + " OR ".join(ors) + ")"


def list_order(conn: sqlite3.Connection, words: Sequence[ListWord], live: frozenset[int], sort: str,
               descending: bool, within: Sequence[int] | None = None) -> list[tuple]:
    """(id, sort value) of the listed sessions every word matches, in list order: by the sort key,
    then the id, both `descending` or not. Sorted by id, or by a key this module does not order
    ("final": newest first), the rows are (id,). `within`: only these sessions (what changed)."""
    params: dict[str, object] = {}
    status = _status_sql(live)
    where = [_word_sql(w, n, status, params) for n, w in enumerate(words)]
    source = f"sessions s INDEXED BY {LIST_INDEX}"
    if within is not None:
        source = "sessions s"  # a few rows: found by id
        params["within"] = json.dumps(sorted(within))
        where.append("s.id IN (SELECT value FROM json_each(:within))")
    key = status if sort == "status" else LIST_SORT_SQL.get(sort)
    way = "DESC" if descending else "ASC"
    if key is None:  # (id,) rows
        columns, order = "s.id", "s.id " + ("DESC" if descending or sort != "id" else "ASC")
    else:
        columns, order = f"s.id, {key}", f"{key} {way}, s.id {way}"
    sql = f"SELECT {columns} FROM {source}"
    if where:
        sql += " WHERE " + " AND ".join(where)
    return conn.execute(f"{sql} ORDER BY {order}", params).fetchall()


def list_newest(conn: sqlite3.Connection, limit: int) -> list[int]:
    """The newest sessions' ids: the top of the unfiltered list, before the whole order is read."""
    return [sid for (sid,) in conn.execute("SELECT id FROM sessions ORDER BY id DESC LIMIT ?", [limit])]


def list_facts(conn: sqlite3.Connection, within: Sequence[int] | None = None) -> list[tuple[int, str, str, bool]]:
    """(id, status, method, has judges) of every session (or of `within`): what the final cell needs
    besides the scores."""
    sql = "SELECT s.id, s.status, s.method, ifnull(s.judges, '[]') NOT IN ('[]', '') FROM sessions s"
    if within is None:
        return conn.execute(f"{sql} INDEXED BY {LIST_INDEX}").fetchall()
    return conn.execute(f"{sql} WHERE s.id IN (SELECT value FROM json_each(?))", [json.dumps(sorted(within))]).fetchall()


def languages(conn: sqlite3.Connection, method: str | None = None) -> list[str]:
    """The languages stored sessions (of one method, or of any) are in, sorted."""
    sql, params = "SELECT DISTINCT lang FROM sessions WHERE lang IS NOT NULL", []
    if method is not None:
        sql, params = sql + " AND method = ?", [method]
    return sorted(lang for (lang,) in conn.execute(sql, params))


def user_authors(conn: sqlite3.Connection) -> list[str]:
    """Every author of a user-side message, found by skipping along migration 12's index (a few
    seeks, whatever the number of messages)."""
    out: list[str] = []
    while True:
        row = conn.execute("SELECT min(author) FROM messages WHERE role = 'user' AND author > ?",
                           [out[-1] if out else ""]).fetchone()
        if row[0] is None:
            return out
        out.append(row[0])


def seat_writers(conn: sqlite3.Connection, ids: Sequence[int],
                 role: str = "user") -> dict[int, list[tuple[str, int, int]]]:
    """{session: [(author, first turn, last turn)]}: who wrote the `role` messages of each session."""
    out: dict[int, list[tuple[str, int, int]]] = {}
    for chunk in _chunks(ids):
        marks = ", ".join("?" * len(chunk))
        for sid, author, first, last in conn.execute(
                f"SELECT session_id, author, min(turn), max(turn) FROM messages WHERE role = ?"
                f" AND session_id IN ({marks}) GROUP BY session_id, author", [role, *chunk]):
            out.setdefault(sid, []).append((author, first, last))
    return out


def data_version(conn: sqlite3.Connection) -> int:
    """A number that changes whenever another connection commits: a free "has anything changed?"
    check for a screen that polls."""
    return int(conn.execute("PRAGMA data_version").fetchone()[0])


def last_ids(conn: sqlite3.Connection) -> tuple[int, int, int]:
    """The newest (session, message, score) ids. Writes take turns and rows are only appended, so a
    row committed later has a larger id: these marks say where the next look starts."""
    row = conn.execute("SELECT (SELECT max(id) FROM sessions), (SELECT max(id) FROM messages),"
                       " (SELECT max(id) FROM scores)").fetchone()
    return (int(row[0] or 0), int(row[1] or 0), int(row[2] or 0))


def touched_sessions(conn: sqlite3.Connection, since: tuple[int, int, int],
                     until: tuple[int, int, int]) -> set[int]:
    """Sessions created, or given a message or a score, after the marks `since` and up to `until`
    (both from last_ids): each read is a range of row ids, however big the database."""
    out: set[int] = set()
    for table, column, after, upto in (("sessions", "id", since[0], until[0]),
                                       ("messages", "session_id", since[1], until[1]),
                                       ("scores", "session_id", since[2], until[2])):
        if upto > after:
            out.update(r[0] for r in conn.execute(
                f"SELECT {column} FROM {table} WHERE id > ? AND id <= ?", [after, upto]))
    return out


def running_ids(conn: sqlite3.Connection) -> set[int]:
    """Sessions marked running (read from the status index alone)."""
    return {r[0] for r in conn.execute("SELECT id FROM sessions WHERE status = 'running'")}


def runs(conn: sqlite3.Connection) -> list[tuple[int, str, str | None]]:
    """(id, name, config JSON) of every run, newest first."""
    return conn.execute("SELECT id, name, config FROM runs ORDER BY id DESC").fetchall()


def status_counts(conn: sqlite3.Connection, statuses: Sequence[str],
                  run_ids: Sequence[int | None] | None = None) -> dict[int | None, tuple[int, ...]]:
    """{run id: (sessions, count per status...)} of the runs with sessions (None: sessions outside
    any run); `run_ids`: only these runs."""
    counts = ", ".join(f"sum(status = '{s}')" for s in statuses if s.isalpha())
    sql = f"SELECT run_id, count(*), {counts} FROM sessions"
    if run_ids is None:
        rows = conn.execute(sql + " GROUP BY run_id").fetchall()
    else:
        ids = [i for i in run_ids if i is not None]
        rows = [row for chunk in _chunks(ids) for row in conn.execute(
            sql + f" WHERE run_id IN ({_marks(len(chunk))}) GROUP BY run_id", chunk)]
        if None in run_ids:
            rows += conn.execute(sql + " WHERE run_id IS NULL GROUP BY run_id").fetchall()
    return {r[0]: tuple(int(x or 0) for x in r[1:]) for r in rows}


_WATCH_ROW = (
    "SELECT s.id, s.run_id, s.character, s.situation, s.player, s.status, s.num_turns, s.player_messages,"
    " (SELECT count(DISTINCT ifnull(t.turn, 0) || t.by) FROM scores t WHERE t.session_id = s.id"
    "  AND t.source = 'judge') FROM sessions s")


def run_sessions(conn: sqlite3.Connection, run_id: int | None) -> list[tuple]:
    """(id, run id, character, situation, player, status, planned turns, player turns, judge scorings)
    of one run's sessions (run_id None: sessions outside any run), oldest first."""
    where = "s.run_id IS NULL" if run_id is None else "s.run_id = ?"
    return conn.execute(f"{_WATCH_ROW} WHERE {where} ORDER BY s.id", [] if run_id is None else [run_id]).fetchall()


def sessions_by_id(conn: sqlite3.Connection, ids: Sequence[int]) -> list[tuple]:
    """The rows run_sessions gives, of these sessions (of any run), oldest first."""
    out: list[tuple] = []
    for chunk in _chunks(sorted(ids)):
        out += conn.execute(f"{_WATCH_ROW} WHERE s.id IN ({_marks(len(chunk))}) ORDER BY s.id", chunk).fetchall()
    return out


RunFacets = tuple[str, str, str, str | None, str]
"""(method, lang, interrogator, prompting, prompt format): what makes one command's conversations
other conversations than another's of the same (player, character, situation) in one run."""


def run_pairs(conn: sqlite3.Connection, run_id: int, facets: RunFacets,
              key: tuple[str, str, str] | None = None) -> list[tuple]:
    """(id, player, character, situation, status, pid, host, updated_at) of a run's sessions, oldest
    first: those with these facets and no parent (a fork is never a pair's conversation), or one pair's."""
    sql = "SELECT id, player, character, situation, status, pid, host, updated_at FROM sessions WHERE run_id = ?"
    method, lang, interrogator, prompting, prompt_format = facets
    sql += (" AND parent_session IS NULL AND method = ? AND lang = ? AND interrogator = ?"
            " AND ifnull(json_extract(spec, '$.prompting'), '') = ?"
            " AND ifnull(json_extract(spec, '$.prompt_format'), 'detailed') = ?")
    params: list[object] = [run_id, method, lang, interrogator, prompting or "", prompt_format]
    if key is not None:
        sql += " AND player = ? AND character = ? AND situation = ?"
        params += list(key)
    return conn.execute(sql + " ORDER BY id", params).fetchall()


def session_status(conn: sqlite3.Connection, session_id: int) -> str | None:
    row = conn.execute("SELECT status FROM sessions WHERE id = ?", [session_id]).fetchone()
    return row[0] if row else None


RuleRow = tuple[int, str, int | None, str, float, str | None]
"""(session, source judge|human, turn, metric, value, explanation) of an ok rule-based or person's score."""


def rule_and_human_scores(conn: sqlite3.Connection, flt: SessionFilter, judge: str,
                          metrics: Sequence[str]) -> list[RuleRow]:
    """The ok scores of ``metrics`` that the rule-based scorer ``judge`` or people gave the sessions a
    filter selects, oldest first (so a later person's score comes after the one it replaces)."""
    where, params = flt.where()
    return conn.execute(
        "SELECT t.session_id, t.source, t.turn, t.metric, t.value, t.explanation FROM scores t"
        " JOIN sessions s ON s.id = t.session_id WHERE t.status = 'ok'"
        f" AND t.metric IN ({_marks(len(metrics))}) AND (t.source = 'human' OR (t.source = 'judge' AND t.by = ?))"
        f" AND {where} ORDER BY t.created_at, t.id", [*metrics, judge, *params]).fetchall()


LabelRow = tuple[int, str, str, int, str, float, str, int]
"""(session, source judge|human, by, turn, metric, value, created_at, id) of an ok good-bad label."""


def dmt_labels(conn: sqlite3.Connection, flt: SessionFilter) -> list[LabelRow]:
    """Every ok per-round good/bad label of the sessions a filter selects, oldest first."""
    where, params = flt.where()
    return conn.execute(
        "SELECT l.session_id, l.source, l.by, l.turn, l.metric, l.value, l.created_at, l.id FROM scores l"
        f" JOIN sessions s ON s.id = l.session_id WHERE l.status = 'ok' AND l.scale = 'good-bad'"
        f" AND l.turn IS NOT NULL AND {where} ORDER BY l.created_at, l.id", params).fetchall()


SessionLength = tuple[int, str, str | None, int, int, str | None]
"""(session, player, lang, characters the player wrote, player messages, the `--by` option's value)."""


SESSION_OPTIONS = {
    "role_type": "json_extract(s.character_snapshot, '$.role_type')",
    "intent": "json_extract(s.situation_snapshot, '$.intent')",
    "prompt_format": "json_extract(s.spec, '$.prompt_format')",
    "prompting": "json_extract(s.spec, '$.prompting')",
}
"""What a leaderboard can be broken down by: the card's role type, the situation's (seed's) intent, and
the player's system-prompt format and prompting strategy, as stored with each session."""


def session_option(conn: sqlite3.Connection, flt: SessionFilter, option: str) -> dict[int, str | None]:
    """{session: its value of ``option`` (one of SESSION_OPTIONS), None where it was not stored}."""
    if option not in SESSION_OPTIONS:
        raise ValueError(f"unknown session option {option!r}")
    where, params = flt.where()
    return dict(conn.execute(f"SELECT s.id, {SESSION_OPTIONS[option]} FROM sessions s WHERE {where}", params))




def session_lengths(conn: sqlite3.Connection, flt: SessionFilter, option: str | None = None) -> list[SessionLength]:
    """The few columns the Likert leaderboard needs of each session, as plain rows (100k at once);
    with ``option`` (a key of SESSION_OPTIONS) its value per session, else NULL."""
    where, params = flt.where()
    value = SESSION_OPTIONS[option] if option is not None else "NULL"
    return conn.execute(f"SELECT s.id, s.player, s.lang, s.player_chars, s.player_messages, {value} FROM sessions s"
                        f" WHERE {where}", params).fetchall()


PairRow = tuple[int, int, str | None, str, str, float | None, str | None, str, str | None, str, int]
"""(session_a, session_b, shown 'ab'|'ba'|None, source judge|human, by, value for session_a, explanation,
status, error, created_at, id) of one pairwise verdict."""


def pair_rows(conn: sqlite3.Connection, session_ids: Sequence[int]) -> list[PairRow]:
    """Every pairwise verdict whose first session is one of ``session_ids``, oldest first (by time, then id)."""
    out: list[PairRow] = []
    for chunk in _chunks(sorted(set(session_ids))):
        out += conn.execute(
            "SELECT session_a, session_b, shown, source, by, value, explanation, status, error, created_at, id"
            f" FROM pair_scores WHERE session_a IN ({_marks(len(chunk))})", chunk).fetchall()
    return sorted(out, key=lambda r: (r[9], r[10]))


def judged_pairs(conn: sqlite3.Connection, session_id: int | None = None) -> list[tuple[int, int]]:
    """(session_a, session_b) of the pairs of unforked sessions with any verdict (only those holding
    ``session_id``), newest first. A fork is never compared, so a pick once stored on one is left out."""
    where = " AND (p.session_a = ? OR p.session_b = ?)" if session_id else ""
    return [(a, b) for a, b in conn.execute(
        "SELECT p.session_a, p.session_b FROM pair_scores p JOIN sessions a ON a.id = p.session_a"
        " JOIN sessions b ON b.id = p.session_b WHERE a.parent_session IS NULL AND b.parent_session IS NULL"
        f"{where} GROUP BY p.session_a, p.session_b ORDER BY MAX(p.id) DESC",
        [session_id, session_id] if session_id else [])]


def sessions_sharing(conn: sqlite3.Connection, session_id: int) -> list[tuple[int, str]]:
    """(id, player) of the other finished, unforked sessions with the same method, character and situation
    played by another player, newest first: what a session can be compared with side by side (nothing,
    for a fork: `pingpong compare` pairs unforked sessions only)."""
    return conn.execute(
        "SELECT o.id, o.player FROM sessions s JOIN sessions o ON o.method = s.method AND o.character = s.character"
        " AND o.situation = s.situation AND o.player != s.player AND o.id != s.id"
        " WHERE s.id = ? AND s.parent_session IS NULL AND o.status = 'finished' AND o.parent_session IS NULL"
        " ORDER BY o.id DESC", [session_id]).fetchall()


CallTokens = tuple[int, str, str, str, int, int, int]
"""(session, player, role, model, prompt tokens, completion tokens, of those the estimated ones)."""

_CALL_TOKENS = (
    "SELECT c.session_id, s.player, c.role, c.model, TOTAL(c.prompt_tokens), TOTAL(c.completion_tokens),"
    " TOTAL(CASE WHEN c.tokens_estimated THEN IFNULL(c.prompt_tokens, 0) + IFNULL(c.completion_tokens, 0)"
    " ELSE 0 END) FROM model_calls c JOIN sessions s ON s.id = c.session_id WHERE c.status = 'ok' AND {where}"
    " GROUP BY c.session_id, c.role, c.model ORDER BY c.session_id, c.role, c.model")


def _tokens(rows: list[tuple]) -> list[CallTokens]:
    return [(sid, player, role, model, int(p), int(c), int(e)) for sid, player, role, model, p, c, e in rows]


def call_tokens(conn: sqlite3.Connection, flt: SessionFilter) -> list[CallTokens]:
    """Tokens of the answered model calls per (session, seat role, model) of the sessions a filter selects."""
    where, params = flt.where()
    return _tokens(conn.execute(_CALL_TOKENS.format(where=where), params).fetchall())


def session_call_tokens(conn: sqlite3.Connection, session_id: int) -> list[CallTokens]:
    """The same for one session."""
    return _tokens(conn.execute(_CALL_TOKENS.format(where="s.id = ?"), [session_id]).fetchall())


def sessions_saying(conn: sqlite3.Connection, methods: Sequence[str], texts: Sequence[str]) -> list[int]:
    """The sessions of these methods with a message whose text is one of `texts`, oldest first:
    the few an imported conversation can be, found without reading every session whole."""
    marks = _marks(len(methods))
    return [row[0] for row in conn.execute(
        f"SELECT DISTINCT m.session_id FROM messages m JOIN sessions s ON s.id = m.session_id"
        f" WHERE s.method IN ({marks}) AND m.text IN (SELECT value FROM json_each(?)) ORDER BY m.session_id",
        [*methods, json.dumps(sorted(set(texts)), ensure_ascii=False)])]
