"""Leaderboard figures against answers worked out by hand (METHOD.md "Aggregation")."""

from __future__ import annotations

import numpy as np
import pytest

from pingpong.core.errors import UserError
from pingpong.sessions.leaderboard import bootstrap_means, compute_leaderboard, half_width, length_factor, tie_ranks
from pingpong.sessions.scoring import parse_weights
from tests.scores import judged, turn_scores
from tests.stats.conftest import add_session


def worked_example(store):
    """2 players x 3 conversations x 2 judges (J1, J2), 2 turns each, with refusals."""
    # Player A, 100-character messages.
    # a1: J1 turns (5,4,3),(3,4,5) -> means 4,4,4 -> final 4; J2 all 4 -> 4.   conv: 4,4,4 final 4
    add_session(store, "A", {"J1": [(5, 4, 3, 0), (3, 4, 5, 0)], "J2": [(4, 4, 4, 0), (4, 4, 4, 0)]})
    # a2: J1 all 5 -> 5; J2 flags a refusal on turn 2 -> left out.            conv: 5,5,5 final 5, refusal
    add_session(store, "A", {"J1": [(5, 5, 5, 0), (5, 5, 5, 0)], "J2": [(3, 3, 3, 0), (3, 3, 3, 1)]})
    # a3: J1 (2,3,4),(4,3,2) -> 3,3,3 final 3; J2 (2,1,3),(2,3,3) -> 2,2,3 final 7/3
    #     conv: ic (3+2)/2=2.5, en (3+2)/2=2.5, fl (3+3)/2=3, final (3+7/3)/2=8/3
    add_session(store, "A", {"J1": [(2, 3, 4, 0), (4, 3, 2, 0)], "J2": [(2, 1, 3, 0), (2, 3, 3, 0)]})
    # Player B, 300-character messages.
    # b1: both judges all 4.                                                  conv: 4,4,4 final 4
    add_session(store, "B", {"J1": [(4, 4, 4, 0), (4, 4, 4, 0)], "J2": [(4, 4, 4, 0), (4, 4, 4, 0)]}, text_len=300)
    # b2: both judges flag a refusal -> no scores at all, a refusal conversation
    add_session(store, "B", {"J1": [(1, 1, 1, 1), (1, 1, 1, 0)], "J2": [(1, 1, 1, 0), (1, 1, 1, 1)]}, text_len=300)
    # b3: J1 3,4,5 (final 4); J2 5,4,3 (final 4).                              conv: 4,4,4 final 4
    add_session(store, "B", {"J1": [(3, 4, 5, 0), (3, 4, 5, 0)], "J2": [(5, 4, 3, 0), (5, 4, 3, 0)]}, text_len=300)


def test_worked_example_means_refusals_lengths_and_ranks(store):
    worked_example(store)
    rows = {r.player: r for r in compute_leaderboard(store, scores="judges")}
    a, b = rows["A"], rows["B"]
    assert a.conversations == 3 and b.conversations == 3
    assert a.refusal_ratio == pytest.approx(1 / 3) and b.refusal_ratio == pytest.approx(1 / 3)
    # A: ic (4 + 5 + 2.5)/3, en (4 + 5 + 2.5)/3, fl (4 + 5 + 3)/3, final (4 + 5 + 8/3)/3
    assert a.in_character == pytest.approx((4 + 5 + 2.5) / 3)
    assert a.entertaining == pytest.approx((4 + 5 + 2.5) / 3)
    assert a.fluency == pytest.approx((4 + 5 + 3) / 3)
    assert a.final == pytest.approx((4 + 5 + 8 / 3) / 3)
    # B: the refusal conversation b2 has no scores: mean over b1 and b3 only
    assert (b.in_character, b.entertaining, b.fluency, b.final) == pytest.approx((4, 4, 4, 4))
    # lengths: A 100, B 300, median 200. A: x = 200/100 = 2 -> 1 + 1*0.07 = 1.07 -> clamp 1.0
    # B: x = 200/300 -> 1 + (2/3 - 1)*0.07 = 0.97666...
    assert a.avg_length == 100 and b.avg_length == 300
    assert a.length_norm == pytest.approx(a.final * 1.0)
    assert b.length_norm == pytest.approx(4 * (1 + (200 / 300 - 1) * 0.07))
    # B 3.9067 opens rank 1; A 3.8889 is within 0.06 of it -> shares rank 1
    assert b.length_norm - a.length_norm < 0.06
    assert (b.rank, a.rank) == (1, 1)
    assert [r.player for r in compute_leaderboard(store, scores="judges")] == ["B", "A"]


