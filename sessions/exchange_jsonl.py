"""Our own JSONL: one session per line with everything stored, for lossless moves between databases.

Database ids are left out (they would change on import); rows come out in id order,
keys sorted, so export -> import into an empty database -> export is byte-identical.
Process ownership (pid, host) is not carried over: it means nothing on another machine.

Pairwise verdicts (`pingpong compare`, people's picks) sit on the line of the pair's first session
(the smaller id), in `pair_scores`: DESIGN.md's score fields without `turn`, plus `shown` (the order
a judge saw, "ab": this line's session first; null for a person), `versus` (the other session, named
by what identifies a session across databases: its `created_at`, `player` and `interrogator`, with
this line's character and situation; it is another line of the same file) and `calls` (the judge's
model calls for it, as the line's `calls`). `value` is for this line's session.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TextIO

from pydantic import ValidationError

from pingpong.core.domain import CallRecord, Character, Message, Score, SessionSpec, Situation
from pingpong.core.errors import UserError
from pingpong.core.methods import available as available_methods
from pingpong.core.methods import get_method
from pingpong.core.safe_parse import MAX_DEPTH, loads_json
from pingpong.core.vocabulary import LANG_PATTERN, MAX_TURNS
from pingpong.sessions import queries
from pingpong.sessions.exchange_pingpong import ImportSummary
from pingpong.sessions.records import STATUSES

SESSION_COLUMNS = (
    "status", "method", "lang", "character", "situation", "player", "interrogator", "judges", "num_turns",
    "character_snapshot", "situation_snapshot", "cast_snapshot", "spec", "fork_turn", "error", "created_at",
    "updated_at", "finished_at",
)
JSON_COLUMNS = {"judges", "character_snapshot", "situation_snapshot", "cast_snapshot", "spec", "explanations",
                "config", "notes"}
CHILD_TABLES = {  # key in the document -> (table, columns)
    "messages": ("messages", ("turn", "role", "speaker", "author", "text", "notes", "prompt_tokens",
                              "completion_tokens", "tokens_estimated", "latency_ms", "attempt", "created_at")),
    "calls": ("model_calls", ("role", "model", "turn", "attempt", "status", "error", "prompt_tokens",
                              "completion_tokens", "tokens_estimated", "latency_ms", "created_at")),
    "scores": ("scores", ("source", "by", "turn", "metric", "value", "scale", "explanation", "status", "error",
                          "created_at")),
}
"""Each line's lists: messages in transcript order, model calls, and every score (judges' and people's)
in DESIGN.md's shape; good/bad labels are written as "good"/"bad"."""
PAIR_COLUMNS = ("shown", "source", "by", "metric", "value", "scale", "explanation", "status", "error", "created_at")
VERSUS_KEYS = ("created_at", "player", "interrogator")
PAIR_KEYS = {"versus", *PAIR_COLUMNS, "calls"}
SHOWN = ("ab", "ba")
PAIR_VALUES = (0.0, 0.5, 1.0)
"""A pairwise value: 1 this line's session played better, 0 worse, 0.5 as well."""
DOC_KEYS = {*SESSION_COLUMNS, "run", "parent", *CHILD_TABLES, "pair_scores"}
REQUIRED_KEYS = ("spec", "character_snapshot", "situation_snapshot", "status", "method", "lang", "character",
                 "situation", "player", "interrogator", "created_at")
"""What a line must hold (not null), as every stored session does: the session list, the exports and
the report read a session's method, card, situation and seats from these columns, and a run finds
its pairs again by them and the language."""
SQLITE_INTEGERS = (-(2**63), 2**63 - 1)
"""The whole numbers an SQLite INTEGER holds: a line's number beyond them cannot be stored."""
LEAST = {"messages": {"prompt_tokens": 0, "completion_tokens": 0, "latency_ms": 0, "attempt": 1},
         "calls": {"turn": 1, "prompt_tokens": 0, "completion_tokens": 0, "latency_ms": 0, "attempt": 1}}
