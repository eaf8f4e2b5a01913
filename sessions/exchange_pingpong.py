"""PingPong results JSON in (DESIGN.md "Exchange formats"); the export is exchange_pingpong_export.py.

One results file holds one player's conversations as scored by one judge. Files for the same
conversations and different judges merge into one session with several judges: a conversation
is matched by player model, character name, situation text and every message's role and text.

Import is lenient where the reference is: a file that is not a results file at all is refused
whole, but an entry (conversation) that cannot be taken is skipped with one warning line naming
it, and the rest is stored in one transaction. What the format holds beyond pingpong's model of
a session (the file's version, the seats' params, the character and situation blocks as written,
an opening message, other keys of an entry) is kept in the session's spec, so an export gives it
back.

Version 2 files (`player`, `interrogator`, `judge`; 1-5 scores) hold `pingpong` sessions;
version 1 files (`testee`, `tester`; three 1-10 scores named `stay_in_character`,
`language_fluency`, `entertainment`, and `has_refusal`) hold `pingpong-v1` sessions. An entry's
`failed_turns` (written by our export) lists the player turns its judge failed to score: its
score lists cover the other turns.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

from pydantic import ValidationError

from pingpong.characters.text import guess_lang, slugify
from pingpong.core.domain import (
    CUT_NOTE,
    METRICS,
    NAME_PATTERN,
    Character,
    Intent,
    JudgeVerdict,
    Message,
    Score,
    SessionSpec,
    Situation,
    finish_notes,
)
from pingpong.core.errors import UserError
from pingpong.core.methods.dmt_rules import ROLE_TYPES
from pingpong.core.methods.pingpong_v1 import METRIC_NAMES_V1
from pingpong.core.vocabulary import ISO_639_1

UNKNOWN_MODEL = "unknown"
FAILED_TURNS = "failed_turns"
"""An entry's list of player turns its judge failed to score (our export writes it; the reference
ignores keys it does not know, and its score lists then cover the scored turns only)."""
ENTRY_KEYS = frozenset({"messages", "character", "situation", "scores", "has_refusal", FAILED_TURNS})
"""An entry's keys that pingpong reads; any other key is kept per judge and written back."""
CUT_KEY = CUT_NOTE[0]
"""A message's key our export adds when the model stopped at its max_tokens (value "length")."""


@dataclass
class Conversation:
    """One taken entry of `outputs`, ready to store."""

    player: str
    interrogator: str
    judge: str
    character: Character
    situation: Situation
    messages: list[Message]
    verdict: JudgeVerdict
    key: str = ""
    method: str = "pingpong"
    origin: dict[str, Any] = field(default_factory=dict)  # the session's spec.origin
    extra: dict[str, Any] = field(default_factory=dict)  # the entry's other keys (this judge's)


@dataclass
class ResultsFile:
    """A parsed results file: the conversations it holds and the entries it had to skip."""

    conversations: list[Conversation]
    seats: dict[str, dict[str, Any]]  # spec.seats of the file's player, interrogator and judge
    warnings: list[str] = field(default_factory=list)


@dataclass
class ImportSummary:
    """What importing one file did (printed by `pingpong import`)."""

    path: str
    format: str
    conversations: int = 0
    new_sessions: int = 0
    merged: int = 0  # verdicts (or people's ratings) added to sessions that were already stored
    merged_what: str = "judge verdicts added to stored sessions"
    skipped_what: str = "already stored, skipped"
    skipped: int = 0  # already stored (same conversation, same judge / same session)
    pairs: int = 0  # pairwise verdicts stored (our JSONL)
    judges: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # entries skipped: one line each
    unit: str = "conversations"

    def line(self) -> str:
        parts = [f"{self.new_sessions} new sessions"]
        if self.merged:
            parts.append(f"{self.merged} {self.merged_what}")
        if self.pairs:
            parts.append(f"{self.pairs} pairwise verdicts")
        if self.skipped:
            parts.append(f"{self.skipped} {self.skipped_what}")
        if self.warnings:
            parts.append(f"{len(self.warnings)} could not be taken, skipped")
        return f"{self.path}: {self.format}, {self.conversations} {self.unit}: " + ", ".join(parts)


