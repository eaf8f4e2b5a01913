"""The leaderboard: PingPong's aggregation (METHOD.md) over the stored, finished sessions.

The arithmetic lives in small pure functions over numpy arrays (one row per
conversation and judge), so tests can check it by hand; `compute_leaderboard`
only reads the database with GROUP BY queries and feeds those functions. That
keeps a million judged turns well inside a couple of seconds.
"""

from __future__ import annotations

import math
import zlib
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from pingpong.core.domain import HUMAN, METRICS
from pingpong.core.errors import UserError

SCORE_SOURCES: tuple[str, ...] = ("merged", "judges", "human")
DEFAULT_WEIGHTS: tuple[float, float, float] = (1 / 3, 1 / 3, 1 / 3)
LENGTH_SLOPE = 0.07  # x = 1 + (L / avg_length - 1) * 0.07
LENGTH_FLOOR = 0.93  # longer-than-median models lose at most 7%
TIE_GAP = 0.06  # a model shares a rank while within this of the score that opened it
_EPS = 1e-9  # float slack for the tie rule (4.50 - 4.44 must count as 0.06)


# ---------------------------------------------------------------- rows and weights


@dataclass
class LeaderboardRow:
    """One player model's line; None where a figure cannot be computed (no division by zero)."""

    player: str
    lang: str | None
    conversations: int
    refusal_ratio: float | None
    in_character: float | None
    entertaining: float | None
    fluency: float | None
    final: float | None
    final_ci: float | None
    length_norm: float | None
    length_norm_ci: float | None
    avg_length: float | None
    rank: int | None

    def to_json(self) -> dict[str, Any]:
        return {k: _clean(v) for k, v in asdict(self).items()}


