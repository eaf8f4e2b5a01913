"""Can the judges be trusted? Judges against people, people against each other, rankings against rankings.

METHOD.md "Validating judges against people": Spearman between people's (mean) scores and each
judge or the judge ensemble, per metric and for the final score; Krippendorff's alpha (ordinal),
pairwise Spearman and each person's Spearman against the mean of the others among people; and the
fixed-seat experiment: with one seat fixed (the interrogator, or the judge), Kendall's tau between
the rankings of the same players under each occupant of the other seat.

Units are scored turns (`--level turn`) or conversations (`--level conversation`). At the
conversation level a person's rating of the whole conversation is used where it exists, else the
mean of their turn scores; a judge's figure is its mean over the turns the people scored (over all
its turns when someone rated the whole conversation). Finals are rounded to FINAL_DIGITS before
anything is ranked, so float noise in a weighted sum (1/3 x 4 + 1/3 x 5 ...) never splits a tie.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections import defaultdict
from collections.abc import Iterable, Sequence
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
FINAL_DIGITS = 9
"""Finals (weighted sums of means) are rounded to this many decimals before ranking."""
RATED = (*METRICS, "final")

Unit = tuple[int, int | None]
"""(session, turn); turn None: the whole conversation."""
Values = dict[str, float]
"""metric (or is_refusal, final) -> value."""


def _num(x: Any) -> float | None:
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


@dataclass
class SpearmanRow:
    """One Spearman correlation with people's scores, on the units both sides cover: a judge (or the
    ensemble) against the people's mean, or one person against the mean of the others. `who` is
    written under the key `role` names ("judge" or "author"), as DESIGN.md's JSON has it."""

    role: str
    who: str
    metric: str
    n: int
    spearman: float | None
    p_value: float | None

    def to_json(self) -> dict:
        return {self.role: self.who, "metric": self.metric, "n": self.n, "spearman": self.spearman,
                "p_value": self.p_value}


def correlate(role: str, who: str, metric: str, x: Sequence[float], y: Sequence[float]) -> SpearmanRow:
    """The row of `who`'s values ``y`` against people's ``x`` (paired, the same units in the same order)."""
    rho, p = spearman(x, y)
    return SpearmanRow(role, who, metric, len(x), rho, p)


@dataclass
class RefusalTable:
    """Units flagged as refusals by the person(s) and by the judge."""

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
    """One seat fixed, the other varied: Kendall's tau between the rankings it gives the players."""

    varied: str  # "judge" | "interrogator"
    fixed: str  # the other seat's occupant held fixed
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
    annotators: list[SpearmanRow] = field(default_factory=list)

    def to_json(self) -> dict:
        """DESIGN.md's document: everything the table format shows."""
        return {"level": self.level, "spearman": [r.to_json() for r in self.spearman],
                "krippendorff_alpha": [r.to_json() for r in self.raters],
                "annotators": [r.to_json() for r in self.annotators],
                "kendall_tau": [r.to_json() for r in self.rankings],
                "refusal": [r.to_json() for r in self.refusals]}


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


def with_final(values: Values, w: np.ndarray) -> Values:
    """values plus `final` (the weighted sum of the three metrics, rounded) when all three are there."""
    if all(m in values for m in METRICS):
        values = {**values, "final": round(float(sum(wi * values[m] for wi, m in zip(w, METRICS))), FINAL_DIGITS)}
    return values


def _mean(values: Iterable[float]) -> float:
    return float(np.mean(list(values)))


# ------------------------------------------------------------------ people


def people_units(rows: Iterable[queries.HumanRow], level: str) -> dict[str, dict[Unit, Values]]:
    """{person: {unit: {metric or is_refusal: value}}}: each person's current scores at the level.

    Turn level: their scores of single turns. Conversation level: their rating of the whole
    conversation, else the mean of their turn scores (a refusal on any turn flags it)."""
    current: dict[tuple[str, int, int | None, str], float] = {}
    for sid, author, turn, metric, value, _at, _id in sorted(rows, key=lambda r: (r[5] or "", r[6] or 0)):
        current[(author, sid, turn, metric)] = float(value)
    out: dict[str, dict[Unit, Values]] = defaultdict(dict)
    if level == "turn":
        for (author, sid, turn, metric), value in current.items():
            if turn is not None:
                out[author].setdefault((sid, turn), {})[metric] = value
        return dict(out)
    turns: dict[tuple[str, int, str], list[float]] = defaultdict(list)
    whole: dict[tuple[str, int, str], float] = {}
    for (author, sid, turn, metric), value in current.items():
        if turn is None:
            whole[(author, sid, metric)] = value
        else:
            turns[(author, sid, metric)].append(value)
    for key in sorted(set(turns) | set(whole)):
        author, sid, metric = key
        if key in whole:
            value = whole[key]
        else:
            value = max(turns[key]) if metric == "is_refusal" else _mean(turns[key])
        out[author].setdefault((sid, None), {})[metric] = value
    return dict(out)


