"""Pairwise comparison of stored sessions (METHOD.md "RoleLLM"): which pairs meet, both orders judged
through the real client against the local server, verdicts stored and overridden by people, win rates
and Bradley-Terry ratings checked against a direct maximum-likelihood fit."""

from __future__ import annotations

import re

import pytest

from pingpong.core.domain import Character, Message, ModelSpec, Score, SessionSpec, Situation
from pingpong.core.errors import UserError
from pingpong.core.llm import ModelPool
from pingpong.core.retry import RetryPolicy
from pingpong.sessions import queries
from pingpong.sessions.aggregation.pairwise import Comparison
from pingpong.sessions.compare import compare_report, judge_pairs, pair_outcomes, pairs_to_show, plan_pairs
from tests.fakeserver import FakeServer, bad_request
from tests.stats.test_pairwise import independent_elo

CARD = Character(name="keeper", char_name="Edda", lang="en", summary="A lighthouse keeper.",
                 persona="Edda keeps the lighthouse and talks to gulls.")
# How strong each player's reply is per situation: the marker judge prefers the stronger one.
# A beats B 3-1 and C 3-1; B beats C in s1 and s3, loses in s2, and s4 is even.
STRENGTH = {"s1": {"A": 3, "B": 2, "C": 1}, "s2": {"A": 3, "B": 1, "C": 2},
            "s3": {"A": 1, "B": 3, "C": 2}, "s4": {"A": 3, "B": 2, "C": 2}}


def add(store, player: str, situation: str, *, method: str = "pingpong", status: str = "finished",
        strength: int | None = None, run_id: int | None = None) -> int:
    sit = Situation(name=situation, lang="en", text=f"A sailor asks about {situation}.", num_turns=1)
    spec = SessionSpec(method=method, character="keeper", situation=situation, player=player,
                       interrogator="asker", judges=[], lang="en")
    sid = store.create_session(spec, CARD, sit, run_id)
    store.add_message(sid, Message(turn=1, role="user", author="asker", text=f"Tell me about {situation}."))
    level = STRENGTH.get(situation, {}).get(player, 1) if strength is None else strength
    store.add_message(sid, Message(turn=1, role="assistant", author=player,
                                   text=f"{player} answers with strength {level}."))
    store.set_status(sid, status)
    return sid


def league(store) -> None:
    for situation in STRENGTH:
        for player in "ABC":
            add(store, player, situation)


def marker_judge(body: dict) -> str:
    """Names the conversation whose player wrote the higher 'strength N' (a tie when equal)."""
    text = body["messages"][-1]["content"]
    one, two = re.search(r"# Conversation 1(.*?)# Conversation 2(.*?)# Your task", text, re.S).groups()
    s1, s2 = (int(re.search(r"strength (\d)", part).group(1)) for part in (one, two))
    better = "tie" if s1 == s2 else ("1" if s1 > s2 else "2")
    return f'{{"reason": "strength {s1} against {s2}", "better": "{better}"}}'


def first_shown_judge(body: dict) -> str:
    return '{"reason": "The first one reads better.", "better": "1"}'


@pytest.fixture
def server():
    with FakeServer() as srv:
        yield srv


@pytest.fixture
async def pool(server):
    specs = {name: ModelSpec(name=name, base_url=server.base_url, model=name, timeout=5, deadline=20)
             for name in ("marker", "first-shown")}
    p = ModelPool(specs, retry=RetryPolicy(base=0.01, cap=0.05))
    try:
        yield p
    finally:
        await p.aclose()


def respond_by_model(server) -> None:
    judges = {"marker": marker_judge, "first-shown": first_shown_judge}
    server.responder = lambda body: judges[body["model"]](body)


def facts(store, run=None):
    return queries.sessions_matching(store.conn, queries.SessionFilter(run=run))


# --- which pairs meet -----------------------------------------------------------------------------

def test_every_two_compared_players_meet_on_each_conversation_they_share(store):
    league(store)
    plans = plan_pairs(facts(store), "A")
    assert len(plans) == 4 * 3
    assert {(p.player_a, p.player_b) for p in plans} == {("A", "B"), ("A", "C"), ("B", "C")}
    assert all(p.a < p.b and p.method == "pingpong" and p.character == "keeper" for p in plans)