"""The least value of a message's or model call's counts (the first attempt is 1, a call's turn is a
transcript turn); Message and Score hold a turn of at least 1 themselves."""
JSONL_DEPTH = MAX_DEPTH + 1
"""Deepest nesting in an import file: a session holds its card one level down, and a card may nest
MAX_DEPTH deep."""


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def _stored_json(value: Any) -> str:
    """JSON text as the Store writes it."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _decode(column: str, value: Any) -> Any:
    if column in JSON_COLUMNS and isinstance(value, str):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    return value


# ------------------------------------------------------------------ export


EXPORT_BATCH = 500
"""Sessions read at a time by the JSONL export: their rows of every table come in one read per
table, so memory stays that of one batch whatever the database's size."""


def _child_item(key: str, cols: tuple[str, ...], values: tuple) -> dict:
    item = {c: _decode(c, v) for c, v in zip(cols, values)}
    if key == "scores" and item["scale"] == "good-bad" and item["value"] is not None:
        item["value"] = "good" if item["value"] == 1 else "bad"
    return item


def session_documents(store, batch: int = EXPORT_BATCH) -> Iterator[dict]:
    """Every stored session as one plain dict, in id order, read `batch` sessions at a time."""
    conn = store.conn
    runs = {rid: {"name": name, "created_at": created, "config": _decode("config", config)}
            for rid, name, created, config in queries.rows(conn, "runs", ("id", "name", "created_at", "config"))}
    pairs = queries.pair_rows_by_session(conn, ("id", "session_a", "session_b", *PAIR_COLUMNS))
    pending = next(pairs, None)
    after = 0
    while rows := queries.sessions_after(conn, ("id", "run_id", "parent_session", *SESSION_COLUMNS), after, batch):
        first, after = rows[0][0], rows[-1][0]
        children: dict[str, dict[int, list[dict]]] = {}
        for key, (table, cols) in CHILD_TABLES.items():
            by_session: dict[int, list[dict]] = {}
            link = ("pair_score_id",) if key == "calls" else ()
            for row in queries.session_children(conn, table, ("session_id", *cols, *link), first, after):
                if not (link and row[-1] is not None):  # a pairwise verdict's call goes with the verdict
                    by_session.setdefault(row[0], []).append(_child_item(key, cols, row[1:1 + len(cols)]))
            children[key] = by_session
        batch_pairs = []  # (id, session_a, session_b, *values) of the pairwise verdicts on these lines
        while pending is not None and pending[1] <= after:
            batch_pairs.append(pending)
            pending = next(pairs, None)
        ident = _idents(conn, {r[2] for r in rows if r[2] is not None} | {p[2] for p in batch_pairs})
        pair_items = _pair_items(conn, batch_pairs, ident)
        for row in rows:
            sid, run_id, parent = row[0], row[1], row[2]
            doc = {c: _decode(c, v) for c, v in zip(SESSION_COLUMNS, row[3:])}
            doc["run"] = runs.get(run_id)
            if parent is not None:  # a fork names the session it came from as a pairwise verdict names its other
                doc["parent"] = ident[parent]
            for key in CHILD_TABLES:
                doc[key] = children[key].get(sid, [])
            doc["pair_scores"] = pair_items.get(sid, [])
            yield doc


def _idents(conn, ids: set[int]) -> dict[int, dict]:
    """{session: what names it across databases}, for the forks' parents and the verdicts' other sessions."""
    return {sid: dict(zip(VERSUS_KEYS, values)) for sid, values in queries.session_idents(conn, ids, VERSUS_KEYS).items()}


def _pair_items(conn, pairs: list[tuple], ident: dict[int, dict]) -> dict[int, list[dict]]:
    """{session_a: its pairwise verdicts as written on its line}, in id order."""
    calls: dict[int, list[dict]] = {}  # pairwise verdict id -> its judge's calls
    cols = CHILD_TABLES["calls"][1]
    if pairs:
        for pid, *values in queries.pair_calls(conn, cols, [p[0] for p in pairs]):
            calls.setdefault(pid, []).append(_child_item("calls", cols, tuple(values)))
    out: dict[int, list[dict]] = {}
    for pid, a, b, *values in pairs:
        out.setdefault(a, []).append({"versus": ident[b], **dict(zip(PAIR_COLUMNS, values)),
                                      "calls": calls.get(pid, [])})
    return out


