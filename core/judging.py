"""Reading what judges and interrogators wrote: lenient about form, strict about content.

Models wrap JSON in code fences, add a sentence before or after it, leave
trailing commas or write numbers as strings. All of that is accepted. What is
never accepted is a score that is not there: a turn without valid scores is
reported missing (the engine re-asks once, then records it as failed).
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from pingpong.core.domain import METRICS, Scale, Score
from pingpong.core.reasoning import split_reasoning


class ParseError(ValueError):
    """The model's answer could not be used; the message says why, for the re-ask."""


# --------------------------------------------------------------------------- JSON extraction

_OPENERS = {"{": "}", "[": "]"}


MAX_SPAN_DEPTH = 8
"""Spans inside more than this many others are not tried on their own (an answer's JSON is three
deep; a reply of twenty thousand nested brackets would otherwise be parsed twenty thousand times)."""
MAX_CANDIDATES = 256
"""At most this many spans are parsed per answer (a judge's answer holds a dozen)."""


def _balanced_spans(text: str) -> list[tuple[int, int]]:
    """Every balanced {...} / [...] span as (start, end), in one pass that knows about strings
    inside brackets (quotes in the prose around them are prose): each opener is matched with its
    closer, a mismatched closer drops every span still open. Linear, so a reply of ten thousand
    unclosed braces costs what its length does."""
    spans: list[tuple[int, int]] = []
    stack: list[tuple[int, str]] = []
    quote, j, n = None, 0, len(text)
    while j < n:
        ch = text[j]
        if quote:
            if ch == "\\":
                j += 2
                continue
            if ch == quote:
                quote = None
        elif ch in _OPENERS:
            stack.append((j, _OPENERS[ch]))
        elif ch in "}]":
            if stack and stack[-1][1] == ch:
                spans.append((stack.pop()[0], j + 1))
            else:
                stack.clear()
        elif stack and ch in "\"'" and (ch == '"' or _single_quote_opens(text, j)):
            quote = ch
        j += 1
    return spans


