"""Pairwise judging figures against hand arithmetic and an independent maximum-likelihood fit (METHOD.md "RoleLLM")."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import minimize

from pingpong.sessions.aggregation.pairwise import (
    Comparison,
    WinRate,
    bradley_terry,
    bradley_terry_intervals,
    combine_orders,
    expected_score,
    win_rate,
)


def games(a: str, b: str, a_wins: int, b_wins: int, ties: int = 0) -> list[Comparison]:
    return ([Comparison(a, b, 1.0)] * a_wins + [Comparison(a, b, 0.0)] * b_wins
            + [Comparison(a, b, 0.5)] * ties)


# --- combine_orders -------------------------------------------------------------------------------

@pytest.mark.parametrize(("first", "swapped", "expected"), [
    ("a", "a", 1.0),
    ("b", "b", 0.0),
    ("tie", "tie", 0.5),
    ("a", "b", 0.5),
    ("b", "a", 0.5),
    ("a", "tie", 0.5),
    ("tie", "b", 0.5),
    ("a", None, None),  # one order alone is the position bias both orders cancel: not judged yet
    (None, "b", None),
    (None, "tie", None),
    (None, None, None),
])
def test_combine_orders(first, swapped, expected):
    assert combine_orders(first, swapped) == expected


def test_a_judge_that_always_prefers_the_first_shown_answer_gives_ties():
    def biased_judge(shown_first: str, shown_second: str) -> str:
        return shown_first

    outcomes = []
    for _ in range(4):
        first = biased_judge("a", "b")      # the pair shown as (a, b)
        swapped = biased_judge("b", "a")    # the same pair shown as (b, a); the label still names the player
        outcomes.append(combine_orders(first, swapped))
    assert outcomes == [0.5] * 4
    result = win_rate([Comparison("model", "base", o) for o in outcomes], "model", "base", n_boot=0)
    assert (result.wins, result.ties, result.losses, result.rate) == (0, 4, 0, 0.5)


def test_combine_orders_rejects_unknown_verdicts():
    with pytest.raises(ValueError):
        combine_orders("A", "a")
    with pytest.raises(ValueError):
        combine_orders(None, "first")


def test_comparison_checks_its_fields():
    with pytest.raises(ValueError):
        Comparison("x", "x", 1.0)
    with pytest.raises(ValueError):
        Comparison("x", "y", 0.7)
    assert Comparison("x", "y", 1).outcome == 1.0
    assert isinstance(Comparison("x", "y", 1).outcome, float)


# --- win rate -------------------------------------------------------------------------------------

MIXED = [
    Comparison("P", "Base", 1.0),    # P wins
    Comparison("P", "Base", 0.5),    # tie
    Comparison("P", "Base", 0.0),    # P loses
    Comparison("Base", "P", 0.0),    # P wins (shown as b)
    Comparison("Base", "P", 0.5),    # tie
    Comparison("P", "Other", 1.0),   # not against the baseline: ignored
    Comparison("Other", "Base", 0.0),
]


def test_win_rate_by_hand_with_ties_and_both_sides():
    result = win_rate(MIXED, "P", "Base", n_boot=500, seed=3)
    assert (result.player, result.baseline) == ("P", "Base")
    assert (result.n, result.wins, result.ties, result.losses) == (5, 2, 2, 1)
    assert result.rate == pytest.approx((2 + 2 / 2) / 5)
    assert 0.0 <= result.ci_low <= result.rate <= result.ci_high <= 1.0
    assert result.ci_low < result.ci_high


def test_win_rate_from_the_baselines_side_is_the_complement():
    ours = win_rate(MIXED, "P", "Base", n_boot=0)
    theirs = win_rate(MIXED, "Base", "P", n_boot=0)
    assert (theirs.wins, theirs.ties, theirs.losses) == (ours.losses, ours.ties, ours.wins)
    assert theirs.rate == pytest.approx(1 - ours.rate)


def test_win_rate_without_comparisons_has_no_rate():
    assert win_rate(MIXED, "P", "Nobody") == WinRate("P", "Nobody", 0, 0, 0, 0, None, None, None)


def test_win_rate_interval_of_a_clean_sweep_is_a_point():
    result = win_rate(games("P", "Base", 6, 0), "P", "Base")
    assert (result.rate, result.ci_low, result.ci_high) == (1.0, 1.0, 1.0)


def test_win_rate_bootstrap_is_deterministic_for_a_seed():
    data = games("P", "Base", 7, 5, 4)
    assert win_rate(data, "P", "Base", seed=11) == win_rate(data, "P", "Base", seed=11)
    # The rate takes few distinct values, so a single other seed may land on the same percentiles.
    assert any(win_rate(data, "P", "Base", n_boot=50, seed=s) != win_rate(data, "P", "Base", n_boot=50, seed=11)
               for s in range(12, 20))
    assert win_rate(data, "P", "Base", n_boot=0).ci_low is None


def test_win_rate_rejects_a_player_against_itself():
    with pytest.raises(ValueError):
        win_rate(MIXED, "P", "P")


# --- Bradley-Terry --------------------------------------------------------------------------------

def test_three_players_are_ordered_as_their_pairwise_wins():
    data = games("A", "B", 7, 3) + games("B", "C", 6, 3, 2) + games("C", "A", 2, 8)
    ratings = bradley_terry(data)
    assert set(ratings) == {"A", "B", "C"}
    assert ratings["A"] > ratings["B"] > ratings["C"]
    assert np.mean(list(ratings.values())) == pytest.approx(1000.0)


def independent_elo(data: list[Comparison], prior_sd: float = 400.0) -> dict[str, float]:
    """Direct maximum a posteriori fit, written apart from ours: every player's Elo rating has a normal
    prior of `prior_sd` points around 0; the ratings are then anchored at a mean of 1000."""
    players = sorted({c.a for c in data} | {c.b for c in data})
    per_point = math.log(10) / 400  # natural-log strength per Elo point

    def negative_log_posterior(x: np.ndarray) -> float:
        s = dict(zip(players, x * per_point, strict=True))
        total = float(np.sum((x / prior_sd) ** 2) / 2)
        for c in data:
            p_a = math.exp(s[c.a]) / (math.exp(s[c.a]) + math.exp(s[c.b]))
            total -= c.outcome * math.log(p_a) + (1 - c.outcome) * math.log(1 - p_a)
        return total

    fit = minimize(negative_log_posterior, np.zeros(len(players)), method="BFGS", options={"gtol": 1e-9})
    mean = float(np.mean(fit.x))
    return {p: float(v) - mean + 1000 for p, v in zip(players, fit.x, strict=True)}


def test_fit_matches_an_independent_fit_with_the_same_prior():
    data = (games("A", "B", 5, 2, 1) + games("B", "C", 3, 3, 2) + games("C", "A", 1, 4)
            + games("D", "A", 2, 3, 1) + games("B", "D", 1, 2) + games("C", "D", 2, 1, 1))
    ours = bradley_terry(data)
    theirs = independent_elo(data)
    assert ours.keys() == theirs.keys()
    for player in ours:
        assert ours[player] == pytest.approx(theirs[player], abs=1e-2)


def test_anchor_sits_at_1000_and_only_shifts_ratings():
    data = games("A", "B", 7, 3) + games("B", "C", 6, 4) + games("A", "C", 8, 2, 1)
    by_mean = bradley_terry(data)
    by_c = bradley_terry(data, anchor="C")
    assert by_c["C"] == pytest.approx(1000.0)
    shift = by_c["C"] - by_mean["C"]
    for player in data[0].a, data[0].b:
        assert by_c[player] == pytest.approx(by_mean[player] + shift, abs=1e-9)
    with pytest.raises(ValueError):
        bradley_terry(data, anchor="Z")


def test_400_points_mean_10_to_1():
    """With plenty of comparisons the prior hardly matters: odds of 10:1 are 400 points."""
    ratings = bradley_terry(games("A", "B", 1000, 100))
    assert ratings["A"] - ratings["B"] == pytest.approx(400.0, abs=1)
    assert expected_score(1400.0, 1000.0) == pytest.approx(10 / 11)
    assert expected_score(1000.0, 1400.0) == pytest.approx(1 / 11)
    assert expected_score(1234.0, 1234.0) == 0.5


def test_ties_count_half_a_win_each_way():
    # 200 wins, 100 losses and 200 ties = 300 wins to 200 losses: odds 3:2.
    with_ties = bradley_terry(games("A", "B", 200, 100, 200))
    expected = 400 * math.log10(3 / 2)
    assert with_ties["A"] - with_ties["B"] == pytest.approx(expected, abs=1)
    assert with_ties == pytest.approx(bradley_terry(games("A", "B", 300, 200)))


def test_scale_and_base_set_the_units():
    ours = bradley_terry(games("A", "B", 10, 1))
    ratings = bradley_terry(games("A", "B", 10, 1), scale=1.0, base=math.e, init_rating=0.0)
    assert ratings["A"] - ratings["B"] == pytest.approx((ours["A"] - ours["B"]) * math.log(10) / 400, abs=1e-5)
    assert ratings["A"] + ratings["B"] == pytest.approx(0.0, abs=1e-9)


def test_a_clean_sweep_is_a_clear_but_finite_gap_not_thousands_of_points():
    """Plain maximum likelihood has no answer for a player who never lost (or never won): the prior
    gives one that grows with the evidence and stays within a few hundred points."""
    gaps = []
    for wins in (3, 20, 100):
        ratings = bradley_terry(games("A", "B", wins, 0))
        gaps.append(ratings["A"] - ratings["B"])
    assert gaps == sorted(gaps)
    assert 300 < gaps[0] < 500 and gaps[-1] < 1000
    data = games("A", "B", 3, 0) + games("A", "C", 2, 0) + games("B", "C", 2, 1)
    ratings = bradley_terry(data)
    assert ratings["A"] > ratings["B"] > ratings["C"]
    assert max(ratings.values()) - min(ratings.values()) < 800


def test_disconnected_groups_and_empty_input():
    assert bradley_terry([]) == {}
    ratings = bradley_terry(games("A", "B", 1000, 100) + games("C", "D", 100, 1000))
    assert ratings["A"] - ratings["B"] == pytest.approx(400.0, abs=1)
    assert ratings["D"] - ratings["C"] == pytest.approx(400.0, abs=1)


# --- bootstrap intervals --------------------------------------------------------------------------

LEAGUE = games("A", "B", 12, 6, 3) + games("B", "C", 10, 7, 2) + games("A", "C", 14, 4, 1)


def test_intervals_are_deterministic_for_a_seed():
    first = bradley_terry_intervals(LEAGUE, n_boot=60, seed=5)
    assert first == bradley_terry_intervals(LEAGUE, n_boot=60, seed=5)
    assert first != bradley_terry_intervals(LEAGUE, n_boot=60, seed=6)


def test_intervals_surround_the_point_ratings():
    point = bradley_terry(LEAGUE)
    result = bradley_terry_intervals(LEAGUE, n_boot=100, seed=1)
    assert result.keys() == point.keys()
    for player, (rating, low, high) in result.items():
        assert rating == pytest.approx(point[player])
        assert low < rating < high


def test_intervals_with_an_anchor_and_without_replicates():
    anchored = bradley_terry_intervals(LEAGUE, n_boot=50, seed=2, anchor="B")
    assert anchored["B"] == (pytest.approx(1000.0), pytest.approx(1000.0), pytest.approx(1000.0))
    bare = bradley_terry_intervals(LEAGUE, n_boot=0)
    assert all(math.isnan(low) and math.isnan(high) for _, low, high in bare.values())
    assert bradley_terry_intervals([], n_boot=10) == {}