def export_jsonl(store, out: TextIO) -> int:
    """Write one line per session; returns how many."""
    n = 0
    for doc in session_documents(store):
        out.write(_dump(doc) + "\n")
        n += 1
    return n


# ------------------------------------------------------------------ validation


def _fail(where: str, problem: str) -> UserError:
    return UserError(f"{where}: {problem}")


def _check_model(model, data: Any, where: str, strict: bool = False) -> None:
    """strict: the row's values go into the database as written, so "2" is not a turn and true is
    not a score (lax validation would take both)."""
    try:
        model.model_validate(data, strict=strict)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(x) for x in err["loc"])
        raise _fail(where, f"{loc}: {err['msg']}") from None


def validate_document(doc: Any, where: str) -> None:
    """Check one session line fully (shapes, snapshots, scores, the transcript's order, no
    duplicates) before anything is written: what passes can be stored, shown and resumed."""
    if not isinstance(doc, dict):
        raise _fail(where, "expected a JSON object (one session per line)")
    unknown = sorted(set(doc) - DOC_KEYS)
    if unknown:
        raise _fail(where, f"unknown field '{unknown[0]}'")
    _check_whole_numbers(doc, where, [])
    for key in REQUIRED_KEYS:
        if doc.get(key) is None:
            raise _fail(where, f"'{key}' is missing")
    _check_columns(doc, where)
    if doc["status"] not in STATUSES:
        raise _fail(where, f"status '{doc['status']}' is not one of {', '.join(STATUSES)}")
    _check_model(SessionSpec, doc["spec"], f"{where}: spec")
    _check_model(Character, doc["character_snapshot"], f"{where}: character_snapshot")
    _check_model(Situation, doc["situation_snapshot"], f"{where}: situation_snapshot")
    cast = doc.get("cast_snapshot")
    if cast is not None:
        if not isinstance(cast, list):
            raise _fail(where, "cast_snapshot: expected null or a list of cards")
        for i, card in enumerate(cast):
            _check_model(Character, card, f"{where}: cast_snapshot[{i}]")
    run = doc.get("run")
    if run is not None and (not isinstance(run, dict) or not isinstance(run.get("name"), str)):
        raise _fail(where, "run: expected null or an object with a 'name'")
    if run is not None:
        _check_time(run.get("created_at"), f"{where}: run")
    method = _method_of(doc)
    if method not in available_methods():
        raise _fail(where, f"spec: method {method!r} is not one of {', '.join(available_methods())}")
    if doc["method"] != method:
        raise _fail(where, f"method '{doc['method']}' is not the spec's '{method}'")
    parent = doc.get("parent")
    if parent is not None and not (isinstance(parent, dict) and set(parent) == set(VERSUS_KEYS)
                                   and isinstance(parent["created_at"], str) and isinstance(parent["player"], str)):
        raise _fail(where, f"parent: expected null or an object with {', '.join(VERSUS_KEYS)}")
    if parent is not None and doc.get("fork_turn") is None:
        raise _fail(where, "parent: a fork also names its fork_turn")
    if parent is None and doc.get("fork_turn") is not None:
        raise _fail(where, "fork_turn: only a fork has one (this line names no parent)")
    if parent is not None and versus_key(doc, parent) == own_key(doc):
        raise _fail(where, "parent: names this line's own session (a session is not forked from itself)")
    for key, (_, cols) in CHILD_TABLES.items():
        rows = doc.get(key, [])
        if not isinstance(rows, list):
            raise _fail(where, f"{key}: expected a list")
        for i, row in enumerate(rows):
            here = f"{where}: {key}[{i}]"
            if not isinstance(row, dict):
                raise _fail(here, "expected an object")
            extra = sorted(set(row) - set(cols))
            if extra:
                raise _fail(here, f"unknown field '{extra[0]}'")
            _check_row(key, row, here)
    _check_transcript(doc, where)
    _check_score_turns(doc, where)
    _check_judge_scores(doc.get("scores", []), where)
    _check_pairs(doc, where)


