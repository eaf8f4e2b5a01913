"""Agreement beyond single turns: people's ratings of whole conversations, each person against the
others, Krippendorff's alpha, the fixed-seat experiment and ties that float noise must not split."""

from __future__ import annotations

import json
from fractions import Fraction

import krippendorff
import numpy as np
import pytest
from scipy.stats import kendalltau, spearmanr

from pingpong.sessions.agreement import agreement_report
from tests.stats.conftest import add_session

# three conversations, two judges, three turns each: (in_character, entertaining, fluency, refusal)
J1 = [[(5, 4, 3, 0), (4, 4, 4, 0), (3, 2, 5, 0)], [(2, 2, 2, 0), (3, 1, 2, 0), (2, 2, 3, 0)],
      [(4, 5, 5, 0), (5, 5, 4, 0), (4, 4, 4, 0)], [(1, 2, 1, 0), (2, 1, 1, 1), (1, 1, 2, 0)]]
J2 = [[(4, 4, 4, 0), (4, 3, 4, 0), (4, 4, 4, 0)], [(3, 2, 2, 0), (2, 2, 2, 0), (3, 3, 3, 0)],
      [(5, 5, 4, 0), (4, 4, 4, 0), (5, 4, 5, 0)], [(2, 2, 2, 0), (1, 1, 1, 0), (2, 2, 1, 0)]]
# whole-conversation ratings (in_character, entertaining, fluency) by three people
PEOPLE = {"ann": [(4, 4, 4), (2, 2, 3), (5, 4, 5), (1, 1, 2)],
          "bob": [(5, 3, 4), (2, 1, 2), (4, 5, 5), (2, 2, 1)],
          "cy": [(3, 4, 4), (3, 2, 2), (5, 5, 4), None]}


def populate(store) -> list[int]:
    ids = [add_session(store, "P", {"J1": J1[i], "J2": J2[i]}) for i in range(4)]
    for author, ratings in PEOPLE.items():
        for sid, values in zip(ids, ratings):
            if values is None:
                continue
            for metric, v in zip(("in_character", "entertaining", "fluency"), values):
                store.add_human_score(sid, None, metric, v, author)
    store.add_human_score(ids[0], 2, "in_character", 1, "ann")  # a turn score: not used where a rating exists
    return ids


def mean(values):
    return sum(values) / len(values)


def test_conversation_ratings_are_paired_with_each_judges_mean(store):
    populate(store)
    report = agreement_report(store, level="conversation")
    rows = {(r.who, r.metric): r for r in report.spearman}
    for m, metric in enumerate(("in_character", "entertaining", "fluency")):
        people = [mean([r[i][m] for r in PEOPLE.values() if r[i] is not None]) for i in range(4)]
        j1 = [mean([t[m] for t in J1[i]]) for i in range(4)]
        j2 = [mean([t[m] for t in J2[i]]) for i in range(4)]
        for name, judge in (("J1", j1), ("J2", j2), ("ensemble", [(a + b) / 2 for a, b in zip(j1, j2)])):
            row = rows[(name, metric)]
            assert row.n == 4
            assert row.spearman == pytest.approx(spearmanr(people, judge).statistic)
    # finals: exact fractions ranked, as the reference ranks them (no float noise)
    people_final = [mean([Fraction(sum(r[i]), 3) for r in PEOPLE.values() if r[i] is not None]) for i in range(4)]
    j1_final = [Fraction(sum(sum(t[:3]) for t in J1[i]), 9) for i in range(4)]
    assert rows[("J1", "final")].spearman == pytest.approx(spearmanr(people_final, j1_final).statistic)
    assert report.refusals == []  # people gave no refusal flags: nothing to compare


def test_each_person_against_the_others_and_alpha(store):
    populate(store)
    report = agreement_report(store, level="conversation")
    rows = {(a.who, a.metric): a for a in report.annotators}
    for m, metric in enumerate(("in_character", "entertaining", "fluency")):
        for author, ratings in PEOPLE.items():
            units = [i for i in range(4) if ratings[i] is not None]
            others = [mean([r[i][m] for a, r in PEOPLE.items() if a != author and r[i] is not None]) for i in units]
            row = rows[(author, metric)]
            assert row.n == len(units)
            assert row.spearman == pytest.approx(spearmanr([ratings[i][m] for i in units], others).statistic)
        matrix = np.array([[np.nan if r[i] is None else r[i][m] for i in range(4)] for r in PEOPLE.values()])
        alpha = next(r for r in report.raters if r.metric == metric)
        assert alpha.raters == 3 and alpha.units == 4
        assert alpha.alpha == pytest.approx(krippendorff.alpha(reliability_data=matrix, level_of_measurement="ordinal"))
    finals = next(r for r in report.raters if r.metric == "final")
    assert finals.raters == 3


