"""The DMT-RoleBench leaderboard: per (player, lang), Score_m with its curve per metric and the
overall DMT-Score, from the per-round good/bad labels of finished dmt sessions.

Per session, round and metric the judges' labels are combined by majority (ties bad), and a
person's newest label replaces the combination (`scores="judges"` ignores people, `"human"` uses
only people's labels). The arithmetic itself is core.methods.dmt_rules'.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from pingpong.core.methods.dmt_rules import DMT_METRICS, dmt_curve, dmt_metric_score, dmt_overall, majority_label
from pingpong.sessions import queries

Labels = dict[int, dict[tuple[int, str], bool]]
"""{session: {(round, metric): combined label}}."""


def combine(rows: Iterable[queries.LabelRow], scores: str = "merged") -> Labels:
    """One label per session, round and metric: the judges' majority, overridden by people."""
    votes: dict[int, dict[tuple[int, str], dict[str, bool]]] = defaultdict(lambda: defaultdict(dict))
    people: dict[int, dict[tuple[int, str], bool]] = defaultdict(dict)
    for sid, source, by, turn, metric, value, _at, _id in rows:  # oldest first: the newest person wins
        if source == "human":
            people[sid][(turn, metric)] = value >= 0.5
        else:
            votes[sid][(turn, metric)][by] = value >= 0.5
    out: Labels = {}
    if scores != "human":
        for sid, cells in votes.items():
            out[sid] = {key: label for key, judged in cells.items()
                        if (label := majority_label(list(judged.values()))) is not None}
    if scores != "judges":
        for sid, labels in people.items():
            out.setdefault(sid, {}).update(labels)
    return out


def conversation_labels(labels: dict[tuple[int, str], bool], metric: str) -> list[bool | None]:
    """One session's labels of one metric in round order (None for a round without one)."""
    rounds = sorted({turn for turn, _ in labels})
    return [labels.get((turn, metric)) for turn in rounds]


@dataclass
class DmtRow:
    """One leaderboard row; to_json gives DESIGN.md's JSON object."""

    player: str
    lang: str | None
    conversations: int
    metrics: dict[str, dict[str, Any]] = field(default_factory=dict)
    dmt_score: float | None = None
    rank: int | None = None
    method: str = "dmt"

    def to_json(self) -> dict[str, Any]:
        return {"rank": self.rank, "player": self.player, "lang": self.lang, "method": self.method,
                "conversations": self.conversations, "dmt_score": self.dmt_score, "metrics": self.metrics}


def row_for(player: str, lang: str | None, sessions: list[int], labels: Labels) -> DmtRow:
    row = DmtRow(player, lang, len(sessions))
    per_metric: dict[str, float | None] = {}
    for metric in DMT_METRICS:
        convs = [conversation_labels(labels.get(sid, {}), metric) for sid in sessions]
        convs = [c for c in convs if any(label is not None for label in c)]
        if not convs:
            continue
        curve = dmt_curve(convs, metric)
        score = dmt_metric_score(curve)
        per_metric[metric] = score
        row.metrics[metric] = {"score": _round(score), "curve": [_round(v) for v in curve],
                               "conversations": len(convs)}
    row.dmt_score = _round(dmt_overall(per_metric))
    return row


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def rank(rows: list[DmtRow]) -> list[DmtRow]:
    """Competition ranking by dmt_score (1, 1, 3); rows without a score last, unranked."""
    scored = sorted((r for r in rows if r.dmt_score is not None), key=lambda r: (-(r.dmt_score or 0), r.player))
    for i, row in enumerate(scored):
        row.rank = scored[i - 1].rank if i and row.dmt_score == scored[i - 1].dmt_score else i + 1
    rest = sorted((r for r in rows if r.dmt_score is None), key=lambda r: (r.player, r.lang or ""))
    return scored + rest


def dmt_leaderboard(conn: Any, *, lang: str | None = None, run: str | None = None, scores: str = "merged",
                    include_forks: bool = False) -> list[DmtRow]:
    """The rows of `pingpong leaderboard --method dmt`, best first."""
    flt = queries.SessionFilter(method="dmt", lang=lang, run=run, include_forks=include_forks)
    facts = queries.sessions_matching(conn, flt)
    labels = combine(queries.dmt_labels(conn, flt), scores)
    groups: dict[tuple[str, str | None], list[int]] = defaultdict(list)
    for f in facts:
        groups[(f.player, f.lang)].append(f.id)
    return rank([row_for(player, lg, ids, labels) for (player, lg), ids in groups.items()])