def _latest_first(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Outermost spans from the last to the first, each followed by the spans inside it (down to
    MAX_SPAN_DEPTH): a model that revises itself ends on its final answer, and an outer object is
    read before its parts."""
    groups: list[list[tuple[int, int]]] = []
    open_ends: list[int] = []  # ends of the spans around the current one
    for span in sorted(spans, key=lambda s: (s[0], -s[1])):
        while open_ends and open_ends[-1] <= span[0]:
            open_ends.pop()
        if not open_ends:
            groups.append([])
        if len(open_ends) < MAX_SPAN_DEPTH:
            groups[-1].append(span)
        open_ends.append(span[1])
    return [span for group in reversed(groups) for span in group]


def _single_quote_opens(text: str, j: int) -> bool:
    """A ' starts a string only where a JSON value or key could start (not in "don't")."""
    k = j - 1
    while k >= 0 and text[k] in " \t\r\n":
        k -= 1
    return k < 0 or text[k] in "{[,:"


def _strip_trailing_commas(s: str) -> str:
    """Remove commas directly before } or ], outside strings."""
    out, quote, i = [], None, 0
    while i < len(s):
        ch = s[i]
        if quote:
            out.append(ch)
            if ch == "\\" and i + 1 < len(s):
                out.append(s[i + 1])
                i += 2
                continue
            if ch == quote:
                quote = None
        elif ch == '"':
            quote = ch
            out.append(ch)
        elif ch == ",":
            k = i + 1
            while k < len(s) and s[k] in " \t\r\n":
                k += 1
            if k >= len(s) or s[k] not in "}]":
                out.append(ch)
        else:
            out.append(ch)
        i += 1
    return "".join(out)


def _loads(candidate: str) -> Any:
    """json, then json without trailing commas, then a Python literal (single quotes, True)."""
    try:
        return json.loads(candidate)
    except (ValueError, RecursionError):
        pass
    fixed = _strip_trailing_commas(candidate)
    try:
        return json.loads(fixed)
    except (ValueError, RecursionError):
        pass
    try:
        value = ast.literal_eval(
            re.sub(r"\btrue\b", "True", re.sub(r"\bfalse\b", "False",
                   re.sub(r"\bnull\b", "None", fixed))))
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        raise ParseError("not valid JSON") from None
    if isinstance(value, (dict, list)):
        return value
    raise ParseError("not valid JSON")


def json_candidates(text: str) -> Iterator[Any]:
    """Every JSON object/array in the answer part of ``text`` (without a leading reasoning block,
    see core.reasoning), then, when that part holds none and a bare closing tag was taken for the
    end of reasoning, in the whole text (the tag may have been prose of the answer's). Callers take
    the first that fits."""
    reasoning, answer = split_reasoning(text)
    found = False
    for value in _candidates(answer):
        found = True
        yield value
    if not found and reasoning and not reasoning.lstrip().startswith("<"):
        yield from _candidates(text)


def _candidates(text: str) -> Iterator[Any]:
    """The whole text when it is one JSON value, then each span, the last first (``_latest_first``),
    so the spans are scanned only when the whole is not what a caller wants. Code fences need no
    handling: the spans inside them are found like any other."""
    whole = text.strip()
    if whole[:1] in ("{", "[") and whole[-1:] in ("}", "]"):  # most answers: one JSON value and nothing else
        try:
            yield json.loads(whole)
        except (ValueError, RecursionError):
            pass
    for start, end in _latest_first(_balanced_spans(text))[:MAX_CANDIDATES]:
        try:
            yield _loads(text[start:end])
        except ParseError:
            continue


_REFUSAL = re.compile(
    r"\b(i\s*(?:can(?:'|’)?not|can(?:'|’)t|won(?:'|’)t|am\s+(?:not\s+able|unable)|'m\s+(?:not\s+able|unable)"
    r"|must\s+decline|cannot\s+assist)|not\s+able\s+to\s+(?:help|assist|comply)|against\s+(?:my|the)\s+"
    r"(?:guidelines|policy|policies)|я\s+не\s+могу|не\s+могу\s+помочь)", re.IGNORECASE)


def looks_like_refusal(text: str) -> bool:
    """Text that declines the task ("I can't help with that") rather than answering it."""
    return bool(_REFUSAL.search(text))


def _no_json_problem(text: str, what: str) -> str:
    snippet = " ".join(text.split())[:120]
    if not snippet:
        return f"the answer was empty; {what} was expected"
    if not split_reasoning(text)[1].strip():
        return f"the answer was only reasoning, no answer; {what} was expected"
    if looks_like_refusal(text):
        return f"the model declined instead of answering with {what}: {snippet!r}"
    return f"the answer holds no usable JSON (expected {what}): {snippet!r}"


# --------------------------------------------------------------------------- scalars

_TRUE = {"true", "yes", "y", "1", "да"}
_FALSE = {"false", "no", "n", "0", "нет"}


def as_bool(value: Any) -> bool:
    """true/false, "yes"/"no", 0/1 (also as strings)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        return value.strip().lower() in _TRUE
    raise ValueError(f"not a boolean: {value!r}")


def as_int(value: Any, lo: int, hi: int) -> int:
    """A whole number in [lo, hi]; "4" and 4.0 are accepted, 3.5 and "3/10" are not (a fraction
    names another scale: reading its numerator would put an out-of-scale score in the database)."""
    if isinstance(value, bool):
        raise ValueError(f"not a score: {value!r}")
    if isinstance(value, str):
        m = re.fullmatch(r"\s*(-?\d+(?:\.\d+)?)\s*", value)
        if not m:
            raise ValueError(f"not a score: {value!r}")
        value = float(m.group(1))
    if isinstance(value, float):
        if not value.is_integer():
            raise ValueError(f"not a whole number: {value!r}")
        value = int(value)
    if not isinstance(value, int):
        raise ValueError(f"not a score: {value!r}")
    if not lo <= value <= hi:
        raise ValueError(f"{value} is outside {lo}-{hi}")
    return value


def _as_turn(value: Any) -> int:
    if isinstance(value, str):
        m = re.search(r"\d+", value)
        if not m:
            raise ValueError(f"not a turn number: {value!r}")
        value = int(m.group(0))
    return as_int(value, 1, 10_000)


# --------------------------------------------------------------------------- judge (version 2)


@dataclass
class TurnScores:
    """A PingPong judge's answer for one player turn: the refusal flag and the Likert metrics."""

    turn: int
    is_refusal: bool
    values: dict[str, int]
    explanations: dict[str, str] = field(default_factory=dict)

    @property
    def in_character(self) -> int | None:
        return self.values.get("in_character")

    @property
    def entertaining(self) -> int | None:
        return self.values.get("entertaining")

    @property
    def fluency(self) -> int | None:
        return self.values.get("fluency")

    def scores(self, scale: Scale) -> list[Score]:
        """One Score per metric (is_refusal on 0-1), explanations attached."""
        out = [Score(turn=self.turn, metric="is_refusal", value=float(self.is_refusal), scale="0-1",
                     explanation=self.explanations.get("is_refusal"))]
        out += [Score(turn=self.turn, metric=m, value=float(v), scale=scale,
                      explanation=self.explanations.get(m)) for m, v in self.values.items()]
        return out


def failed_scores(turns: Sequence[int | None], metrics: Sequence[str], scale: Scale, error: str) -> list[Score]:
    """Visible failures: one failed Score per turn and metric, the reason in ``error``."""
    out = []
    for t in turns:
        for m in metrics:
            out.append(Score(turn=t, metric=m, scale="0-1" if m == "is_refusal" else scale,
                             status="failed", error=error))
    return out


@dataclass
class JudgeParse:
    """Scores found per turn, turns still missing, and why they are missing."""

    scores: dict[int, TurnScores] = field(default_factory=dict)
    missing: list[int] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    ignored: list[int] = field(default_factory=list)   # entries for turns that do not exist

    @property
    def problem(self) -> str:
        """One line for the re-ask and for failed TurnScores."""
        if self.problems:
            return "; ".join(self.problems)
        if self.missing:
            return "no scores for turn(s) " + ", ".join(map(str, self.missing))
        return ""


def _entries(value: Any) -> list[dict] | None:
    """The list of per-turn dicts inside whatever shape the judge chose."""
    if isinstance(value, list):
        dicts = [v for v in value if isinstance(v, dict)]
        return dicts if dicts else None
    if not isinstance(value, dict):
        return None
    if isinstance(value.get("scores"), list):
        return [v for v in value["scores"] if isinstance(v, dict)]
    if "turn" in value or any(k.startswith(METRICS) or k.startswith("is_refusal") for k in value):
        return [value]
    lists = [v for v in value.values() if isinstance(v, list) and any(isinstance(x, dict) for x in v)]
    if lists:
        return [x for x in lists[0] if isinstance(x, dict)]
    if value and all(re.fullmatch(r"\D*\d+", str(k)) and isinstance(v, dict) for k, v in value.items()):
        return [{"turn": k, **v} for k, v in value.items()]
    nested = [v for v in value.values() if isinstance(v, dict)]
    for inner in nested:
        found = _entries(inner)
        if found:
            return found
    return None


def _get(entry: dict, *keys: str) -> Any:
    for k in keys:
        if k in entry:
            return entry[k]
    raise KeyError(keys[0])


def turn_score(entry: dict, turn: int, metrics: dict[str, tuple[str, ...]] | None = None,
               hi: int = 5) -> TurnScores:
    """Validate one judge entry; ValueError names the bad field. A turn flagged as a refusal needs no
    scores (METHOD.md leaves a refusal's scores out): judges often write null or 0 for them, and
    such a value is dropped while the flag stands; a valid one is kept for people to read.

    ``metrics`` maps our metric name to the keys a judge may use for it (first is the documented
    one); the default is PingPong v2's ``<metric>_score``/``<metric>``. Scores are 1..``hi``.
    """
    keys = metrics or {m: (f"{m}_score", m) for m in METRICS}
    explanations: dict[str, str] = {}
    try:
        refusal = as_bool(_get(entry, "is_refusal", "refusal"))
    except KeyError:
        raise ValueError("is_refusal is missing") from None
    except ValueError as exc:
        raise ValueError(f"is_refusal: {exc}") from None
    values: dict[str, int] = {}
    for metric, names in keys.items():
        try:
            values[metric] = as_int(_get(entry, *names), 1, hi)
        except (KeyError, ValueError) as exc:
            if refusal:  # a refusal's scores are left out of every mean: its flag stands without them
                continue
            if isinstance(exc, KeyError):
                raise ValueError(f"{names[0]} is missing") from None
            raise ValueError(f"{names[0]}: {exc}") from None
    for name, names in (("is_refusal", ("is_refusal",)), *keys.items()):
        for key in names:
            text = entry.get(f"{key.removesuffix('_score')}_explanation")
            if text is not None:
                explanations[name] = str(text)
                break
    return TurnScores(turn=turn, is_refusal=refusal, values=values, explanations=explanations)


def parse_judge(text: str, turns: Sequence[int]) -> JudgeParse:
    """Scores for ``turns`` from a judge's answer. Never raises: problems are reported."""
    wanted = list(turns)
    result = JudgeParse()
    entries = None
    for value in json_candidates(text):
        entries = _entries(value)
        if entries:
            break
    if not entries:
        result.problems.append(_no_json_problem(text, 'a JSON object {"scores": [...]}'))
        result.missing = wanted
        return result
    conflicting: set[int] = set()
    no_turn = [e for e in entries if "turn" not in e]
    if no_turn and len(entries) == len(wanted) and len(no_turn) == len(entries):
        entries = [{**e, "turn": t} for e, t in zip(entries, wanted)]
    for entry in entries:
        try:
            turn = _as_turn(entry["turn"])
        except (KeyError, ValueError):
            result.problems.append("an entry has no valid 'turn' number")
            continue
        if turn not in wanted:
            result.ignored.append(turn)
            continue
        try:
            parsed = turn_score(entry, turn)
        except ValueError as exc:
            result.problems.append(f"turn {turn}: {exc}")
            continue
        if turn in conflicting:
            continue
        seen = result.scores.get(turn)
        if seen is not None and (seen.is_refusal, seen.values) != (parsed.is_refusal, parsed.values):
            del result.scores[turn]  # two different answers for one turn: neither is the judge's score
            conflicting.add(turn)
            result.problems.append(f"turn {turn}: two entries with different scores")
            continue
        result.scores.setdefault(turn, parsed)
    result.missing = [t for t in wanted if t not in result.scores]
    if not result.missing:
        result.problems.clear()
    elif not result.problems:
        result.problems.append("no scores for turn(s) " + ", ".join(map(str, result.missing)))
    return result


# --------------------------------------------------------------------------- interrogator


def _utterance(value: Any) -> str | None:
    if isinstance(value, dict):
        for key in ("next_utterance", "utterance", "next_message", "message"):
            v = value.get(key)
            if isinstance(v, str) and v.strip():
                return v.strip()
    return None


def parse_interrogator(text: str) -> str:
    """The next user line from {"next_utterance": "..."}; ParseError when there is none
    (plain text without JSON is not accepted: the model is asked again)."""
    for value in json_candidates(text):
        found = _utterance(value)
        if found is not None:
            return found
        if isinstance(value, list):
            for item in value:
                found = _utterance(item)
                if found is not None:
                    return found
    raise ParseError(_no_json_problem(text, 'a JSON object {"next_utterance": "..."}'))


# --------------------------------------------------------------------------- tester (v1)

V1_METRICS: dict[str, tuple[str, ...]] = {
    "in_character": ("stay_in_character", "stay_in_character_score", "in_character_score", "in_character"),
    "entertaining": ("entertainment", "entertainment_score", "entertaining_score", "entertaining"),
    "fluency": ("language_fluency", "language_fluency_score", "fluency_score", "fluency"),
}
"""PingPong v1's tester keys (1-10) mapped to our metric names, so both versions share columns."""


@dataclass
class V1Parse:
    """The tester's one JSON object: the next user line and, after a reply, its scores."""

    utterance: str | None = None
    scores: TurnScores | None = None
    problems: list[str] = field(default_factory=list)

    @property
    def problem(self) -> str:
        return "; ".join(self.problems)


def _v1_utterance(value: dict) -> str | None:
    v = value.get("next_user_utterance")
    if isinstance(v, str) and v.strip():
        return v.strip()
    return _utterance(value)


def parse_tester(text: str, *, score_turn: int | None, need_utterance: bool) -> V1Parse:
    """{"is_refusal_explanation", "is_refusal", "stay_in_character_explanation", "stay_in_character",
    "language_fluency_explanation", "language_fluency", "entertainment_explanation", "entertainment",
    "next_user_utterance"}: scores only when a reply is scored, an utterance only when one is due."""
    result = V1Parse()
    value = next((c for c in json_candidates(text) if isinstance(c, dict)), None)
    if value is None:
        result.problems.append(_no_json_problem(text, "a JSON object"))
        return result
    result.utterance = _v1_utterance(value)
    if need_utterance and result.utterance is None:
        result.problems.append("next_user_utterance is missing or empty")
    if score_turn is not None:
        try:
            result.scores = turn_score(value, score_turn, V1_METRICS, hi=10)
        except ValueError as exc:
            result.problems.append(str(exc))
    return result