class EntryError(Exception):
    """An entry that cannot be taken: skipped with one warning line (the message)."""


# ------------------------------------------------------------------ naming helpers


def situation_name(text: str) -> str:
    return "sit-" + hashlib.sha1(text.encode("utf-8")).hexdigest()[:10]


def conversation_key(method: str, player: str, char_name: str, situation_text: str, messages: list[Message]) -> str:
    """Identity of a conversation across results files of different judges. The method is part of
    it: a version 1 and a version 2 file may hold the same words, scored on different scales."""
    data = [method, player, char_name, situation_text, [[m.role, m.text] for m in messages]]
    return hashlib.sha256(json.dumps(data, ensure_ascii=False).encode("utf-8")).hexdigest()


# ------------------------------------------------------------------ reading one entry


def _model_name(data: dict, role: str, where: str, required: bool) -> str:
    block = data.get(role)
    if block is None and not required:
        return UNKNOWN_MODEL
    if not isinstance(block, dict) or not isinstance(block.get("model_name"), str) or not block["model_name"].strip():
        raise UserError(f"{where}: '{role}.model_name' is missing or not a string")
    return block["model_name"].strip()


def _setup(data: dict, role: str) -> dict[str, Any] | None:
    """A seat's block without its model name (params, system prompt, ...), as the file has it."""
    block = data.get(role)
    return {k: v for k, v in block.items() if k != "model_name"} if isinstance(block, dict) else None


def _text(value: Any, where: str, required: bool = False) -> str:
    if value is None and not required:
        return ""
    if not isinstance(value, str):
        raise EntryError(f"{where}: expected text, got {type(value).__name__}")
    return value


def _tags(value: Any, where: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(t, str) for t in value):
        raise EntryError(f"{where}: expected a list of strings")
    return list(value)


def parse_messages(raw: Any, where: str, player: str, interrogator: str) -> tuple[str | None, list[Message]]:
    """(opening, messages): a leading assistant message is the conversation's opening (the
    character's greeting), kept apart; then user and assistant alternate, user first."""
    if not isinstance(raw, list) or not raw:
        raise EntryError(f"{where}.messages: expected a non-empty list of messages")
    items = []
    for i, m in enumerate(raw):
        if not isinstance(m, dict) or m.get("role") not in ("user", "assistant", "system"):
            raise EntryError(f"{where}.messages[{i}]: expected {{'role': 'user'|'assistant', 'content': text}}")
        finish = m.get(CUT_KEY)
        items.append((i, m["role"], _text(m.get("content"), f"{where}.messages[{i}].content", True),
                      finish_notes(finish) if isinstance(finish, str) else {}))
    items = [it for it in items if it[1] != "system"]
    opening = None
    if items and items[0][1] == "assistant":
        opening = items[0][2]
        items = items[1:]
    out = []
    for n, (i, role, content, notes) in enumerate(items):
        expected = "user" if n % 2 == 0 else "assistant"
        if role != expected:
            raise EntryError(f"{where}.messages[{i}]: expected a '{expected}' message "
                             "(user and assistant must alternate, user first)")
        out.append(Message(turn=n // 2 + 1, role=role, text=content, author=interrogator if role == "user" else player,
                           notes=notes))
    if not any(m.role == "assistant" for m in out):
        raise EntryError(f"{where}.messages: no player (assistant) message")
    return opening, out


def _failed_turns(raw: Any, where: str, player_turns: int) -> list[int]:
    if raw is None:
        return []
    if (not isinstance(raw, list) or not all(isinstance(t, int) and not isinstance(t, bool) for t in raw)
            or not all(1 <= t <= player_turns for t in raw) or len(set(raw)) != len(raw)):
        raise EntryError(f"{where}.{FAILED_TURNS}: expected distinct player turns from 1 to {player_turns}")
    return sorted(raw)


