"""The leaderboard of the Likert methods (pingpong, pingpong-v1): METHOD.md's aggregation over the
stored, finished sessions of one method.

The scoring rules (people's current scores, refusal exclusion, the weighted final) come from
sessions.scoring, the reads from sessions.queries; this module adds what is the leaderboard's
own: bootstrap intervals, the length normalisation of each version, and ranks. The arithmetic
lives in small pure functions over numpy arrays (imported where used), so tests can check it by hand.
"""

from __future__ import annotations

import math
import sqlite3
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from pingpong.core.errors import UserError
from pingpong.core.vocabulary import METRICS
from pingpong.sessions import queries
from pingpong.sessions.scoring import (
    DEFAULT_WEIGHTS,
    LIKERT_METHODS,
    SCORE_SOURCES,
    check_weights,
    conversation_replies,
    conversation_scores,
    load_scorings,
    normalise_weights,
)

if TYPE_CHECKING:
    import numpy as np

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
    method: str
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
    by: dict[str, str | None] = field(default_factory=dict)
    """With `leaderboard --by OPTION`: {OPTION: this row's value of it} (None: the option's default)."""

    def to_json(self) -> dict[str, Any]:
        data = {k: _clean(v) for k, v in asdict(self).items()}
        by = data.pop("by")
        return {"player": data.pop("player"), **by, **data}


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


# ---------------------------------------------------------------- pure arithmetic


def v1_length_shift(avg_length: float | None, median_length: float | None, spread: float) -> float:
    """PingPong v1's normalisation, added to the final: spread x min(0, tanh((M - avg) / (3 M))),
    with M the median avg_length over models and spread = max final - min final over models."""
    if avg_length is None or median_length is None or not median_length > 0 or not math.isfinite(spread):
        return 0.0
    coef = math.tanh((median_length - avg_length) / (3 * median_length))
    return spread * min(0.0, coef)


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
    import numpy as np

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


def pooled_means(metrics: np.ndarray, replies: np.ndarray) -> np.ndarray:
    """PingPong v1's model score per metric: the mean over every scored reply of the conversations,
    i.e. the conversations' metric means weighted by their replies (NaN for a metric without any)."""
    import numpy as np

    ok = np.isfinite(metrics) & np.isfinite(replies)
    num = np.where(ok, metrics * np.where(ok, replies, 0.0), 0.0).sum(axis=0)
    den = np.where(ok, replies, 0.0).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


