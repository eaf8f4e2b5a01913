"""The DMT-RoleBench leaderboard: per (player, lang), Score_m with its curve per metric and the
overall DMT-Score, from the per-round good/bad labels of finished dmt sessions, each with the half
width of its 95% bootstrap interval over dialogues; optionally broken down by the card's role type,
the seed's intent or the player's prompt format / prompting strategy.

Per session, round and metric the judges' labels are combined by majority (ties bad), and a
person's newest label replaces the combination (`scores="judges"` ignores people, `"human"` uses
only people's labels). The arithmetic itself is core.methods.dmt_rules'.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pingpong.core.methods.dmt_rules import (
    ANY_METRICS,
    DEFAULT_ROLE_TYPE,
    DMT_METRICS,
    ROLE_TYPES,
    conversation_passes,
    dmt_curve,
    dmt_metric_score,
    dmt_overall,
    majority_label,
    metrics_for,
)
from pingpong.sessions import queries

Labels = dict[int, dict[tuple[int, str], bool]]
"""{session: {(round, metric): combined label}}."""

BREAKDOWNS = ("role_type", "intent", "prompt_format", "prompting")
"""What `--by` can split the rows by (sessions.queries.SESSION_OPTIONS)."""

N_BOOT = 1000


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


def applicable(labels: Labels, role_types: dict[int, str | None]) -> Labels:
    """Only the labels of metrics that the session's card's role type calls for (METHOD.md): a label
    of another metric (stored by an older release, or imported) does not count."""
    return {sid: {key: label for key, label in cells.items() if key[1] in metrics_for(role_types.get(sid))}
            for sid, cells in labels.items()}


def conversation_labels(labels: dict[tuple[int, str], bool], metric: str) -> list[bool | None]:
    """One session's labels of one metric in round order (None for a round without one)."""
    rounds = sorted({turn for turn, _ in labels})
    return [labels.get((turn, metric)) for turn in rounds]


def resample_counts(n_sessions: int, rng: np.random.Generator, n_boot: int = N_BOOT) -> np.ndarray:
    """(n_boot, n_sessions): how often each dialogue is drawn in each resample (with replacement)."""
    return rng.multinomial(n_sessions, np.full(n_sessions, 1.0 / n_sessions), size=n_boot)


def bootstrap_scores(convs: dict[str, list[tuple[int, list[bool]]]], counts: np.ndarray) -> dict[str, np.ndarray]:
    """Score_m per metric and the DMT-Score (key "dmt_score") of each resample of the dialogues.

    convs: {metric: [(index of the session among the row's sessions, its labelled rounds)]}; counts:
    resample_counts' matrix. Per metric a resample counts only its drawn dialogues that have labels (N,
    with repeats), takes T as the longest of them and averages Score_1..Score_T, exactly as dmt_rules
    does for the whole sample. A resample without a labelled dialogue for a metric gives NaN there, and
    its DMT-Score is the mean over the metrics it has.
    """
    out: dict[str, np.ndarray] = {}
    for metric, items in convs.items():
        longest = max(len(rounds) for _, rounds in items)
        passes = np.array([[conversation_passes(rounds, tau, metric in ANY_METRICS) for tau in range(1, longest + 1)]
                           for _, rounds in items], dtype=float)
        lengths = np.array([len(rounds) for _, rounds in items])
        drawn = counts[:, [i for i, _ in items]]  # (n_boot, dialogues with labels)
        n = drawn.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            curves = drawn @ passes / n[:, None]  # Score_tau per resample
            t = np.where(drawn > 0, lengths, 0).max(axis=1)
            within = np.arange(1, longest + 1)[None, :] <= t[:, None]
            out[metric] = np.where(n > 0, np.where(within, curves, 0.0).sum(axis=1) / t, np.nan)
    if out:
        stacked = np.vstack(list(out.values()))
        have = np.isfinite(stacked)
        with np.errstate(invalid="ignore", divide="ignore"):
            out["dmt_score"] = np.where(have, stacked, 0.0).sum(axis=0) / have.sum(axis=0)
    return out


def _half_width(boot: np.ndarray | None) -> float | None:
    from pingpong.sessions.leaderboard import half_width

    if boot is None:
        return None
    finite = boot[np.isfinite(boot)]
    return _round(half_width(finite)) if finite.size else None


@dataclass
class DmtRow:
    """One leaderboard row; to_json gives DESIGN.md's JSON object (plus the breakdown's key)."""

    player: str
    lang: str | None
    conversations: int
    metrics: dict[str, dict[str, Any]] = field(default_factory=dict)
    dmt_score: float | None = None
    dmt_score_ci: float | None = None
    rank: int | None = None
    method: str = "dmt"
    group: tuple[str, str] | None = None
    """(breakdown, value), e.g. ("role_type", "historical"), when the board is broken down."""

    def to_json(self) -> dict[str, Any]:
        out = {"rank": self.rank, "player": self.player, "lang": self.lang, "method": self.method,
               "conversations": self.conversations, "dmt_score": self.dmt_score, "dmt_score_ci": self.dmt_score_ci,
               "metrics": self.metrics}
        if self.group is not None:
            out[self.group[0]] = self.group[1]
        return out


