"""A judge compares two conversations of the same card and situation and names the better player.

METHOD.md "RoleLLM": pairwise evaluation. This module asks for one order (the caller asks for both,
since judges favour the conversation shown first), reads the answer leniently (JSON in prose, "1",
"first", 2, "Tie") and re-asks once when nothing usable came back. A call that fails for good is a
failed judgement with its reason, never an invented winner. No storage here: the caller records.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pingpong.core.domain import CallRecord, Character, Message, Situation
from pingpong.core.errors import UserError
from pingpong.core.judging import ParseError, json_candidates, looks_like_refusal
from pingpong.core.llm import ChatRequest, ModelCallError, ModelPool
from pingpong.core.macros import with_names
from pingpong.core.prompts import Messages, PromptRenderer

Choice = Literal["first", "second", "tie"]
"""What the judge said, in the order it was shown the two conversations."""

_CHOICE_KEYS = ("better", "winner", "preferred", "choice")
_REASON_KEYS = ("reason", "explanation", "rationale")
_WORDS: dict[str, Choice] = {
    "1": "first", "first": "first", "one": "first", "conversation 1": "first", "player 1": "first",
    "2": "second", "second": "second", "two": "second", "conversation 2": "second", "player 2": "second",
    "tie": "tie", "0": "tie", "draw": "tie", "equal": "tie", "neither": "tie", "both": "tie", "none": "tie",
}


def _choice(value: Any) -> Choice | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)) and value in (0, 1, 2):
        return _WORDS[str(int(value))]
    if isinstance(value, str):
        return _WORDS.get(" ".join(value.strip().strip("\"'.").lower().split()))
    return None


def parse_pairwise(text: str) -> tuple[Choice, str | None]:
    """The judge's choice and reason from {"reason": ..., "better": "1" | "2" | "tie"}; ParseError
    (naming what is wrong, for the re-ask) when the answer holds no usable choice."""
    seen_object = False
    for value in json_candidates(text):
        if not isinstance(value, dict):
            continue
        seen_object = True
        for key in _CHOICE_KEYS:
            if key in value:
                choice = _choice(value[key])
                if choice is None:
                    raise ParseError(f'"{key}" must be "1", "2" or "tie", got {value[key]!r}')
                reason = next((str(value[k]) for k in _REASON_KEYS if value.get(k)), None)
                return choice, reason
    snippet = " ".join(text.split())[:120]
    if seen_object:
        raise ParseError('the JSON object has no "better" field')
    if not snippet:
        raise ParseError('the answer was empty; a JSON object {"reason": ..., "better": ...} was expected')
    if looks_like_refusal(text):
        raise ParseError(f"the model declined instead of comparing: {snippet!r}")
    raise ParseError(f'the answer holds no JSON object {{"reason": ..., "better": ...}}: {snippet!r}')


def pair_label(choice: Choice, a_first: bool) -> Literal["a", "b", "tie"]:
    """The choice in the pair's own labels: ``a`` is the same conversation whichever was shown first."""
    if choice == "tie":
        return "tie"
    return "a" if (choice == "first") == a_first else "b"


@dataclass(frozen=True)
class PairJudgement:
    """One judge's answer for one order: the choice and its reason, or (choice None) why it failed."""

    choice: Choice | None
    reason: str | None = None
    error: str | None = None
    requests: int = 1


async def judge_pair(pool: ModelPool, judge: str, character: Character, situation: Situation,
                     first: Sequence[Message], second: Sequence[Message], *,
                     renderer: PromptRenderer | None = None, method: str | None = None,
                     user_name: str | None = None,
                     on_call: Callable[[CallRecord], None] | None = None) -> PairJudgement:
    """Ask ``judge`` which player did better, ``first`` shown as conversation 1; re-ask once when
    the answer is unusable. Never raises for a model's failure: it comes back as a failed judgement.
    The card is shown as the players saw it: its {{char}} and {{user}} (as ``user_name``) replaced."""
    renderer = renderer or PromptRenderer()
    character = with_names(character, user_name)
    try:
        model = pool.get(judge)
    except UserError as exc:
        return PairJudgement(None, error=str(exc), requests=0)
    context = {"character": character, "situation": situation, "first": list(first), "second": list(second),
               "method": method}
    messages: Messages = renderer.pairwise(character, situation, first, second, lang=character.lang)
    requests = 0
    while True:
        requests += 1
        try:
            completion = await model.complete(ChatRequest(task="pairwise", messages=messages, context=context),
                                              on_call=on_call)
        except ModelCallError as exc:
            what = "call" if requests == 1 else "re-ask"
            return PairJudgement(None, error=f"judge {what} failed: {exc.reason}", requests=requests)
        try:
            choice, reason = parse_pairwise(completion.text)
        except ParseError as exc:
            if requests == 2:
                return PairJudgement(None, error=f"no usable answer after a re-ask: {exc}{completion.why_unusable(judge)}",
                                     requests=requests)
            messages = renderer.pairwise_reask(messages, completion.text, str(exc))
            continue
        return PairJudgement(choice, reason, requests=requests)