def bootstrap_pooled(metrics: np.ndarray, replies: np.ndarray, weights: np.ndarray, rng: np.random.Generator,
                     n_boot: int = 1000) -> np.ndarray:
    """v1 finals (weights x pooled_means) of `n_boot` resamples of the conversations with a score,
    each drawn as how often every conversation was picked; a resample without a reply for some
    weighted metric gives no final and is dropped."""
    import numpy as np

    ok = np.isfinite(metrics) & np.isfinite(replies)
    rows = ok.any(axis=1)
    n = int(rows.sum())
    if n == 0 or n_boot <= 0:
        return np.empty(0)
    count = np.where(ok, replies, 0.0)[rows]
    total = (np.where(ok, metrics, 0.0)[rows]) * count
    used = weights > 0
    out = np.empty(n_boot)
    step = max(1, 2_000_000 // n)
    for start in range(0, n_boot, step):
        b = min(step, n_boot - start)
        picks = rng.multinomial(n, np.full(n, 1.0 / n), size=b).astype(float)
        den = picks @ count
        with np.errstate(invalid="ignore", divide="ignore"):
            means = np.where(den > 0, (picks @ total) / np.where(den > 0, den, 1.0), np.nan)
        out[start:start + b] = (means[:, used] * weights[used]).sum(axis=1)
    return out[np.isfinite(out)]


def half_width(boot: np.ndarray) -> float:
    """Half the width of the 2.5-97.5 percentile interval (NaN without resamples)."""
    import numpy as np

    if boot.size == 0:
        return math.nan
    lo, hi = np.percentile(boot, [2.5, 97.5])
    return float(hi - lo) / 2.0


def nan_mean_columns(values: np.ndarray) -> np.ndarray:
    """Column means ignoring NaN; NaN (not a warning) for an empty column."""
    import numpy as np

    values = np.asarray(values, dtype=float)
    mask = np.isfinite(values)
    cnt = mask.sum(axis=0)
    tot = np.where(mask, values, 0.0).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(cnt > 0, tot / np.where(cnt > 0, cnt, 1), np.nan)


def tie_ranks(scores: Sequence[float | None]) -> list[int | None]:
    """Ranks (1 = best) with the 0.06 rule; aligned with `scores`; None for missing scores.

    Sorted best first, a model shares the rank of the one above while its score, rounded to two
    decimals as published, is within 0.06 of the score that opened that rank; otherwise its rank
    is its position in the sorted list (competition ranking: 1, 1, 3, as METHOD.md says).
    """
    order = sorted(
        (i for i, s in enumerate(scores) if s is not None and math.isfinite(s)),
        key=lambda i: -float(scores[i]),  # type: ignore[arg-type]
    )
    ranks: list[int | None] = [None] * len(scores)
    rank, opener = 0, None
    for position, i in enumerate(order, 1):
        s = round(float(scores[i]), 2)  # type: ignore[arg-type]
        if opener is None or opener - s > TIE_GAP + _EPS:
            rank, opener = position, s
        ranks[i] = rank
    return ranks


def player_rng(seed: int, player: str) -> np.random.Generator:
    """One stream per player, so adding a model never moves another model's intervals."""
    import numpy as np

    return np.random.default_rng([int(seed), zlib.crc32(player.encode("utf-8"))])


def summarise_player(
    player: str,
    lang: str | None,
    method: str,
    metrics: np.ndarray,
    final: np.ndarray,
    refused: np.ndarray,
    avg_length: float | None,
    factor: float,
    *,
    seed: int = 0,
    n_boot: int = 1000,
    stream: str | None = None,
    replies: np.ndarray | None = None,
    weights: Sequence[float] | np.ndarray = DEFAULT_WEIGHTS,
) -> LeaderboardRow:
    """One row from a player's conversations (arrays aligned by conversation); ``stream`` names its
    bootstrap's random stream (default: the player).

    Version 2 averages over conversations. With ``replies`` (version 1: the scored replies behind
    each conversation's metric means), a metric is the mean over replies and the final the
    weighted sum of those means (METHOD.md), resampled by conversation all the same.
    The length-normalised score multiplies every conversation's final by the player's
    factor, so its resamples are the final's resamples times that factor.
    """
    import numpy as np

    n = len(final)
    metrics = np.asarray(metrics, dtype=float).reshape(n, len(METRICS))
    means = nan_mean_columns(np.column_stack([metrics, final])) if n else np.full(len(METRICS) + 1, np.nan)
    rng = player_rng(seed, stream or player)
    if replies is None:
        boot = bootstrap_means(final, rng, n_boot)
    else:
        w = normalise_weights(weights)
        behind = np.asarray(replies, dtype=float).reshape(n, len(METRICS))
        pooled = pooled_means(metrics, behind) if n else np.full(len(METRICS), np.nan)
        means = np.append(pooled, (pooled[w > 0] * w[w > 0]).sum())
        boot = bootstrap_pooled(metrics, behind, w, rng, n_boot)
    return LeaderboardRow(
        player=player,
        lang=lang,
        method=method,
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


# ---------------------------------------------------------------- the entry point


def connection(store: Any) -> sqlite3.Connection:
    """The sqlite3 connection behind a Store (or a sqlite_utils.Database, or a connection)."""
    conn = getattr(store, "conn", None)  # Store and sqlite_utils.Database both have one
    return store if conn is None else conn


def compute_leaderboard(
    store: Any,
    *,
    method: str = "pingpong",
    lang: str | None = None,
    weights: Sequence[float] | np.ndarray = DEFAULT_WEIGHTS,
    judge_weights: Mapping[str, float] | None = None,
    scores: str = "merged",
    run: str | None = None,
    seed: int = 0,
    n_boot: int = 1000,
    judges: Sequence[str] | None = None,
    interrogator: str | None = None,
    include_forks: bool = False,
    by: str | None = None,
) -> list[LeaderboardRow]:
    """The leaderboard rows of one Likert method, best first (METHOD.md "Aggregation").

    One row per (player, lang), each language ranked on its own (without `lang`, every language's
    rows, language by language). `scores`: "judges", "human" (people's current scores only) or
    "merged" (a person's score where one exists for the turn and metric, the judges'
    elsewhere). `judges` / `interrogator` restrict the sessions' scorings (used to compare
    rankings); judge_weights default to 1 per judge (people's pseudo-judge is "human").
    Forks count only with `include_forks`. `by` (a key of queries.SESSION_OPTIONS, e.g. "prompting")
    gives one row per player and value of that option.
    """
    if method not in LIKERT_METHODS:
        raise UserError(f"--method: this leaderboard covers {', '.join(LIKERT_METHODS)}, not '{method}'")
    check_weights(weights)
    if scores not in SCORE_SOURCES:
        raise UserError(f"--scores: '{scores}' is not one of {', '.join(SCORE_SOURCES)}")
    if by is not None and by not in queries.SESSION_OPTIONS:
        raise UserError(f"--by {by}: the {method} leaderboard splits rows by {', '.join(queries.SESSION_OPTIONS)}")
    conn = connection(store)
    flt = queries.SessionFilter(method=method, lang=lang, run=run, interrogator=interrogator,
                                include_forks=include_forks)
    chosen = {row[0]: row for row in queries.session_lengths(conn, flt, by)}
    if not chosen:
        return []  # an empty database: no numpy to import
    import numpy as np

    sc = load_scorings(conn, scores, judges, turns=method == "pingpong-v1")
    ids = np.fromiter(chosen, dtype=np.int64, count=len(chosen))
    inside = np.isin(sc.session, ids)
    if not inside.all():
        sc = sc.select(inside)
    conv_ids = np.unique(sc.session)  # sessions with at least one usable scoring
    if conv_ids.size == 0:
        return []
    conv = np.searchsorted(conv_ids, sc.session)
    w = normalise_weights(weights)
    jw = None
    if judge_weights:
        jw = np.array([float(judge_weights.get(j, 1.0)) for j in sc.judge], dtype=float)
    metrics, final, refused = conversation_scores(len(conv_ids), conv, sc.means, sc.refusal, w, jw)
    replies = conversation_replies(len(conv_ids), conv, sc.means, sc.turns, sc.refusal, jw) \
        if method == "pingpong-v1" else None

    facts = [chosen[int(s)] for s in conv_ids]
    # One row per (player, lang) and --by value; each language is a board of its own (its median
    # length, its v1 spread, its ranks), as the published boards are, and so is each --by value.
    groups = [(f[1], lang or f[2], f[5]) for f in facts]
    names = sorted(set(groups), key=lambda g: (g[1] or "", g[0], g[2] is not None, g[2] or ""))
    pindex = {g: i for i, g in enumerate(names)}
    pconv = np.array([pindex[g] for g in groups], dtype=np.int64)

    lchars = np.array([f[3] or 0 for f in facts], dtype=float)
    lcount = np.array([f[4] or 0 for f in facts], dtype=float)
    chars = np.bincount(pconv, weights=lchars, minlength=len(names))
    count = np.bincount(pconv, weights=lcount, minlength=len(names))
    avg_len = [float(chars[i] / count[i]) if count[i] > 0 else None for i in range(len(names))]

    order = np.argsort(pconv, kind="stable")
    bounds = np.searchsorted(pconv[order], np.arange(len(names) + 1))
    out: list[LeaderboardRow] = []
    boards = sorted({(g[1] or "", g[2]) for g in names}, key=lambda b: (b[0], b[1] is not None, b[1] or ""))
    for board_lang, board_option in boards:
        mine = [i for i, g in enumerate(names) if (g[1] or "") == board_lang and g[2] == board_option]
        known = [a for i in mine if (a := avg_len[i]) is not None]
        median = float(np.median(known)) if known else None
        rows = []
        for i in mine:
            player, row_lang, option = names[i]
            sel = order[bounds[i]:bounds[i + 1]]
            factor = length_factor(avg_len[i], median) if method == "pingpong" else 1.0
            row = summarise_player(
                player, row_lang, method,
                metrics[sel], final[sel], refused[sel], avg_len[i], factor, seed=seed, n_boot=n_boot,
                stream=f"{player}|{option}" if by is not None else None,
                replies=None if replies is None else replies[sel], weights=w,
            )
            if by is not None:
                row.by = {by: option}
            rows.append(row)
        if method == "pingpong-v1":
            finals = [r.final for r in rows if r.final is not None]
            spread = max(finals) - min(finals) if finals else math.nan
            for row, i in zip(rows, mine):
                if row.final is not None:
                    row.length_norm = row.final + v1_length_shift(avg_len[i], median, spread)
        out += rank_rows(rows)
    return out