def _value_list(values: Any, key: str, where: str, hi: int) -> list[float]:
    if not isinstance(values, list):
        raise EntryError(f"{where}.scores.{key}: missing or not a list")
    out = []
    for i, v in enumerate(values):
        ok_int = isinstance(v, (int, float)) and not isinstance(v, bool) and float(v).is_integer()
        if key == "is_refusal":
            if not (isinstance(v, bool) or (ok_int and v in (0, 1))):
                raise EntryError(f"{where}.scores.is_refusal[{i}] is {v!r}, expected 0 or 1")
            out.append(float(bool(v)))
        elif not ok_int or not 1 <= v <= hi:
            raise EntryError(f"{where}.scores.{key}[{i}] is {v!r}, expected a score from 1 to {hi}")
        else:
            out.append(float(v))
    return out


def parse_scores(entry: dict, where: str, player_turns: int, judge: str, version: int, source: str) -> JudgeVerdict:
    """A judge's per-turn lists as Score rows. Version 2 lists cover every player turn but the
    failed ones; version 1 lists stop where the tester stopped: at the reply it flagged as a
    refusal (`has_refusal`), which carries no scores of its own."""
    raw = entry.get("scores")
    names = {m: (METRIC_NAMES_V1[m] if version == 1 else m) for m in METRICS}
    if not isinstance(raw, dict):
        raise EntryError(f"{where}.scores: expected an object with {', '.join(names.values())}")
    failed = _failed_turns(entry.get(FAILED_TURNS), where, player_turns)
    candidates = [t for t in range(1, player_turns + 1) if t not in failed]
    has_refusal = version == 1 and bool(entry.get("has_refusal"))
    hi = 10 if version == 1 else 5
    lists: dict[str, list[float]] = {}
    for metric, key in names.items():
        missing = version == 1 and has_refusal and key not in raw  # refused at once: nothing scored
        lists[metric] = [] if missing else _value_list(raw.get(key), key, where, hi)
    lengths = {len(v) for v in lists.values()}
    if len(lengths) != 1:
        raise EntryError(f"{where}.scores: the lists differ in length")
    (n,) = lengths
    if version == 2 and n != len(candidates):
        raise EntryError(f"{where}.scores.{names['in_character']} has {n} entries for {len(candidates)} "
                         "scored player turns")
    if version == 1 and n > len(candidates):
        raise EntryError(f"{where}.scores.{names['in_character']} has {n} entries for {len(candidates)} player turns")
    refusals = [0.0] * n
    if "is_refusal" in raw or version == 2:
        refusals = _value_list(raw.get("is_refusal"), "is_refusal", where, 1)
        if len(refusals) != n:
            raise EntryError(f"{where}.scores.is_refusal has {len(refusals)} entries for {n} scores")
    if n == 0 and not has_refusal:
        raise EntryError(f"{where}.scores: no scored turn")
    scale = "1-10" if version == 1 else "1-5"
    scores: list[Score] = []
    for t, i in zip(candidates, range(n)):
        scores.append(Score(turn=t, metric="is_refusal", value=refusals[i], scale="0-1"))
        scores += [Score(turn=t, metric=m, value=lists[m][i], scale=scale) for m in METRICS]
    if has_refusal:  # the refused reply: the first one after the scored ones (else the last scored)
        turn = candidates[n] if n < len(candidates) else candidates[-1] if candidates else player_turns
        scores = [s for s in scores if not (s.turn == turn and s.metric == "is_refusal")]
        scores.append(Score(turn=turn, metric="is_refusal", value=1.0, scale="0-1"))
    note = f"failed in {source}"
    for t in failed:
        scores += [Score(turn=t, metric=m, scale="0-1" if m == "is_refusal" else scale, status="failed", error=note)
                   for m in ("is_refusal", *METRICS)]
    return JudgeVerdict(judge=judge, scores=sorted(scores, key=lambda s: s.turn or 0))


def parse_entry(entry: Any, where: str, models: tuple[str, str, str], version: int, source: str,
                lang: str | None = None) -> Conversation:
    """One entry of `outputs` as a Conversation (in `lang`, else the language its text is in);
    EntryError saying what is wrong with it."""
    player, interrogator, judge = models
    if not isinstance(entry, dict):
        raise EntryError(f"{where}: expected an object")
    opening, messages = parse_messages(entry.get("messages"), where, player, interrogator)
    player_turns = sum(1 for m in messages if m.role == "assistant")
    verdict = parse_scores(entry, where, player_turns, judge, version, source)
    conv = parse_conversation(entry, where, messages, opening, models, verdict, lang)
    conv.method = "pingpong-v1" if version == 1 else "pingpong"
    conv.key = conversation_key(conv.method, player, conv.character.char_name, conv.situation.text, messages)
    conv.extra = {k: v for k, v in entry.items() if k not in ENTRY_KEYS}
    return conv


