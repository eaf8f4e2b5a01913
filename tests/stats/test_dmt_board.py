"""Combining DMT labels: judges by majority (ties bad), people's newest label on top."""

from __future__ import annotations

import pytest

from pingpong.sessions.aggregation.dmt import DmtRow, combine, conversation_labels, rank, row_for


def label(sid, source, by, turn, metric, value, at="2026-01-01", i=0):
    return (sid, source, by, turn, metric, value, at, i)


def test_majority_with_ties_bad_and_people_override():
    rows = [label(1, "judge", "a", 1, "fluency", 1), label(1, "judge", "b", 1, "fluency", 0),
            label(1, "judge", "a", 2, "fluency", 1), label(1, "judge", "b", 2, "fluency", 1),
            label(1, "judge", "c", 2, "fluency", 0),
            label(1, "human", "ann", 2, "fluency", 0, "2026-01-02", 1),
            label(1, "human", "bob", 2, "fluency", 1, "2026-01-03", 2)]
    merged = combine(rows)
    assert merged[1] == {(1, "fluency"): False, (2, "fluency"): True}
    assert combine(rows, "judges")[1] == {(1, "fluency"): False, (2, "fluency"): True}
    assert combine(rows[:5], "merged")[1][(2, "fluency")] is True
    assert combine(rows, "human")[1] == {(2, "fluency"): True}


def test_row_follows_the_all_and_any_rules_over_dialogues_of_different_lengths():
    labels = {
        1: {(1, "fluency"): True, (2, "fluency"): False, (1, "interactivity"): False, (2, "interactivity"): True},
        2: {(1, "fluency"): True, (1, "interactivity"): False},
    }
    assert conversation_labels(labels[1], "fluency") == [True, False]
    row = row_for("p", "en", [1, 2], labels)
    # fluency (ALL): tau 1 -> 2/2, tau 2 -> conv 1 fails, conv 2 (one round) passes -> 1/2
    assert row.metrics["fluency"]["curve"] == [1.0, 0.5] and row.metrics["fluency"]["score"] == 0.75
    # interactivity (ANY): tau 1 -> 0/2, tau 2 -> conv 1 passes -> 1/2
    assert row.metrics["interactivity"]["curve"] == [0.0, 0.5] and row.metrics["interactivity"]["score"] == 0.25
    assert row.dmt_score == 0.5


def test_competition_ranking():
    rows = [DmtRow("a", "en", 1, dmt_score=0.5), DmtRow("b", "en", 1, dmt_score=0.7),
            DmtRow("c", "en", 1, dmt_score=0.5), DmtRow("d", "en", 0)]
    assert [(r.player, r.rank) for r in rank(rows)] == [("b", 1), ("a", 2), ("c", 2), ("d", None)]


def _labels(*convs: list[bool], metric: str = "fluency") -> dict:
    return {sid: {(t, metric): v for t, v in enumerate(conv, 1)} for sid, conv in enumerate(convs, 1)}


def test_each_resample_is_scored_as_dmt_rules_scores_a_sample():
    """Hand-picked resamples give exactly the Score_m and DMT-Score of the dialogues they draw."""
    import numpy as np

    from pingpong.core.methods.dmt_rules import dmt_curve, dmt_metric_score
    from pingpong.sessions.aggregation.dmt import bootstrap_scores

    fluency = [(0, [True, False, True]), (1, [True]), (2, [False, True])]  # ALL rule, lengths 3, 1, 2
    interactivity = [(0, [False, True]), (2, [False, False, False, True])]  # ANY rule; dialogue 1 unlabelled
    counts = np.array([[1, 1, 1], [0, 3, 0], [2, 0, 1], [0, 1, 0]])
    boot = bootstrap_scores({"fluency": fluency, "interactivity": interactivity}, counts)
    for b, row in enumerate(counts):
        for metric, convs in (("fluency", fluency), ("interactivity", interactivity)):
            drawn = [rounds for i, rounds in convs for _ in range(row[i])]
            want = dmt_metric_score(dmt_curve(drawn, metric)) if drawn else None
            got = boot[metric][b]
            assert (np.isnan(got) if want is None else got == pytest.approx(want)), (b, metric)
    # by hand: [2, 0, 1] draws fluency T,F,T twice and F,T once: curve [2/3, 0, 0] -> 2/9;
    # interactivity F,T twice and F,F,F,T once: curve [0, 2/3, 2/3, 1] -> 7/12; DMT-Score their mean
    assert boot["fluency"][2] == pytest.approx(2 / 9) and boot["interactivity"][2] == pytest.approx(7 / 12)
    assert boot["dmt_score"][2] == pytest.approx((2 / 9 + 7 / 12) / 2)
    # [0, 1, 0] draws only the dialogue without interactivity labels: its DMT-Score is fluency's alone
    assert np.isnan(boot["interactivity"][3]) and boot["dmt_score"][3] == pytest.approx(1.0)


def test_bootstrap_half_widths_sit_next_to_the_values():
    import numpy as np

    same = row_for("p", "en", [1, 2, 3], _labels([True, True], [True, True], [True, True]),
                   rng=np.random.default_rng(0))
    assert same.dmt_score == 1.0 and same.dmt_score_ci == 0.0 and same.metrics["fluency"]["score_ci"] == 0.0
    mixed = row_for("p", "en", [1, 2, 3, 4], _labels([True, True], [False], [True, False], [True]),
                    rng=np.random.default_rng(0))
    json_row = mixed.to_json()
    assert set(json_row) >= {"dmt_score", "dmt_score_ci", "metrics"}
    assert set(json_row["metrics"]["fluency"]) >= {"score", "score_ci", "curve", "conversations"}
    assert 0 < json_row["dmt_score_ci"] <= 0.5 and json_row["metrics"]["fluency"]["score_ci"] == json_row["dmt_score_ci"]
    assert row_for("p", "en", [1], _labels([True])).dmt_score_ci is None  # no rng: no interval


def test_labels_of_metrics_the_role_type_does_not_call_for_do_not_count():
    from pingpong.sessions.aggregation.dmt import applicable

    labels = {1: {(1, "game_completion"): True, (1, "empathy"): False},
              2: {(1, "empathy"): True, (1, "game_completion"): False}}
    kept = applicable(labels, {1: "npc", 2: "companion"})
    assert kept == {1: {(1, "game_completion"): True}, 2: {(1, "empathy"): True}}
    assert applicable({3: {(1, "fluency"): True, (1, "empathy"): True}}, {3: None}) == {3: {(1, "fluency"): True}}  # unset: fictional


def test_every_board_ranks_each_language_on_its_own():
    from pingpong.sessions.aggregation.rule_boards import rank_by_score

    rows = [DmtRow("a", "ru", 1, dmt_score=0.4), DmtRow("b", "en", 1, dmt_score=0.6),
            DmtRow("c", "en", 1, dmt_score=0.9), DmtRow("d", "ru", 1, dmt_score=0.4)]
    assert [(r.player, r.lang, r.rank) for r in rank(rows)] == [("c", "en", 1), ("b", "en", 2), ("a", "ru", 1),
                                                                 ("d", "ru", 1)]
    plain = [{"player": p, "lang": lang, "score": score, "rank": None}
             for p, lang, score in (("a", "ru", 0.2), ("b", "en", 0.5), ("c", "ru", 0.7), ("d", "en", None),
                                    ("e", "en", 0.5))]
    assert [(r["player"], r["rank"]) for r in rank_by_score(plain)] == [("b", 1), ("e", 1), ("d", None), ("c", 1),
                                                                        ("a", 2)]
