"""The scoring rules, in one place: every view that shows a final calls this module.

- A person's current score for a (turn, metric) is the newest one (by time, then id); older
  ones stay in the database and in the history views.
- "merged" scores put a person's current value in place of every judge's value for that turn
  and metric; a session that people scored but no judge did gets a "human" pseudo-judge.
- A person's rating of the whole conversation (turn None) stands in for the mean of that metric
  over the turns (for every judge, and for people's own turn scores); a refusal flag given for
  the whole conversation decides whether it counts as a refusal.
- Per conversation and judge: the mean of each metric over the judged turns; a judge that
  flagged a refusal on any turn is left out of the means and makes the conversation a refusal.
- The judge's final is the weighted sum of its metric means; the conversation's figures are
  the (judge-weighted) means over the remaining judges (METHOD.md, Aggregation).
- Scores of the first releases' single 10-point `overall` stand in for all three metrics.

Both the leaderboard (a million turns at once) and the single-session views (sessions list,
Home, replay) go through `Scorings` and `conversation_scores`, so they cannot disagree. numpy is
imported where the arithmetic needs it: a view of no sessions (an empty database) never does.
"""

from __future__ import annotations

import math
import sqlite3
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from pingpong.core.errors import UserError
from pingpong.core.vocabulary import HUMAN, METRICS
from pingpong.sessions import queries

if TYPE_CHECKING:
    import numpy as np

    from pingpong.sessions.records import StoredSession

SCORE_SOURCES: tuple[str, ...] = ("merged", "judges", "human")
DEFAULT_WEIGHTS: tuple[float, float, float] = (1 / 3, 1 / 3, 1 / 3)
PUBLISHED_WEIGHTS: dict[str, tuple[float, float, float]] = {
    "equal": (1, 1, 1), "in_character x2": (2, 1, 1), "entertaining x2": (1, 2, 1), "fluency x2": (1, 1, 2)}
"""PingPong's published weightings of (in_character, entertaining, fluency), before normalising."""
LIKERT_METHODS: tuple[str, ...] = ("pingpong", "pingpong-v1")
"""Methods whose final is the weighted mean of in_character, entertaining and fluency."""

_COLUMN = {m: i for i, m in enumerate(METRICS)}


# ---------------------------------------------------------------- weights


def check_weights(weights: Sequence[float] | np.ndarray) -> list[float]:
    """The metric weights as numbers; UserError for a wrong count, negatives or all zeros."""
    try:
        w = [float(x) for x in weights]
    except (TypeError, ValueError):
        raise UserError(f"--weights: expected three numbers, got {weights!r}") from None
    if len(w) != len(METRICS):
        raise UserError(f"--weights: expected {len(METRICS)} numbers ({','.join(METRICS)}), got {len(w)}")
    if not all(math.isfinite(x) and x >= 0 for x in w):
        raise UserError("--weights: weights must be finite and not negative")
    if not any(x > 0 for x in w):
        raise UserError("--weights: at least one weight must be above zero")
    return w


def normalise_weights(weights: Sequence[float] | np.ndarray) -> np.ndarray:
    """Metric weights scaled to sum 1; UserError for a wrong count, negatives or all zeros."""
    import numpy as np

    w = np.asarray(check_weights(weights), dtype=float)
    w = w / w.max()  # only the ratios count: 1e308,1e308,1e308 must not overflow the sum
    return w / w.sum()


def parse_weights(text: str) -> np.ndarray:
    """'2,1,1' -> normalised weights (in_character, entertaining, fluency)."""
    parts = [p.strip() for p in text.split(",")]
    try:
        values = [float(p) for p in parts]
    except ValueError:
        raise UserError(f"--weights: '{text}' is not three comma-separated numbers, e.g. 2,1,1") from None
    return normalise_weights(values)


# ---------------------------------------------------------------- people's current scores


HumanValues = dict[int, dict[tuple[int | None, str], float]]
"""{session: {(turn or None, metric): a person's current value}}."""


