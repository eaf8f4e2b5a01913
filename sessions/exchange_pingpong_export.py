"""PingPong results JSON out: one file per (language, player, interrogator, judge), as the reference
writes it, in a folder per language (the reference keeps results/en and results/ru apart: its boards
are per language, as ours are).

A file carries what the reference's own writer puts there: the entries, the version, the refusal
ratio, each seat's block (model name, extra system prompt, params) and the top-level aggregates
(per metric the mean over the scored turns of the conversations the judge did not flag as a
refusal, and `final_score`, the mean of those). What an imported file held beyond that is given
back from the session's spec (exchange_pingpong.py keeps it).

A judge's scoring of a conversation goes out when it scored at least one turn. Turns it failed
to score are left out of its score lists and named in the entry's `failed_turns`: the reference
averages the lists it finds, so its aggregation of the export equals `pingpong leaderboard`
(per conversation and judge, the mean over the judged turns). Forks stay out: the reference would
count them as conversations of their own, which the leaderboard does only with --include-forks.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from statistics import mean
from typing import Any

from pingpong.core.domain import METRICS, JudgeVerdict
from pingpong.core.errors import UserError
from pingpong.core.methods.pingpong_v1 import METRIC_NAMES_V1
from pingpong.sessions import queries
from pingpong.sessions.exchange_pingpong import CUT_KEY, FAILED_TURNS
from pingpong.sessions.files import write_text
from pingpong.sessions.records import StoredSession

VERSIONS = (("pingpong", 2), ("pingpong-v1", 1))
"""Methods whose sessions go out as results files, and the format version of each."""


def reference_messages(stored: StoredSession) -> list[dict[str, Any]]:
    """The transcript as the reference stores it: an imported opening first, then user/assistant;
    a message that did not end with a plain stop carries its `finish_reason` (`length`: cut at max_tokens)."""
    out: list[dict[str, Any]] = []
    opening = stored.spec.origin.get("opening")
    if isinstance(opening, str):
        out.append({"role": "assistant", "content": opening})
    for m in stored.messages:
        item: dict[str, Any] = {"role": m.role, "content": m.text}
        if m.ending:
            item[CUT_KEY] = m.notes[CUT_KEY]
        out.append(item)
    return out


def reference_character(stored: StoredSession, version: int) -> dict[str, Any]:
    """The character block as imported, else built from the snapshot (version 1 has no summary)."""
    kept = stored.spec.origin.get("character")
    if isinstance(kept, dict):
        return kept
    char = stored.character
    example = char.example_text or "\n".join(
        f"User: {turn.user}\n{char.char_name}: {turn.char}" for turn in char.example_dialogue)
    block = {"char_name": char.char_name, "system_prompt": char.persona, "tags": list(char.tags),
             "example_prompt": example, "initial_message": char.greeting}
    if version == 2:
        block["summary"] = char.summary
    # ours, which the reference ignores: import reads them back, so boards split --by role_type again
    block["name"] = char.name
    if char.role_type:
        block["role_type"] = char.role_type
    return block


def reference_situation(stored: StoredSession) -> dict[str, Any]:
    kept = stored.spec.origin.get("situation")
    if isinstance(kept, dict):
        return kept
    sit = stored.situation
    block: dict[str, Any] = {"text": sit.text, "tags": list(sit.tags), "num_turns": sit.num_turns, "name": sit.name}
    if sit.intent is not None:
        block["intent"] = sit.intent.value  # ours, as the card's name and role type
    return block


def judge_entry(stored: StoredSession, verdict: JudgeVerdict, version: int) -> dict[str, Any] | None:
    """One judge's entry for one conversation; None when it scored no turn.

    Version 2 lists cover the turns the judge scored in full; version 1 lists stop before the
    reply the tester flagged as a refusal (`has_refusal`), as the reference's tester loop does.
    """
    player_turns = sorted(m.turn for m in stored.messages if m.role == "assistant")
    views = {v.turn: v for v in verdict.turns if v.turn is not None}

    def usable(turn: int) -> bool:
        v = views.get(turn)
        return v is not None and v.status == "ok" and all(v.value(m) is not None for m in METRICS)

    refused_at = None
    if version == 1:
        refused_at = next((t for t in player_turns if t in views and views[t].is_refusal), None)
        covered = [t for t in player_turns if refused_at is None or t < refused_at]
    else:
        covered = player_turns
    scored = [t for t in covered if usable(t) and (version == 1 or views[t].is_refusal is not None)]
    if not scored and refused_at is None:
        return None
    failed = [t for t in covered if t not in scored]
    names = METRIC_NAMES_V1 if version == 1 else {m: m for m in METRICS}
    scores: dict[str, list[int]] = {names[m]: [int(views[t].value(m) or 0) for t in scored] for m in METRICS}
    if version == 2:
        scores["is_refusal"] = [int(bool(views[t].is_refusal)) for t in scored]
    entry: dict[str, Any] = dict(stored.spec.origin.get("entries", {}).get(verdict.judge, {}))
    entry.update(messages=reference_messages(stored), character=reference_character(stored, version),
                 situation=reference_situation(stored))
    if version == 1:
        entry["has_refusal"] = refused_at is not None
    entry["scores"] = scores
    if failed:
        entry[FAILED_TURNS] = failed
    return entry


def refused(entry: dict[str, Any]) -> bool:
    """The entry counts as a refusal conversation (the reference's rule for each version)."""
    if "has_refusal" in entry:
        return bool(entry["has_refusal"])
    return max(entry["scores"].get("is_refusal") or [0]) == 1


def aggregates(outputs: list[dict[str, Any]], version: int) -> dict[str, float]:
    """The file's top-level means: per metric over every scored turn of the entries that are not
    refusals, then the final as the mean of the metric means (nothing when no such turn)."""
    names = list(METRIC_NAMES_V1.values()) if version == 1 else list(METRICS)
    pooled: dict[str, list[int]] = defaultdict(list)
    for o in outputs:
        if not refused(o):
            for key in names:
                pooled[key].extend(o["scores"].get(key, []))
    if not all(pooled[key] for key in names):
        return {}
    suffix = "_score" if version == 1 else ""
    out = {key + suffix: mean(pooled[key]) for key in names}
    out["final_score"] = mean(out.values())
    return out


def _block(name: str, stored: StoredSession, *seats: str) -> dict[str, Any]:
    """A seat's block: its model name and the first recorded set-up of the seats named."""
    setup = next((stored.spec.seats[s] for s in seats if s in stored.spec.seats), {"system_prompt": "", "params": {}})
    return {"model_name": name, **setup}


def file_stem(text: str) -> str:
    """A model name as part of a file name: letters of any script, digits, '.', '_' and '-' stay,
    anything else (slashes, colons, spaces, controls) becomes '_'."""
    return re.sub(r"[^\w.-]+", "_", unicodedata.normalize("NFC", text)).strip("_") or "model"


GroupKey = tuple[str, int, str, str, str]
"""(language, format version, player, interrogator, judge): what one results file holds."""


def file_name(key: GroupKey) -> str:
    _, version, player, interrogator, judge = key
    if version == 1:
        return f"v1_tester_{file_stem(judge)}_testee_{file_stem(player)}.json"
    return f"judge_{file_stem(judge)}_player_{file_stem(player)}_interrogator_{file_stem(interrogator)}.json"


def file_paths(keys: list[GroupKey]) -> dict[GroupKey, str]:
    """Each file's path under the export folder, `LANG/NAME.json`. Names that would be the same file
    (model names that differ only in characters a file name cannot hold, or only in case) get a
    short hash of their models each, so no file overwrites another."""
    paths = {key: f"{file_stem(key[0])}/{file_name(key)}" for key in keys}
    clashes: dict[str, list[GroupKey]] = defaultdict(list)
    for key, path in paths.items():
        clashes[path.casefold()].append(key)
    for group in clashes.values():
        if len(group) > 1:
            for key in group:
                digest = hashlib.sha1(json.dumps(key[1:], ensure_ascii=False).encode("utf-8")).hexdigest()[:8]
                paths[key] = paths[key].removesuffix(".json") + f"_{digest}.json"
    return paths


SESSION_BATCH = 200
"""Sessions of one results file loaded at a time."""


def _groups(store) -> dict[GroupKey, list[int]]:
    """{(language, version, player, interrogator, judge): its sessions, oldest first}, from one light
    query: the sessions that may have an entry in that file."""
    version_of = dict(VERSIONS)
    groups: dict[GroupKey, list[int]] = defaultdict(list)
    for sid, method, lang, player, interrogator, judges in queries.results_sessions(store.conn, list(version_of)):
        for judge in json.loads(judges):
            groups[(lang, version_of[method], player, interrogator, judge)].append(sid)
    return groups


def _entries(store, key: GroupKey, ids: list[int], batch: int) -> Iterator[tuple[StoredSession, dict[str, Any]]]:
    """(session, entry) of each of the sessions with an entry in the file of `key`, oldest first,
    loading `batch` sessions at a time with only that judge's scores."""
    version, judge = key[1], key[4]
    for i in range(0, len(ids), batch):
        for stored in store.stored_sessions(ids[i:i + batch], judges=[judge]):
            for verdict in stored.verdicts:
                entry = judge_entry(stored, verdict, version)
                if entry is not None:
                    yield stored, entry


def results_files(store, batch: int = SESSION_BATCH) -> Iterator[tuple[str, dict[str, Any]]]:
    """(path under the export folder, results document), one per (language, player, interrogator,
    judge) and version, from finished `pingpong` (version 2 files) and `pingpong-v1` sessions
    (version 1 files) that are not forks; built one file at a time, in order of their keys."""
    groups = _groups(store)
    # a file whose name clashes with another's takes a hash only when both have entries: find out first
    names: dict[str, list[GroupKey]] = defaultdict(list)
    for key in groups:
        names[f"{file_stem(key[0])}/{file_name(key)}".casefold()].append(key)
    empty = {key for keys in names.values() if len(keys) > 1 for key in keys
             if next(_entries(store, key, groups[key], batch), None) is None}
    paths = file_paths([key for key in groups if key not in empty])
    for key in sorted(paths):
        first: StoredSession | None = None
        outputs: list[dict[str, Any]] = []
        for stored, entry in _entries(store, key, groups[key], batch):
            first = first or stored
            outputs.append(entry)
        if first is not None:
            yield paths[key], results_document(key, first, outputs)


def results_document(key: GroupKey, first: StoredSession, outputs: list[dict[str, Any]]) -> dict[str, Any]:
    """One results file: its entries, then the seats' blocks as `first` (its oldest session) recorded them."""
    _, version, player, interrogator, judge = key
    doc: dict[str, Any] = {"outputs": outputs, "version": first.spec.origin.get("version", version),
                           "refusal_ratio": sum(map(refused, outputs)) / len(outputs)}
    if version == 1:
        tester = ("interrogator",) if judge == interrogator else ()  # the tester sits in that seat
        doc.update(tester=_block(judge, first, f"judge:{judge}", *tester), testee=_block(player, first, "player"))
    else:
        doc.update(judge=_block(judge, first, f"judge:{judge}"),
                   interrogator=_block(interrogator, first, "interrogator"),
                   player=_block(player, first, "player"))
    doc.update(aggregates(outputs, version))
    return doc


def results_documents(store) -> dict[str, dict[str, Any]]:
    """{path under the export folder: results document} of every results file (see results_files)."""
    return dict(results_files(store))


def export_results(store, folder: Path) -> list[Path]:
    """Write one results file per (language, player, interrogator, judge) into `folder`/LANG/;
    returns the paths."""
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise UserError(f"{folder}: exists and is not a folder (--format pingpong writes one file per player and judge)")
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, doc in results_files(store):
        path = folder / name
        path.parent.mkdir(exist_ok=True)
        write_text(path, json.dumps(doc, ensure_ascii=False, indent=4) + "\n")
        paths.append(path)
    return paths
