"""Pairwise judgements into figures: win rates against a baseline and Bradley-Terry ratings on the Elo scale.

METHOD.md "RoleLLM": a judge sees two answers and names the better one. Judges favour the answer
shown first, so each pair is judged in both orders and a disagreement counts as a tie
(``combine_orders``). Win rate = (wins + ties / 2) / comparisons against one baseline, with a
bootstrap interval. Ratings over many players are Bradley-Terry strengths (the likelihood's maximum
under a weak normal prior, so that a clean sweep stays a finite rating) put on the Elo scale (400
points per factor of 10 in the odds, the anchor at 1000), with bootstrap intervals. Everything here is pure: comparisons in, numbers out. scipy is imported by the fit
alone: the TUI's side-by-side screen reads win rates through this module and must not wait for it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

Verdict = Literal["a", "b", "tie"]

OUTCOMES: dict[str, float] = {"a": 1.0, "b": 0.0, "tie": 0.5}

PRIOR_SD = math.log(10)
"""The prior on every strength: normal around the mean, with this standard deviation in natural-log
strength (odds of 10:1, 400 points on the default Elo scale; the same fit whatever scale and base
show it). Without it a player who won or lost every comparison has no maximum: 3 wins out of 3
came out near 2,600 points apart. With it, 3-0 gives a 430-point gap, 20-0 about 690, while 100
wins to 10 still give 396 of the 400 points plain maximum likelihood gives."""


@dataclass(frozen=True)
class Comparison:
    """One judged pair: outcome = 1.0 if ``a`` won, 0.0 if ``b`` won, 0.5 for a tie."""

    a: str
    b: str
    outcome: float

    def __post_init__(self) -> None:
        if self.a == self.b:
            raise ValueError(f"a comparison needs two different players, got {self.a!r} twice")
        if self.outcome not in (0.0, 0.5, 1.0):
            raise ValueError(f"outcome must be 1.0 (a won), 0.0 (b won) or 0.5 (tie), got {self.outcome!r}")
        object.__setattr__(self, "outcome", float(self.outcome))


def combine_orders(first: str | None, swapped: str | None) -> float | None:
    """The outcome for ``a`` from a pair judged in both orders; None unless both judgements stand.

    Each argument is the winner the judge named in that order, already in the pair's own labels:
    "a", "b" or "tie" ("a" is the same player in both, whichever was shown first), None for a
    failed judgement. Agreement gives that result; disagreement gives a tie (0.5), so a judge that
    always picks the first-shown answer produces ties, not wins. With one order failed the pair is
    not judged yet (`compare` asks again): the other order alone would be the very position bias
    that judging both orders is there to cancel.
    """
    for verdict in (first, swapped):
        if verdict is not None and verdict not in OUTCOMES:
            raise ValueError(f"a verdict must be 'a', 'b', 'tie' or None, got {verdict!r}")
    if first is None or swapped is None:
        return None
    return OUTCOMES[first] if first == swapped else 0.5


@dataclass(frozen=True)
class WinRate:
    """``player`` against ``baseline``: counts, rate = (wins + ties / 2) / n and its 95% bootstrap interval.

    rate, ci_low and ci_high are None when there are no comparisons (n = 0); the interval is
    also None when no bootstrap was asked for (n_boot = 0).
    """

    player: str
    baseline: str
    n: int
    wins: int
    ties: int
    losses: int
    rate: float | None
    ci_low: float | None
    ci_high: float | None


def win_rate(comparisons: Iterable[Comparison], player: str, baseline: str, *, n_boot: int = 1000,
             seed: int = 0) -> WinRate:
    """Win rate of ``player`` over the comparisons between exactly ``player`` and ``baseline`` (either side).

    The interval resamples those comparisons with replacement ``n_boot`` times (numpy Generator
    seeded with ``seed``) and takes the 2.5th and 97.5th percentiles of the rate.
    """
    if player == baseline:
        raise ValueError(f"player and baseline are both {player!r}")
    if n_boot < 0:
        raise ValueError(f"n_boot must be >= 0, got {n_boot}")
    scores = []
    for c in comparisons:
        if (c.a, c.b) == (player, baseline):
            scores.append(c.outcome)
        elif (c.a, c.b) == (baseline, player):
            scores.append(1.0 - c.outcome)
    n = len(scores)
    wins, losses = scores.count(1.0), scores.count(0.0)
    ties = n - wins - losses
    if n == 0:
        return WinRate(player, baseline, 0, 0, 0, 0, None, None, None)
    rate = (wins + ties / 2) / n
    low = high = None
    if n_boot:
        values = np.asarray(scores)
        picks = np.random.default_rng(seed).integers(0, n, size=(n_boot, n))
        low, high = (float(x) for x in np.percentile(values[picks].mean(axis=1), [2.5, 97.5]))
    return WinRate(player, baseline, n, wins, ties, losses, rate, low, high)


def expected_score(rating_a: float, rating_b: float, *, scale: float = 400.0, base: float = 10.0) -> float:
    """Expected outcome for a player rated ``rating_a`` against one rated ``rating_b`` (a tie counts half).

    With the defaults, 400 points more means odds of 10:1, i.e. 10/11.
    """
    return 1.0 / (1.0 + base ** ((rating_b - rating_a) / scale))


def _fit_log_strengths(a: np.ndarray, b: np.ndarray, outcome: np.ndarray, n_players: int,
                       l2: float) -> np.ndarray:
    """Natural-log strengths maximising the Bradley-Terry likelihood (logistic regression on +1/-1
    columns) times a normal prior of precision `l2` on each strength.

    Row r says player a[r] beat b[r] with weight outcome[r] and lost with weight 1 - outcome[r]:
    a tie is half a win each way. Rows of the same ordered pair are summed first, which changes
    nothing in the likelihood and keeps bootstrap refits fast. The prior keeps the optimum finite
    and unique.
    """
    from scipy.optimize import minimize
    from scipy.special import expit

    pairs, where = np.unique(a * n_players + b, return_inverse=True)
    first, second = pairs // n_players, pairs % n_players
    won = np.bincount(where, outcome, len(pairs))
    lost = np.bincount(where, None, len(pairs)) - won

    def objective(theta: np.ndarray) -> tuple[float, np.ndarray]:
        diff = theta[first] - theta[second]
        nll = float(won @ np.logaddexp(0.0, -diff) + lost @ np.logaddexp(0.0, diff))
        residual = (won + lost) * expit(diff) - won
        grad = np.bincount(first, residual, n_players) - np.bincount(second, residual, n_players)
        return nll + 0.5 * l2 * float(theta @ theta), grad + l2 * theta

    def hessian(theta: np.ndarray) -> np.ndarray:
        p = expit(theta[first] - theta[second])
        w = (won + lost) * p * (1.0 - p)
        cells = np.concatenate([first * n_players + first, second * n_players + second,
                                first * n_players + second, second * n_players + first])
        h = np.bincount(cells, np.concatenate([w, w, -w, -w]), n_players * n_players)
        return h.reshape(n_players, n_players) + l2 * np.eye(n_players)

    # Newton steps with the exact Hessian: a handful of iterations, even for a player who won everything.
    result = minimize(objective, np.zeros(n_players), jac=True, hess=hessian, method="trust-ncg",
                      options={"gtol": 1e-10, "maxiter": 1000})
    return np.asarray(result.x)


def _elo(a: np.ndarray, b: np.ndarray, outcome: np.ndarray, n_players: int, anchor: int | None, scale: float,
         base: float, init_rating: float) -> np.ndarray:
    """Elo-scale ratings of players 0..n_players-1 (each must play), ``anchor`` (or the mean) at init_rating."""
    elo = scale * _fit_log_strengths(a, b, outcome, n_players, 1.0 / PRIOR_SD**2) / math.log(base)
    return elo + (init_rating - (elo[anchor] if anchor is not None else float(np.mean(elo))))


def _encode(comparisons: Sequence[Comparison], anchor: str | None) -> tuple[list[str], np.ndarray, np.ndarray,
                                                                               np.ndarray, int | None]:
    """Players (sorted), the a and b columns as player indices, the outcomes, and the anchor's index."""
    players = sorted({c.a for c in comparisons} | {c.b for c in comparisons})
    if anchor is not None and anchor not in players:
        raise ValueError(f"anchor {anchor!r} is in none of the comparisons")
    index = {p: i for i, p in enumerate(players)}
    a = np.array([index[c.a] for c in comparisons], dtype=np.intp)
    b = np.array([index[c.b] for c in comparisons], dtype=np.intp)
    y = np.array([c.outcome for c in comparisons], dtype=float)
    return players, a, b, y, (index[anchor] if anchor is not None else None)


