"""What the boards of rule-scored methods (rolebench, roleinteract) share: which score counts (the
rule's, or a person's newest in its place), a mean with its 95% bootstrap half width, rounding for
JSON, and competition ranks by the rows' mean score."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from pingpong.sessions import queries

Question = tuple[int | None, str]
"""(turn, metric) of one scored question within a session."""
Values = dict[int, dict[Question, tuple[float, bool]]]
"""{session: {question: (the value that counts, flagged by the rule)}}."""


def current_values(rows: Iterable[queries.RuleRow], scores: str = "merged",
                   flagged: Callable[[str], bool] = lambda explanation: False) -> Values:
    """Per session and question: the value that counts, and whether the rule's explanation is
    ``flagged``. "merged": a person's newest score in place of the rule's; "judges": the rule's
    only; "human": people's only. Rows come oldest first, so the newest person's score wins."""
    rule: Values = defaultdict(dict)
    people: Values = defaultdict(dict)
    for sid, source, turn, metric, value, explanation in rows:
        if source == "human":
            people[sid][(turn, metric)] = (float(value), False)
        else:
            rule[sid][(turn, metric)] = (float(value), flagged(explanation or ""))
    out: Values = {}
    if scores != "human":
        out = {sid: dict(values) for sid, values in rule.items()}
    if scores != "judges":
        for sid, values in people.items():
            out.setdefault(sid, {}).update(values)
    return out


def rounded(value: float | None) -> float | None:
    """Four decimals for JSON; None for a missing or non-finite value."""
    return None if value is None or not math.isfinite(value) else round(float(value), 4)


def mean_ci(values: Sequence[float], rng: np.random.Generator) -> tuple[float | None, float | None]:
    """The mean of the values and the half width of its 95% bootstrap interval (None, None when empty)."""
    from pingpong.sessions.leaderboard import bootstrap_means, half_width

    x = np.asarray(values, dtype=float)
    if not x.size:
        return None, None
    return rounded(float(x.mean())), rounded(half_width(bootstrap_means(x, rng)))


def rank_by_score(rows: list[dict[str, Any]], by: str | None = None) -> list[dict[str, Any]]:
    """Rows by language (and by the value of ``by``, the row field a board is split by), each such
    board best first by its "score" and ranked on its own (1, 1, 3 on equal scores), as every board
    is; unscored rows last, unranked."""
    def board(row: dict[str, Any]) -> tuple[str, str]:
        return row["lang"] or "", str(row.get(by) or "") if by else ""

    rows.sort(key=lambda r: (*board(r), r["score"] is None, -(r["score"] or 0.0), r["player"]))
    previous: tuple[tuple[str, str], float] | None = None
    rank = start = 0
    for i, row in enumerate(rows):
        if i and board(row) != board(rows[i - 1]):
            start = i  # a new board
        if row["score"] is None:
            continue
        key = (board(row), row["score"])
        if key != previous:
            rank, previous = i - start + 1, key
        row["rank"] = rank
    return rows
