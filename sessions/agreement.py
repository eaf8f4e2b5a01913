"""Can the judges be trusted? Judges against people, people against each other, rankings against rankings.

METHOD.md "Validating judges against people": Spearman between people's (mean)
scores and each judge or the judge ensemble, per metric and for the final score;
Krippendorff's alpha (ordinal) and pairwise Spearman among people; Kendall's tau
between the rankings different judges (or interrogators) give the same players.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from pingpong.core.domain import METRICS
from pingpong.core.errors import UserError
from pingpong.sessions import queries
from pingpong.sessions.leaderboard import compute_leaderboard, connection
from pingpong.sessions.scoring import DEFAULT_WEIGHTS, normalise_weights

ENSEMBLE = "ensemble"
LEVELS = ("turn", "conversation")


def _num(x: Any) -> float | None:
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


@dataclass
class SpearmanRow:
    judge: str
    metric: str
    n: int
    spearman: float | None
    p_value: float | None

    def to_json(self) -> dict:
        return asdict(self)


@dataclass
class RefusalTable:
    """Turns flagged as refusals by the person(s) and by the judge."""

    judge: str
    both: int = 0
    human_only: int = 0
    judge_only: int = 0
    neither: int = 0

    @property
    def n(self) -> int:
        return self.both + self.human_only + self.judge_only + self.neither

    def to_json(self) -> dict:
        return {**asdict(self), "n": self.n}


@dataclass
class RaterAgreement:
    metric: str
    raters: int
    units: int
    alpha: float | None
    mean_spearman: float | None
    pairs: list[dict] = field(default_factory=list)

    def to_json(self) -> dict:
        return asdict(self)


@dataclass
class RankingAgreement:
    varied: str  # "judge" | "interrogator"
    names: list[str]
    pairs: list[dict]
    mean_tau: float | None
    min_tau: float | None

    def to_json(self) -> dict:
        return asdict(self)


@dataclass
class AgreementReport:
    level: str
    spearman: list[SpearmanRow]
    refusals: list[RefusalTable]
    raters: list[RaterAgreement]
    rankings: list[RankingAgreement]

    def to_json(self) -> dict:
        return {"level": self.level, "spearman": [r.to_json() for r in self.spearman],
                "refusals": [r.to_json() for r in self.refusals], "raters": [r.to_json() for r in self.raters],
                "rankings": [r.to_json() for r in self.rankings]}


# ------------------------------------------------------------------ pure statistics


def spearman(x: Sequence[float], y: Sequence[float]) -> tuple[float | None, float | None]:
    """scipy's Spearman rho and p-value; None when undefined (n < 2 or a constant side)."""
    from scipy.stats import spearmanr

    if len(x) < 2:
        return None, None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = spearmanr(np.asarray(x, float), np.asarray(y, float))
    return _num(res.statistic), _num(res.pvalue)


def kendall(x: Sequence[float], y: Sequence[float]) -> float | None:
    from scipy.stats import kendalltau

    if len(x) < 2:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _num(kendalltau(np.asarray(x, float), np.asarray(y, float)).statistic)


def krippendorff_alpha(matrix: np.ndarray) -> float | None:
    """Ordinal alpha of a raters x units matrix (NaN = not rated); None when undefined."""
    import krippendorff

    m = np.asarray(matrix, dtype=float)
    if m.ndim != 2 or m.shape[0] < 2:
        return None
    m = m[:, np.sum(np.isfinite(m), axis=0) >= 2]
    if m.shape[1] == 0 or len(np.unique(m[np.isfinite(m)])) < 2:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return _num(krippendorff.alpha(reliability_data=m, level_of_measurement="ordinal"))
    except (ValueError, ZeroDivisionError):
        return None


