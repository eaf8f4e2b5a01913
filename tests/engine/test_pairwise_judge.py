"""A judge compares two conversations (METHOD.md "RoleLLM"): the request it gets through the real client,
how its answer is read, the re-ask, failures, and the offline model's deterministic verdicts."""

from __future__ import annotations

import json

import pytest

from pingpong.core.domain import Message
from pingpong.core.judging import ParseError
from pingpong.core.llm import ChatRequest
from pingpong.core.offline import answer
from pingpong.core.pairwise import judge_pair, pair_label, parse_pairwise
from tests.engine.engine_support import card, requests_for, situation
from tests.fakeserver import bad_request, reply, server_error


def talk(*replies: str) -> list[Message]:
    out = []
    for turn, text in enumerate(replies, 1):
        out.append(Message(turn=turn, role="user", author="asker", text=f"Question {turn} about the storm?"))
        out.append(Message(turn=turn, role="assistant", author="p", text=text))
    return out


GOOD = talk("*Edda squints at the sea* Forty years I have kept this lighthouse; the gulls know me, the mainland "
            "does not. Sit, dry your boots, and mind the lamp!")
FLAT = talk("I cannot help with that. As an AI language model I do not keep lighthouses.")


@pytest.mark.parametrize(("text", "choice", "reason"), [
    ('{"reason": "1 stays in role.", "better": "1"}', "first", "1 stays in role."),
    ('Here you go:\n```json\n{"reason": "sharper", "better": 2}\n```', "second", "sharper"),
    ("{'explanation': 'equal', 'winner': 'Tie'}", "tie", "equal"),
    ('{"better": "Conversation 2."}', "second", None),
    ('{"reason": "x", "better": "first",}', "first", "x"),
])
def test_answers_are_read_leniently(text, choice, reason):
    assert parse_pairwise(text) == (choice, reason)


@pytest.mark.parametrize(("text", "problem"), [
    ("", "empty"),
    ("Conversation 1 is better.", "no JSON object"),
    ('{"reason": "both fine"}', 'no "better" field'),
    ('{"better": "3"}', 'must be "1", "2" or "tie"'),
    ('{"better": true}', 'must be "1", "2" or "tie"'),
    ("I'm sorry, but I cannot compare these.", "declined"),
])
def test_unusable_answers_say_why(text, problem):
    with pytest.raises(ParseError, match=problem):
        parse_pairwise(text)


def test_choices_map_to_the_pairs_own_labels_whichever_was_shown_first():
    assert [pair_label(c, a_first=True) for c in ("first", "second", "tie")] == ["a", "b", "tie"]
    assert [pair_label(c, a_first=False) for c in ("first", "second", "tie")] == ["b", "a", "tie"]


async def test_the_request_shows_both_conversations_in_the_order_given(fake_server, fake_pool):
    fake_server.script(reply('{"reason": "Conversation 2 keeps the voice.", "better": "2"}'), model="judge-a")
    result = await judge_pair(fake_pool, "judge-a", card(), situation(1), FLAT, GOOD)
    assert (result.choice, result.reason, result.error, result.requests) == (
        "second", "Conversation 2 keeps the voice.", None, 1)
    [body] = requests_for(fake_server, "judge-a")
    assert body["temperature"] == 0.1 and body.get("stream") is not True  # a judge's sampling, not streamed
    system, user = body["messages"]
    assert "Edda has kept the lighthouse" in user["content"]
    assert "ask for shelter" in user["content"]  # the situation
    first, second = user["content"].index("# Conversation 1"), user["content"].index("# Conversation 2")
    assert first < user["content"].index("As an AI language model") < second < user["content"].index("Forty years")
    assert "order" in system["content"] and '"better"' in system["content"]


async def test_the_judge_reads_the_card_as_the_players_did_and_other_members_under_their_names(fake_server,
                                                                                              fake_pool):
    """{{char}} and {{user}} are replaced as in the players' prompts; in a group scene a line another
    member spoke is not shown as the player's."""
    fake_server.script(reply('{"reason": "r", "better": "1"}'), model="judge-a")
    scene = [*GOOD, Message(turn=2, role="assistant", author="asker", text="I keep the ferry.", speaker="ferryman")]
    keeper = card(persona="{{char}} has kept the lighthouse for forty years and calls {{user}} 'gull'.")
    await judge_pair(fake_pool, "judge-a", keeper, situation(1), scene, FLAT, user_name="Alex")
    user = requests_for(fake_server, "judge-a")[0]["messages"][1]["content"]
    assert "Edda has kept the lighthouse for forty years and calls Alex 'gull'." in user and "{{" not in user
    assert "[ferryman: another member of the scene, not the player]\nI keep the ferry." in user
    assert user.count("[PLAYER]") == 2  # the keeper's reply in each conversation


async def test_an_unusable_answer_is_asked_again_once(fake_server, fake_pool):
    fake_server.script(reply("The first one, clearly."), reply('{"reason": "ok", "better": "tie"}'), model="judge-a")
    result = await judge_pair(fake_pool, "judge-a", card(), situation(1), GOOD, FLAT)
    assert (result.choice, result.requests) == ("tie", 2)
    again = requests_for(fake_server, "judge-a")[1]["messages"]
    assert again[-2] == {"role": "assistant", "content": "The first one, clearly."}
    assert "could not be used" in again[-1]["content"] and "no JSON object" in again[-1]["content"]


async def test_two_unusable_answers_make_a_failed_judgement_with_the_reason(fake_server, fake_pool):
    fake_server.script(reply("no idea"), reply('{"better": "both of them"}'), model="judge-a")
    result = await judge_pair(fake_pool, "judge-a", card(), situation(1), GOOD, FLAT)
    assert result.choice is None and result.requests == 2
    assert "after a re-ask" in result.error and "both of them" in result.error


async def test_a_call_that_fails_for_good_is_a_failed_judgement(fake_server, fake_pool):
    fake_server.script(bad_request(), model="judge-a")  # not retried
    fake_server.script(*[server_error()] * 10, model="judge-b")  # retried until the attempts run out
    for judge in ("judge-a", "judge-b"):
        result = await judge_pair(fake_pool, judge, card(), situation(1), GOOD, FLAT)
        assert result.choice is None and result.error.startswith("judge call failed:")


async def test_an_unknown_judge_is_a_failed_judgement_not_a_crash(fake_pool):
    result = await judge_pair(fake_pool, "nobody", card(), situation(1), GOOD, FLAT)
    assert result.choice is None and "nobody" in result.error and result.requests == 0


def offline_choice(first, second, character=None) -> tuple[str, str]:
    text = answer(ChatRequest(task="pairwise", messages=[], context={
        "character": character or card(), "situation": situation(1), "first": first, "second": second}))
    data = json.loads(text)
    return data["better"], data["reason"]


def test_offline_prefers_the_reply_that_stays_in_role_in_both_orders():
    assert offline_choice(GOOD, FLAT)[0] == "1"
    assert offline_choice(FLAT, GOOD)[0] == "2"
    better, reason = offline_choice(GOOD, FLAT)
    assert reason.startswith("[offline]") and "conversation 1" in reason


def test_offline_calls_the_same_replies_a_tie_and_is_deterministic():
    assert offline_choice(GOOD, GOOD)[0] == "tie"
    assert offline_choice(GOOD, FLAT) == offline_choice(GOOD, FLAT)
    assert offline_choice([], [])[0] == "tie"


async def test_offline_judges_through_the_pool(fake_pool):
    result = await judge_pair(fake_pool, "offline", card(), situation(1), FLAT, GOOD)
    assert result.choice == "second" and result.reason.startswith("[offline]")