def test_the_newest_session_of_a_player_counts_and_unfinished_and_other_methods_do_not_meet(store):
    first = add(store, "A", "s1")
    add(store, "B", "s1")
    newest = add(store, "A", "s1")
    add(store, "C", "s1", status="failed")
    add(store, "C", "s1", method="pingpong-v1")
    [plan] = plan_pairs(facts(store), "B")
    assert newest in (plan.a, plan.b) and first not in (plan.a, plan.b)


def test_named_players_narrow_the_comparison(store):
    league(store)
    plans = plan_pairs(facts(store), "A", ["B"])
    assert {(p.player_a, p.player_b) for p in plans} == {("A", "B")}


def test_bad_baselines_and_players_are_one_clear_error(store):
    league(store)
    add(store, "D", "elsewhere")
    with pytest.raises(UserError, match="--baseline: no finished sessions of 'Z'"):
        plan_pairs(facts(store), "Z")
    with pytest.raises(UserError, match="--player: no finished sessions of 'Z'"):
        plan_pairs(facts(store), "A", ["Z"])
    with pytest.raises(UserError, match="nothing to compare"):
        plan_pairs(facts(store), "D")


# --- judging both orders ----------------------------------------------------------------------------

async def test_every_pair_is_judged_in_both_orders_and_stored_per_order(store, server, pool):
    respond_by_model(server)
    league(store)
    plans = plan_pairs(facts(store), "A")
    tally = await judge_pairs(store, pool, "marker", plans, concurrency=3)
    assert (tally.asked, tally.failed) == (2 * len(plans), 0)
    bodies = [r.body for r in server.chat_requests]
    assert len(bodies) == 2 * len(plans)
    shown_first = {}
    for body in bodies:
        text = body["messages"][-1]["content"]
        first = re.search(r"# Conversation 1\s+\[USER\]\s+.*?\n\s*\[PLAYER\]\s+(\w) answers", text, re.S).group(1)
        second = re.search(r"# Conversation 2\s+\[USER\]\s+.*?\n\s*\[PLAYER\]\s+(\w) answers", text, re.S).group(1)
        situation = re.search(r"about (s\d)\.", text).group(1)
        shown_first.setdefault((situation, frozenset((first, second))), []).append(first)
    assert len(shown_first) == len(plans)
    assert all(sorted(firsts) == sorted(set(firsts)) and len(firsts) == 2 for firsts in shown_first.values())
    rows = store.db.execute("select session_a, session_b, shown, value, explanation, by from pair_scores"
                            " order by session_a, session_b, shown").fetchall()
    assert len(rows) == 2 * len(plans) and {r[2] for r in rows} == {"ab", "ba"}
    assert all(r[5] == "marker" and r[4].startswith("strength") for r in rows)
    for a, b, _, value, _, _ in rows:  # a consistent judge gives one value for session_a in both orders
        assert [r[3] for r in rows if (r[0], r[1]) == (a, b)] == [value, value]


async def test_a_judge_that_always_prefers_the_first_shown_yields_ties_not_wins(store, server, pool):
    respond_by_model(server)
    league(store)
    plans = plan_pairs(facts(store), "A")
    await judge_pairs(store, pool, "first-shown", plans)
    outcomes = pair_outcomes(store.conn, plans)
    assert {o.judged["first-shown"]["ab"].value for o in outcomes} == {1.0}
    assert {o.judged["first-shown"]["ba"].value for o in outcomes} == {0.0}
    assert {o.value("first-shown") for o in outcomes} == {0.5}
    report = compare_report(outcomes, "A", "first-shown", n_boot=100)
    for rate in report["win_rates"]:
        assert (rate["wins"], rate["losses"], rate["ties"], rate["win_rate"]) == (0, 0, 4, 0.5)
    assert {r["rating"] for r in report["ratings"]} == {1000.0}