def test_float_noise_does_not_split_tied_finals(store):
    """(3, 4, 5) and (4, 4, 4) both make a final of 4; summed in thirds they differ by one ulp."""
    people = [(3, 4, 5), (4, 4, 4), (2, 2, 2), (5, 4, 3)]
    judges = [(5, 5, 5), (1, 1, 1), (3, 3, 3), (2, 2, 2)]
    for (a, b, c), (x, y, z) in zip(people, judges):
        sid = add_session(store, "P", {"J": [(x, y, z, 0)]})
        for metric, v in zip(("in_character", "entertaining", "fluency"), (a, b, c)):
            store.add_human_score(sid, 1, metric, v, "ann")
    row = next(r for r in agreement_report(store).spearman if r.metric == "final")
    exact = spearmanr([Fraction(sum(p), 3) for p in people], [Fraction(sum(j), 3) for j in judges]).statistic
    noisy = spearmanr([sum(v * (1 / 3) for v in p) for p in people], [sum(v * (1 / 3) for v in j) for j in judges]).statistic
    assert noisy != pytest.approx(exact)  # what happens without rounding
    assert row.spearman == pytest.approx(exact)


def test_fixed_seat_experiment(store):
    """Interrogators I1, I2 and judges J1, J2 over players A, B, C: every (interrogator, judge) cell
    ranks the players; fixing one seat, tau compares the rankings under the other."""
    finals = {("I1", "J1"): (5, 4, 3), ("I1", "J2"): (5, 3, 4), ("I2", "J1"): (3, 4, 5), ("I2", "J2"): (4, 5, 2)}
    for (interrogator, judge), scores in finals.items():
        for player, s in zip("ABC", scores):
            add_session(store, player, {judge: [(s, s, s, 0)]}, interrogator=interrogator,
                        character=f"c-{interrogator}-{judge}".lower())
    by = {(r.varied, r.fixed): r for r in agreement_report(store).rankings}
    assert set(by) == {("judge", "I1"), ("judge", "I2"), ("interrogator", "J1"), ("interrogator", "J2")}
    for (varied, fixed), row in by.items():
        a, b = ((fixed, "J1"), (fixed, "J2")) if varied == "judge" else (("I1", fixed), ("I2", fixed))
        tau = kendalltau(finals[a], finals[b]).statistic
        assert row.mean_tau == pytest.approx(tau) and row.min_tau == pytest.approx(tau)
        assert row.names == (["J1", "J2"] if varied == "judge" else ["I1", "I2"])


def test_cli_json_carries_every_table(tmp_path, capsys):
    from pingpong.sessions.store import Store
    from pingpong.tui.cli import main

    home = tmp_path / "home"
    with Store(home / "pingpong.db") as s:
        populate(s)
    assert main(["--home", str(home), "agreement", "--level", "conversation", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["level"] == "conversation"
    assert {r["judge"] for r in data["spearman"]} == {"J1", "J2", "ensemble"}
    assert {r["metric"] for r in data["krippendorff_alpha"]} == {"in_character", "entertaining", "fluency", "final"}
    assert {r["author"] for r in data["annotators"]} == set(PEOPLE)
    assert main(["--home", str(home), "agreement", "--level", "conversation"]) == 0
    out = capsys.readouterr().out
    assert "against the mean of the others" in out and "Krippendorff" in out


def test_a_conversation_rating_from_the_command_line_counts_in_the_finals(tmp_path, capsys):
    from pingpong.sessions.store import Store
    from pingpong.tui.cli import main

    home = tmp_path / "home"
    with Store(home / "pingpong.db") as s:
        sid = add_session(s, "P", {"J1": [(4, 4, 4, 0), (2, 4, 4, 0)]})
    args = ["--home", str(home)]
    assert main([*args, "sessions", "score", str(sid), "--metric", "in_character", "--value", "5", "--author", "ann"]) == 0
    assert "whole conversation: in_character = 5 by ann" in capsys.readouterr().out
    assert main([*args, "sessions", "show", str(sid)]) == 0
    assert "whole conversation" in capsys.readouterr().out
    with Store(home / "pingpong.db") as s:
        assert s.db.execute("select turn from scores where source = 'human'").fetchall() == [(None,)]
    assert main([*args, "leaderboard", "--format", "json", "--scores", "judges"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["in_character"] == 3  # the judge's mean over turns
    assert main([*args, "leaderboard", "--format", "json"]) == 0  # merged: the person's rating stands in
    row = json.loads(capsys.readouterr().out)[0]
    assert row["in_character"] == 5 and row["final"] == pytest.approx((5 + 4 + 4) / 3)
    for value, said in (("0", "no"), ("1", "yes"), ("false", "no")):  # "0" once read as "= true"
        assert main([*args, "sessions", "score", str(sid), "--turn", "1", "--metric", "is_refusal", "--value", value,
                     "--author", "bob"]) == 0
        assert f"turn 1: is_refusal = {said} by bob" in capsys.readouterr().out
    assert main([*args, "sessions", "score", str(sid), "--turn", "1", "--refusal", "false", "--author", "bob"]) == 0
    assert "turn 1: is_refusal = no by bob" in capsys.readouterr().out
    assert main([*args, "leaderboard", "--format", "json", "--scores", "human"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["in_character"] == 5
