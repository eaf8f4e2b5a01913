"""The RoleInteract leaderboard: per (player, lang), each dimension as a share in 0..1 (Acc_single,
Acc_multiple or keyword coverage: the mean over its questions) with the half width of its 95%
bootstrap interval over questions, and the mean of the dimensions (METHOD.md "RoleInteract").

Every scored (session, turn, dimension) is one question: a probe session has one, a group scene
may have several. A person's newest score replaces the rule's (`scores="judges"` ignores people,
`"human"` counts only people's). Memory is reported as memory_short and memory_long apart.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from pingpong.core.methods.roleinteract import METRICS, SCORER
from pingpong.core.methods.roleinteract_rules import UNPARSEABLE
from pingpong.sessions import queries
from pingpong.sessions.aggregation.rule_boards import Values, current_values, mean_ci, rank_by_score, rounded


def question_values(rows: Iterable[queries.RuleRow], scores: str = "merged") -> Values:
    """Per session and question: the value that counts, and whether it is the rule's flag of an answer
    that could not be read."""
    # "unreadable": how the first releases began a group scene's explanation of the same thing
    return current_values(rows, scores, lambda explanation: explanation.startswith((UNPARSEABLE, "unreadable:")))


def roleinteract_leaderboard(conn, *, lang: str | None = None, run: str | None = None, scores: str = "merged",
                             include_forks: bool = False, seed: int = 0) -> list[dict[str, Any]]:
    """Rows (JSON-ready dicts) for the finished roleinteract sessions, best first by the mean of the
    dimensions: `dimensions` {dimension: share}, `dimensions_ci` {dimension: half width}, `questions`
    {dimension: count}, `score` (the mean), `unparseable` (answers scored 0 for want of a letter)."""
    from pingpong.sessions.leaderboard import player_rng

    flt = queries.SessionFilter(method="roleinteract", lang=lang, run=run, include_forks=include_forks)
    facts = queries.sessions_matching(conn, flt)
    values = question_values(queries.rule_and_human_scores(conn, flt, SCORER, METRICS), scores)
    if scores == "human":  # people's scores alone: the sessions people scored, as every board counts them
        facts = [f for f in facts if f.id in values]
    groups: dict[tuple[str, str | None], list[int]] = defaultdict(list)
    for f in facts:
        groups[(f.player, f.lang)].append(f.id)
    rows: list[dict[str, Any]] = []
    for (player, row_lang), ids in groups.items():
        per_dimension: dict[str, list[float]] = defaultdict(list)
        flagged = 0
        for sid in ids:
            for (_, metric), (value, unparseable) in values.get(sid, {}).items():
                per_dimension[metric].append(value)
                flagged += unparseable
        rng = player_rng(seed, f"{player}|{row_lang}")
        shares: dict[str, float | None] = {}
        cis: dict[str, float | None] = {}
        for metric in METRICS:
            if per_dimension.get(metric):
                shares[metric], cis[metric] = mean_ci(per_dimension[metric], rng)
        present = [v for v in shares.values() if v is not None]
        rows.append({"rank": None, "player": player, "lang": row_lang, "method": "roleinteract",
                     "conversations": len(ids),
                     "score": rounded(sum(present) / len(present)) if present else None,
                     "dimensions": shares, "dimensions_ci": cis,
                     "questions": {m: len(per_dimension[m]) for m in shares}, "unparseable": flagged})
    return rank_by_score(rows)