def _clean(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _num(value: Any) -> float | None:
    """numpy scalar or float -> plain float, NaN/inf -> None."""
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def normalise_weights(weights: Sequence[float]) -> np.ndarray:
    """Metric weights scaled to sum 1; UserError for a wrong count, negatives or all zeros."""
    try:
        w = np.asarray([float(x) for x in weights], dtype=float)
    except (TypeError, ValueError):
        raise UserError(f"--weights: expected three numbers, got {weights!r}") from None
    if w.shape != (len(METRICS),):
        raise UserError(f"--weights: expected {len(METRICS)} numbers ({','.join(METRICS)}), got {len(w)}")
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise UserError("--weights: weights must be finite and not negative")
    if w.sum() <= 0:
        raise UserError("--weights: at least one weight must be above zero")
    return w / w.sum()


def parse_weights(text: str) -> np.ndarray:
    """'2,1,1' -> normalised weights (in_character, entertaining, fluency)."""
    parts = [p.strip() for p in text.split(",")]
    try:
        values = [float(p) for p in parts]
    except ValueError:
        raise UserError(f"--weights: '{text}' is not three comma-separated numbers, e.g. 2,1,1") from None
    return normalise_weights(values)


# ---------------------------------------------------------------- pure arithmetic


def conversation_scores(
    n_conv: int,
    conv: np.ndarray,
    means: np.ndarray,
    refusal: np.ndarray,
    weights: Sequence[float] = DEFAULT_WEIGHTS,
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
    w = normalise_weights(weights)
    conv = np.asarray(conv, dtype=np.int64)
    means = np.asarray(means, dtype=float).reshape(-1, len(METRICS))
    refusal = np.asarray(refusal, dtype=bool)
    jw = np.ones(len(conv)) if judge_weight is None else np.asarray(judge_weight, dtype=float)
    refused = np.bincount(conv, weights=refusal.astype(float), minlength=n_conv) > 0
    keep = ~refusal & (jw > 0)

    def weighted_mean(values: np.ndarray) -> np.ndarray:
        ok = keep & np.isfinite(values)
        num = np.bincount(conv[ok], weights=jw[ok] * values[ok], minlength=n_conv)
        den = np.bincount(conv[ok], weights=jw[ok], minlength=n_conv)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)

    metrics = np.column_stack([weighted_mean(means[:, m]) for m in range(len(METRICS))]) \
        if n_conv else np.empty((0, len(METRICS)))
    used = w > 0
    judge_final = (means[:, used] * w[used]).sum(axis=1)  # NaN when a weighted metric is missing
    final = weighted_mean(judge_final)
    return metrics, final, refused


def length_factor(avg_length: float | None, median_length: float | None) -> float:
    """x = L / avg_length, moved 7% of the way from 1, clamped to [0.93, 1.0]."""
    if avg_length is None or median_length is None or not math.isfinite(median_length):
        return 1.0
    if avg_length <= 0:
        return 1.0
    x = median_length / avg_length
    x = 1.0 + (x - 1.0) * LENGTH_SLOPE
    return float(min(1.0, max(LENGTH_FLOOR, x)))


def bootstrap_means(values: np.ndarray, rng: np.random.Generator, n_boot: int = 1000) -> np.ndarray:
    """Means of `n_boot` resamples (with replacement) of the finite values; empty if none.

    Conversations without a value (refusals) are not resampled, as in the published
    code. Exact and vectorised: when the values take few distinct levels (means of
    Likert scores do), one multinomial draw per resample says how often each level
    was picked; otherwise the resamples are drawn as index blocks.
    """
    x = np.asarray(values, dtype=float)
    x = x[np.isfinite(x)]
    n = len(x)
    if n == 0 or n_boot <= 0:
        return np.empty(0)
    levels, freq = np.unique(x, return_counts=True)
    if len(levels) * 12 < n:
        picks = rng.multinomial(n, freq / n, size=n_boot)
        return picks @ levels / n
    out = np.empty(n_boot)
    step = max(1, 2_000_000 // n)
    for start in range(0, n_boot, step):
        b = min(step, n_boot - start)
        out[start:start + b] = x.take(rng.integers(0, n, size=(b, n))).mean(axis=1)
    return out


def half_width(boot: np.ndarray) -> float:
    """Half the width of the 2.5-97.5 percentile interval (NaN without resamples)."""
    if boot.size == 0:
        return math.nan
    lo, hi = np.percentile(boot, [2.5, 97.5])
    return float(hi - lo) / 2.0


def nan_mean_columns(values: np.ndarray) -> np.ndarray:
    """Column means ignoring NaN; NaN (not a warning) for an empty column."""
    values = np.asarray(values, dtype=float)
    mask = np.isfinite(values)
    cnt = mask.sum(axis=0)
    tot = np.where(mask, values, 0.0).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(cnt > 0, tot / np.where(cnt > 0, cnt, 1), np.nan)


def tie_ranks(scores: Sequence[float | None]) -> list[int | None]:
    """Ranks (1 = best) with the 0.06 rule; aligned with `scores`; None for missing scores.

    Sorted best first, a model shares the rank of the one above while its score is within
    0.06 of the score that opened that rank; otherwise it opens the next rank (1, 1, 2, ...).
    """
    order = sorted(
        (i for i, s in enumerate(scores) if s is not None and math.isfinite(s)),
        key=lambda i: -float(scores[i]),  # type: ignore[arg-type]
    )
    ranks: list[int | None] = [None] * len(scores)
    rank, opener = 0, None
    for i in order:
        s = float(scores[i])  # type: ignore[arg-type]
        if opener is None or opener - s > TIE_GAP + _EPS:
            rank += 1
            opener = s
        ranks[i] = rank
    return ranks


def player_rng(seed: int, player: str) -> np.random.Generator:
    """One stream per player, so adding a model never moves another model's intervals."""
    return np.random.default_rng([int(seed), zlib.crc32(player.encode("utf-8"))])


def summarise_player(
    player: str,
    lang: str | None,
    metrics: np.ndarray,
    final: np.ndarray,
    refused: np.ndarray,
    avg_length: float | None,
    factor: float,
    *,
    seed: int = 0,
    n_boot: int = 1000,
) -> LeaderboardRow:
    """One row from a player's conversations (arrays aligned by conversation).

    The length-normalised score multiplies every conversation's final by the player's
    factor, so its resamples are the final's resamples times that factor.
    """
    n = len(final)
    metrics = np.asarray(metrics, dtype=float).reshape(n, len(METRICS))
    means = nan_mean_columns(np.column_stack([metrics, final])) if n else np.full(len(METRICS) + 1, np.nan)
    rng = player_rng(seed, player)
    boot = bootstrap_means(final, rng, n_boot)
    return LeaderboardRow(
        player=player,
        lang=lang,
        conversations=int(n),
        refusal_ratio=_num(np.mean(refused)) if n else None,
        in_character=_num(means[0]),
        entertaining=_num(means[1]),
        fluency=_num(means[2]),
        final=_num(means[3]),
        final_ci=_num(half_width(boot)),
        length_norm=_num(means[3] * factor),
        length_norm_ci=_num(half_width(boot * factor)),
        avg_length=_num(avg_length),
        rank=None,
    )


def rank_rows(rows: list[LeaderboardRow]) -> list[LeaderboardRow]:
    """Set ranks by length_norm and return the rows best first (unscored rows last)."""
    ranks = tie_ranks([r.length_norm for r in rows])
    for row, rank in zip(rows, ranks):
        row.rank = rank
    return sorted(rows, key=lambda r: (r.rank is None, r.rank or 0, -(r.length_norm or 0.0), r.player, r.lang or ""))


# ---------------------------------------------------------------- reading the store


@dataclass
class Scorings:
    """One row per (session, judge): per-metric means over usable turns and the refusal flag."""

    session: np.ndarray  # session ids
    judge: list[str]
    means: np.ndarray  # (n, 3)
    refusal: np.ndarray  # bool

    @classmethod
    def empty(cls) -> "Scorings":
        return cls(np.empty(0, np.int64), [], np.empty((0, len(METRICS))), np.empty(0, bool))

    def concat(self, other: "Scorings") -> "Scorings":
        return Scorings(
            np.concatenate([self.session, other.session]),
            self.judge + other.judge,
            np.vstack([self.means, other.means]),
            np.concatenate([self.refusal, other.refusal]),
        )

    def without_sessions(self, ids: set[int]) -> "Scorings":
        if not ids:
            return self
        keep = ~np.isin(self.session, np.fromiter(ids, dtype=np.int64, count=len(ids)))
        return Scorings(self.session[keep], [j for j, k in zip(self.judge, keep) if k],
                        self.means[keep], self.refusal[keep])


def session_filter(lang: str | None, run: str | None, interrogator: str | None) -> tuple[str, list]:
    where, params = ["s.status = 'finished'"], []
    if lang:
        where.append("s.lang = ?")
        params.append(lang)
    if run:
        where.append("s.run_id IN (SELECT id FROM runs WHERE name = ?)")
        params.append(run)
    if interrogator:
        where.append("s.interrogator = ?")
        params.append(interrogator)
    return " AND ".join(where), params


def connection(store: Any):
    """The sqlite3 connection behind a Store (or a sqlite_utils.Database, or a connection)."""
    db = getattr(store, "db", store)
    return getattr(db, "conn", db)


def finished_sessions(store: Any, *, lang=None, run=None, interrogator=None) -> dict[int, tuple]:
    """{session id: (player, lang, player chars, player messages)} of the finished sessions
    that pass the filters (the length totals are kept per session by migration 2's triggers)."""
    where, params = session_filter(lang, run, interrogator)
    rows = connection(store).execute(
        f"SELECT s.id, s.player, s.lang, s.player_chars, s.player_messages FROM sessions s WHERE {where}",
        params).fetchall()
    return {sid: rest for sid, *rest in rows}


_PACK = 1 << 16  # three 16-bit fields per packed SUM: fine up to 13,000 turns per judge


def judge_scorings(store: Any, judges: Sequence[str] | None = None, conn=None) -> Scorings:
    """GROUP BY (session, judge) over turn_scores; failed rows and NULL scores are left out.

    The per-metric sums and counts travel as two packed integers (three 16-bit fields
    each): SQLite's per-row cost is mostly one call per aggregate, so 3 aggregates
    instead of 7 halve the time of the one query that reads a million rows.
    """
    sql = (
        "SELECT session_id, judge, MAX(is_refusal), "
        "SUM(IFNULL(in_character, 0) + (IFNULL(entertaining, 0) << 16) + (IFNULL(fluency, 0) << 32)), "
        "SUM((in_character IS NOT NULL) + ((entertaining IS NOT NULL) << 16) + ((fluency IS NOT NULL) << 32)) "
        "FROM turn_scores WHERE (status IS NULL OR status != 'failed') "
    )
    params: list = []
    if judges:
        sql += f"AND judge IN ({','.join('?' * len(judges))}) "
        params.extend(judges)
    sql += "GROUP BY session_id, judge"
    rows = (conn or connection(store)).execute(sql, params).fetchall()
    if not rows:
        return Scorings.empty()
    cols = list(zip(*rows))
    session = np.fromiter(cols[0], dtype=np.int64, count=len(rows))
    refusal = np.array(cols[2], dtype=float)
    packed_sums = np.fromiter(cols[3], dtype=np.int64, count=len(rows))
    packed_counts = np.fromiter(cols[4], dtype=np.int64, count=len(rows))
    shifts = np.array([0, 16, 32], dtype=np.int64)
    sums = ((packed_sums[:, None] >> shifts) & (_PACK - 1)).astype(float)
    counts = ((packed_counts[:, None] >> shifts) & (_PACK - 1)).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(counts > 0, sums / np.where(counts > 0, counts, 1), np.nan)
    return Scorings(session, list(cols[1]), means, np.nan_to_num(refusal) > 0)


def current_human_scores(store: Any, session_ids: Sequence[int] | None = None) -> dict[int, dict[tuple[int, str], float]]:
    """{session: {(turn, metric): value}}: the newest person's score per turn and metric."""
    out: dict[int, dict[tuple[int, str], float]] = defaultdict(dict)
    rows = connection(store).execute(
        "SELECT session_id, turn, metric, value FROM human_scores ORDER BY created_at, id"
    ).fetchall()
    wanted = None if session_ids is None else set(session_ids)
    for sid, turn, metric, value in rows:
        if wanted is None or sid in wanted:
            out[sid][(turn, metric)] = float(value)
    return dict(out)


def _turn_rows(store: Any, session_ids: Sequence[int], judges: Sequence[str] | None):
    """Turn-level judge rows of a few sessions (those a person has scored)."""
    conn = connection(store)
    out = []
    ids = list(session_ids)
    for i in range(0, len(ids), 500):
        chunk = ids[i:i + 500]
        sql = ("SELECT session_id, judge, turn, is_refusal, in_character, entertaining, fluency, status "
               f"FROM turn_scores WHERE session_id IN ({','.join('?' * len(chunk))})")
        out.extend(conn.execute(sql, chunk).fetchall())
    if judges:
        out = [r for r in out if r[1] in set(judges)]
    return out


def _scoring_from_turns(turn_values: dict[int, dict[str, float | None]]) -> tuple[list[float], bool]:
    means = []
    for metric in METRICS:
        vals = [v[metric] for v in turn_values.values() if v.get(metric) is not None]
        means.append(sum(vals) / len(vals) if vals else math.nan)
    refusal = any(bool(v.get("is_refusal")) for v in turn_values.values())
    return means, refusal


def human_scorings(human: Mapping[int, Mapping[tuple[int, str], float]]) -> Scorings:
    """People's current scores as one pseudo-judge ("human") per session."""
    sessions, means, refusals = [], [], []
    for sid, scores in sorted(human.items()):
        turns: dict[int, dict[str, float | None]] = defaultdict(dict)
        for (turn, metric), value in scores.items():
            turns[turn][metric] = value
        m, r = _scoring_from_turns(turns)
        sessions.append(sid)
        means.append(m)
        refusals.append(r)
    if not sessions:
        return Scorings.empty()
    return Scorings(np.array(sessions, dtype=np.int64), [HUMAN] * len(sessions),
                    np.array(means, dtype=float), np.array(refusals, dtype=bool))


def merged_scorings(store: Any, human: Mapping[int, Mapping[tuple[int, str], float]],
                    judges: Sequence[str] | None = None) -> Scorings:
    """Judges' scorings of the sessions people scored, with each person's score put in
    place of every judge's for that turn and metric (a session without judges keeps the
    person's scores as its only scoring)."""
    rows = _turn_rows(store, list(human), judges)
    by_judge: dict[tuple[int, str], dict[int, dict[str, float | None]]] = defaultdict(dict)
    for sid, judge, turn, refusal, ic, en, fl, status in rows:
        ok = status != "failed"
        by_judge[(sid, judge)][turn] = {
            "is_refusal": refusal if ok else None,
            "in_character": ic if ok else None,
            "entertaining": en if ok else None,
            "fluency": fl if ok else None,
        }
    sessions, names, means, refusals = [], [], [], []
    with_judges = {sid for sid, _ in by_judge}
    for sid, scores in human.items():
        if sid not in with_judges:
            by_judge[(sid, HUMAN)] = {}
    for (sid, judge), turns in sorted(by_judge.items()):
        turns = {t: dict(v) for t, v in turns.items()}
        for (turn, metric), value in human.get(sid, {}).items():
            turns.setdefault(turn, {})[metric] = value
        m, r = _scoring_from_turns(turns)
        sessions.append(sid)
        names.append(judge)
        means.append(m)
        refusals.append(r)
    if not sessions:
        return Scorings.empty()
    return Scorings(np.array(sessions, dtype=np.int64), names, np.array(means, dtype=float),
                    np.array(refusals, dtype=bool))


def load_scorings(store: Any, scores: str = "merged", judges: Sequence[str] | None = None) -> Scorings:
    """All (session, judge) scorings for the chosen source: judges, human or merged."""
    if scores not in SCORE_SOURCES:
        raise UserError(f"--scores: '{scores}' is not one of {', '.join(SCORE_SOURCES)}")
    if scores == "human":
        return human_scorings(current_human_scores(store))
    base = judge_scorings(store, judges)
    if scores == "judges":
        return base
    human = current_human_scores(store)
    if not human:
        return base
    return base.without_sessions(set(human)).concat(merged_scorings(store, human, judges))


# ---------------------------------------------------------------- the entry point


def compute_leaderboard(
    store: Any,
    *,
    lang: str | None = None,
    weights: Sequence[float] = DEFAULT_WEIGHTS,
    judge_weights: Mapping[str, float] | None = None,
    scores: str = "merged",
    run: str | None = None,
    seed: int = 0,
    n_boot: int = 1000,
    judges: Sequence[str] | None = None,
    interrogator: str | None = None,
) -> list[LeaderboardRow]:
    """The leaderboard rows, best first (METHOD.md "Aggregation").

    Without `lang`, one row per player over all languages (its `lang` lists them,
    comma-separated). `scores`: "judges", "human" (people's current scores only) or
    "merged" (a person's score where one exists for the turn and metric, the judges'
    elsewhere). `judges` / `interrogator` restrict the sessions' scorings (used to compare
    rankings); judge_weights default to 1 per judge (people's pseudo-judge is "human").
    """
    w = normalise_weights(weights)
    if scores not in SCORE_SOURCES:
        raise UserError(f"--scores: '{scores}' is not one of {', '.join(SCORE_SOURCES)}")
    chosen = finished_sessions(store, lang=lang, run=run, interrogator=interrogator)
    sc = load_scorings(store, scores, judges) if chosen else Scorings.empty()
    if not chosen:
        return []
    ids = np.fromiter(chosen, dtype=np.int64, count=len(chosen))
    inside = np.isin(sc.session, ids)
    if not inside.all():
        sc = Scorings(sc.session[inside], [j for j, k in zip(sc.judge, inside) if k],
                      sc.means[inside], sc.refusal[inside])
    conv_ids = np.unique(sc.session)  # sessions with at least one usable scoring
    if conv_ids.size == 0:
        return []
    conv = np.searchsorted(conv_ids, sc.session)
    jw = None
    if judge_weights:
        jw = np.array([float(judge_weights.get(j, 1.0)) for j in sc.judge], dtype=float)
    metrics, final, refused = conversation_scores(len(conv_ids), conv, sc.means, sc.refusal, w, jw)

    players = [chosen[int(s)][0] for s in conv_ids]
    langs = [chosen[int(s)][1] for s in conv_ids]
    names = sorted(set(players))
    pindex = {p: i for i, p in enumerate(names)}
    pconv = np.array([pindex[p] for p in players], dtype=np.int64)

    lchars = np.array([chosen[int(s)][2] or 0 for s in conv_ids], dtype=float)
    lcount = np.array([chosen[int(s)][3] or 0 for s in conv_ids], dtype=float)
    chars = np.bincount(pconv, weights=lchars, minlength=len(names))
    count = np.bincount(pconv, weights=lcount, minlength=len(names))
    avg_len = [float(chars[i] / count[i]) if count[i] > 0 else None for i in range(len(names))]
    known = [a for a in avg_len if a is not None]
    median = float(np.median(known)) if known else None

    rows = []
    order = np.argsort(pconv, kind="stable")
    bounds = np.searchsorted(pconv[order], np.arange(len(names) + 1))
    for i, player in enumerate(names):
        sel = order[bounds[i]:bounds[i + 1]]
        plangs = sorted({langs[j] for j in sel if langs[j]})
        rows.append(summarise_player(
            player, lang or (",".join(plangs) if plangs else None),
            metrics[sel], final[sel], refused[sel], avg_len[i],
            length_factor(avg_len[i], median), seed=seed, n_boot=n_boot,
        ))
    return rank_rows(rows)
