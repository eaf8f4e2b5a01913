"""PingPong results JSON in and out (DESIGN.md "Exchange formats").

One results file holds one player's conversations as scored by one judge. Files
for the same conversations and different judges merge into one session with
several judges: a conversation is matched by player model, character name,
situation text and every message's role and text. A file is validated in full
before anything is written, and written in one transaction.

Version 2 files (`player`, `interrogator`, `judge`; 1-5 scores) hold `pingpong` sessions;
version 1 files (`testee`, `tester`; three 1-10 scores named `stay_in_character`,
`language_fluency`, `entertainment`, and `has_refusal`) hold `pingpong-v1` sessions.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from pingpong.core.domain import METRICS, Character, JudgeVerdict, Message, Score, SessionSpec, Situation
from pingpong.core.errors import UserError

SCORE_KEYS: tuple[str, ...] = (*METRICS, "is_refusal")
V1_KEYS: dict[str, str] = {"in_character": "stay_in_character", "entertaining": "entertainment",
                           "fluency": "language_fluency"}
"""Our metric names -> a version 1 file's names."""
UNKNOWN_MODEL = "unknown"


@dataclass
class Conversation:
    """One validated entry of `outputs`, ready to store."""

    player: str
    interrogator: str
    judge: str
    character: Character
    situation: Situation
    messages: list[Message]
    verdict: JudgeVerdict
    key: str = ""
    method: str = "pingpong"


@dataclass
class ImportSummary:
    """What importing one file did (printed by `pingpong import`)."""

    path: str
    format: str
    conversations: int = 0
    new_sessions: int = 0
    merged: int = 0  # verdicts added to sessions that were already stored
    skipped: int = 0  # already stored (same conversation, same judge / same session)
    judges: list[str] = field(default_factory=list)

    def line(self) -> str:
        parts = [f"{self.new_sessions} new sessions"]
        if self.merged:
            parts.append(f"{self.merged} judge verdicts added to stored sessions")
        if self.skipped:
            parts.append(f"{self.skipped} already stored, skipped")
        return f"{self.path}: {self.format}, {self.conversations} conversations: " + ", ".join(parts)


# ------------------------------------------------------------------ naming helpers


def slug(text: str, prefix: str) -> str:
    """A name matching core.domain.NAME_PATTERN; a short hash when the text has no ASCII letters."""
    s = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return s[:60].strip("-") or f"{prefix}-{hashlib.sha1(text.encode('utf-8')).hexdigest()[:10]}"


def situation_name(text: str) -> str:
    return "sit-" + hashlib.sha1(text.encode("utf-8")).hexdigest()[:10]


def guess_lang(*texts: str) -> str:
    """'ru' when Cyrillic letters outnumber Latin ones, else 'en' (PingPong's two languages)."""
    joined = " ".join(texts)
    cyr = len(re.findall(r"[\u0400-\u04ff]", joined))
    lat = len(re.findall(r"[A-Za-z]", joined))
    return "ru" if cyr > lat else "en"


def conversation_key(player: str, char_name: str, situation_text: str, messages: list[Message]) -> str:
    """Identity of a conversation across results files of different judges."""
    data = [player, char_name, situation_text, [[m.role, m.text] for m in messages]]
    return hashlib.sha256(json.dumps(data, ensure_ascii=False).encode("utf-8")).hexdigest()


