"""Scores along the conversation: mean score by turn index, and DMT-Score (METHOD.md).

Quality tends to drop as conversations grow; these two views show where. DMT-Score
is strict: a prefix of tau turns is good only if all its turns are good (or, for
"ANY"-type metrics such as interactivity, if any of them is).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import numpy as np

from pingpong.core.domain import METRICS
from pingpong.sessions.leaderboard import DEFAULT_WEIGHTS, connection, normalise_weights, session_filter

ANY_METRICS: frozenset[str] = frozenset({"interactivity", "knowledge_exposure"})


def _filter(lang: str | None, run: str | None) -> tuple[str, list]:
    """Finished sessions passing the filters, and their usable (not failed) turn scores."""
    where, params = session_filter(lang, run, None)
    return where + " AND (t.status IS NULL OR t.status != 'failed')", params


def score_by_turn(
    store: Any,
    *,
    metric: str = "final",
    lang: str | None = None,
    run: str | None = None,
    weights: Sequence[float] = DEFAULT_WEIGHTS,
) -> dict[str, list[tuple[int, float]]]:
    """{player: [(turn, mean score), ...]} over finished sessions and the judges' scorings.

    metric: one of METRICS or "final" (weighted sum of the three for that turn). As on the
    leaderboard, a judge's scoring that flagged a refusal is left out.
    """
    if metric != "final" and metric not in METRICS:
        raise ValueError(f"unknown metric {metric!r}")
    w = normalise_weights(weights)
    expr = f"t.{metric}" if metric != "final" else " + ".join(f"{float(wi)!r} * t.{m}" for wi, m in zip(w, METRICS))
    where, params = _filter(lang, run)
    sql = (
        f"SELECT s.player, t.turn, AVG({expr}) FROM turn_scores t JOIN sessions s ON s.id = t.session_id"
        " LEFT JOIN (SELECT session_id, judge FROM turn_scores WHERE is_refusal = 1"
        "            AND (status IS NULL OR status != 'failed') GROUP BY session_id, judge) r"
        "   ON r.session_id = t.session_id AND r.judge = t.judge"
        f" WHERE {where} AND r.session_id IS NULL"
        + (f" AND t.{metric} IS NOT NULL" if metric != "final" else "")
        + " GROUP BY s.player, t.turn ORDER BY s.player, t.turn"
    )
    out: dict[str, list[tuple[int, float]]] = defaultdict(list)
    for player, turn, mean in connection(store).execute(sql, params):
        if mean is not None:
            out[player].append((int(turn), float(mean)))
    return dict(out)


def dmt_curve(good: Sequence[Sequence[bool]], any_type: bool = False) -> tuple[list[float], float | None]:
    """DMT-Score from per-conversation good/bad flags per turn (conversations may differ in length).

    Score_tau = mean over the conversations that reached tau turns of the prefix score: 1 when
    all (or, any_type, any) of the first tau turns are good. Final = mean of Score_tau over
    tau = 1..T (T = the longest conversation).
    """
    convs = [list(map(bool, g)) for g in good if len(g)]
    if not convs:
        return [], None
    longest = max(len(g) for g in convs)
    curve = []
    for tau in range(1, longest + 1):
        prefix = [g[:tau] for g in convs if len(g) >= tau]
        scores = [float(any(p)) if any_type else float(all(p)) for p in prefix]
        curve.append(float(np.mean(scores)))
    return curve, float(np.mean(curve))


def dmt_scores(
    store: Any,
    *,
    threshold: float = 4,
    lang: str | None = None,
    run: str | None = None,
    any_metrics: frozenset[str] = ANY_METRICS,
) -> dict[str, dict[str, dict[str, Any]]]:
    """{player: {metric: {"by_turn": [Score_tau...], "score": final}}}.

    A turn is good when the judges' mean Likert score for it is >= threshold (default 4);
    judges' refusal scorings are left out, as on the leaderboard.
    """
    where, params = _filter(lang, run)
    sql = (
        "SELECT s.player, t.session_id, t.turn, AVG(t.in_character), AVG(t.entertaining), AVG(t.fluency)"
        " FROM turn_scores t JOIN sessions s ON s.id = t.session_id"
        " LEFT JOIN (SELECT session_id, judge FROM turn_scores WHERE is_refusal = 1"
        "            AND (status IS NULL OR status != 'failed') GROUP BY session_id, judge) r"
        "   ON r.session_id = t.session_id AND r.judge = t.judge"
        f" WHERE {where} AND r.session_id IS NULL"
        " GROUP BY t.session_id, t.turn ORDER BY s.player, t.session_id, t.turn"
    )
    flags: dict[str, dict[str, dict[int, list[bool]]]] = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    for player, sid, _turn, *means in connection(store).execute(sql, params):
        for metric, mean in zip(METRICS, means):
            if mean is not None:
                flags[player][metric][sid].append(mean >= threshold)
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for player, metrics in sorted(flags.items()):
        out[player] = {}
        for metric, convs in metrics.items():
            curve, score = dmt_curve(list(convs.values()), metric in any_metrics)
            out[player][metric] = {"by_turn": curve, "score": score}
    return out