def _own(block: dict, key: str, allowed: tuple[str, ...] | None = None) -> str | None:
    """A key our export adds to a reference block (a card's or situation's name, role type, intent),
    when it holds a value we can take; else None, and the entry is read as the reference's own."""
    value = block.get(key)
    if not isinstance(value, str):
        return None
    if allowed is None:
        return value if re.fullmatch(NAME_PATTERN, value) else None
    return value if value in allowed else None


def parse_conversation(entry: dict, where: str, messages: list[Message], opening: str | None,
                       models: tuple[str, str, str], verdict: JudgeVerdict, lang: str | None = None) -> Conversation:
    """The card and situation of an entry (or an annotation row) around its parsed messages, in
    `lang` (else the language guessed from its text)."""
    player, interrogator, judge = models
    char, sit = entry.get("character"), entry.get("situation")
    if not isinstance(char, dict) or not isinstance(char.get("char_name"), str) or not char["char_name"].strip():
        raise EntryError(f"{where}.character.char_name: missing")
    if not isinstance(sit, dict) or not isinstance(sit.get("text"), str) or not sit["text"].strip():
        raise EntryError(f"{where}.situation.text: missing")
    greeting = _text(char.get("initial_message"), f"{where}.character.initial_message")
    player_turns = sum(1 for m in messages if m.role == "assistant")
    persona = _text(char.get("system_prompt"), f"{where}.character.system_prompt")
    summary = _text(char.get("summary"), f"{where}.character.summary")
    lang = lang or guess_lang(persona, sit["text"], *(m.text for m in messages))
    num_turns = sit.get("num_turns", player_turns)
    if num_turns is None:
        num_turns = player_turns
    if isinstance(num_turns, bool) or not isinstance(num_turns, int):
        raise EntryError(f"{where}.situation.num_turns: expected an integer, got {num_turns!r}")
    name = char["char_name"].strip()
    try:
        character = Character(
            name=_own(char, "name") or slugify(name, "char-" + hashlib.sha1(name.encode("utf-8")).hexdigest()[:10]),
            char_name=name, role_type=_own(char, "role_type", ROLE_TYPES),
            lang=lang, summary=summary.strip() or (persona.strip()[:300] or name),
            persona=persona.strip() and persona or name,
            example_text=_text(char.get("example_prompt"), f"{where}.character.example_prompt"),
            greeting=greeting, tags=_tags(char.get("tags"), f"{where}.character.tags"),
        )
        situation = Situation(name=_own(sit, "name") or situation_name(sit["text"]), lang=lang, text=sit["text"],
                              num_turns=num_turns, tags=_tags(sit.get("tags"), f"{where}.situation.tags"),
                              intent=_own(sit, "intent", tuple(i.value for i in Intent)))
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(x) for x in err["loc"])
        raise EntryError(f"{where}: {loc}: {err['msg']}") from None
    origin: dict[str, Any] = {"character": char, "situation": sit}
    if opening is not None:
        origin["opening"] = opening
    return Conversation(player, interrogator, judge, character, situation, messages, verdict, origin=origin)


def folder_lang(name: str) -> str | None:
    """The language a results file's folder is named after (`results/ru/x.json`: the reference keeps
    each language's files in a folder of its own, and so does our export), else None: a folder
    whose name is no ISO 639-1 code (`results/gp/`, `results/xx/`) says nothing."""
    folder = PurePath(name).parent.name
    return folder if folder in ISO_639_1 else None


