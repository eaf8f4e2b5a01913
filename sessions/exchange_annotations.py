"""People's ratings of whole conversations as the PingPong reference's annotation JSONL holds them.

One line per rated conversation: the entry's `messages` (with its `character` and `situation`,
and usually `player`) plus `human_scores`, {metric: 1-5} for the whole conversation (1-10 on a
line marked `"version": 1`, PingPong v1's scale). The reference writes one file per annotator, so
the author is the file's name unless each line says who rated it (`author`, or `annotator`).
Import stores the ratings as people's scores of the whole conversation (turn null) of the stored
session of that version with the same character, situation and messages (and the line's player,
when it names one), storing the conversation first when it is not there yet; `export --format
annotations` writes everyone's current ratings back, one line per (conversation, person), each
naming its author and, for v1, its version.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

from pingpong.core.domain import METRICS, JudgeVerdict
from pingpong.core.methods.pingpong_v1 import METRIC_NAMES_V1
from pingpong.sessions import queries
from pingpong.sessions.exchange_pingpong import (
    UNKNOWN_MODEL,
    EntryError,
    ImportSummary,
    parse_conversation,
    parse_messages,
    store_conversation,
)
from pingpong.sessions.exchange_pingpong_export import (
    VERSIONS,
    reference_character,
    reference_messages,
    reference_situation,
)
from pingpong.sessions.records import StoredSession

AUTHOR_KEYS = ("author", "annotator")
"""A line's own author, where the file names one per line (else the file's name is the author)."""
RATED = (*METRICS, "is_refusal")
ALIASES = {v: k for k, v in METRIC_NAMES_V1.items()}
"""Version 1 names of the metrics, read as ours."""
DERIVED = frozenset({"final", "final_score"})
"""Keys a file may add that are made from the rated metrics: skipped without a word."""


def content_key(char_name: str, situation_text: str, pairs: list[tuple[str, str]]) -> str:
    """A conversation by what was said, whoever played it."""
    return json.dumps([char_name, situation_text, pairs], ensure_ascii=False)


def _stored(store, texts: list[str]) -> dict[tuple[str, str], list[tuple[int, str]]]:
    """(method, content key) -> [(session, player)] of the stored Likert sessions that may hold one of
    the file's conversations (they have a message with one of `texts`), oldest first. Only those are
    read whole: reading every session made a one-line file take a minute on a big database."""
    found: dict[tuple[str, str], list[tuple[int, str]]] = defaultdict(list)
    for sid in queries.sessions_saying(store.conn, [method for method, _ in VERSIONS], texts):
        stored = store.session(sid)
        pairs = [(m.role, m.text) for m in stored.messages]
        key = content_key(stored.character.char_name, stored.situation.text, pairs)
        found[(stored.spec.method, key)].append((stored.id, stored.spec.player))
    return found


def _ratings(raw: Any, where: str, top: int = 5, warnings: list[str] | None = None) -> dict[str, float]:
    """A line's {metric: value}; a key that is no rated metric is a line in ``warnings`` (a final
    derived from the three is skipped silently)."""
    if not isinstance(raw, dict) or not raw:
        raise EntryError(f"{where}.human_scores: expected an object of metric: score")
    out: dict[str, float] = {}
    for key, value in raw.items():
        metric = ALIASES.get(key, key)
        if metric not in RATED:
            if key not in DERIVED and warnings is not None:
                warnings.append(f"{where}.human_scores.{key}: not a metric pingpong stores "
                                f"({', '.join(RATED)}); ignored")
            continue
        if metric == "is_refusal":
            if value not in (0, 1):  # True and False compare equal to 1 and 0
                raise EntryError(f"{where}.human_scores.is_refusal is {value!r}, expected 0 or 1")
        elif (isinstance(value, bool) or not isinstance(value, (int, float)) or not float(value).is_integer()
              or not 1 <= value <= top):
            raise EntryError(f"{where}.human_scores.{key} is {value!r}, expected a whole score from 1 to {top} "
                             "(a mean of several people? import each person's file)")
        out[metric] = float(value)
    if not out:
        raise EntryError(f"{where}.human_scores: none of {', '.join(RATED)}")
    return out


def _model(row: dict, role: str) -> str:
    block = row.get(role)
    name = block.get("model_name") if isinstance(block, dict) else None
    return name.strip() if isinstance(name, str) and name.strip() else UNKNOWN_MODEL


def parse_annotations(text: str, name: str) -> tuple[list[tuple[str, dict]], list[str]]:
    """([(where, line object)], warnings): a line that is not a JSON object is one warning."""
    rows, warnings = [], []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        where = f"{name}: line {n}"
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            warnings.append(f"{where}: not valid JSON ({exc.msg}); line skipped")
            continue
        if not isinstance(row, dict):
            warnings.append(f"{where}: expected a JSON object; line skipped")
            continue
        rows.append((where, row))
    return rows, warnings


def import_annotations(store, text: str, name: str) -> ImportSummary:
    """Store every line's ratings (one transaction); a line that cannot be taken is one warning."""
    rows, warnings = parse_annotations(text, name)
    summary = ImportSummary(path=name, format="annotations", conversations=len(rows) + len(warnings),
                            warnings=warnings, merged_what="stored conversations newly rated",
                            skipped_what="already held these ratings, nothing added")
    file_author = Path(name).stem
    lines = []  # (author, ratings, conversation, its messages, player) of each line that can be taken
    for where, row in rows:
        try:
            author = next((row[k].strip() for k in AUTHOR_KEYS if isinstance(row.get(k), str) and row[k].strip()),
                          file_author)
            odd = next((k for k in AUTHOR_KEYS if k in row and not (isinstance(row[k], str) and row[k].strip())),
                       None)
            if odd is not None and author == file_author:
                summary.warnings.append(f"{where}.{odd}: {row[odd]!r} is no name; the file's name "
                                        f"'{file_author}' is the author")
            v1 = row.get("version") == 1
            ratings = _ratings(row.get("human_scores"), where, 10 if v1 else 5, summary.warnings)
            models = (_model(row, "player"), _model(row, "interrogator"), UNKNOWN_MODEL)
            opening, messages = parse_messages(row.get("messages"), where, models[0], models[1])
            conv = parse_conversation(row, where, messages, opening, models, JudgeVerdict(judge="", scores=[]))
        except EntryError as exc:
            summary.warnings.append(f"{exc}; line skipped")
            continue
        conv.method = "pingpong-v1" if v1 else "pingpong"
        lines.append((author, ratings, conv, messages, models[0]))
    with store.transaction():
        stored = _stored(store, [messages[0].text for *_, messages, _ in lines if messages])
        for author, ratings, conv, messages, player in lines:
            key = (conv.method, content_key(conv.character.char_name, conv.situation.text,
                                            [(m.role, m.text) for m in messages]))
            sid = next((s for s, p in stored.get(key, []) if player in (p, UNKNOWN_MODEL)), None)
            if sid is None:
                sid = store_conversation(store, conv, {})
                stored[key].append((sid, player))
                summary.new_sessions += 1
                _add_ratings(store, store.session(sid), ratings, author)
            elif _add_ratings(store, store.session(sid), ratings, author):
                summary.merged += 1
            else:  # this person's ratings of it are stored already
                summary.skipped += 1
    return summary


