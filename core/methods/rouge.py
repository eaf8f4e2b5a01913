"""Rouge-L F1 of an answer against reference answers, in any script (RoleBench's RAW, CUS and SPE).

RoleLLM scores single-turn answers by Rouge-L F1 against references and keeps the best
reference (METHOD.md "RoleLLM"). The LCS arithmetic comes from ``rouge_score``; the tokens do
not: its default tokenizer keeps only ``[a-z0-9]``, so a Russian answer would have no tokens and
score 0 even when it equals its reference. Ours lowercases Unicode-aware and keeps every word of
any script (the same words BM25 retrieval sees), dropping punctuation.
``rouge_score`` (and the nltk and scipy it pulls in) is imported on the first score or by warm(),
so importing ``pingpong.core`` stays light.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

from pingpong.core.retrieval import tokenize

if TYPE_CHECKING:
    from rouge_score.rouge_scorer import RougeScorer  # type: ignore[import-untyped]


class WordTokenizer:
    """The ``tokenize(text)`` object rouge_score asks for: lowercase words of any script, no stemming."""

    def tokenize(self, text: str) -> list[str]:
        return tokenize(text)


@lru_cache(maxsize=1)
def _scorer() -> RougeScorer:
    from rouge_score import rouge_scorer  # type: ignore[import-untyped]

    return rouge_scorer.RougeScorer(["rougeL"], tokenizer=WordTokenizer())


def warm() -> None:
    """Import rouge_score and build the scorer now (it takes a second or more)."""
    _scorer()


def rouge_l(candidate: str, references: Sequence[str]) -> float:
    """The best Rouge-L F1 (0..1) of ``candidate`` over ``references``.

    An answer or a reference without a single word scores 0 against it. ValueError when
    ``references`` is empty: a question always has at least one reference.
    """
    if isinstance(references, str):
        raise TypeError("references must be a sequence of strings, not one string")
    if not references:
        raise ValueError("rouge_l needs at least one reference")
    scorer = _scorer()
    return max(scorer.score(reference, candidate)["rougeL"].fmeasure for reference in references)
