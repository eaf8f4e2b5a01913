"""Whole sessions through the real openai client against the fake server."""

from __future__ import annotations

import json

from pingpong.core.domain import JudgeVerdict
from pingpong.core.engine import SessionEngine
from pingpong.core.events import (
    CallFinished,
    Delta,
    JudgeStarted,
    MessageCompleted,
    SessionFailed,
    SessionFinished,
    TurnStarted,
    VerdictReady,
)
from pingpong.core.llm import ModelPool
from tests.engine.conftest import FAST_RETRY, fake_spec
from tests.engine.engine_support import card, collect, messages, of, requests_for, situation, spec
from tests.fakeserver import bad_request, cut, default_responder, judge_json, rate_limit, reply, server_error


def engine(pool, **kw) -> SessionEngine:
    return SessionEngine(spec=kw.pop("spec", spec()), character=kw.pop("character", card()),
                         situation=kw.pop("situation", situation()), pool=pool, **kw)


def verdicts(events) -> dict[str, JudgeVerdict]:
    return {e.verdict.judge: e.verdict for e in of(events, VerdictReady)}


async def test_full_session_events_in_order(fake_server, fake_pool):
    events = await collect(engine(fake_pool))

    # the conversation: per turn TurnStarted, CallFinished, MessageCompleted for each side
    kinds = [type(e) for e in events if not isinstance(e, Delta)]
    per_turn = [TurnStarted, CallFinished, MessageCompleted] * 2
    assert kinds[:4 * 6] == per_turn * 4
    msgs = messages(events)
    assert [(m.turn, m.role, m.author) for m in msgs] == [
        (t, r, "interrogator" if r == "user" else "player")
        for t in range(1, 5) for r in ("user", "assistant")]
    assert all(m.text and m.prompt_tokens and m.completion_tokens for m in msgs)
    assert msgs[0].text.startswith("What do you do all day?")   # parsed out of the JSON

    # player text was streamed: the deltas of each reply join to the message
    for m in msgs[1::2]:
        assert "".join(d.text for d in of(events, Delta) if d.turn == m.turn) == m.text

    # then both judges, concurrently, then the end
    tail = [type(e) for e in events[events.index(of(events, JudgeStarted)[0]):]]
    assert tail[:2] == [JudgeStarted, JudgeStarted]
    assert tail[-1] is SessionFinished
    assert tail.count(VerdictReady) == 2
    found = verdicts(events)
    assert set(found) == {"judge-a", "judge-b"}
    for verdict in found.values():
        assert [t.turn for t in verdict.turns] == [1, 2, 3, 4]
        assert all(t.status == "ok" and t.in_character == 4 and t.fluency == 5 for t in verdict.turns)
        assert verdict.attempts == 1


async def test_prompts_reach_the_server_as_designed(fake_server, fake_pool):
    await collect(engine(fake_pool))
    player = requests_for(fake_server, "player")
    assert len(player) == 4
    first = player[0]["messages"]
    assert first[0]["role"] == "system" and "forty years" in first[0]["content"]
    # example dialogue as real turns, greeting as the first assistant message
    assert first[1:4] == [
        {"role": "user", "content": "Is the light ever off?"},
        {"role": "assistant", "content": "Not while I breathe."},
        {"role": "assistant", "content": "*squints at you* Another visitor. Wipe your boots."},
    ]
    assert first[-1]["role"] == "user"
    assert player[0]["temperature"] == 0.6 and player[0]["stream"] is True
    # the interrogator never sees the persona, only the summary
    inter = requests_for(fake_server, "interrogator")[0]
    text = json.dumps(inter["messages"])
    assert "forty years" not in text and "windy island" in text and "washed ashore" in text
    # the judge sees the whole card and numbered player turns
    judge = "\n".join(m["content"] for m in requests_for(fake_server, "judge-a")[0]["messages"])
    assert "forty years" in judge and "[PLAYER TURN 4]" in judge and "Score these player turns: 1, 2, 3, 4" in judge