def parse_results(data: Any, name: str) -> ResultsFile:
    """Read a results document: UserError when it is not one, one warning per entry skipped. Its
    conversations are in the language its folder names, else in the one their text is in."""
    if not isinstance(data, dict) or not isinstance(data.get("outputs"), list):
        raise UserError(f"{name}: not a PingPong results file (no 'outputs' list)")
    version = 1 if data.get("version") == 1 or "tester" in data else 2
    if version == 1:
        player = _model_name(data, "testee", name, True)
        judge = interrogator = _model_name(data, "tester", name, True)
        seats = {"player": _setup(data, "testee"), "interrogator": _setup(data, "tester"),
                 f"judge:{judge}": _setup(data, "tester")}
    else:
        player = _model_name(data, "player", name, True)
        judge = _model_name(data, "judge", name, True)
        interrogator = _model_name(data, "interrogator", name, False)
        seats = {"player": _setup(data, "player"), "interrogator": _setup(data, "interrogator"),
                 f"judge:{judge}": _setup(data, "judge")}
    out = ResultsFile([], {k: v for k, v in seats.items() if v is not None})
    for i, entry in enumerate(data["outputs"]):
        where = f"{name}: outputs[{i}]"
        try:
            conv = parse_entry(entry, where, (player, interrogator, judge), version, name, folder_lang(name))
        except EntryError as exc:
            out.warnings.append(f"{exc}; entry skipped")
            continue
        if "version" in data:
            conv.origin["version"] = data["version"]
        out.conversations.append(conv)
    return out


# ------------------------------------------------------------------ storing


def stored_conversations(store, players: set[str]) -> dict[str, list[tuple[int, set[str]]]]:
    """conversation key -> [(session id, judges that scored it)] for these players' sessions."""
    found: dict[str, list[tuple[int, set[str]]]] = defaultdict(list)
    for player in sorted(players):
        for summary in store.sessions(player=player):
            stored = store.session(summary.id)
            key = conversation_key(stored.spec.method, player, stored.character.char_name, stored.situation.text,
                                   stored.messages)
            found[key].append((stored.id, {v.judge for v in stored.verdicts} | set(stored.spec.judges)))
    return found


def store_conversation(store, conv: Conversation, seats: dict[str, dict[str, Any]], *,
                       status: str = "finished") -> int:
    """A new session holding one conversation (and its judge's verdict, if it has scores)."""
    judges = [conv.judge] if conv.verdict.scores else []
    spec = SessionSpec(method=conv.method, character=conv.character.name, situation=conv.situation.name,
                       player=conv.player, interrogator=conv.interrogator, judges=judges,
                       lang=conv.character.lang, seats=seats,
                       origin={**conv.origin, **({"entries": {conv.judge: conv.extra}} if conv.extra else {})})
    sid = store.create_session(spec, conv.character, conv.situation, status=status)
    for m in conv.messages:
        store.add_message(sid, m)
    if conv.verdict.scores:
        store.add_verdict(sid, conv.verdict)
    return sid


def import_results(store, data: Any, name: str) -> ImportSummary:
    """Store every entry that can be taken, in one transaction; the others become warnings."""
    parsed = parse_results(data, name)
    convs = parsed.conversations
    if not convs and parsed.warnings:   # lenient per entry, but a file with nothing to take is refused
        raise UserError(parsed.warnings[0].removesuffix("; entry skipped")
                        + (f" (and {len(parsed.warnings) - 1} more entries)" if len(parsed.warnings) > 1 else "")
                        + "; nothing in the file could be imported")
    summary = ImportSummary(path=name, format="pingpong", conversations=len(convs) + len(parsed.warnings),
                            warnings=parsed.warnings)
    summary.judges = sorted({c.judge for c in convs})
    with store.transaction():
        stored = stored_conversations(store, {c.player for c in convs})
        for conv in convs:
            judge_seat = f"judge:{conv.judge}"
            matches = stored.get(conv.key, [])
            target = next((entry for entry in matches if conv.judge not in entry[1]), None)
            if target is None and matches:
                summary.skipped += 1  # this judge's scoring of this conversation is already stored
                continue
            if target is not None:
                sid, judges = target
                store.add_verdict(sid, conv.verdict)
                store.add_judge(sid, conv.judge)
                store.add_setup(sid, seats={judge_seat: parsed.seats.get(judge_seat)},
                                entries={conv.judge: conv.extra})
                judges.add(conv.judge)
                summary.merged += 1
                continue
            sid = store_conversation(store, conv, parsed.seats)
            stored.setdefault(conv.key, []).append((sid, {conv.judge}))
            summary.new_sessions += 1
    return summary
