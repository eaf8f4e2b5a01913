"""A reasoning model's inline thinking, split off its answer.

A model served without a reasoning parser (Ollama with deepseek-r1 or qwen3, vLLM without
--reasoning-parser, llama.cpp with --reasoning-format none) writes its thinking into the
reply itself: `<think>...</think>` before the answer, or, when its chat template opened the
tag in the prompt, the thinking and a bare `</think>` before the answer. That thinking is
not what the character said nor what a judge answered: players' messages and judges' JSON
are both read through `split_reasoning`.

Only a leading block counts: a tag later in the text (a judge quoting the player's `<think>`
inside its JSON) is the text's own.
"""

from __future__ import annotations

import re

_OPEN = re.compile(r"\s*<(think|thinking|reasoning)>", re.IGNORECASE)
_CLOSE = re.compile(r"</(?:think|thinking|reasoning)>", re.IGNORECASE)


def split_reasoning(text: str) -> tuple[str, str]:
    """(reasoning, answer): the leading thinking blocks and what follows them. A block opened and
    never closed (cut at max_tokens) is all reasoning. A bare closing tag ends leading reasoning
    unless the text before it starts like JSON (then the tag is inside a string of it)."""
    if "<" not in text:  # most replies: nothing to look for
        return "", text
    reasoning = []
    rest = text
    while (opened := _OPEN.match(rest)) is not None:
        close = re.search(rf"</{opened.group(1)}>", rest, re.IGNORECASE)
        if close is None:
            return text, ""
        reasoning.append(rest[:close.end()])
        rest = rest[close.end():]
    if not reasoning:
        close = _CLOSE.search(rest)
        if close is None or rest.lstrip()[:1] in ("{", "[") or _OPEN.search(rest, 0, close.start()):
            return "", text
        reasoning.append(rest[:close.end()])
        rest = rest[close.end():]
    return "".join(reasoning), rest.lstrip()


def answer_of(text: str) -> str:
    """The text without its leading reasoning (see `split_reasoning`)."""
    return split_reasoning(text)[1]
