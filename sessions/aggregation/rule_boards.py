"""What the boards of rule-scored methods (rolebench, roleinteract) share: a mean with its 95%
bootstrap half width, rounding for JSON, and competition ranks by the rows' mean score."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np


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
    """Rows sorted best first by their "score", ranked 1, 1, 3 on equal scores; unscored rows last, unranked.
    by: the row field a board is split by (a tiebreak after player and lang)."""
    rows.sort(key=lambda r: (r["score"] is None, -(r["score"] or 0.0), r["player"], r["lang"] or "",
                             str(r.get(by) or "") if by else ""))
    previous, rank = None, 0
    for i, row in enumerate(rows):
        if row["score"] is None:
            continue
        if row["score"] != previous:
            rank, previous = i + 1, row["score"]
        row["rank"] = rank
    return rows
