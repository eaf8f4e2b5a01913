"""Token estimates for answers without `usage`: offline, and the same count however they are computed."""

from __future__ import annotations

import math
import re

from hypothesis import given
from hypothesis import strategies as st

from pingpong.core import tokens


def by_piece(text: str) -> int:
    """The rule as the docstring states it, one word at a time."""
    total = 0
    for piece in re.findall(r"\w+|[^\w\s]", text):
        if piece[0].isalnum() or piece[0] == "_":
            total += max(1, math.ceil(len(piece) / (5.0 if piece.isascii() else 2.5)))
        else:
            total += 1
    return total


def test_words_and_marks_are_counted_by_the_rule():
    assert tokens.heuristic_tokens("") == 0
    assert tokens.heuristic_tokens("Hello, world!") == 4  # 2 words of at most 5 letters, 2 marks
    assert tokens.heuristic_tokens("extraordinary") == 3  # 13 letters: ceil(13 / 5)
    assert tokens.heuristic_tokens("снег") == 2  # another script: ceil(4 / 2.5)
    assert tokens.heuristic_tokens("naïve") == 2  # a word with one non-ASCII letter counts as another script


@given(st.text(alphabet=st.characters(max_codepoint=127)))
def test_ascii_text_counts_as_the_rule_says(text):
    assert tokens.heuristic_tokens(text) == by_piece(text)


@given(st.text())
def test_any_text_counts_as_the_rule_says(text):
    assert tokens.heuristic_tokens(text) == by_piece(text)


def test_a_request_adds_a_few_tokens_per_message(monkeypatch):
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "")  # no vocabulary file: the heuristic, never a download
    tokens._encoding.cache_clear()
    try:
        messages = [{"role": "system", "content": "Be brief."},
                    {"role": "user", "content": [{"type": "text", "text": "Hi"}, {"type": "image"}]}]
        assert tokens.estimate_messages(messages) == 3 + (4 + 3) + (4 + 1)
        assert tokens.estimate_tokens("") == 0
    finally:
        tokens._encoding.cache_clear()