async def test_faults_are_survived_and_visible(fake_server, fake_pool):
    fake_server.script(rate_limit(0.01), server_error(), cut("Half a sentence that never", after=1),
                       model="player")
    events = await collect(engine(fake_pool))
    calls = [e.call for e in of(events, CallFinished) if e.call.role == "player" and e.call.turn == 1]
    assert [c.status for c in calls] == ["retry", "retry", "retry", "ok"]
    # the cut stream's text was streamed, then withdrawn by the retry record, never completed
    idx = events.index(next(e for e in events if isinstance(e, Delta) and "Half" in e.text))
    retry_after = next(e for e in events[idx:] if isinstance(e, CallFinished))
    assert retry_after.call.status == "retry"
    reply1 = messages(events)[1]
    assert "Half a sentence" not in reply1.text and reply1.attempt == 4
    assert isinstance(events[-1], SessionFinished)


async def test_slow_answer_past_the_timeout_is_retried(fake_server, fake_specs):
    specs = dict(fake_specs, player=fake_spec(fake_server, "player", timeout=1.0))
    fake_server.script(reply("too slow", delay=4.0), model="player")
    async with ModelPool(specs, retry=FAST_RETRY) as pool:
        events = await collect(engine(pool, spec=spec(judges=[]), situation=situation(1)))
    statuses = [e.call.status for e in of(events, CallFinished) if e.call.role == "player"]
    assert statuses == ["retry", "ok"]
    assert messages(events)[1].text != "too slow"


async def test_malformed_judge_json_is_reasked(fake_server, fake_pool):
    fake_server.script("Here are my scores: {\"scores\": [{\"turn\": 1, oops", model="judge-a")
    events = await collect(engine(fake_pool))
    verdict = verdicts(events)["judge-a"]
    assert verdict.attempts == 2 and all(t.status == "ok" for t in verdict.turns)
    second = requests_for(fake_server, "judge-a")[1]["messages"]
    assert second[-2] == {"role": "assistant", "content": "Here are my scores: {\"scores\": [{\"turn\": 1, oops"}
    assert second[-1]["role"] == "user" and "1, 2, 3, 4" in second[-1]["content"]


async def test_judge_with_extra_turns_keeps_only_real_ones(fake_server, fake_pool):
    fake_server.script(judge_json([1, 2, 3, 4, 5, 6]), model="judge-a")
    events = await collect(engine(fake_pool))
    verdict = verdicts(events)["judge-a"]
    assert [t.turn for t in verdict.turns] == [1, 2, 3, 4]
    assert verdict.attempts == 1 and len(requests_for(fake_server, "judge-a")) == 1


async def test_judge_with_missing_turns_reasks_then_fails_them(fake_server, fake_pool):
    fake_server.script(judge_json([1, 2]), judge_json([3]), model="judge-a")
    events = await collect(engine(fake_pool))
    verdict = verdicts(events)["judge-a"]
    by_turn = {t.turn: t for t in verdict.turns}
    assert [by_turn[t].status for t in (1, 2, 3, 4)] == ["ok", "ok", "ok", "failed"]
    assert by_turn[4].in_character is None and "4" in by_turn[4].error
    reask = requests_for(fake_server, "judge-a")[1]["messages"][-1]["content"]
    assert "3, 4" in reask and "1, 2, 3" not in reask
    assert verdicts(events)["judge-b"].attempts == 1   # the other judge was unaffected


async def test_judge_refusing_or_failing_is_a_failed_verdict(fake_server, fake_pool):
    fake_server.script("I can't help with that.", "I'm sorry, I can't help with that.", model="judge-a")
    fake_server.script(bad_request("model does not exist"), model="judge-b")
    events = await collect(engine(fake_pool))
    found = verdicts(events)
    assert all(t.status == "failed" for t in found["judge-a"].turns)
    assert "declined" in found["judge-a"].turns[0].error
    assert all(t.status == "failed" and "judge call failed" in t.error for t in found["judge-b"].turns)
    assert isinstance(events[-1], SessionFinished) and not of(events, SessionFailed)


async def test_interrogator_invalid_json_is_reasked(fake_server, fake_pool):
    fake_server.script("Hello there, lighthouse lady!", model="interrogator")
    events = await collect(engine(fake_pool, spec=spec(judges=[]), situation=situation(1)))
    first = messages(events)[0]
    assert first.text.startswith("What do you do all day?")
    assert first.attempt == 2   # two requests made this message
    bodies = requests_for(fake_server, "interrogator")
    assert len(bodies) == 2 and bodies[1]["messages"][-2]["content"] == "Hello there, lighthouse lady!"
    assert "next_utterance" in bodies[1]["messages"][-1]["content"]


