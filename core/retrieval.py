"""Pick the example exchanges most like the current question, for few-shot dialogue engineering (fsd).

RoleLLM sends a card's example dialogue to the player as real prior turns and, when a card has
more examples than fit, keeps the few most similar to the question by BM25 (METHOD.md "RoleLLM").
The chosen examples keep the card's order, so the player sees them as the card's author wrote them.
``rank_bm25`` is imported only when ranking is needed: importing ``pingpong.core`` stays light.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

import regex

from pingpong.core.domain import ExampleTurn

DEFAULT_K = 5

_UNSPACED = r"\p{Han}\p{Hiragana}\p{Katakana}"
_WORD = regex.compile(rf"[{_UNSPACED}]|(?:(?![{_UNSPACED}])\w)+")
"""Words as Unicode defines them: letters with their combining marks (Devanagari's vowel signs, a
decomposed accent), which Python's own `re` leaves out of \\w and so splits words at. Chinese and
Japanese write no spaces between words: each of their characters is a token of its own (as
RoleBench's Chinese half counts them), or a whole sentence would be one word."""


def tokenize(text: str) -> list[str]:
    """Lowercase words of any script ("Привет, Мир!" -> ["привет", "мир"]; "猫坐" -> ["猫", "坐"]); "ё" counts as "е". The text
    is composed first (NFC): decomposed letters ("е" + a combining diaeresis) would split a word."""
    return _WORD.findall(unicodedata.normalize("NFC", text).casefold().replace("ё", "е"))


def select_examples(examples: Sequence[ExampleTurn], query: str, k: int = DEFAULT_K) -> list[ExampleTurn]:
    """The k examples most similar to ``query`` by BM25 over their user and char lines, in their original order.

    With at most k examples all come back. Ties go to the earlier example. An example sharing no
    word with the query never outranks one that does (BM25's idf can turn negative in a tiny corpus).
    An empty query, or one sharing no word with any example, gives the first k.
    """
    if k < 0:
        raise ValueError(f"k must be >= 0, got {k}")
    if len(examples) <= k:
        return list(examples)
    docs = [tokenize(f"{ex.user}\n{ex.char}") for ex in examples]
    words = tokenize(query)
    wanted = set(words)
    overlaps = [bool(wanted.intersection(doc)) for doc in docs]
    if not any(overlaps):
        return list(examples[:k])

    from rank_bm25 import BM25Okapi  # lazy: only fsd prompts with many examples need it

    scores = BM25Okapi(docs).get_scores(words)
    ranked = sorted(range(len(docs)), key=lambda i: (not overlaps[i], -float(scores[i]), i))
    return [examples[i] for i in sorted(ranked[:k])]