def file_stem(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_") or "model"


# ------------------------------------------------------------------ validation


def _model_name(data: dict, role: str, where: str, required: bool) -> str:
    block = data.get(role)
    if block is None and not required:
        return UNKNOWN_MODEL
    if not isinstance(block, dict) or not isinstance(block.get("model_name"), str) or not block["model_name"].strip():
        raise UserError(f"{where}: '{role}.model_name' is missing or not a string")
    return block["model_name"].strip()


def _text(value: Any, where: str, required: bool = False) -> str:
    if value is None and not required:
        return ""
    if not isinstance(value, str):
        raise UserError(f"{where}: expected text, got {type(value).__name__}")
    return value


def _tags(value: Any, where: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(t, str) for t in value):
        raise UserError(f"{where}: expected a list of strings")
    return list(value)


def _messages(raw: Any, where: str, player: str, interrogator: str, greeting: str) -> list[Message]:
    if not isinstance(raw, list) or not raw:
        raise UserError(f"{where}.messages: expected a non-empty list of messages")
    items = []
    for i, m in enumerate(raw):
        if not isinstance(m, dict) or m.get("role") not in ("user", "assistant", "system"):
            raise UserError(f"{where}.messages[{i}]: expected {{'role': 'user'|'assistant', 'content': text}}")
        items.append((i, m["role"], _text(m.get("content"), f"{where}.messages[{i}].content", True)))
    items = [it for it in items if it[1] != "system"]
    if items and items[0][1] == "assistant" and greeting and items[0][2] == greeting:
        items = items[1:]  # the card's greeting, kept in the character snapshot
    out = []
    for n, (i, role, content) in enumerate(items):
        expected = "user" if n % 2 == 0 else "assistant"
        if role != expected:
            raise UserError(f"{where}.messages[{i}]: expected a '{expected}' message (user and assistant must alternate, user first)")
        out.append(Message(turn=n // 2 + 1, role=role, text=content,
                           author=interrogator if role == "user" else player))
    return out


def _scores(raw: Any, where: str, player_turns: int, judge: str, version: int = 2) -> JudgeVerdict:
    """A judge's per-turn lists as Score rows; version 1 lists may be shorter than the
    conversation only by the replies after a refusal (the reference stops there)."""
    names = {m: (V1_KEYS[m] if version == 1 else m) for m in METRICS}
    hi = 10 if version == 1 else 5
    if not isinstance(raw, dict):
        raise UserError(f"{where}.scores: expected an object with {', '.join(names.values())}")
    lists: dict[str, list] = {}
    for metric, key in (*names.items(), ("is_refusal", "is_refusal")):
        values = raw.get(key)
        if values is None and metric == "is_refusal" and version == 1:
            values = [0] * len(lists["in_character"])
        if not isinstance(values, list):
            raise UserError(f"{where}.scores.{key}: missing or not a list")
        if len(values) != player_turns and not (version == 1 and 0 < len(values) <= player_turns):
            raise UserError(f"{where}.scores.{key} has {len(values)} entries for {player_turns} player turns")
        for i, v in enumerate(values):
            ok_int = isinstance(v, (int, float)) and not isinstance(v, bool) and float(v).is_integer()
            if key == "is_refusal":
                if not (isinstance(v, bool) or (ok_int and v in (0, 1))):
                    raise UserError(f"{where}.scores.is_refusal[{i}] is {v!r}, expected 0 or 1")
            elif not ok_int or not 1 <= v <= hi:
                raise UserError(f"{where}.scores.{key}[{i}] is {v!r}, expected a score from 1 to {hi}")
        lists[metric] = values
    if len({len(v) for v in lists.values()}) != 1:
        raise UserError(f"{where}.scores: the lists differ in length")
    scale = "1-10" if version == 1 else "1-5"
    scores = []
    for t in range(len(lists["in_character"])):
        scores.append(Score(turn=t + 1, metric="is_refusal", value=float(bool(lists["is_refusal"][t])), scale="0-1"))
        scores += [Score(turn=t + 1, metric=m, value=float(lists[m][t]), scale=scale) for m in METRICS]
    return JudgeVerdict(judge=judge, scores=scores)


def parse_results(data: Any, name: str) -> list[Conversation]:
    """Validate a whole results document; UserError naming the file, the entry and the field."""
    if not isinstance(data, dict) or not isinstance(data.get("outputs"), list):
        raise UserError(f"{name}: not a PingPong results file (no 'outputs' list)")
    version = 1 if data.get("version") == 1 or "tester" in data else 2
    if version == 1:
        player = _model_name(data, "testee", name, True)
        judge = interrogator = _model_name(data, "tester", name, True)
    else:
        player = _model_name(data, "player", name, True)
        judge = _model_name(data, "judge", name, True)
        interrogator = _model_name(data, "interrogator", name, False)
    out = []
    for i, entry in enumerate(data["outputs"]):
        where = f"{name}: outputs[{i}]"
        if not isinstance(entry, dict):
            raise UserError(f"{where}: expected an object")
        char = entry.get("character")
        sit = entry.get("situation")
        if not isinstance(char, dict) or not isinstance(char.get("char_name"), str) or not char["char_name"].strip():
            raise UserError(f"{where}.character.char_name: missing")
        if not isinstance(sit, dict) or not isinstance(sit.get("text"), str) or not sit["text"].strip():
            raise UserError(f"{where}.situation.text: missing")
        greeting = _text(char.get("initial_message"), f"{where}.character.initial_message")
        messages = _messages(entry.get("messages"), where, player, interrogator, greeting)
        player_turns = sum(1 for m in messages if m.role == "assistant")
        if player_turns == 0:
            raise UserError(f"{where}.messages: no player (assistant) message")
        verdict = _scores(entry.get("scores"), where, player_turns, judge, version)
        persona = _text(char.get("system_prompt"), f"{where}.character.system_prompt")
        summary = _text(char.get("summary"), f"{where}.character.summary")
        lang = guess_lang(persona, sit["text"], *(m.text for m in messages))
        num_turns = sit.get("num_turns", player_turns)
        if isinstance(num_turns, bool) or not isinstance(num_turns, int):
            raise UserError(f"{where}.situation.num_turns: expected an integer, got {num_turns!r}")
        try:
            character = Character(
                name=slug(char["char_name"], "char"), char_name=char["char_name"].strip(), lang=lang,
                summary=summary.strip() or (persona.strip()[:300] or char["char_name"].strip()),
                persona=persona.strip() and persona or char["char_name"].strip(),
                example_text=_text(char.get("example_prompt"), f"{where}.character.example_prompt"),
                greeting=greeting, tags=_tags(char.get("tags"), f"{where}.character.tags"),
            )
            situation = Situation(
                name=situation_name(sit["text"]), lang=lang, text=sit["text"], num_turns=num_turns,
                tags=_tags(sit.get("tags"), f"{where}.situation.tags"),
            )
        except ValidationError as exc:
            err = exc.errors()[0]
            loc = ".".join(str(x) for x in err["loc"])
            raise UserError(f"{where}: {loc}: {err['msg']}") from None
        conv = Conversation(player, interrogator, judge, character, situation, messages, verdict,
                            method="pingpong-v1" if version == 1 else "pingpong")
        conv.key = conversation_key(player, character.char_name, situation.text, messages)
        out.append(conv)
    return out


# ------------------------------------------------------------------ import


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _stored_keys(store, players: set[str]) -> dict[str, list[tuple[int, set[str]]]]:
    """conversation key -> [(session id, judges that scored it)] for these players' sessions."""
    found: dict[str, list[tuple[int, set[str]]]] = defaultdict(list)
    for player in sorted(players):
        for summary in store.sessions(player=player):
            stored = store.session(summary.id)
            key = conversation_key(player, stored.character.char_name, stored.situation.text, stored.messages)
            found[key].append((stored.id, {v.judge for v in stored.verdicts} | set(stored.spec.judges)))
    return found


def import_results(store, data: Any, name: str) -> ImportSummary:
    """Validate then store one results document in one transaction."""
    convs = parse_results(data, name)
    summary = ImportSummary(path=name, format="pingpong", conversations=len(convs))
    summary.judges = sorted({c.judge for c in convs})
    with store.transaction():
        stored = _stored_keys(store, {c.player for c in convs})
        for conv in convs:
            matches = stored.get(conv.key, [])
            target = next((entry for entry in matches if conv.judge not in entry[1]), None)
            if target is None and matches:
                summary.skipped += 1  # this judge's scoring of this conversation is already stored
                continue
            if target is not None:
                sid, judges = target
                store.add_verdict(sid, conv.verdict)
                store.add_judge(sid, conv.judge)
                judges.add(conv.judge)
                summary.merged += 1
                continue
            spec = SessionSpec(
                method=conv.method, character=conv.character.name, situation=conv.situation.name,
                player=conv.player, interrogator=conv.interrogator, judges=[conv.judge], lang=conv.character.lang,
            )
            sid = store.create_session(spec, conv.character, conv.situation, status="finished")
            for m in conv.messages:
                store.add_message(sid, m)
            store.add_verdict(sid, conv.verdict)
            stored.setdefault(conv.key, []).append((sid, {conv.judge}))
            summary.new_sessions += 1
    return summary


# ------------------------------------------------------------------ export


def _example_prompt(character: dict) -> str:
    if character.get("example_text"):
        return character["example_text"]
    lines = []
    for turn in character.get("example_dialogue") or []:
        lines.append(f"User: {turn['user']}")
        lines.append(f"{character.get('char_name', 'Character')}: {turn['char']}")
    return "\n".join(lines)


def results_documents(store) -> dict[str, dict]:
    """{file name: results document}, one per (player, interrogator, judge) and version, from
    finished `pingpong` (version 2 files) and `pingpong-v1` sessions (version 1 files).

    A judge's scoring goes out only when it has usable scores for every player turn it scored
    (the format has no place for a failed turn).
    """
    docs: dict[tuple[int, str, str, str], list[dict]] = defaultdict(list)
    for method, version in (("pingpong", 2), ("pingpong-v1", 1)):
        for summary in store.sessions(status="finished", method=method):
            stored = store.session(summary.id)
            msgs = stored.messages
            player_turns = sorted(m.turn for m in msgs if m.role == "assistant")
            if not player_turns:
                continue
            char = stored.character.model_dump(mode="json")
            for verdict in stored.verdicts:
                views = {v.turn: v for v in verdict.turns if v.turn is not None}
                scored = player_turns if version == 2 else [t for t in player_turns if t in views]
                rows = [views.get(t) for t in scored]
                if not rows or any(r is None or r.status != "ok" or None in (r.in_character, r.entertaining,
                                                                              r.fluency) for r in rows):
                    continue
                refusal = [int(bool(r.is_refusal)) for r in rows if r is not None]
                names = V1_KEYS if version == 1 else {m: m for m in METRICS}
                scores: dict[str, list[int]] = {names[m]: [int(r.value(m) or 0) for r in rows if r is not None]
                                                for m in METRICS}
                scores["is_refusal"] = refusal
                entry: dict[str, Any] = {
                    "messages": [{"role": m.role, "content": m.text} for m in msgs],
                    "character": {
                        "char_name": char["char_name"], "system_prompt": char.get("persona", ""),
                        "example_prompt": _example_prompt(char), "initial_message": char.get("greeting", ""),
                        "summary": char.get("summary", ""), "tags": char.get("tags", []),
                    },
                    "situation": {"text": stored.situation.text, "tags": stored.situation.tags,
                                  "num_turns": stored.situation.num_turns},
                    "scores": scores,
                }
                if version == 1:
                    entry["has_refusal"] = any(refusal)
                docs[(version, stored.spec.player, stored.spec.interrogator, verdict.judge)].append(entry)
    out = {}
    for (version, player, interrogator, judge), outputs in sorted(docs.items()):
        refusals = sum(1 for o in outputs if any(o["scores"]["is_refusal"]))
        if version == 1:
            name = f"v1_tester_{file_stem(judge)}_testee_{file_stem(player)}.json"
            out[name] = {"version": 1, "testee": {"model_name": player, "params": {}},
                         "tester": {"model_name": judge, "params": {}},
                         "refusal_ratio": refusals / len(outputs), "outputs": outputs}
            continue
        name = f"judge_{file_stem(judge)}_player_{file_stem(player)}_interrogator_{file_stem(interrogator)}.json"
        out[name] = {
            "version": 2,
            "player": {"model_name": player, "params": {}},
            "interrogator": {"model_name": interrogator, "params": {}},
            "judge": {"model_name": judge, "params": {}},
            "refusal_ratio": refusals / len(outputs),
            "outputs": outputs,
        }
    return out


def export_results(store, folder: Path) -> list[Path]:
    """Write one results file per (player, interrogator, judge) into `folder`; returns the paths."""
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise UserError(f"{folder}: exists and is not a folder (--format pingpong writes one file per player and judge)")
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, doc in results_documents(store).items():
        path = folder / name
        path.write_text(json.dumps(doc, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
        paths.append(path)
    return paths