async def test_interrogator_invalid_twice_fails_the_session(fake_server, fake_pool):
    fake_server.script("no json", "still no json", model="interrogator")
    events = await collect(engine(fake_pool))
    assert isinstance(events[-1], SessionFailed)
    assert events[-1].role == "interrogator" and events[-1].model == "interrogator"
    assert not messages(events) and not of(events, SessionFinished)


async def test_player_failure_fails_the_session_keeping_messages(fake_server, fake_pool):
    fake_server.script(bad_request("context too long"), model="player")
    events = await collect(engine(fake_pool))
    failed = events[-1]
    assert isinstance(failed, SessionFailed) and failed.role == "player" and failed.model == "player"
    assert "context too long" in failed.error
    assert [(m.turn, m.role) for m in messages(events)] == [(1, "user")]


async def test_template_syntax_in_cards_reaches_the_model_verbatim(fake_server, fake_pool):
    nasty = "Edda counts {{ 7*7 }} gulls. {% for x in y %}loop{% endfor %} {{ undefined_name }}"
    character = card(persona=nasty, summary="Keeper {{ 7*7 }} {% for x in y %}")
    sit = situation(1, text="Ask about {{ 7*7 }} and {% for x in y %}.")
    await collect(engine(fake_pool, character=character, situation=sit))
    player_system = requests_for(fake_server, "player")[0]["messages"][0]["content"]
    assert nasty in player_system
    inter = "\n".join(m["content"] for m in requests_for(fake_server, "interrogator")[0]["messages"])
    assert "Keeper {{ 7*7 }} {% for x in y %}" in inter and "Ask about {{ 7*7 }} and {% for x in y %}." in inter
    judge = "\n".join(m["content"] for m in requests_for(fake_server, "judge-b")[0]["messages"])
    assert nasty in judge and "49" not in judge


async def test_version_1_tester_scores_each_reply_on_three_ten_point_metrics(fake_server, fake_pool):
    events = await collect(engine(fake_pool, spec=spec(version=1, judges=[]), situation=situation(3)))
    found = [e.verdict for e in of(events, VerdictReady)]
    assert [(v.judge, v.turns[0].turn, v.turns[0].in_character, v.turns[0].fluency, v.turns[0].entertaining,
             v.turns[0].is_refusal) for v in found] == [("interrogator", t, 7.0, 8.0, 6.0, False) for t in (1, 2, 3)]
    assert {s.scale for v in found for s in v.scores if s.metric != "is_refusal"} == {"1-10"}
    tester = fake_server.chat_requests[0].body
    assert (tester["temperature"], tester["top_p"]) == (0.1, 0.9)
    # the score for turn n arrives before the user message of turn n+1
    order = [(type(e).__name__, getattr(getattr(e, "message", None), "turn", None)) for e in events
             if isinstance(e, (VerdictReady, MessageCompleted))]
    assert order.index(("VerdictReady", None)) == order.index(("MessageCompleted", 1)) + 2
    first = requests_for(fake_server, "interrogator")[0]["messages"]
    assert "forty years" in first[0]["content"]   # version 1 sees the full card
    assert len(requests_for(fake_server, "interrogator")) == 4   # 3 lines + the final score
    assert isinstance(events[-1], SessionFinished)


async def test_offline_model_in_every_seat(fake_pool):
    events = await collect(engine(fake_pool, spec=spec(player="offline", interrogator="offline",
                                                        judges=["offline"])))
    msgs = messages(events)
    assert len(msgs) == 8 and all(m.text.startswith("[offline]") for m in msgs)
    verdict = verdicts(events)["offline"]
    assert [t.turn for t in verdict.turns] == [1, 2, 3, 4]
    assert all(t.status == "ok" and 1 <= t.in_character <= 5 for t in verdict.turns)
    assert isinstance(events[-1], SessionFinished)