def test_weights_are_normalised(store):
    worked_example(store)
    rows = {r.player: r for r in compute_leaderboard(store, scores="judges", weights=parse_weights("2,1,1"))}
    # weights 2,1,1 -> 0.5, 0.25, 0.25. a1: 4; a2: 5; a3: J1 3, J2 0.5*2 + 0.25*2 + 0.25*3 = 2.25 -> 2.625
    assert rows["A"].final == pytest.approx((4 + 5 + (3 + 2.25) / 2) / 3)
    # b3: J1 0.5*3 + 0.25*4 + 0.25*5 = 3.75; J2 0.5*5 + 0.25*4 + 0.25*3 = 4.25 -> 4; b1 4
    assert rows["B"].final == pytest.approx(4.0)


@pytest.mark.parametrize(("text", "want"), [("1e308,1e308,1e308", [1 / 3] * 3), ("2e307,1e307,1e307", [0.5, 0.25, 0.25]),
                                            ("1e-320,0,1e-320", [0.5, 0, 0.5])])
def test_only_the_ratios_of_weights_count_however_large_or_small(text, want):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy's overflow warnings went to the terminal before the error
        assert parse_weights(text) == pytest.approx(want)


@pytest.mark.parametrize("text", ["1,2", "a,b,c", "-1,1,1", "0,0,0", "1,,1"])
def test_bad_weights(text):
    with pytest.raises(UserError):
        parse_weights(text)


def test_judge_weights(store):
    worked_example(store)
    rows = {r.player: r for r in compute_leaderboard(store, scores="judges", judge_weights={"J1": 3, "J2": 1})}
    # a3: (3*3 + 1*7/3)/4 = (9 + 7/3)/4
    assert rows["A"].final == pytest.approx((4 + 5 + (9 + 7 / 3) / 4) / 3)


def test_tie_rule():
    # sorted: 4.50 opens rank 1; 4.46 is 0.04 below it -> 1; 4.43 is 0.07 below 4.50 -> opens a rank at
    # its position, 3; 4.40 is 0.03 below 4.43 (the score that opened that rank) -> 3
    assert tie_ranks([4.50, 4.46, 4.43, 4.40]) == [1, 1, 3, 3]
    # exactly 0.06 counts as within; order of the input does not matter; None gets no rank
    assert tie_ranks([4.39, 4.50, None, 4.44]) == [3, 1, None, 1]
    assert tie_ranks([3.0, 2.9, 2.8, 2.7]) == [1, 2, 3, 4]
    assert tie_ranks([]) == []
    # scores are compared as published, rounded to two decimals: 4.4449 shows as 4.44, within 0.06 of 4.50
    assert tie_ranks([4.5, 4.4449]) == [1, 1] and tie_ranks([4.5, 4.4349]) == [1, 2]


def test_length_factor():
    assert length_factor(100, 200) == 1.0  # shorter than the median: no reward
    assert length_factor(300, 200) == pytest.approx(1 + (200 / 300 - 1) * 0.07)
    assert length_factor(10_000, 200) == pytest.approx(0.9314)  # x = 0.02 -> 1 + (0.02 - 1) * 0.07
    assert length_factor(1e12, 200) == pytest.approx(0.93)  # never below the 0.93 floor
    assert length_factor(None, 200) == 1.0 and length_factor(0, 200) == 1.0


def _simple_bootstrap(values, n_boot, seed):
    rng = np.random.default_rng(seed)
    means = []
    for _ in range(n_boot):
        sample = [values[i] for i in rng.integers(0, len(values), len(values))]
        means.append(sum(sample) / len(sample))
    lo, hi = np.percentile(means, [2.5, 97.5])
    return (hi - lo) / 2


