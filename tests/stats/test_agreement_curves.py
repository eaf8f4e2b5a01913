"""Agreement figures equal scipy's / krippendorff's on the same pairs; turn curves and good streaks by hand."""

from __future__ import annotations

import json

import krippendorff
import numpy as np
import pytest
from scipy.stats import kendalltau, spearmanr

from pingpong.sessions.agreement import agreement_report, krippendorff_alpha, pairwise_tau
from pingpong.sessions.curves import good_streaks, score_by_turn, streak_curve
from tests.stats.conftest import add_session

J1 = [[(5, 4, 3, 0), (2, 2, 2, 0), (4, 5, 4, 1)], [(3, 3, 3, 0), (1, 2, 1, 0), (5, 5, 5, 0)]]
J2 = [[(4, 4, 4, 0), (3, 2, 2, 0), (4, 4, 5, 0)], [(2, 3, 4, 0), (2, 1, 2, 0), (5, 4, 4, 0)]]
ANN = [[5, 1, 4], [3, 2, 4]]  # ann's in_character per turn of the two sessions
BOB = [[4, 2, 5], [3, 1, 5]]


def populate(store):
    ids = [add_session(store, "P", {"J1": J1[i], "J2": J2[i]}) for i in range(2)]
    for i, sid in enumerate(ids):
        for t in range(3):
            store.add_human_score(sid, t + 1, "in_character", 1, "ann")  # replaced below (newest counts)
            store.add_human_score(sid, t + 1, "in_character", ANN[i][t], "ann")
            store.add_human_score(sid, t + 1, "in_character", BOB[i][t], "bob")
        store.add_human_score(sid, 3, "is_refusal", 1 if i == 0 else 0, "ann")
    return ids


def test_turn_level_spearman_equals_scipy(store):
    populate(store)
    report = agreement_report(store, level="turn")
    rows = {(r.who, r.metric): r for r in report.spearman}
    human = [(a + b) / 2 for i in range(2) for a, b in zip(ANN[i], BOB[i])]  # mean of the two people
    j1 = [J1[i][t][0] for i in range(2) for t in range(3)]
    j2 = [J2[i][t][0] for i in range(2) for t in range(3)]
    ens = [(a + b) / 2 for a, b in zip(j1, j2)]
    for name, judge in (("J1", j1), ("J2", j2), ("ensemble", ens)):
        expected = spearmanr(human, judge)
        row = rows[(name, "in_character")]
        assert row.n == 6
        assert row.spearman == pytest.approx(expected.statistic)
        assert row.p_value == pytest.approx(expected.pvalue)
    assert set(rows[("J1", "in_character")].to_json()) == {"judge", "metric", "n", "spearman", "p_value"}
    assert ("J1", "final") not in rows  # people gave no entertaining/fluency: no final pairs


def test_conversation_level_and_refusals(store):
    populate(store)
    report = agreement_report(store, level="conversation")
    row = next(r for r in report.spearman if r.who == "J1" and r.metric == "in_character")
    assert row.n == 2 and row.spearman is not None
    j1 = {t.judge: t for t in report.refusals}
    # turn 3 of session 1: ann says refusal, J1 too (both); session 2 turn 3: neither
    assert (j1["J1"].both, j1["J1"].neither, j1["J1"].human_only, j1["J1"].judge_only) == (1, 1, 0, 0)
    assert (j1["J2"].both, j1["J2"].human_only) == (0, 1)


def test_people_agreement_equals_krippendorff_and_scipy(store):
    populate(store)
    (raters,) = agreement_report(store).raters
    matrix = np.array([sum(ANN, []), sum(BOB, [])], dtype=float)
    assert raters.metric == "in_character" and raters.raters == 2 and raters.units == 6
    assert raters.alpha == pytest.approx(krippendorff.alpha(reliability_data=matrix, level_of_measurement="ordinal"))
    assert raters.mean_spearman == pytest.approx(spearmanr(matrix[0], matrix[1]).statistic)
    with_gap = np.array([[1, 2, np.nan, 4], [1, 3, 3, np.nan], [2, 2, 3, 4]])
    assert krippendorff_alpha(with_gap) == pytest.approx(krippendorff.alpha(with_gap, level_of_measurement="ordinal"))
    assert krippendorff_alpha(np.array([[3, 3], [3, 3]])) is None


def test_kendall_between_judge_rankings(store):
    # three players; J1 ranks them A > B > C, J2 ranks A > C > B
    for player, s1, s2 in (("A", 5, 5), ("B", 4, 2), ("C", 3, 3)):
        add_session(store, player, {"J1": [(s1, s1, s1, 0)], "J2": [(s2, s2, s2, 0)]})
    (judges,) = agreement_report(store).rankings
    assert judges.varied == "judge" and judges.names == ["J1", "J2"]
    expected = kendalltau([5, 4, 3], [5, 2, 3]).statistic
    assert judges.mean_tau == pytest.approx(expected) and judges.min_tau == pytest.approx(expected)
    pairs, mean, low = pairwise_tau({"x": {"A": 1, "B": 2, "C": 3}, "y": {"A": 1, "B": 2, "C": 3},
                                     "z": {"A": 3, "B": 2, "C": 1}})
    assert [p["tau"] for p in pairs] == pytest.approx([1.0, -1.0, -1.0])
    assert mean == pytest.approx(-1 / 3) and low == pytest.approx(-1.0)