async def test_version_1_stops_at_the_first_refusal(fake_server, fake_pool):
    def refuse_second(body, counter=0):
        text = json.dumps(body)
        if "next_user_utterance" in text and "Score player turn 2" in text:
            return json.dumps({"is_refusal_explanation": "declines", "is_refusal": True,
                               "stay_in_character": 1, "language_fluency": 5, "entertainment": 1,
                               "next_user_utterance": "Why not?"})
        return default_responder(body, counter)

    fake_server.responder = refuse_second
    events = await collect(engine(fake_pool, spec=spec(version=1, judges=[]), situation=situation(4)))
    msgs = messages(events)
    assert [(m.turn, m.role) for m in msgs] == [(1, "user"), (1, "assistant"), (2, "user"), (2, "assistant")]
    scored = [(v.turns[0].turn, v.turns[0].is_refusal) for v in (e.verdict for e in of(events, VerdictReady))]
    assert scored == [(1, False), (2, True)]
    assert isinstance(events[-1], SessionFinished)


async def test_a_consumer_that_wants_no_deltas_gets_none_but_the_same_messages(fake_server, fake_pool):
    events = await collect(engine(fake_pool, deltas=None))

    assert not of(events, Delta)
    replies = [m for m in messages(events) if m.role == "assistant"]
    assert len(replies) == 4 and all(m.text for m in replies)   # the reply was still streamed whole
    assert all(r.body.get("stream") for r in fake_server.requests if r.body["model"] == "player")


async def test_version_1_re_ask_shows_the_testers_own_format_and_its_answer_counts(fake_server, fake_pool):
    """The re-ask once asked for another JSON ("score", "next_utterance"): a tester that obeyed it
    failed every time."""
    asked = {"turn 1": 0}

    def bad_first(body, counter=0):
        text = json.dumps(body)
        if "Score player turn 1" in text and not asked["turn 1"]:
            asked["turn 1"] += 1
            return json.dumps({"is_refusal_explanation": "-", "is_refusal": False, "stay_in_character": 7,
                               "language_fluency": "eight", "entertainment": 6, "next_user_utterance": "Go on."})
        return default_responder(body, counter)

    fake_server.responder = bad_first
    events = await collect(engine(fake_pool, spec=spec(version=1, judges=[]), situation=situation(2)))
    reask = [r for r in requests_for(fake_server, "interrogator") if "could not be used" in json.dumps(r)]
    assert len(reask) == 1
    note = reask[0]["messages"][-1]["content"]
    assert '"stay_in_character": <1-10>' in note and '"next_user_utterance": "..."' in note and '"score"' not in note
    first = [v for v in (e.verdict for e in of(events, VerdictReady)) if v.turns[0].turn == 1][0]
    assert first.turns[0].status == "ok" and first.turns[0].fluency == 8.0


async def test_a_refusal_flag_without_scores_is_a_refusal_in_both_versions(fake_server, fake_pool):
    """METHOD.md leaves a refusal's scores out, so a judge or tester that flags one without them is
    not a failed turn: v1 stops there, v2 keeps the flag."""
    def refuse_without_scores(body, counter=0):
        text = json.dumps(body)
        if "Score player turn 1" in text:
            return json.dumps({"is_refusal_explanation": "declines", "is_refusal": True, "next_user_utterance": "Hm?"})
        if "in_character_score" in text:
            return json.dumps({"scores": [{"turn": 1, "is_refusal": True, "is_refusal_explanation": "declines"}]})
        return default_responder(body, counter)

    fake_server.responder = refuse_without_scores
    v1 = await collect(engine(fake_pool, spec=spec(version=1, judges=[]), situation=situation(3)))
    assert [(m.turn, m.role) for m in messages(v1)] == [(1, "user"), (1, "assistant")]  # stopped at the refusal
    [tester] = [e.verdict for e in of(v1, VerdictReady)]
    assert [(s.metric, s.value, s.status) for s in tester.scores] == [("is_refusal", 1.0, "ok")]
    v2 = await collect(engine(fake_pool, situation=situation(1)))
    for verdict in verdicts(v2).values():
        assert [(s.metric, s.value, s.status) for s in verdict.scores] == [("is_refusal", 1.0, "ok")]