@pytest.mark.parametrize("kind", ["levels", "continuous"])
def test_bootstrap_matches_a_plain_loop(kind):
    rng = np.random.default_rng(7)
    values = rng.integers(1, 6, 200) / 1.0 if kind == "levels" else rng.normal(3.5, 0.7, 200)
    fast = half_width(bootstrap_means(values, np.random.default_rng(1), 4000))
    slow = _simple_bootstrap(list(values), 4000, 2)
    normal = 1.96 * values.std(ddof=1) / np.sqrt(len(values))
    assert abs(fast - slow) < 0.1 * slow
    assert abs(fast - normal) < 0.1 * normal


def test_intervals_are_seeded_and_contain_the_mean(store):
    worked_example(store)
    for i in range(6):
        add_session(store, "C", {"J1": [(1 + i % 5, 3, 4, 0)]})
    one = compute_leaderboard(store, seed=3)
    two = compute_leaderboard(store, seed=3)
    assert [r.to_json() for r in one] == [r.to_json() for r in two]
    c = next(r for r in one if r.player == "C")
    assert 0 < c.final_ci < 2
    assert c.length_norm_ci == pytest.approx(c.final_ci * c.length_norm / c.final)


def test_empty_database(store):
    assert compute_leaderboard(store) == []


def test_only_refusals_and_single_conversation(store):
    add_session(store, "R", {"J1": [(3, 3, 3, 1)]})
    add_session(store, "R", {"J1": [(3, 3, 3, 0), (3, 3, 3, 1)]})
    add_session(store, "S", {"J1": [(5, 4, 3, 0)]})
    rows = {r.player: r.to_json() for r in compute_leaderboard(store)}
    r, s = rows["R"], rows["S"]
    assert r["refusal_ratio"] == 1.0 and r["conversations"] == 2
    assert r["final"] is None and r["final_ci"] is None and r["rank"] is None and r["length_norm"] is None
    assert s["final"] == pytest.approx(4.0) and s["final_ci"] == 0.0 and s["rank"] == 1
    assert s["refusal_ratio"] == 0.0


def test_unfinished_and_failed_turns_are_left_out(store):

    add_session(store, "A", {"J1": [(4, 4, 4, 0)]}, status="interrupted")
    sid = add_session(store, "A", {"J1": [(2, 2, 2, 0)]})
    store.add_verdict(sid, judged("J2", turns=[turn_scores(1, status="failed", error="bad json")]))
    (row,) = compute_leaderboard(store)
    assert row.conversations == 1 and row.final == pytest.approx(2.0)


def test_human_and_merged_scores(store):
    worked_example(store)
    before = {r.player: r for r in compute_leaderboard(store, scores="merged")}
    assert compute_leaderboard(store, scores="human") == []
    first_b = 4  # b1 is the 4th session
    store.add_human_score(first_b, 1, "in_character", 1, "ann", "not the character at all")
    store.add_human_score(first_b, 1, "in_character", 2, "ann", "second thought")  # newest counts
    merged = {r.player: r for r in compute_leaderboard(store, scores="merged")}
    judges = {r.player: r for r in compute_leaderboard(store, scores="judges")}
    assert judges["B"].in_character == pytest.approx(before["B"].in_character)
    # b1: both judges' turn-1 in_character (4) replaced by the person's 2: mean over turns (2+4)/2 = 3
    # B in_character = (3 + 4)/2 over b1 and b3; final of b1 = (3 + 4 + 4)/3
    assert merged["B"].in_character == pytest.approx((3 + 4) / 2)
    assert merged["B"].final == pytest.approx(((3 + 4 + 4) / 3 + 4) / 2)
    human = compute_leaderboard(store, scores="human")
    assert [(r.player, r.conversations, r.in_character, r.final) for r in human] == [("B", 1, 2.0, None)]


def test_a_judge_whose_turns_all_failed_is_no_scoring_once_a_person_scores(store):
    """A person's score goes in place of the judges' that scored the turn; a judge whose every turn
    failed has no scoring, and the person's value must not make one (it would count as a judge)."""
    sid = add_session(store, "A", {"J1": [(4, 4, 5, 0), (4, 5, 5, 0)]})
    store.add_verdict(sid, judged("dead", turns=[turn_scores(1, status="failed"), turn_scores(2, status="failed")]))
    judges_only = compute_leaderboard(store, scores="judges")[0]
    assert judges_only.final == pytest.approx((4 + 4.5 + 5) / 3)
    store.add_human_score(sid, 1, "in_character", 1, "ann")
    (merged,) = compute_leaderboard(store, scores="merged")
    assert merged.in_character == pytest.approx((1 + 4) / 2)
    assert merged.final == pytest.approx((2.5 + 4.5 + 5) / 3)