def _check_whole_numbers(value: Any, where: str, path: list[str]) -> None:
    """Every whole number the line stores as it is (its columns and rows, not the JSON text of its
    snapshots, spec, judges, notes or run settings) fits an SQLite INTEGER; ``path`` names the field
    ("calls[0]", "prompt_tokens")."""
    if type(value) is int:
        lo, hi = SQLITE_INTEGERS
        if not lo <= value <= hi:
            here = ": ".join([where, *path[:-1]])
            size = "large" if value > hi else "small"
            raise _fail(here, f"{path[-1]}: too {size} a number to store (a whole number from -2**63 to 2**63-1)")
    elif isinstance(value, dict):
        for key, item in value.items():
            if key not in JSON_COLUMNS:
                _check_whole_numbers(item, where, [*path, str(key)])
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _check_whole_numbers(item, where, [*path[:-1], f"{path[-1]}[{i}]"] if path else [f"[{i}]"])


TEXT_COLUMNS = ("status", "method", "lang", "character", "situation", "player", "interrogator", "error",
                "created_at", "updated_at", "finished_at")
TIME_COLUMNS = ("created_at", "updated_at", "finished_at")


def _check_time(value: Any, where: str, key: str = "created_at") -> None:
    """A time is text in ISO 8601 (what every view sorts and shows), or null."""
    if value is None:
        return
    if not isinstance(value, str):
        raise _fail(where, f"{key}: expected text")
    try:
        datetime.fromisoformat(value)
    except ValueError:
        raise _fail(where, f"{key}: {value!r} is not an ISO date and time") from None


def _check_columns(doc: dict, where: str) -> None:
    """The session's own columns are stored as written: text where text belongs, whole numbers
    where numbers do."""
    for key in TEXT_COLUMNS:
        if doc.get(key) is not None and not isinstance(doc[key], str):
            raise _fail(where, f"{key}: expected text, got {type(doc[key]).__name__}")
    for key in ("character", "situation", "player", "interrogator"):
        if not doc[key].strip():
            raise _fail(where, f"{key}: must not be blank")
    if not re.fullmatch(LANG_PATTERN, doc["lang"]):
        raise _fail(where, f"lang: {doc['lang']!r} is not a two-letter language code")
    for key in TIME_COLUMNS:
        _check_time(doc.get(key), where, key)
    for key in ("num_turns", "fork_turn"):
        if doc.get(key) is not None and type(doc[key]) is not int:
            raise _fail(where, f"{key}: expected a whole number, got {type(doc[key]).__name__}")
    if doc.get("num_turns") is not None and not 1 <= doc["num_turns"] <= MAX_TURNS:
        raise _fail(where, f"num_turns: expected 1 to {MAX_TURNS} (as a situation plans), got {doc['num_turns']}")
    if doc.get("fork_turn") is not None and doc["fork_turn"] < 1:
        raise _fail(where, f"fork_turn: expected a turn from 1, got {doc['fork_turn']}")
    judges = doc.get("judges")
    if judges is not None and not (isinstance(judges, list) and all(isinstance(j, str) for j in judges)):
        raise _fail(where, "judges: expected a list of model names")


def _row_data(row: dict) -> dict:
    """A message's or call's fields as its model takes them (the flag is written as 0 or 1)."""
    data = {k: v for k, v in row.items() if k != "created_at" and v is not None}
    flag = data.get("tokens_estimated", False)
    if flag not in (True, False):  # 0 and 1 compare equal to them
        raise ValueError("tokens_estimated: expected true, false, 0 or 1")
    data["tokens_estimated"] = bool(flag)
    return data


def _message(row: dict) -> Message:
    return Message.model_validate(_row_data(row), strict=True)