async def test_ratings_of_three_players_follow_their_pairwise_wins_and_the_direct_fit(store, server, pool):
    respond_by_model(server)
    league(store)
    plans = plan_pairs(facts(store), "C")
    await judge_pairs(store, pool, "marker", plans)
    report = compare_report(pair_outcomes(store.conn, plans), "C", "marker", n_boot=200, rating_boot=50)
    rates = {r["player"]: r for r in report["win_rates"]}
    assert (rates["A"]["wins"], rates["A"]["losses"], rates["A"]["ties"]) == (3, 1, 0)
    assert (rates["B"]["wins"], rates["B"]["losses"], rates["B"]["ties"]) == (2, 1, 1)
    assert rates["A"]["win_rate"] == 0.75 and rates["B"]["win_rate"] == 0.625
    assert rates["A"]["ci_low"] <= 0.75 <= rates["A"]["ci_high"]
    ratings = {r["player"]: r for r in report["ratings"]}
    assert [r["player"] for r in report["ratings"]] == ["A", "B", "C"]
    assert [r["rank"] for r in report["ratings"]] == [1, 2, 3]
    # The same games, written down by hand, fitted by a plain maximum-likelihood fit.
    by_hand = ([Comparison("A", "B", 1.0)] * 3 + [Comparison("A", "B", 0.0)]
               + [Comparison("A", "C", 1.0)] * 3 + [Comparison("A", "C", 0.0)]
               + [Comparison("B", "C", 1.0)] * 2 + [Comparison("B", "C", 0.0), Comparison("B", "C", 0.5)])
    direct = independent_elo(by_hand)
    for player, expected in direct.items():
        assert ratings[player]["rating"] == pytest.approx(expected, abs=0.06)
        assert ratings[player]["ci_low"] <= ratings[player]["rating"] <= ratings[player]["ci_high"]


async def test_a_second_call_asks_only_for_what_failed(store, server, pool):
    respond_by_model(server)
    add(store, "A", "s1")
    add(store, "B", "s1")
    plans = plan_pairs(facts(store), "A")
    server.script(bad_request("no"), model="marker")  # the first request fails for good
    tally = await judge_pairs(store, pool, "marker", plans, concurrency=1)
    assert (tally.asked, tally.failed) == (2, 1)
    failed = store.db.execute("select shown, error from pair_scores where status = 'failed'").fetchall()
    assert len(failed) == 1 and "judge call failed" in failed[0][1]
    [outcome] = pair_outcomes(store.conn, plans)
    assert outcome.value("marker") is None  # one order alone is position bias, not a verdict: asked again
    before = len(server.chat_requests)
    tally = await judge_pairs(store, pool, "marker", plans)
    assert (tally.asked, tally.failed) == (1, 0) and len(server.chat_requests) == before + 1
    assert store.db.execute("select count(*) from pair_scores where status = 'ok'").fetchone()[0] == 2
    [outcome] = pair_outcomes(store.conn, plans)
    assert outcome.value("marker") is not None
    assert (await judge_pairs(store, pool, "marker", plans)).asked == 0


async def test_the_offline_judge_compares_deterministically(store):
    add(store, "A", "s1")
    add(store, "B", "s1")
    sid = add(store, "C", "s1")
    store.db.execute("update messages set text = ? where session_id = ? and role = 'assistant'",
                     ["I cannot help with that; as an AI language model I have no lighthouse.", sid])
    plans = plan_pairs(facts(store), "A")
    async with ModelPool({}) as offline_pool:
        await judge_pairs(store, offline_pool, "offline", plans)
    values = {(o.plan.player_a, o.plan.player_b): o.value("offline") for o in pair_outcomes(store.conn, plans)}
    assert values == {("A", "B"): 0.5, ("A", "C"): 1.0, ("B", "C"): 1.0}


# --- people -----------------------------------------------------------------------------------------

def judge_rows(store, a: int, b: int, value_ab: float, value_ba: float) -> None:
    for shown, value in (("ab", value_ab), ("ba", value_ba)):
        store.add_pair_verdict(a, b, "j", shown, Score(metric="pairwise", value=value, scale="0-1",
                                                       explanation=f"{shown} reason"))