def bradley_terry(comparisons: Iterable[Comparison], *, anchor: str | None = None, scale: float = 400.0,
                  base: float = 10.0, init_rating: float = 1000.0) -> dict[str, float]:
    """Bradley-Terry ratings on the Elo scale (the likelihood's maximum under the `PRIOR_SD` prior),
    one per player found in ``comparisons``.

    rating = scale * log_base(strength), shifted so that ``anchor`` (default: the mean of all
    ratings) sits at ``init_rating``. A difference of ``scale`` points means odds of ``base``:1.
    Empty input gives {}; an ``anchor`` that played no comparison is a ValueError.
    """
    players, a, b, y, pin = _encode(list(comparisons), anchor)
    if not players:
        return {}
    elo = _elo(a, b, y, len(players), pin, scale, base, init_rating)
    return {p: float(r) for p, r in zip(players, elo, strict=True)}


def bradley_terry_intervals(comparisons: Iterable[Comparison], *, n_boot: int = 200, seed: int = 0,
                            anchor: str | None = None, scale: float = 400.0, base: float = 10.0,
                            init_rating: float = 1000.0) -> dict[str, tuple[float, float, float]]:
    """Ratings as in ``bradley_terry`` with 95% bootstrap intervals: {player: (rating, ci_low, ci_high)}.

    Each of ``n_boot`` replicates resamples the comparisons with replacement (numpy Generator
    seeded with ``seed``) and refits; the interval is the 2.5th..97.5th percentile of a player's
    replicate ratings. A replicate without the player (or without the anchor) says nothing about
    it; a player absent from every replicate, or n_boot = 0, gets NaN bounds.
    """
    if n_boot < 0:
        raise ValueError(f"n_boot must be >= 0, got {n_boot}")
    players, a, b, y, pin = _encode(list(comparisons), anchor)
    if not players:
        return {}
    n_players = len(players)
    point = _elo(a, b, y, n_players, pin, scale, base, init_rating)
    samples: list[list[float]] = [[] for _ in players]
    rng = np.random.default_rng(seed)
    for _ in range(n_boot):
        rows = rng.integers(0, len(y), size=len(y))
        present = np.unique(np.concatenate([a[rows], b[rows]]))
        if pin is not None and pin not in present:
            continue
        local = np.full(n_players, -1, dtype=np.intp)
        local[present] = np.arange(len(present))
        elo = _elo(local[a[rows]], local[b[rows]], y[rows], len(present),
                   None if pin is None else int(local[pin]), scale, base, init_rating)
        for player, rating in zip(present, elo, strict=True):
            samples[player].append(float(rating))
    out: dict[str, tuple[float, float, float]] = {}
    for i, player in enumerate(players):
        low = high = math.nan
        if samples[i]:
            low, high = (float(x) for x in np.percentile(samples[i], [2.5, 97.5]))
        out[player] = (float(point[i]), low, high)
    return out