def _check_transcript(doc: dict, where: str) -> None:
    """Each message once, in the order the session's method runs (resuming it replays this order)."""
    messages = [_message(row) for row in doc.get("messages", [])]
    first: dict[tuple[int, str, str], int] = {}
    for i, m in enumerate(messages):
        key = (m.turn, m.role, m.speaker or "")
        if key in first:
            raise _fail(f"{where}: messages[{i}]", f"turn {m.turn} {m.role} message appears twice "
                                                   f"(also messages[{first[key]}])")
        first[key] = i
    spec = SessionSpec.model_validate(doc["spec"])
    try:
        method = get_method(spec.method)
    except UserError as exc:
        raise _fail(f"{where}: spec", str(exc)) from None
    try:
        if spec.cast:  # a group scene: turns by speaker, not user/assistant pairs
            from pingpong.core.engine import check_group_history

            check_group_history(messages, {c.character for c in spec.cast})
        else:
            method.check_history(messages)
    except ValueError as exc:
        raise _fail(f"{where}: messages", str(exc)) from None


def _check_score_turns(doc: dict, where: str) -> None:
    """A finished session has its player's replies, and a score of a turn is of one of them (what
    `sessions score --turn` asks of a person too)."""
    replies = sorted({row["turn"] for row in doc.get("messages", []) if row["role"] == "assistant"})
    if doc["status"] == "finished" and not replies:
        raise _fail(where, "messages: a finished session has no player message")
    for i, row in enumerate(doc.get("scores", [])):
        if row.get("turn") is not None and row["turn"] not in replies:
            raise _fail(f"{where}: scores[{i}]", f"turn {row['turn']} has no player message "
                                                 f"(player turns: {', '.join(map(str, replies)) or 'none'})")


def _check_judge_scores(rows: list[dict], where: str) -> None:
    """A judge gives one value per (turn, metric); two would leave it unclear which counts."""
    first: dict[tuple[str, int, str], int] = {}
    for i, row in enumerate(rows):
        if row["source"] != "judge":
            continue  # people's scores are append-only: their newest counts
        key = (row["by"], row.get("turn") or 0, row["metric"])
        if key in first:
            turn = f"turn {row['turn']}" if row.get("turn") else "the whole session"
            raise _fail(f"{where}: scores[{i}]", f"judge '{row['by']}' scored {row['metric']} of {turn} twice "
                                                 f"(also scores[{first[key]}])")
        first[key] = i


def _check_row(key: str, row: dict, where: str) -> None:
    _check_time(row.get("created_at"), where)
    if key in ("messages", "calls"):
        try:
            data = _row_data(row)
        except ValueError as exc:
            raise _fail(where, str(exc)) from None
        _check_model(Message if key == "messages" else CallRecord, data, where, strict=True)
        for field, least in LEAST[key].items():
            if row.get(field) is not None and row[field] < least:
                raise _fail(where, f"{field}: {row[field]} is below {least}")
    elif key == "scores":
        if row.get("source") not in ("judge", "human"):
            raise _fail(where, f"source {row.get('source')!r} is not judge or human")
        if not isinstance(row.get("by"), str) or not row["by"]:
            raise _fail(where, "by: missing")
        data = {k: v for k, v in row.items() if k not in ("source", "by", "created_at") and v is not None}
        if isinstance(data.get("value"), str):
            if data["value"] not in ("good", "bad") or data.get("scale") != "good-bad":
                raise _fail(where, f"value {data['value']!r} is not a number (or good/bad on the good-bad scale)")
            data["value"] = 1.0 if data["value"] == "good" else 0.0
        _check_model(Score, data, where, strict=True)


def versus_key(doc: dict, versus: dict) -> tuple:
    """What identifies the session a pairwise verdict of ``doc``'s line names (sessions.store.find_session)."""
    return (versus.get("created_at"), versus.get("player"), versus.get("interrogator"), doc.get("character"),
            doc.get("situation"), doc.get("method"), doc.get("lang"))


def own_key(doc: dict) -> tuple:
    return versus_key(doc, doc)