def test_a_persons_preference_overrides_the_judge_and_the_newest_counts(store):
    a, b = add(store, "A", "s1"), add(store, "B", "s1")
    judge_rows(store, a, b, 1.0, 1.0)
    plans = plan_pairs(facts(store), "A")
    assert pair_outcomes(store.conn, plans)[0].value("j") == 1.0
    store.add_pair_preference(b, a, 1, "dana", "B is livelier", created_at="2026-01-02T10:00:00")
    [outcome] = pair_outcomes(store.conn, plans)
    assert outcome.value("j") == 0.0 and outcome.judge_value("j") == 1.0  # stored for session_a: B better
    assert (outcome.person.by, outcome.person.explanation, outcome.person.created_at) == (
        "dana", "B is livelier", "2026-01-02T10:00:00")
    store.add_pair_preference(a, b, "0.5", "eli", created_at="2026-01-02T11:00:00")
    [outcome] = pair_outcomes(store.conn, plans)
    assert outcome.value("j") == 0.5 and [p.by for p in outcome.people] == ["dana", "eli"]
    report = compare_report([outcome], "A", "j", n_boot=10, rating_boot=5)
    assert report["details"][0]["human"]["by"] == "eli" and report["details"][0]["outcome"] == 0.5
    assert report["details"][0]["judge"] == {"ab": 1.0, "ba": 1.0}


def test_preferences_are_checked(store):
    a, b = add(store, "A", "s1"), add(store, "B", "s1")
    other = add(store, "C", "s2")
    with pytest.raises(UserError, match="same method, character and situation"):
        store.add_pair_preference(a, other, 1, "dana")
    with pytest.raises(UserError, match=r"value must be 1 \(session 1 better\)"):
        store.add_pair_preference(a, b, 0.7, "dana")
    with pytest.raises(UserError, match="not compared with itself"):
        store.add_pair_preference(a, a, 1, "dana")
    with pytest.raises(UserError, match="session 99: no such session"):
        store.add_pair_preference(a, 99, 1, "dana")
    with pytest.raises(UserError, match="author"):
        store.add_pair_preference(a, b, 1, " ")
    again = add(store, "A", "s1")
    with pytest.raises(UserError, match="both were played by 'A'"):  # no view compares a player with itself
        store.add_pair_preference(a, again, 1, "dana")
    assert store.db.execute("select count(*) from pair_scores").fetchone()[0] == 0


def test_a_whole_conversation_score_needs_something_the_player_said(store):
    from pingpong.core.domain import SessionSpec, Situation

    sit = Situation(name="s9", lang="en", text="A sailor asks.", num_turns=1)
    silent = store.create_session(SessionSpec(character="keeper", situation="s9", player="A", interrogator="asker",
                                              judges=[], lang="en"), CARD, sit)
    store.set_status(silent, "failed", "the player's endpoint went away")
    with pytest.raises(UserError, match="has not said anything yet"):
        store.add_human_score(silent, None, "fluency", 3, "dana")


def test_an_ok_judge_verdict_is_never_rewritten_a_failed_one_is(store):
    a, b = add(store, "A", "s1"), add(store, "B", "s1")
    store.add_pair_verdict(a, b, "j", "ab", Score(metric="pairwise", scale="0-1", status="failed", error="boom"))
    store.add_pair_verdict(a, b, "j", "ab", Score(metric="pairwise", value=0.0, scale="0-1"))
    store.add_pair_verdict(a, b, "j", "ab", Score(metric="pairwise", value=1.0, scale="0-1"))
    assert store.db.execute("select value, status from pair_scores").fetchall() == [(0.0, "ok")]
    with pytest.raises(ValueError):
        store.add_pair_verdict(b, a, "j", "ab", Score(metric="pairwise", value=1.0, scale="0-1"))


def test_the_screen_lists_judged_pairs_and_a_sessions_unjudged_ones(store):
    a, b = add(store, "A", "s1"), add(store, "B", "s1")
    c = add(store, "C", "s1")
    judge_rows(store, a, b, 1.0, 0.0)
    assert pairs_to_show(store.conn) == [(a, b)]
    assert pairs_to_show(store.conn, c) == [(b, c), (a, c)]  # newest other session first
    assert pairs_to_show(store.conn, a) == [(a, b), (a, c)]
