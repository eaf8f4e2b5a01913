"""The RoleBench leaderboard: per (player, lang), mean Rouge-L of RAW, CUS and SPE with 95% bootstrap
half widths (METHOD.md "RoleLLM"). Rank by the mean of the metrics a player has. With a `--by` option
(the prompting strategy) a row per player, lang and value of it. A person's newest score of an answer
replaces its Rouge-L (`scores="judges"` ignores people, `"human"` counts only people's)."""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from pingpong.core.methods.rolebench import METRICS, SCORER
from pingpong.sessions.aggregation.rule_boards import current_values, mean_ci, rank_by_score, rounded


def summarise(values: dict[str, list[float]], rng: np.random.Generator) -> dict[str, float | None]:
    """Each metric's mean and ``<metric>_ci`` (half width of the 2.5-97.5 percentile interval)."""
    out: dict[str, float | None] = {}
    for metric in METRICS:
        out[metric], out[f"{metric}_ci"] = mean_ci(values.get(metric, []), rng)
    return out


BY_OPTIONS = ("prompting",)
"""The spec options a rolebench row can be split by."""


def _option(spec_json: str | None, by: str | None) -> str | None:
    if by is None or not spec_json:
        return None
    value = json.loads(spec_json).get(by)
    return None if value is None else str(value)


def rolebench_leaderboard(conn, *, lang: str | None = None, run: str | None = None, scores: str = "merged",
                          include_forks: bool = False, seed: int = 0, by: str | None = None) -> list[dict[str, Any]]:
    """Rows (JSON-ready dicts) for the finished rolebench sessions, best first; with ``by`` (one of
    BY_OPTIONS) one row per player, lang and value of that option, which the row carries."""
    from pingpong.core.errors import UserError
    from pingpong.sessions import queries
    from pingpong.sessions.leaderboard import player_rng

    if by is not None and by not in BY_OPTIONS:
        raise UserError(f"--by {by}: the rolebench leaderboard splits rows by {', '.join(BY_OPTIONS)}")
    flt = queries.SessionFilter(method="rolebench", lang=lang, run=run, include_forks=include_forks)
    facts = queries.sessions_matching(conn, flt, with_spec=by is not None)
    values = current_values(queries.rule_and_human_scores(conn, flt, SCORER, METRICS), scores)
    if scores == "human":  # people's scores alone: the answers people scored, as every board counts them
        facts = [f for f in facts if f.id in values]
    key_of = {f.id: (f.player, f.lang, _option(f.extra, by)) for f in facts}
    groups: dict[tuple[str, str | None, str | None], dict[str, list[float]]] = {}
    sessions: dict[tuple[str, str | None, str | None], set[int]] = {}
    for f in facts:
        sessions.setdefault(key_of[f.id], set()).add(f.id)
    for sid, questions in sorted(values.items()):  # by session, not by when each one's scores were written:
        if sid in key_of:                          # the same sessions resample the same after an export
            for (_turn, metric), (value, _flagged) in sorted(questions.items(), key=lambda q: (q[0][0] or 0, q[0][1])):
                groups.setdefault(key_of[sid], {}).setdefault(metric, []).append(value)
    rows: list[dict[str, Any]] = []
    for key, ids in sessions.items():
        player, row_lang, option = key
        stream = f"{player}|{row_lang}" if by is None else f"{player}|{row_lang}|{option}"
        stats = summarise(groups.get(key, {}), player_rng(seed, stream))
        present = [v for m in METRICS if (v := stats[m]) is not None]
        rows.append({"player": player, **({by: option} if by is not None else {}), "lang": row_lang,
                     "method": "rolebench", "conversations": len(ids), "rank": None,
                     "score": rounded(sum(present) / len(present)) if present else None, **stats})
    return rank_by_score(rows, by)