def _check_pairs(doc: dict, where: str) -> None:
    """Each pairwise verdict in its shape, on the pairwise scale, a judge's once per order."""
    items = doc.get("pair_scores", [])
    if not isinstance(items, list):
        raise _fail(where, "pair_scores: expected a list")
    first: dict[tuple, int] = {}
    for i, item in enumerate(items):
        here = f"{where}: pair_scores[{i}]"
        if not isinstance(item, dict):
            raise _fail(here, "expected an object")
        extra = sorted(set(item) - PAIR_KEYS)
        if extra:
            raise _fail(here, f"unknown field '{extra[0]}'")
        versus = item.get("versus")
        if not isinstance(versus, dict) or set(versus) != set(VERSUS_KEYS):
            raise _fail(here, f"versus: expected an object with {', '.join(VERSUS_KEYS)}")
        if not (isinstance(versus["created_at"], str) and isinstance(versus["player"], str)
                and (versus["interrogator"] is None or isinstance(versus["interrogator"], str))):
            raise _fail(here, "versus: created_at and player must be text, interrogator text or null")
        if versus_key(doc, versus) == own_key(doc):
            raise _fail(here, "versus: names this line's own session")
        _check_row("scores", {k: item.get(k) for k in PAIR_COLUMNS if k != "shown"}, here)
        if item.get("status") == "ok" and item.get("value") not in PAIR_VALUES:
            raise _fail(here, f"value {item.get('value')!r}: expected 1 (this session better), 0 (the other) or 0.5")
        shown = item.get("shown")
        if (shown not in SHOWN) if item["source"] == "judge" else shown is not None:
            raise _fail(here, "shown: a judge's verdict says 'ab' or 'ba' (which session it read first), "
                              "a person's is null")
        calls = item.get("calls", [])
        if not isinstance(calls, list):
            raise _fail(here, "calls: expected a list")
        for k, call in enumerate(calls):
            if not isinstance(call, dict):
                raise _fail(f"{here}: calls[{k}]", "expected an object")
            unknown = sorted(set(call) - set(CHILD_TABLES["calls"][1]))
            if unknown:
                raise _fail(f"{here}: calls[{k}]", f"unknown field '{unknown[0]}'")
            _check_row("calls", call, f"{here}: calls[{k}]")
        if item["source"] == "judge":
            key = (versus_key(doc, versus), item["by"], item["metric"], shown)
            if key in first:
                raise _fail(here, f"judge '{item['by']}' gave the {shown} order of this pair twice "
                                  f"(also pair_scores[{first[key]}])")
            first[key] = i


def _method_of(doc: dict) -> str:
    """A checked line's method, as its spec says it (a first release's `version: 1` is pingpong-v1)."""
    return SessionSpec.model_validate(doc["spec"]).method


@dataclass(frozen=True)
class _Line:
    """What the checks across a file's lines need of one line, so that they need not keep its dict."""

    where: str
    key: tuple
    method: str
    turns_done: int
    parent: dict | None
    fork_turn: int | None
    versus: tuple[dict, ...]  # each pairwise verdict's `versus`

    @classmethod
    def of(cls, where: str, doc: dict) -> _Line:
        return cls(where, own_key(doc), _method_of(doc), _turns_done(doc), doc.get("parent"), doc.get("fork_turn"),
                   tuple(item["versus"] for item in doc.get("pair_scores", [])))


def _check_versus(lines: list[_Line]) -> None:
    """Every pairwise verdict names another session of the same file with the same method, and
    every fork the session it came from."""
    methods = {line.key: line.method for line in lines}
    done = {line.key: line.turns_done for line in lines}
    for line in lines:
        where, parent = line.where, line.parent
        if parent is not None and _versus_key(line.key, parent) not in methods:
            raise _fail(where, f"parent: no session of '{parent['player']}' created at {parent['created_at']} "
                               "with this line's character and situation in the file")
        if parent is not None and line.fork_turn is not None and line.fork_turn > done[_versus_key(line.key, parent)]:
            turns = done[_versus_key(line.key, parent)]
            raise _fail(where, f"fork_turn: {line.fork_turn} is beyond the {turns} turn{'s' * (turns != 1)} "
                               f"its parent completed (a fork starts from the first 1 to {turns})")
        for i, versus in enumerate(line.versus):
            other = methods.get(_versus_key(line.key, versus))
            if other is None:
                raise _fail(f"{where}: pair_scores[{i}]", f"versus: no session of '{versus['player']}' created at "
                                                          f"{versus['created_at']} with this line's character and "
                                                          "situation in the file")
            if other != line.method:
                raise _fail(f"{where}: pair_scores[{i}]", f"versus: a {other} session is not compared with a "
                                                          f"{line.method} one")