def current_human(rows: Iterable[queries.HumanRow]) -> HumanValues:
    """The newest person's value per session, turn and metric (rows come oldest first)."""
    out: HumanValues = defaultdict(dict)
    for sid, _by, turn, metric, value, _at, _id in sorted(rows, key=lambda r: (r[5] or "", r[6] or 0)):
        out[sid][(turn, metric)] = float(value)
    return dict(out)


# ---------------------------------------------------------------- one row per (session, judge)


@dataclass
class Scorings:
    """One row per (session, judge): per-metric means over usable turns, how many turns each mean
    is over (PingPong v1 pools its metrics over replies) and the refusal flag."""

    session: np.ndarray  # session ids
    judge: list[str]
    means: np.ndarray  # (n, 3)
    refusal: np.ndarray  # bool
    overridden: np.ndarray  # bool: a person's value went into this row
    turns: np.ndarray  # (n, 3): the turns behind each mean

    @classmethod
    def empty(cls) -> "Scorings":
        import numpy as np

        return cls(np.empty(0, np.int64), [], np.empty((0, len(METRICS))), np.empty(0, bool), np.empty(0, bool),
                   np.empty((0, len(METRICS))))

    @classmethod
    def of(cls, rows: Sequence[tuple[int, str, list[float], bool, bool, list[int]]]) -> "Scorings":
        import numpy as np

        if not rows:
            return cls.empty()
        shape = (len(rows), len(METRICS))
        return cls(np.array([r[0] for r in rows], dtype=np.int64), [r[1] for r in rows],
                   np.array([r[2] for r in rows], dtype=float).reshape(shape),
                   np.array([r[3] for r in rows], dtype=bool), np.array([r[4] for r in rows], dtype=bool),
                   np.array([r[5] for r in rows], dtype=float).reshape(shape))

    def concat(self, other: "Scorings") -> "Scorings":
        import numpy as np

        return Scorings(np.concatenate([self.session, other.session]), self.judge + other.judge,
                        np.vstack([self.means, other.means]), np.concatenate([self.refusal, other.refusal]),
                        np.concatenate([self.overridden, other.overridden]), np.vstack([self.turns, other.turns]))

    def select(self, keep: np.ndarray) -> "Scorings":
        return Scorings(self.session[keep], [j for j, k in zip(self.judge, keep) if k], self.means[keep],
                        self.refusal[keep], self.overridden[keep], self.turns[keep])

    def without_sessions(self, ids: set[int]) -> "Scorings":
        import numpy as np

        if not ids:
            return self
        return self.select(~np.isin(self.session, np.fromiter(ids, dtype=np.int64, count=len(ids))))


def _means(sums: Mapping[str, tuple[float, int, float]]) -> tuple[list[float], bool, list[int]]:
    """Per-metric means, the refusal flag and the turns behind each mean from {metric: (sum, count,
    max)} of one judge's turns."""
    means = [sums[m][0] / sums[m][1] if m in sums and sums[m][1] else math.nan for m in METRICS]
    turns = [sums[m][1] if m in sums else 0 for m in METRICS]
    if all(math.isnan(v) for v in means) and "overall" in sums and sums["overall"][1]:
        means = [sums["overall"][0] / sums["overall"][1]] * len(METRICS)
        turns = [sums["overall"][1]] * len(METRICS)
    refusal = "is_refusal" in sums and sums["is_refusal"][1] > 0 and sums["is_refusal"][2] >= 1
    return means, bool(refusal), turns


