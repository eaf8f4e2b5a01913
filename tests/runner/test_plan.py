"""The plan: filters, --every thinning that stays balanced, run names, what to do per pair."""

from __future__ import annotations

from collections import Counter

import pytest

from pingpong.core.domain import Character, Situation
from pingpong.core.errors import UserError
from pingpong.sessions.plan import build_plan, default_run_name, pick, thin_pairs
from pingpong.sessions.runner import decide


def cards(n: int) -> list[Character]:
    return [Character(name=f"c{i}", char_name=f"C{i}", lang="en", summary="s", persona="p")
            for i in range(n)]


def situations(n: int) -> list[Situation]:
    return [Situation(name=f"s{i}", lang="en", text="t", num_turns=2) for i in range(n)]


def test_every_eight_of_eight_by_eight_is_a_latin_diagonal():
    pairs = thin_pairs(cards(8), situations(8), 8)
    assert len(pairs) == 8
    assert Counter(c.name for c, _ in pairs) == Counter({f"c{i}": 1 for i in range(8)})
    assert Counter(s.name for _, s in pairs) == Counter({f"s{i}": 1 for i in range(8)})


@pytest.mark.parametrize("n, m, k", [(8, 8, 2), (8, 8, 3), (5, 7, 4), (10, 3, 5), (3, 3, 1)])
def test_every_keeps_about_one_in_k_and_stays_balanced(n, m, k):
    pairs = thin_pairs(cards(n), situations(m), k)
    assert len(pairs) == -(-n * m // k)
    assert len(set((c.name, s.name) for c, s in pairs)) == len(pairs)
    per_card = Counter(c.name for c, _ in pairs)
    per_sit = Counter(s.name for _, s in pairs)
    if len(pairs) >= n:
        assert len(per_card) == n and max(per_card.values()) - min(per_card.values()) <= 1
    if len(pairs) >= m:
        assert len(per_sit) == m and max(per_sit.values()) - min(per_sit.values()) <= 1


def test_plan_is_deterministic_and_the_same_for_every_player():
    plan = build_plan(["a", "b"], cards(4), situations(4), every=2)
    again = build_plan(["a", "b"], cards(4), situations(4), every=2)
    assert [i.key for i in plan] == [i.key for i in again]
    by_player = {p: [(i.character.name, i.situation.name) for i in plan if i.player == p] for p in "ab"}
    assert by_player["a"] == by_player["b"]
    assert [i.player for i in plan[:4]] == ["a", "b", "a", "b"]  # players interleave


def test_pick_keeps_library_order_and_names_the_unknown():
    assert [c.name for c in pick(cards(3), ["c2", "c0"], "character", "en")] == ["c0", "c2"]
    with pytest.raises(UserError, match="unknown character 'c9' for lang en"):
        pick(cards(3), ["c0", "c9"], "character", "en")
    with pytest.raises(UserError, match="--every"):
        thin_pairs(cards(2), situations(2), 0)
    with pytest.raises(UserError, match="given twice"):
        build_plan(["a", "a"], cards(1), situations(1))


def test_default_run_name():
    assert default_run_name(["gpt-4o", "Llama 3"], "mini", ["j1", "j2"], "ru") == \
        "gpt-4o+llama-3-vs-mini-judged-by-j1+j2-ru"
    assert default_run_name(["a"], "b", ["c"], "en", method="pingpong-v1").endswith("-en-v1")


def test_decide_per_pair():
    def row(i, status, pid=None):
        return {"id": i, "status": status, "pid": pid}

    assert decide([]) == ("new", None)
    assert decide([row(1, "failed")]) == ("new", None)
    assert decide([row(1, "failed"), row(2, "finished")]) == ("skip", None)
    assert decide([row(1, "interrupted"), row(2, "failed")]) == ("resume", 1)
    assert decide([row(1, "running", pid=2 ** 22 + 12345)]) == ("resume", 1)  # no such process
    import os

    assert decide([row(1, "running", pid=os.getpid())]) == ("elsewhere", 1)


def test_diagonal_order_visits_each_pair_once_and_thinning_is_nested():
    from pingpong.sessions.plan import diagonal_order

    for n, m in [(8, 8), (4, 6), (5, 3), (1, 7), (6, 4)]:
        assert sorted(diagonal_order(n, m)) == [(c, s) for c in range(n) for s in range(m)]
    dense = {(c.name, s.name) for c, s in thin_pairs(cards(8), situations(8), 4)}
    sparse = {(c.name, s.name) for c, s in thin_pairs(cards(8), situations(8), 8)}
    assert sparse < dense


def test_longest_conversations_start_first_and_rejudgings_last():
    from pingpong.sessions.runner import longest_first

    sits = [Situation(name=f"s{n}", lang="en", text="t", num_turns=n) for n in (2, 6, 4)]
    items = build_plan(["p"], cards(1), sits, 1)
    todo = [(items[0], None), (items[1], -7), (items[2], None), (items[1], None)]
    order = longest_first(todo, "pingpong")
    assert [(i.situation.num_turns, sid) for i, sid in order] == [(6, None), (4, None), (2, None), (6, -7)]


def test_run_names_keep_letters_of_any_script_and_latin_names_stay_as_they_were():
    """Two Cyrillic judges both became "x": the second run landed in the first and skipped everything."""
    from pingpong.sessions.plan import default_run_name

    assert default_run_name(["offline"], "offline", ["судья"], "ru") != \
        default_run_name(["offline"], "offline", ["судья-два"], "ru")
    assert default_run_name(["offline"], "offline", ["судья-два"], "ru") == "offline-vs-offline-judged-by-судья-два-ru"
    # names in Latin letters give the names earlier releases gave, so the same command resumes its run
    assert default_run_name(["GPT-4o_mini", "meta/llama-3:8b"], "asker", ["j 1"], "en") == \
        "gpt-4o_mini+meta-llama-3-8b-vs-asker-judged-by-j-1-en"