def _versus_key(own: tuple, versus: dict) -> tuple:
    """versus_key from a line's own key: the session named shares its character, situation, method and language."""
    return (versus.get("created_at"), versus.get("player"), versus.get("interrogator"), *own[3:])


def _turns_done(doc: dict) -> int:
    """A line's completed turns, as StoredSession.turns_done counts them (what `sessions fork --turn` allows)."""
    return sum(1 for row in doc.get("messages", []) if row["role"] == "assistant")


def _check_fork_loops(lines: list[_Line]) -> None:
    """No fork is, through its parents, a fork of itself (a session comes before its forks)."""
    parents = {line.key: _versus_key(line.key, line.parent) for line in lines if line.parent is not None}
    where = {line.key: line.where for line in lines}
    rooted: set[tuple] = set()  # sessions whose line of parents ends
    for line in lines:
        walked: set[tuple] = set()
        key = line.key
        while key in parents and key not in rooted:
            if key in walked:  # key is in the loop
                raise _fail(where[key], "parent: through its parents this session is a fork of its own fork "
                                        "(the forks form a loop)")
            walked.add(key)
            key = parents[key]
        rooted.update(walked)


def jsonl_lines(text: str) -> list[str]:
    """The lines of a JSONL text: split at newlines only (str.splitlines would also split at
    U+2028, U+0085 and others, which JSON leaves raw inside strings)."""
    return [line.removesuffix("\r") for line in text.split("\n")]


@dataclass
class JsonlDocs:
    """A JSONL file's checked lines, each parsed again when it is stored: the dicts of a big file's
    every line at once take six to eight times its size (a file of 10,000 sessions, a gigabyte), and
    the whole file as one str up to four times (Cyrillic, CJK, emoji). Kept: its bytes and where each
    line is in them."""

    data: bytes  # the file in UTF-8
    lines: list[tuple[str, int, int]]  # (where, start, end) of each checked line

    def __len__(self) -> int:
        return len(self.lines)

    def __iter__(self) -> Iterator[dict]:
        for where, start, end in self.lines:
            yield loads_json(self.data[start:end].decode("utf-8"), where, JSONL_DEPTH)


def line_spans(data: bytes) -> Iterator[tuple[int, int]]:
    """Where each of jsonl_lines' lines is in UTF-8 bytes (a newline byte is never inside a character)."""
    start = 0
    while start <= len(data):
        end = data.find(b"\n", start)
        end = len(data) if end == -1 else end
        yield start, end - 1 if end > start and data[end - 1] == 13 else end  # 13: a carriage return
        start = end + 1


def parse_jsonl(text: str | bytes, name: str) -> JsonlDocs:
    """Parse and validate every line; UserError naming file and line."""
    data = text.encode("utf-8") if isinstance(text, str) else text
    kept: list[tuple[str, int, int]] = []
    checked: list[_Line] = []
    for n, (start, end) in enumerate(line_spans(data), 1):
        try:
            line = data[start:end].decode("utf-8")
        except UnicodeDecodeError:
            raise UserError(f"{name}: not UTF-8 text (expected PingPong results JSON or pingpong JSONL)") from None
        if not line.strip():
            continue
        where = f"{name}: line {n}"
        try:
            doc = loads_json(line, where, JSONL_DEPTH)
        except json.JSONDecodeError as exc:
            raise UserError(f"{where}: not valid JSON ({exc.msg} at column {exc.colno}); truncated file?") from None
        validate_document(doc, where)
        kept.append((where, start, end))
        checked.append(_Line.of(where, doc))
    if not kept:
        raise UserError(f"{name}: no sessions in the file")
    _check_versus(checked)
    _check_fork_loops(checked)
    return JsonlDocs(data, kept)


# ------------------------------------------------------------------ import