def row_for(player: str, lang: str | None, sessions: list[int], labels: Labels, *,
            rng: np.random.Generator | None = None, n_boot: int = N_BOOT) -> DmtRow:
    """One row: every metric's curve and score, the DMT-Score, and (with rng) their bootstrap half widths."""
    row = DmtRow(player, lang, len(sessions))
    per_metric: dict[str, float | None] = {}
    labelled: dict[str, list[tuple[int, list[bool]]]] = {}
    for metric in DMT_METRICS:
        convs = [(i, [lb for lb in conversation_labels(labels.get(sid, {}), metric) if lb is not None])
                 for i, sid in enumerate(sessions)]
        convs = [(i, rounds) for i, rounds in convs if rounds]
        if not convs:
            continue
        labelled[metric] = convs
        curve = dmt_curve([rounds for _, rounds in convs], metric)
        score = dmt_metric_score(curve)
        per_metric[metric] = score
        row.metrics[metric] = {"score": _round(score), "score_ci": None, "curve": [_round(v) for v in curve],
                               "conversations": len(convs)}
    row.dmt_score = _round(dmt_overall(per_metric))
    if rng is not None and labelled and n_boot > 0:
        boot = bootstrap_scores(labelled, resample_counts(len(sessions), rng, n_boot))
        for metric in labelled:
            row.metrics[metric]["score_ci"] = _half_width(boot[metric])
        row.dmt_score_ci = _half_width(boot.get("dmt_score"))
    return row


def _round(value: float | None) -> float | None:
    return None if value is None else round(float(value), 4)


def rank(rows: list[DmtRow]) -> list[DmtRow]:
    """Each language on its own: competition ranking by dmt_score (1, 1, 3), rows without a score last,
    unranked; the languages one after another."""
    out: list[DmtRow] = []
    for lang in sorted({r.lang or "" for r in rows}):
        mine = [r for r in rows if (r.lang or "") == lang]
        scored = sorted((r for r in mine if r.dmt_score is not None), key=lambda r: (-(r.dmt_score or 0), r.player))
        for i, row in enumerate(scored):
            row.rank = scored[i - 1].rank if i and row.dmt_score == scored[i - 1].dmt_score else i + 1
        out += scored + sorted((r for r in mine if r.dmt_score is None), key=lambda r: r.player)
    return out


def group_value(by: str, value: str | None) -> str:
    """A session's group under a breakdown, with what an unset value means spelled out."""
    if by == "role_type":
        key = (value or "").strip().lower()
        return key if key in ROLE_TYPES else DEFAULT_ROLE_TYPE
    if by == "prompt_format":
        return value or "detailed"
    return value or ("default" if by == "prompting" else "none")


def dmt_leaderboard(conn: Any, *, lang: str | None = None, run: str | None = None, scores: str = "merged",
                    include_forks: bool = False, by: str | None = None, seed: int = 0,
                    n_boot: int = N_BOOT) -> list[DmtRow]:
    """The rows of `pingpong leaderboard --method dmt`, best first (ranked within each group with `by`)."""
    from pingpong.sessions.leaderboard import player_rng

    if by is not None and by not in BREAKDOWNS:
        raise ValueError(f"unknown breakdown {by!r}; expected one of {', '.join(BREAKDOWNS)}")
    flt = queries.SessionFilter(method="dmt", lang=lang, run=run, include_forks=include_forks)
    facts = queries.sessions_matching(conn, flt)
    labels = applicable(combine(queries.dmt_labels(conn, flt), scores), queries.session_option(conn, flt, "role_type"))
    if scores == "human":  # people's labels alone: the dialogues people labelled, as every board counts them
        facts = [f for f in facts if labels.get(f.id)]
    options = queries.session_option(conn, flt, by) if by else {}
    groups: dict[str | None, dict[tuple[str, str | None], list[int]]] = defaultdict(lambda: defaultdict(list))
    for f in facts:
        group = group_value(by, options.get(f.id)) if by else None
        groups[group][(f.player, f.lang)].append(f.id)
    out: list[DmtRow] = []
    for group in sorted(groups, key=lambda g: g or ""):
        rows = []
        for (player, lg), ids in groups[group].items():
            key = f"{player}|{lg}" + (f"|{by}={group}" if by else "")
            row = row_for(player, lg, ids, labels, rng=player_rng(seed, key), n_boot=n_boot)
            row.group = (by, group) if by and group is not None else None
            rows.append(row)
        out += rank(rows)
    return out


def dmt_curve_of(row: DmtRow, metric: str | None = None) -> list[float]:
    """A row's curve Score_1..Score_T for one metric, or (metric None) the mean over its metrics at
    each tau (over the metrics whose curve reaches that far): what the TUI plots."""
    if metric is not None:
        return list(row.metrics.get(metric, {}).get("curve") or [])
    curves = [v["curve"] for v in row.metrics.values() if v.get("curve")]
    longest = max((len(c) for c in curves), default=0)
    out = []
    for tau in range(longest):
        values = [c[tau] for c in curves if tau < len(c)]
        out.append(round(sum(values) / len(values), 4))
    return out