def _people_turns(rows: Iterable[queries.HumanRow]) -> dict[tuple[int, str], set[int] | None]:
    """{(session, metric): the turns people scored}, None where someone rated the whole conversation."""
    whole: set[tuple[int, str]] = set()
    turns: dict[tuple[int, str], set[int]] = defaultdict(set)
    for sid, _author, turn, metric, *_ in rows:
        if turn is None:
            whole.add((sid, metric))
        else:
            turns[(sid, metric)].add(turn)
    return {**turns, **dict.fromkeys(whole)}


def combine_people(by_author: dict[str, dict[Unit, Values]], w: np.ndarray) -> dict[Unit, Values]:
    """Per unit, the mean over people of each metric (refusal: the majority), then the final."""
    acc: dict[Unit, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for units in by_author.values():
        for unit, values in units.items():
            for metric, value in values.items():
                acc[unit][metric].append(value)
    return {u: with_final({m: (float(_mean(v) >= 0.5) if m == "is_refusal" else _mean(v)) for m, v in d.items()}, w)
            for u, d in acc.items()}


# ------------------------------------------------------------------ judges


def judge_units(turn_values: Iterable[queries.TurnValue], level: str,
                people_turns: dict[tuple[int, str], set[int] | None]) -> dict[str, dict[Unit, Values]]:
    """{judge: {unit: values}} from the judges' ok turn scores. Conversation level: per metric the
    mean over the turns people scored (all turns where someone rated the whole conversation); a
    refusal on any of those turns flags the conversation."""
    turns: dict[str, dict[Unit, Values]] = defaultdict(dict)
    for sid, judge, turn, metric, value, status in turn_values:
        if status == "ok" and value is not None and turn is not None and metric in ("is_refusal", *METRICS):
            turns[judge].setdefault((sid, turn), {})[metric] = float(value)
    if level == "turn":
        return dict(turns)
    out: dict[str, dict[Unit, Values]] = {}
    for judge, by_turn in turns.items():
        collected: dict[tuple[int, str], list[float]] = defaultdict(list)
        for (sid, turn), values in by_turn.items():
            for metric, value in values.items():
                wanted = people_turns.get((sid, metric), set())
                if wanted is None or turn in wanted:
                    collected[(sid, metric)].append(value)
        units: dict[Unit, Values] = {}
        for (sid, metric), got in collected.items():
            units.setdefault((sid, None), {})[metric] = max(got) if metric == "is_refusal" else _mean(got)
        out[judge] = units
    return out


def ensemble(judges: dict[str, dict[Unit, Values]]) -> dict[Unit, Values]:
    """Per unit and metric the mean over judges (refusal: any judge); final = mean of the judges' finals."""
    acc: dict[Unit, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for units in judges.values():
        for unit, values in units.items():
            for k, v in values.items():
                acc[unit][k].append(v)
    return {unit: {k: (max(v) if k == "is_refusal" else round(_mean(v), FINAL_DIGITS) if k == "final" else _mean(v))
                   for k, v in d.items()} for unit, d in acc.items()}


# ------------------------------------------------------------------ the report


def agreement_report(
    store: Any,
    *,
    level: str = "turn",
    lang: str | None = None,
    weights: Sequence[float] = DEFAULT_WEIGHTS,
    rankings: bool = True,
    method: str = "pingpong",
) -> AgreementReport:
    """Everything `pingpong agreement` shows, at the turn or the conversation level."""
    if level not in LEVELS:
        raise UserError(f"--level: '{level}' is not one of {', '.join(LEVELS)}")
    w = normalise_weights(weights)
    conn = connection(store)
    flt = queries.SessionFilter(method=method, lang=lang, status=None, include_forks=True)
    rows = queries.human_rows_matching(conn, flt)
    by_author = people_units(rows, level)
    human = combine_people(by_author, w)
    sessions = sorted({sid for sid, _ in human})
    judges = judge_units(queries.judge_turn_values(conn, sessions), level, _people_turns(rows))
    sources = {j: {u: with_final(v, w) for u, v in units.items()} for j, units in sorted(judges.items())}
    if len(sources) > 1:
        sources[ENSEMBLE] = ensemble(sources)

    spearman_rows = []
    for name, units in sources.items():
        for metric in RATED:
            common = sorted((u for u in human if metric in human[u] and metric in units.get(u, {})),
                            key=lambda u: (u[0], u[1] or 0))
            if common:
                spearman_rows.append(correlate("judge", name, metric, [human[u][metric] for u in common],
                                               [units[u][metric] for u in common]))

    refusals = []
    for name, units in sources.items():
        table = RefusalTable(name)
        for u in sorted(human, key=lambda u: (u[0], u[1] or 0)):
            if "is_refusal" in human[u] and "is_refusal" in units.get(u, {}):
                hv, jv = bool(human[u]["is_refusal"]), bool(units[u]["is_refusal"])
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

    finals = {a: {u: with_final(v, w) for u, v in units.items()} for a, units in by_author.items()}
    return AgreementReport(level, spearman_rows, refusals, rater_agreement(finals),
                           ranking_agreement(store, lang=lang, weights=w, method=method) if rankings else [],
                           annotator_agreement(finals))


def _matrix(by_author: dict[str, dict[Unit, Values]], metric: str) -> tuple[list[str], np.ndarray]:
    """People x units matrix of one metric (NaN where a person did not score the unit)."""
    authors = sorted(a for a, units in by_author.items() if any(metric in v for v in units.values()))
    units = sorted({u for a in authors for u, v in by_author[a].items() if metric in v}, key=lambda u: (u[0], u[1] or 0))
    index = {u: i for i, u in enumerate(units)}
    matrix = np.full((len(authors), len(units)), np.nan)
    for ai, a in enumerate(authors):
        for u, v in by_author[a].items():
            if metric in v:
                matrix[ai, index[u]] = v[metric]
    return authors, matrix


def rater_agreement(by_author: dict[str, dict[Unit, Values]]) -> list[RaterAgreement]:
    """Per metric (and final), when two or more people scored the same units: Krippendorff's
    alpha (ordinal) and pairwise Spearman."""
    out = []
    for metric in RATED:
        authors, matrix = _matrix(by_author, metric)
        if len(authors) < 2:
            continue
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


def annotator_agreement(by_author: dict[str, dict[Unit, Values]]) -> list[SpearmanRow]:
    """Per metric (and final), each person's Spearman against the mean of the other people, over
    the units that person and at least one other scored."""
    out = []
    for metric in RATED:
        authors, matrix = _matrix(by_author, metric)
        if len(authors) < 2:
            continue
        for i, author in enumerate(authors):
            others = np.delete(matrix, i, axis=0)
            seen = np.isfinite(others)
            counts = seen.sum(axis=0)
            keep = np.isfinite(matrix[i]) & (counts > 0)
            if not keep.any():
                continue
            mean_others = np.where(seen, others, 0.0).sum(axis=0)[keep] / counts[keep]
            out.append(correlate("author", author, metric, matrix[i][keep], np.round(mean_others, FINAL_DIGITS)))
    return out


def ranking_agreement(store: Any, *, lang: str | None = None,
                      weights: Sequence[float] | np.ndarray = DEFAULT_WEIGHTS,
                      method: str = "pingpong") -> list[RankingAgreement]:
    """The fixed-seat experiment: for each interrogator, Kendall's tau between the players' finals
    under each judge; for each judge, between the finals under each interrogator."""
    conn = connection(store)
    flt = queries.SessionFilter(method=method, lang=lang)
    judges = queries.judges_of(conn, flt)
    asked = queries.interrogators_of(conn, flt)

    cache: dict[tuple[str, str], dict[str, float]] = {}

    def finals(judge: str, interrogator: str) -> dict[str, float]:
        if (judge, interrogator) not in cache:
            rows = compute_leaderboard(store, method=method, lang=lang, weights=weights, scores="judges",
                                       n_boot=0, judges=[judge], interrogator=interrogator)
            cache[(judge, interrogator)] = {r.player: round(r.final, FINAL_DIGITS) for r in rows
                                            if r.final is not None}
        return cache[(judge, interrogator)]

    out = []
    for varied, fixed_names, varied_names in (("judge", asked, judges), ("interrogator", judges, asked)):
        for fixed in fixed_names:
            maps = {}
            for name in varied_names:
                judge, interrogator = (name, fixed) if varied == "judge" else (fixed, name)
                scores = finals(judge, interrogator)
                if len(scores) >= 2:
                    maps[name] = scores
            if len(maps) < 2:
                continue
            pairs, mean_tau, min_tau = pairwise_tau(maps)
            out.append(RankingAgreement(varied, fixed, sorted(maps), pairs, mean_tau, min_tau))
    return out
