"""Combining DMT labels: judges by majority (ties bad), people's newest label on top."""

from __future__ import annotations

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