def totals_scorings(totals: Sequence[tuple]) -> Scorings:
    """Scorings from the per (session, judge) totals table, in arrays (a million turns at once).

    Same rules as `_means`: a metric without turns is NaN, the old `overall` stands in for all
    three when none of them was scored, a refusal flag of 1 on any turn makes the scoring a refusal.
    """
    import numpy as np

    if not totals:
        return Scorings.empty()
    cols = list(zip(*totals))
    session = np.fromiter(cols[0], dtype=np.int64, count=len(totals))
    values = np.array(cols[2:], dtype=float).T  # NULL -> NaN
    means, refusal, overall = values[:, 0:3].copy(), values[:, 3] >= 1, values[:, 4]
    none = np.all(np.isnan(means), axis=1) & np.isfinite(overall)
    means[none] = overall[none][:, None]
    turns = np.full(means.shape, np.nan)  # not read: no view of this method needs them
    if values.shape[1] > 5:
        turns = values[:, 5:8].copy()
        turns[none] = values[none, 8][:, None]
    return Scorings(session, list(cols[1]), means, refusal, np.zeros(len(totals), dtype=bool), turns)


def _turn_sums(turns: Mapping[int | None, Mapping[str, float]]) -> dict[str, tuple[float, int, float]]:
    sums: dict[str, tuple[float, int, float]] = {}
    for turn, values in turns.items():
        if turn is None:
            continue
        for metric, value in values.items():
            total, count, top = sums.get(metric, (0.0, 0, -math.inf))
            sums[metric] = (total + value, count + 1, max(top, value))
    return sums


def _whole(means: list[float], refusal: bool, turns: list[int],
           people: Mapping[tuple[int | None, str], float]) -> tuple[list[float], bool, list[int]]:
    """Means, refusal flag and turns with a person's ratings of the whole conversation put in (a
    rating of the whole stands for the turns the metric had, or for one reply when it had none)."""
    means = [people.get((None, m), v) for m, v in zip(METRICS, means)]
    turns = [max(n, 1) if (None, m) in people else n for m, n in zip(METRICS, turns)]
    if (None, "is_refusal") in people:
        refusal = people[(None, "is_refusal")] >= 1
    return means, refusal, turns


Turn = TypeVar("Turn", int, int | None)  # a turn's number; None (the whole conversation) where a method scores it


def _turn_ratings_in_place(turns: Mapping[Turn, Mapping[str, float]],
                           people: Mapping[tuple[int | None, str], float]) -> dict[Turn, dict[str, float]]:
    """A copy of one judge's values per turn with each person's rating of a turn in its place."""
    out = {turn: dict(values) for turn, values in turns.items()}
    for (turn, metric), value in people.items():
        if turn is not None:
            out.setdefault(turn, {})[metric] = value
    return out


def people_in_place(turns: Mapping[int, Mapping[str, float]], people: Mapping[tuple[int | None, str], float]
                    ) -> dict[int, dict[str, float]] | None:
    """One session's values per turn and metric with each person's current value in place: a turn's
    rating on its turn, a rating of the whole conversation on every turn of its metric (the curves
    by turn read this). None when a person flagged it a refusal: a refusal's scores are left out."""
    if any(metric == "is_refusal" and value >= 1 for (_, metric), value in people.items()):
        return None
    out = _turn_ratings_in_place(turns, people)
    for (turn, metric), value in people.items():
        if turn is None and metric in METRICS:
            for values in out.values():
                values[metric] = value
    return out


def merged_scorings(turn_values: Iterable[queries.TurnValue], human: HumanValues,
                    judges: Sequence[str] | None = None) -> Scorings:
    """The judges' scorings of the sessions people scored, each person's current value put in
    place of every judge's for that turn and metric; without judges, people form one scoring."""
    by_judge: dict[tuple[int, str], dict[int | None, dict[str, float]]] = defaultdict(dict)
    for sid, judge, turn, metric, value, status in turn_values:
        if judges and judge not in judges:
            continue
        if status == "ok" and value is not None:  # a judge with no usable score has no scoring
            by_judge[(sid, judge)].setdefault(turn, {})[metric] = float(value)
    judged = {sid for sid, _ in by_judge}
    for sid in human:
        if sid not in judged:
            by_judge[(sid, HUMAN)] = {}
    rows = []
    for (sid, judge), turns in sorted(by_judge.items()):
        people = human.get(sid, {})
        placed = _turn_ratings_in_place(turns, people)
        means, refusal, counts = _whole(*_means(_turn_sums(placed)), people)
        rows.append((sid, judge, means, refusal, bool(people), counts))
    return Scorings.of(rows)