def test_pingpong_v1_pools_each_metric_over_the_scored_replies(store):
    """METHOD.md: v1's model score per metric is the mean over the scored replies of its non-refusal
    conversations (not a mean of conversation means), and its final the mean of the three."""
    v1 = {"method": "pingpong-v1"}
    add_session(store, "A", {"T": [(9, 6, 10, 0)]}, **v1)
    add_session(store, "A", {"T": [(6, 3, 10, 0), (6, 3, 10, 0), (3, 3, 10, 0)]}, **v1)
    add_session(store, "A", {"T": [(2, 2, 2, 0), (1, 1, 1, 1)]}, **v1)  # a refusal: left out
    (row,) = compute_leaderboard(store, method="pingpong-v1")
    assert row.conversations == 3 and row.refusal_ratio == pytest.approx(1 / 3)
    assert row.in_character == pytest.approx((9 + 6 + 6 + 3) / 4)
    assert row.entertaining == pytest.approx((6 + 3 + 3 + 3) / 4)
    assert row.fluency == pytest.approx(10.0)
    assert row.final == pytest.approx((6 + 3.75 + 10) / 3)
    # the interval resamples conversations: every resample's final lies between the two scored ones'
    assert 0 < row.final_ci <= ((9 + 6 + 10) / 3 - (5 + 3 + 10) / 3) / 2


def test_one_row_per_player_and_language_each_language_ranked_on_its_own(store):
    """DESIGN.md: one object per (player, lang). Each language is its own board: its median length
    for the normalisation and its own ranks."""
    add_session(store, "A", {"J": [(5, 5, 5, 0)]}, text_len=100, lang="en")
    add_session(store, "B", {"J": [(3, 3, 3, 0)]}, text_len=100, lang="en")
    add_session(store, "A", {"J": [(2, 2, 2, 0)]}, text_len=400, lang="ru")
    add_session(store, "B", {"J": [(4, 4, 4, 0)]}, text_len=100, lang="ru")
    rows = [(r.player, r.lang, r.rank, r.final) for r in compute_leaderboard(store)]
    assert rows == [("A", "en", 1, 5.0), ("B", "en", 2, 3.0), ("B", "ru", 1, 4.0), ("A", "ru", 2, 2.0)]
    by_lang = {(r.player, r.lang): r for r in compute_leaderboard(store)}
    assert by_lang[("A", "en")].length_norm == pytest.approx(5.0)  # en lengths are equal: no penalty
    assert by_lang[("A", "ru")].length_norm < 2.0  # ru: four times the median of its own board
    assert [(r.player, r.lang, r.rank) for r in compute_leaderboard(store, lang="ru")] == [("B", "ru", 1), ("A", "ru", 2)]
    assert compute_leaderboard(store, lang="ru")[1].length_norm == by_lang[("A", "ru")].length_norm