def pairwise_tau(rankings: dict[str, dict[str, float]]) -> tuple[list[dict], float | None, float | None]:
    """Kendall's tau between every two {player: score} maps over their common players."""
    pairs: list[dict[str, Any]] = []
    for a, b in itertools.combinations(sorted(rankings), 2):
        common = sorted(set(rankings[a]) & set(rankings[b]))
        tau = kendall([rankings[a][p] for p in common], [rankings[b][p] for p in common])
        pairs.append({"a": a, "b": b, "n": len(common), "tau": tau})
    taus: list[float] = [p["tau"] for p in pairs if p["tau"] is not None]
    return pairs, (_num(np.mean(taus)) if taus else None), (_num(np.min(taus)) if taus else None)


# ------------------------------------------------------------------ reading the store



def _human_by_author(store: Any, lang: str | None, method: str) -> dict[tuple[str, int, int, str], float]:
    """{(author, session, turn, metric): value}: each person's newest score of each turn."""
    flt = queries.SessionFilter(method=method, lang=lang, status=None, include_forks=True)
    return {(a, sid, t, m): float(v) for sid, a, t, m, v, _at, _id in
            queries.human_rows_matching(connection(store), flt) if t is not None}


def _judge_turns(store: Any, sessions: Sequence[int]) -> dict[str, dict[tuple[int, int], dict[str, float]]]:
    """{judge: {(session, turn): {metric or is_refusal: value}}} for these sessions (ok rows)."""
    out: dict[str, dict[tuple[int, int], dict[str, float]]] = defaultdict(dict)
    for sid, judge, turn, metric, value, status in queries.judge_turn_values(connection(store), sorted(set(sessions))):
        if status == "ok" and value is not None and turn is not None and metric in ("is_refusal", *METRICS):
            out[judge].setdefault((sid, turn), {})[metric] = float(value)
    return dict(out)


def _with_final(values: dict[str, float], w: np.ndarray) -> dict[str, float]:
    if all(m in values for m in METRICS):
        values = {**values, "final": float(sum(wi * values[m] for wi, m in zip(w, METRICS)))}
    return values