def human_scorings(human: HumanValues) -> Scorings:
    """People's current scores as one pseudo-judge ("human") per session."""
    rows = []
    for sid, values in sorted(human.items()):
        turns: dict[int | None, dict[str, float]] = defaultdict(dict)
        for (turn, metric), value in values.items():
            turns[turn][metric] = value
        means, refusal, counts = _whole(*_means(_turn_sums(turns)), values)
        rows.append((sid, HUMAN, means, refusal, True, counts))
    return Scorings.of(rows)


def load_scorings(conn: sqlite3.Connection, scores: str = "merged", judges: Sequence[str] | None = None,
                  session_ids: Sequence[int] | None = None, *, turns: bool = False) -> Scorings:
    """All (session, judge) scorings of the given sessions (default all) for the chosen source.
    turns: with the turns behind each mean (PingPong v1's leaderboard); else those of judges' rows are NaN."""
    if scores not in SCORE_SOURCES:
        raise UserError(f"--scores: '{scores}' is not one of {', '.join(SCORE_SOURCES)}")
    human = current_human(queries.human_rows(conn, session_ids)) if scores != "judges" else {}
    if scores == "human":
        return human_scorings(human)
    base = totals_scorings(queries.judge_totals(conn, session_ids, judges, counts=turns))
    if not human:
        return base
    turn_values = queries.judge_turn_values(conn, list(human), judges)
    return base.without_sessions(set(human)).concat(merged_scorings(turn_values, human, judges))


# ---------------------------------------------------------------- the arithmetic