def _encode(column: str, value: Any) -> Any:
    if column == "value" and value in ("good", "bad"):
        return 1.0 if value == "good" else 0.0
    if column in JSON_COLUMNS and value is not None and not isinstance(value, str):
        return _stored_json(value)
    if isinstance(value, bool):
        return int(value)
    return value


def import_jsonl(store, docs: JsonlDocs, name: str) -> ImportSummary:
    """Store validated session documents in one transaction. A session already stored (same
    creation time, player, interrogator, character, situation, method and language) is skipped, but for the people's
    scores and pairwise picks it lacks: those are added (its judges' scores stay as they are)."""
    summary = ImportSummary(path=name, format="jsonl", conversations=len(docs),
                            merged_what="people's scores added to stored sessions")
    judges: set[str] = set()
    ids: dict[tuple, int] = {}
    forks: list[tuple[int, tuple]] = []  # new sessions that name their parent, and its key
    pairs: list[tuple[tuple, tuple, dict]] = []  # (own key, the other's key, verdict), stored once both are
    with store.transaction():
        for doc in docs:
            key = own_key(doc)
            pairs += [(key, versus_key(doc, item["versus"]), item) for item in doc.get("pair_scores") or []]
            session = {c: _encode(c, doc.get(c)) for c in SESSION_COLUMNS}
            children = {table: [{c: _encode(c, r.get(c)) for c in cols} for r in doc.get(k) or []]
                        for k, (table, cols) in CHILD_TABLES.items()}
            sid = store.insert_session_rows(session, doc.get("run"), children)
            if sid is None:  # stored before: people's scores and pairwise verdicts may still be new
                sid = store.find_session(*key)
                ids[key] = sid
                summary.merged += _merge_people(store, sid, doc, name)
                summary.skipped += 1
                continue
            ids[key] = sid
            judges.update(r["by"] for r in doc.get("scores") or [] if r.get("source") == "judge")
            summary.new_sessions += 1
            if doc.get("parent") is not None:
                forks.append((sid, versus_key(doc, doc["parent"])))
        for sid, parent in forks:
            store.set_parent(sid, ids[parent])
        for own, other, item in pairs:
            summary.pairs += _import_pair(store, ids[own], ids[other], item)
    summary.judges = sorted(judges)
    return summary


def _merge_people(store, sid: int, doc: dict, name: str) -> int:
    """Add the people's scores of ``doc`` that its stored session ``sid`` lacks (same person, turn,
    metric, value, reason and time; a score without a time matches one at any time); returns how many."""
    held = {(h.author, h.turn, h.metric, h.value, h.reason, h.created_at) for h in store.human_scores(sid)}
    held |= {(*h[:-1], None) for h in held}
    added = 0
    for i, row in enumerate(doc.get("scores") or []):
        if row["source"] != "human":
            continue
        value = _encode("value", row["value"])
        mine = (row["by"].strip(), row.get("turn"), row["metric"], value, row.get("explanation"), row.get("created_at"))
        if mine in held:
            continue
        try:
            store.add_human_score(sid, row.get("turn"), row["metric"], value, row["by"], row.get("explanation"),
                                  created_at=row.get("created_at"))
        except UserError as exc:
            raise UserError(f"{name}: the session of '{doc['player']}' created at {doc['created_at']}: "
                            f"scores[{i}]: {exc}") from None
        held |= {mine, (*mine[:-1], None)}
        added += 1
    return added


def _import_pair(store, this: int, other: int, item: dict) -> int:
    """Store one pairwise verdict of ``this`` line's session against ``other`` (1 when it was new).
    The database keeps a pair smaller id first, so the verdict is turned round when ``other`` is older."""
    if this == other:
        return 0
    row = {c: _encode(c, item.get(c)) for c in PAIR_COLUMNS}
    if this > other:
        row["value"] = None if row["value"] is None else 1.0 - row["value"]
        row["shown"] = {"ab": "ba", "ba": "ab"}.get(row["shown"])
    calls = [{c: _encode(c, call.get(c)) for c in CHILD_TABLES["calls"][1]} for call in item.get("calls") or []]
    return int(store.insert_pair_row(min(this, other), max(this, other), row, calls))