def _add_ratings(store, stored: StoredSession, ratings: dict[str, float], author: str) -> int:
    """Append the person's ratings the session does not already hold as their current ones."""
    added = 0
    for metric, value in ratings.items():
        mine = sorted((s for s in stored.human_scores if s.turn is None and s.metric == metric and s.author == author),
                      key=lambda s: (s.created_at or "", s.id or 0))
        if mine and mine[-1].value == value:
            continue
        store.add_human_score(stored.id, None, metric, int(value), author)
        added += 1
    return added


def _rated(store, method: str, batch: int) -> Iterator[StoredSession]:
    """The sessions of this method that people rated as a whole, oldest first, `batch` at a time."""
    ids = queries.sessions_rated_whole(store.conn, method, RATED)
    for i in range(0, len(ids), batch):
        yield from store.stored_sessions(ids[i:i + batch], judges=())


def iter_annotation_rows(store, batch: int = 200) -> Iterator[dict[str, Any]]:
    """The lines of people's ratings of whole conversations, oldest session first; only the sessions
    people rated as a whole are read. A line holds one person's current ratings of one conversation,
    in the order they were given: importing the lines in turn stores the newest rating of each metric
    last, so the one that counts is the same after a round trip. A person whose ratings of it fall on
    both sides of another's gets a line for each side."""
    for method, version in VERSIONS:
        for stored in _rated(store, method, batch):
            for author, ratings in _rating_runs(stored):
                yield {
                    "messages": reference_messages(stored),
                    "character": reference_character(stored, version),
                    "situation": reference_situation(stored),
                    "player": {"model_name": stored.spec.player},
                    "interrogator": {"model_name": stored.spec.interrogator},
                    "author": author,
                    "human_scores": {m: int(ratings[m]) for m in RATED if m in ratings},
                    **({"version": 1} if version == 1 else {}),
                }


def _rating_runs(stored: StoredSession) -> list[tuple[str, dict[str, float]]]:
    """Each person's newest rating per metric, oldest first, grouped into runs of one person."""
    newest: dict[tuple[str, str], float] = {}
    for score in sorted(stored.human_scores, key=lambda s: (s.created_at or "", s.id or 0)):
        if score.turn is None and score.metric in RATED:
            newest.pop((score.author, score.metric), None)  # to the end: dicts keep the order of insertion
            newest[(score.author, score.metric)] = score.value
    runs: list[tuple[str, dict[str, float]]] = []
    for (author, metric), value in newest.items():
        if not runs or runs[-1][0] != author:
            runs.append((author, {}))
        runs[-1][1][metric] = value
    return runs


def annotation_rows(store) -> list[dict[str, Any]]:
    """Every line of the annotation export (see iter_annotation_rows)."""
    return list(iter_annotation_rows(store))


def export_annotations(store, out: TextIO) -> int:
    """Write the annotation lines as they are made; returns how many."""
    n = 0
    for row in iter_annotation_rows(store):
        out.write(json.dumps(row, ensure_ascii=False) + "\n")
        n += 1
    return n