def conversation_scores(
    n_conv: int,
    conv: np.ndarray,
    means: np.ndarray,
    refusal: np.ndarray,
    weights: Sequence[float] | np.ndarray = DEFAULT_WEIGHTS,
    judge_weight: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """From one row per (conversation, judge) to one row per conversation.

    conv: conversation index of each scoring; means: (n, 3) per-metric mean over the
    judge's turns (NaN = no usable turn); refusal: the judge flagged any turn.
    Returns (metrics (C, 3), final (C,), refused (C,)): a refusing judge's scoring is
    left out of the means, the conversation is a refusal when any judge refused, the
    judge's final is the weighted sum of its metric means, and conversation figures
    are (judge-weighted) means over the remaining judges. NaN where nothing is left.
    """
    import numpy as np

    w = normalise_weights(weights)
    conv = np.asarray(conv, dtype=np.int64)
    means = np.asarray(means, dtype=float).reshape(-1, len(METRICS))
    refusal = np.asarray(refusal, dtype=bool)
    jw = _judge_weights(conv, judge_weight)
    refused = np.bincount(conv, weights=refusal.astype(float), minlength=n_conv) > 0
    keep = ~refusal & (jw > 0)
    metrics = np.column_stack([_over_judges(means[:, m], n_conv, conv, keep, jw) for m in range(len(METRICS))]) \
        if n_conv else np.empty((0, len(METRICS)))
    used = w > 0
    judge_final = (means[:, used] * w[used]).sum(axis=1)  # NaN when a weighted metric is missing
    final = _over_judges(judge_final, n_conv, conv, keep, jw)
    return metrics, final, refused


def conversation_replies(n_conv: int, conv: np.ndarray, means: np.ndarray, turns: np.ndarray,
                         refusal: np.ndarray, judge_weight: np.ndarray | None = None) -> np.ndarray:
    """(C, 3): how many scored replies stand behind each of conversation_scores' metric means (the
    judges' turn counts, averaged as their means are); NaN where the mean is. PingPong v1 pools its
    metrics over replies with these."""
    import numpy as np

    conv = np.asarray(conv, dtype=np.int64)
    jw = _judge_weights(conv, judge_weight)
    keep = ~np.asarray(refusal, dtype=bool) & (jw > 0)
    counts = np.where(np.isfinite(means), turns, np.nan)
    if not n_conv:
        return np.empty((0, len(METRICS)))
    return np.column_stack([_over_judges(counts[:, m], n_conv, conv, keep, jw) for m in range(len(METRICS))])


def _judge_weights(conv: np.ndarray, judge_weight: np.ndarray | None) -> np.ndarray:
    import numpy as np

    return np.ones(len(conv)) if judge_weight is None else np.asarray(judge_weight, dtype=float)


def _over_judges(values: np.ndarray, n_conv: int, conv: np.ndarray, keep: np.ndarray, jw: np.ndarray) -> np.ndarray:
    """Per conversation, the judge-weighted mean of the kept judges' finite values (NaN if none)."""
    import numpy as np

    ok = keep & np.isfinite(values)
    num = np.bincount(conv[ok], weights=jw[ok] * values[ok], minlength=n_conv)
    den = np.bincount(conv[ok], weights=jw[ok], minlength=n_conv)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


@dataclass(frozen=True)
class Final:
    """A session's final as every view shows it; `overridden` when a person's score went in."""

    value: float | None
    overridden: bool = False
    refused: bool = False

    def text(self, digits: int = 2) -> str:
        """'4.40', '4.40*' where a person changed a score, 'refusal', or '' without scores."""
        if self.value is None:
            return "refusal" if self.refused else ""
        return f"{self.value:.{digits}f}" + ("*" if self.overridden else "")

    def to_json(self) -> float | None:
        return None if self.value is None else round(self.value, 6)


def finals_of(sc: Scorings, weights: Sequence[float] = DEFAULT_WEIGHTS) -> dict[int, Final]:
    """{session: Final} from its scorings."""
    import numpy as np

    ids = np.unique(sc.session)
    if ids.size == 0:
        return {}
    conv = np.searchsorted(ids, sc.session)
    _, final, refused = conversation_scores(len(ids), conv, sc.means, sc.refusal, weights)
    touched = np.bincount(conv, weights=sc.overridden.astype(float), minlength=len(ids)) > 0
    return {int(sid): Final(None if not math.isfinite(f) else float(f), bool(o), bool(r))
            for sid, f, o, r in zip(ids, final, touched, refused)}


def session_finals(conn: sqlite3.Connection, methods: Mapping[int, str], *, scores: str = "merged",
                   weights: Sequence[float] = DEFAULT_WEIGHTS, every: bool = False) -> dict[int, Final]:
    """{session: Final} for sessions of Likert methods (others have no single final here).
    every: `methods` holds every session, so the scorings are read in one pass, not by ids."""
    ids = [sid for sid, method in methods.items() if method in LIKERT_METHODS]
    if not ids:
        return {}
    if every:
        wanted = set(ids)
        return {sid: f for sid, f in finals_of(load_scorings(conn, scores), weights).items() if sid in wanted}
    return finals_of(load_scorings(conn, scores, session_ids=ids), weights)


def stored_final(stored: "StoredSession", scores: str = "merged",
                 weights: Sequence[float] = DEFAULT_WEIGHTS) -> Final:
    """The final of one loaded session, by the same rules as the leaderboard's."""
    if stored.spec.method not in LIKERT_METHODS:
        return Final(None)
    turn_values: list[queries.TurnValue] = [
        (stored.id, v.judge, s.turn, s.metric, s.value, s.status) for v in stored.verdicts for s in v.scores]
    human_rows: list[queries.HumanRow] = [
        (stored.id, h.author, h.turn, h.metric, h.value, h.created_at or "", h.id or 0) for h in stored.human_scores]
    human = current_human(human_rows) if scores != "judges" else {}
    if scores == "human":
        sc = human_scorings(human)
    else:
        sc = merged_scorings(turn_values, human)
    return finals_of(sc, weights).get(stored.id, Final(None))