def _ensemble(judges: dict[str, dict[tuple[int, int], dict[str, float]]]) -> dict[tuple[int, int], dict[str, float]]:
    """Per turn and metric, the mean over judges (refusal: any judge); final = mean of the judges' finals."""
    acc: dict[tuple[int, int], dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for turns in judges.values():
        for unit, vals in turns.items():
            for k, v in vals.items():
                acc[unit][k].append(v)
    return {unit: {k: (max(v) if k == "is_refusal" else float(np.mean(v))) for k, v in d.items()}
            for unit, d in acc.items()}


def agreement_report(
    store: Any,
    *,
    level: str = "turn",
    lang: str | None = None,
    weights: Sequence[float] = DEFAULT_WEIGHTS,
    rankings: bool = True,
    method: str = "pingpong",
) -> AgreementReport:
    """Everything `pingpong agreement` shows. Level "turn": one pair per scored turn;
    "conversation": per session, the means over the turns that carry both scores."""
    if level not in LEVELS:
        raise UserError(f"--level: '{level}' is not one of {', '.join(LEVELS)}")
    w = normalise_weights(weights)
    by_author = _human_by_author(store, lang, method)
    per_unit: dict[tuple[int, int], dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for (author, sid, turn, metric), value in by_author.items():
        per_unit[(sid, turn)][metric].append(value)
    human = {u: _with_final({m: float(np.mean(v)) if m != "is_refusal" else float(np.mean(v) >= 0.5)
                             for m, v in d.items()}, w) for u, d in per_unit.items()}
    judges = _judge_turns(store, [sid for sid, _ in human])
    judges = {j: {u: _with_final(v, w) for u, v in turns.items()} for j, turns in judges.items()}
    sources = dict(sorted(judges.items()))
    if len(judges) > 1:
        ens = _ensemble({j: {u: {k: v for k, v in vals.items() if k != "final"} for u, vals in t.items()}
                         for j, t in judges.items()})
        finals = _ensemble({j: {u: {"final": v["final"]} for u, v in t.items() if "final" in v}
                            for j, t in judges.items()})
        for u, v in finals.items():
            ens.setdefault(u, {})["final"] = v["final"]
        sources[ENSEMBLE] = ens

    rows = []
    for name, turns in sources.items():
        for metric in (*METRICS, "final"):
            units = sorted(u for u in human if metric in human[u] and metric in turns.get(u, {}))
            if not units:
                continue
            h = [human[u][metric] for u in units]
            j = [turns[u][metric] for u in units]
            if level == "conversation":
                grouped: dict[int, tuple[list[float], list[float]]] = defaultdict(lambda: ([], []))
                for u, hv, jv in zip(units, h, j):
                    grouped[u[0]][0].append(hv)
                    grouped[u[0]][1].append(jv)
                h = [float(np.mean(grouped[s][0])) for s in sorted(grouped)]
                j = [float(np.mean(grouped[s][1])) for s in sorted(grouped)]
            rho, p = spearman(h, j)
            rows.append(SpearmanRow(name, metric, len(h), rho, p))

    refusals = []
    for name, turns in sources.items():
        table = RefusalTable(name)
        for u in sorted(human):
            if "is_refusal" in human[u] and "is_refusal" in turns.get(u, {}):
                hv, jv = bool(human[u]["is_refusal"]), bool(turns[u]["is_refusal"])
                if hv and jv:
                    table.both += 1
                elif hv:
                    table.human_only += 1
                elif jv:
                    table.judge_only += 1
                else:
                    table.neither += 1
        if table.n:
            refusals.append(table)

    return AgreementReport(level, rows, refusals, rater_agreement(by_author),
                           ranking_agreement(store, lang=lang, weights=w, method=method) if rankings else [])


def rater_agreement(by_author: dict[tuple[str, int, int, str], float]) -> list[RaterAgreement]:
    """Per metric, when two or more people scored the same turns: alpha and pairwise Spearman."""
    out = []
    for metric in METRICS:
        cells = {(a, (sid, t)): v for (a, sid, t, m), v in by_author.items() if m == metric}
        authors = sorted({a for a, _ in cells})
        if len(authors) < 2:
            continue
        units = sorted({u for _, u in cells})
        matrix = np.full((len(authors), len(units)), np.nan)
        ui = {u: i for i, u in enumerate(units)}
        for ai, a in enumerate(authors):
            for (b, u), v in cells.items():
                if b == a:
                    matrix[ai, ui[u]] = v
        shared = int(np.sum(np.sum(np.isfinite(matrix), axis=0) >= 2))
        if shared == 0:
            continue
        pairs: list[dict[str, Any]] = []
        for (ia, a), (ib, b) in itertools.combinations(enumerate(authors), 2):
            both = np.isfinite(matrix[ia]) & np.isfinite(matrix[ib])
            rho, p = spearman(matrix[ia][both], matrix[ib][both])
            pairs.append({"a": a, "b": b, "n": int(both.sum()), "spearman": rho, "p_value": p})
        rhos: list[float] = [p["spearman"] for p in pairs if p["spearman"] is not None]
        out.append(RaterAgreement(metric, len(authors), shared, krippendorff_alpha(matrix),
                                  _num(np.mean(rhos)) if rhos else None, pairs))
    return out


def ranking_agreement(store: Any, *, lang: str | None = None,
                      weights: Sequence[float] | np.ndarray = DEFAULT_WEIGHTS,
                      method: str = "pingpong") -> list[RankingAgreement]:
    """Kendall's tau between the players' final scores under each judge, and under each interrogator."""
    conn = connection(store)
    flt = queries.SessionFilter(method=method, lang=lang)
    judges = queries.judges_of(conn, flt)
    asked = queries.interrogators_of(conn, flt)
    out = []
    for varied, names, key in (("judge", judges, "judges"), ("interrogator", asked, "interrogator")):
        if len(names) < 2:
            continue
        maps = {}
        for name in names:
            kw = {"judges": [name]} if key == "judges" else {"interrogator": name}
            rows = compute_leaderboard(store, method=method, lang=lang, weights=weights, scores="judges",
                                       n_boot=0, **kw)
            maps[name] = {r.player: r.final for r in rows if r.final is not None}
        pairs, mean_tau, min_tau = pairwise_tau(maps)
        out.append(RankingAgreement(varied, names, pairs, mean_tau, min_tau))
    return out