def test_a_language_no_stored_session_is_in_is_one_line_not_an_empty_board(tmp_path, capsys):
    """`--lang xx` (or a language only another method has) names the languages there are; a database
    with no sessions at all still prints its empty board."""
    from pingpong.sessions.store import Store
    from pingpong.tui.cli import main

    home = tmp_path / "home"
    home.mkdir()
    assert main(["--home", str(home), "leaderboard", "--lang", "de"]) == 0
    assert "no finished, scored sessions yet" in capsys.readouterr().out
    with Store(home / "pingpong.db") as store:
        add_session(store, "A", {"J": [(5, 5, 5, 0)]}, lang="en")
        add_session(store, "A", {"J": [(5, 5, 5, 0)]}, lang="ru", method="pingpong-v1")
    for args, line in [
        (["leaderboard", "--lang", "ru"], "--lang ru: no stored pingpong session is in this language; they are in en"),
        (["agreement", "--lang", "de"], "--lang de: no stored session is in this language; they are in en, ru"),
    ]:
        assert main(["--home", str(home), *args]) == 2
        err = capsys.readouterr().err
        assert line in err and err.count("\n") == 1, err
    with pytest.raises(SystemExit) as stop:  # argparse's own exit
        main(["--home", str(home), "leaderboard", "--lang", "english"])
    assert stop.value.code == 2
    assert "argument --lang: expected a two-letter language code such as en or ru, got 'english'" in \
        capsys.readouterr().err
    for command in (["leaderboard"], ["situations", "show", "casual-greeting"], ["annotate"], ["play"]):
        with pytest.raises(SystemExit) as stop:  # a board of no method, not "this board covers pingpong, pingpong-v1"
            main(["--home", str(home), *command, "--method", "nosuch"])
        assert stop.value.code == 2
        err = capsys.readouterr().err
        assert "argument --method: expected one of pingpong, pingpong-v1, dmt, roleinteract, rolebench, got 'nosuch'" \
            in err and err.count("\n") == 1, err
    assert main(["--home", str(home), "leaderboard", "--lang", "ru", "--method", "pingpong-v1"]) == 0


def test_a_run_name_no_run_has_is_one_line_not_an_empty_board(tmp_path, capsys):
    from pingpong.sessions.store import Store
    from pingpong.tui.cli import main

    home = tmp_path / "home"
    home.mkdir()
    with Store(home / "pingpong.db") as store:
        add_session(store, "A", {"J": [(5, 5, 5, 0)]})
        store.conn.execute("UPDATE sessions SET run_id = ?", [store.run_id("bench")])
        store.conn.commit()
    assert main(["--home", str(home), "leaderboard", "--run", "bnech"]) == 2
    assert capsys.readouterr().err.strip() == "pingpong: error: --run: no run named 'bnech'"
    assert main(["--home", str(home), "leaderboard", "--run", "bench", "--format", "json"]) == 0
    assert '"player": "A"' in capsys.readouterr().out
    assert main(["--home", str(home), "leaderboard", "--run", "bench", "--method", "dmt"]) == 0  # a run, no dmt yet


@pytest.mark.parametrize("method", ["pingpong", "pingpong-v1"])
def test_each_by_value_is_a_board_of_its_own_with_its_median_length_and_ranks(store, method):
    """`--by` splits as languages do: the zsp rows' long replies do not dock the fsp rows, and ranks restart."""
    from tests.stats.conftest import add_session

    scores = {"alpha": (4, 4, 4, 0), "beta": (5, 5, 5, 0)}
    for prompting, lengths in (("fsp", {"alpha": 50, "beta": 60}), ("zsp", {"alpha": 200, "beta": 240})):
        for player, length in lengths.items():
            add_session(store, player, {"J": [scores[player]] * 2}, text_len=length, method=method, prompting=prompting)
    rows = compute_leaderboard(store, method=method, scores="judges", by="prompting")
    assert [(r.by["prompting"], r.player, r.rank) for r in rows] == [
        ("fsp", "beta", 1), ("fsp", "alpha", 2), ("zsp", "beta", 1), ("zsp", "alpha", 2)]
    alone = {r.player: r for r in compute_leaderboard(store, method=method, scores="judges", by="prompting")
             if r.by["prompting"] == "fsp"}
    assert alone["alpha"].length_norm == pytest.approx(alone["alpha"].final)  # the shorter of its board: no cut
    assert alone["beta"].length_norm < alone["beta"].final


def test_the_rule_boards_rank_each_by_value_on_its_own():
    from pingpong.sessions.aggregation.rule_boards import rank_by_score

    rows = [{"player": p, "lang": "en", "prompting": s, "score": v}
            for p, s, v in (("a", "zsp", 0.2), ("b", "zsp", 0.4), ("a", "fsp", 0.3), ("b", "fsp", 0.1))]
    ranked = rank_by_score(rows, "prompting")
    assert [(r["prompting"], r["player"], r["rank"]) for r in ranked] == [
        ("fsp", "a", 1), ("fsp", "b", 2), ("zsp", "b", 1), ("zsp", "a", 2)]