def test_agreement_cli_json(tmp_path, capsys):
    from pingpong.sessions.store import Store
    from pingpong.tui.cli import main

    home = tmp_path / "home"
    with Store(home / "pingpong.db") as s:
        populate(s)
    assert main(["--home", str(home), "agreement", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {"level", "spearman", "krippendorff_alpha", "annotators", "kendall_tau", "refusal"} == set(data)
    assert {"judge", "metric", "n", "spearman", "p_value"} == set(data["spearman"][0])
    assert data["krippendorff_alpha"][0]["metric"] == "in_character" and data["refusal"]
    assert {a["author"] for a in data["annotators"]} == {"ann", "bob"}
    assert main(["--home", str(home), "agreement", "--level", "conversation"]) == 0
    assert "Krippendorff" in capsys.readouterr().out


def test_agreement_on_an_empty_database(store):
    report = agreement_report(store)
    assert report.spearman == [] and report.raters == [] and report.rankings == []


def test_score_by_turn(store):
    # J2's scoring of the first session flags a refusal and is left out
    add_session(store, "P", {"J1": [(5, 5, 5, 0), (3, 3, 3, 0)], "J2": [(1, 1, 1, 0), (1, 1, 1, 1)]})
    add_session(store, "P", {"J1": [(4, 4, 4, 0), (2, 2, 2, 0)]})
    curves = score_by_turn(store, metric="in_character")
    # turn 1: (5 + 4)/2 = 4.5; turn 2: (3 + 2)/2 = 2.5
    assert curves == {"P": [(1, 4.5), (2, 2.5)]}
    assert score_by_turn(store)["P"] == [(1, pytest.approx(4.5)), (2, pytest.approx(2.5))]


def test_streak_curve_by_hand():
    # three conversations, good/bad per turn
    good = [[True, True, False], [True, False, True], [False, True, True]]
    curve, final = streak_curve(good)
    # tau1: 2/3; tau2: only conv 1 -> 1/3; tau3: none -> 0; final (2/3 + 1/3 + 0)/3 = 1/3
    assert curve == pytest.approx([2 / 3, 1 / 3, 0.0]) and final == pytest.approx(1 / 3)
    # shorter conversations only count for the prefixes they reach
    assert streak_curve([[True], [True, False]])[0] == pytest.approx([1.0, 0.0])
    assert streak_curve([]) == ([], None)


def test_good_streaks_from_the_store(store):
    add_session(store, "P", {"J1": [(5, 4, 3, 0), (4, 2, 5, 0)], "J2": [(3, 4, 3, 0), (4, 4, 5, 0)]})
    add_session(store, "P", {"J1": [(2, 5, 5, 0), (5, 5, 5, 0)]})
    scores = good_streaks(store, threshold=4)["P"]
    # in_character means per turn: conv1 (4, 4) good, good; conv2 (2, 5) bad, good
    # tau1: 1/2, tau2: 1/2 -> 0.5
    assert scores["in_character"]["by_turn"] == pytest.approx([0.5, 0.5])
    # entertaining: conv1 (4, 3) good, bad; conv2 (5, 5): tau1 1, tau2 1/2 -> 0.75
    assert scores["entertaining"]["score"] == pytest.approx(0.75)


def test_score_by_turn_follows_the_boards_scores(store, tmp_path, capsys):
    """The curves were always the judges': a person's score changed the board's table (merged, people's)
    but neither the TUI's plot nor `leaderboard --curves --scores human`'s by_turn."""
    from pingpong.sessions.leaderboard import compute_leaderboard

    p = add_session(store, "P", {"J1": [(4, 4, 4, 0), (2, 2, 2, 0)]})
    add_session(store, "Q", {"J1": [(3, 3, 3, 0)]})
    store.add_human_score(p, 2, "in_character", 5, "ann")
    store.add_human_score(p, None, "entertaining", 1, "ann")  # the whole conversation: every turn
    assert score_by_turn(store, metric="in_character", scores="judges") == {"P": [(1, 4.0), (2, 2.0)], "Q": [(1, 3.0)]}
    assert score_by_turn(store, metric="in_character") == {"P": [(1, 4.0), (2, 5.0)], "Q": [(1, 3.0)]}
    assert score_by_turn(store, metric="entertaining", scores="merged")["P"] == [(1, 1.0), (2, 1.0)]
    assert score_by_turn(store, metric="in_character", scores="human") == {"P": [(2, 5.0)]}
    assert {r.player for r in compute_leaderboard(store, scores="human")} == {"P"}
    assert good_streaks(store, scores="human")["P"]["in_character"]["by_turn"] == [1.0]
    with pytest.raises(Exception, match="--scores: 'people'"):
        score_by_turn(store, scores="people")


def test_leaderboard_curves_cli_follows_scores(tmp_path, capsys):
    from pingpong.sessions.store import Store
    from pingpong.tui.cli import main

    home = tmp_path / "home"
    with Store(home / "pingpong.db") as s:
        p = add_session(s, "P", {"J1": [(4, 4, 4, 0), (2, 2, 2, 0)]})
        add_session(s, "Q", {"J1": [(3, 3, 3, 0)]})
        for metric in ("in_character", "entertaining", "fluency"):
            s.add_human_score(p, 2, metric, 5, "ann")
    by_turn = {}
    for scores in ("judges", "human"):
        assert main(["--home", str(home), "leaderboard", "--curves", "--scores", scores, "--format", "json"]) == 0
        by_turn[scores] = {r["player"]: r["by_turn"] for r in json.loads(capsys.readouterr().out)}
    assert by_turn["judges"]["P"] == [pytest.approx(4.0), pytest.approx(2.0)]
    assert by_turn["human"] == {"P": [pytest.approx(5.0)]}
