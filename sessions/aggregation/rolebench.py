"""The RoleBench leaderboard: per (player, lang), mean Rouge-L of RAW, CUS and SPE with 95% bootstrap
half widths (METHOD.md "RoleLLM"). Rank by the mean of the metrics a player has."""

from __future__ import annotations

from typing import Any

import numpy as np

from pingpong.core.methods.rolebench import METRICS, SCORER
from pingpong.sessions.aggregation.rule_boards import mean_ci, rank_by_score, rounded


def summarise(values: dict[str, list[float]], rng: np.random.Generator) -> dict[str, float | None]:
    """Each metric's mean and ``<metric>_ci`` (half width of the 2.5-97.5 percentile interval)."""
    out: dict[str, float | None] = {}
    for metric in METRICS:
        out[metric], out[f"{metric}_ci"] = mean_ci(values.get(metric, []), rng)
    return out


def rolebench_leaderboard(conn, *, lang: str | None = None, run: str | None = None,
                          include_forks: bool = False, seed: int = 0) -> list[dict[str, Any]]:
    """Rows (JSON-ready dicts) for the finished rolebench sessions, best first."""
    from pingpong.sessions import queries
    from pingpong.sessions.leaderboard import player_rng

    facts = queries.sessions_matching(conn, queries.SessionFilter(
        method="rolebench", lang=lang, run=run, include_forks=include_forks))
    by_id = {f.id: f for f in facts}
    groups: dict[tuple[str, str | None], dict[str, list[float]]] = {}
    sessions: dict[tuple[str, str | None], set[int]] = {}
    for f in facts:
        sessions.setdefault((f.player, f.lang), set()).add(f.id)
    for sid, metric, value in queries.rule_scores(conn, list(by_id), SCORER, METRICS):
        f = by_id[sid]
        groups.setdefault((f.player, f.lang), {}).setdefault(metric, []).append(float(value))
    rows: list[dict[str, Any]] = []
    for (player, row_lang), ids in sessions.items():
        stats = summarise(groups.get((player, row_lang), {}), player_rng(seed, f"{player}|{row_lang}"))
        present = [v for m in METRICS if (v := stats[m]) is not None]
        rows.append({"player": player, "lang": row_lang, "method": "rolebench", "conversations": len(ids),
                     "rank": None, "score": rounded(sum(present) / len(present)) if present else None,
                     **stats})
    return rank_by_score(rows)
