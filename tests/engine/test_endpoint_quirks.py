"""OpenAI-compatible servers as they are met in the wild (qa2-endpoints): reasoning written into
the reply, bodies held open after [DONE], finish reasons other than stop and length, streams
answered as whole JSON or HTML, fields a server refuses. Every case goes through the real
openai client to the fake server on 127.0.0.1."""

from __future__ import annotations

import json

import pytest

from pingpong.core.engine import SessionEngine
from pingpong.core.events import CallFinished, MessageCompleted, SessionFailed, SessionFinished
from pingpong.core.llm import ChatRequest, ModelCallError, ModelPool
from tests.engine.conftest import FAST_RETRY, fake_spec
from tests.engine.engine_support import card, collect, of, requests_for, situation, spec
from tests.fakeserver import bad_request, error, judge_json, raw, reply

MSGS = [{"role": "user", "content": "Hello?"}]
ANSWER = "Ah, good day to you! The weather suits my mood."


def engine(pool, turns: int = 1, judges: tuple[str, ...] = ("judge-a",)) -> SessionEngine:
    return SessionEngine(spec=spec(judges=list(judges)), character=card(), situation=situation(turns), pool=pool)


def player_messages(events) -> list:
    return [e.message for e in of(events, MessageCompleted) if e.message.role == "assistant"]


async def call(pool, name: str, task: str = "player"):
    """(completion or None, the attempts' records, the error or None)."""
    calls: list = []
    try:
        return await pool.get(name).complete(ChatRequest(task, MSGS), on_call=calls.append), calls, None
    except ModelCallError as exc:
        return None, calls, exc


def completion(text: str, finish: str = "stop") -> dict:
    return {"id": "c1", "object": "chat.completion", "created": 1, "model": "m",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": finish}]}


# -- #1: a reasoning model's inline thinking is not the character's words

@pytest.mark.parametrize("written", [
    "<think>\nThe user says hello. I am an AI playing a character.\n</think>\n\n" + ANSWER,
    "The user says hello. I am an AI playing a character.\n</think>\n\n" + ANSWER,  # the template opened the tag
], ids=["think-block", "template-opened-the-tag"])
async def test_the_players_inline_reasoning_is_not_stored_as_its_reply(fake_server, fake_pool, written):
    fake_server.script(reply(written), model="player")
    events = await collect(engine(fake_pool))
    assert of(events, SessionFinished)
    (message,) = player_messages(events)
    assert message.text == ANSWER
    judged = json.dumps(requests_for(fake_server, "judge-a"))
    assert "I am an AI" not in judged and ANSWER[:20] in judged  # the judge reads the answer only


async def test_a_reply_that_is_only_reasoning_counts_as_empty_and_says_so(fake_server, fake_pool):
    unfinished = "<think>\nThe user says hello. I am an AI playing a character; I should"
    fake_server.script(*[reply(unfinished, finish_reason="length")] * 2, model="player")
    events = await collect(engine(fake_pool))
    (failed,) = of(events, SessionFailed)
    assert "fewer than 2 characters" in failed.error and "only reasoning, no answer" in failed.error
    assert not player_messages(events)


# -- #3: once [DONE] has come, the reply is whole

async def test_a_stream_held_open_after_done_is_used_at_once(fake_server):
    spec_ = fake_spec(fake_server, "held", timeout=2.0, deadline=60)
    fake_server.script(reply(ANSWER, hold=30), reply("the next call"), model="held")
    async with ModelPool({"held": spec_}, retry=FAST_RETRY) as pool:
        first, calls, _ = await call(pool, "held")
        second, _, _ = await call(pool, "held")  # the held socket was closed, not reused
    assert first is not None and first.text == ANSWER and [c.status for c in calls] == ["ok"]
    assert second is not None and second.text == "the next call"


# -- #4: finish reasons other than stop and length

async def test_a_reply_stopped_by_a_content_filter_carries_the_reason(fake_server, fake_pool):
    fake_server.script(reply("Ah, good day to", finish_reason="content_filter"), model="player")
    events = await collect(engine(fake_pool))
    (message,) = player_messages(events)
    assert message.notes == {"finish_reason": "content_filter"}
    assert message.ending == "stopped by the provider's content filter" and not message.truncated


async def test_an_empty_reply_names_its_finish_reason(fake_server, fake_pool):
    fake_server.script(*[reply("", finish_reason="content_filter")] * 2, model="player")
    events = await collect(engine(fake_pool))
    (failed,) = of(events, SessionFailed)
    assert "finish_reason: content_filter" in failed.error and "content filter" in failed.error


async def test_a_reply_ended_by_an_error_finish_is_asked_again(fake_server, fake_pool):
    fake_server.script(reply("Ah, good day", finish_reason="error"), reply(ANSWER), model="player")
    events = await collect(engine(fake_pool))
    (message,) = player_messages(events)
    assert message.text == ANSWER and message.notes == {}
    player_calls = [e.call for e in of(events, CallFinished) if e.call.role == "player"]
    assert [c.status for c in player_calls] == ["retry", "ok"] and "finish_reason" in player_calls[0].error


# -- #6: a server that refuses stream_options

@pytest.mark.parametrize("refusal", [
    bad_request("Unrecognized request argument supplied: stream_options"),
    error(422, "stream_options: extra fields not permitted"),
], ids=["400", "422"])
async def test_stream_options_refused_are_left_out_from_then_on(fake_server, refusal):
    spec_ = fake_spec(fake_server, "strict")
    fake_server.script(refusal, reply("first"), reply("second"), model="strict")
    async with ModelPool({"strict": spec_}, retry=FAST_RETRY) as pool:
        first, calls, _ = await call(pool, "strict")
        second, _, _ = await call(pool, "strict")
    assert first is not None and first.text == "first" and [c.status for c in calls] == ["retry", "ok"]
    assert second is not None and second.text == "second"
    bodies = requests_for(fake_server, "strict")
    assert "stream_options" in bodies[0] and all("stream_options" not in b for b in bodies[1:])


# -- #7, #8: what a body is does not hang on its content type

async def test_a_json_answer_labelled_as_text_is_read_as_json(fake_server):
    spec_ = fake_spec(fake_server, "judge")
    fake_server.script(raw(json.dumps(completion('{"ok": true}')), content_type="text/plain; charset=utf-8"))
    async with ModelPool({"judge": spec_}, retry=FAST_RETRY) as pool:
        answer, _, exc = await call(pool, "judge", "judge")
    assert exc is None and answer is not None and answer.text == '{"ok": true}'


async def test_a_stream_answered_with_whole_json_is_read_whole(fake_server):
    spec_ = fake_spec(fake_server, "plain")
    fake_server.script(raw(completion(ANSWER)), model="plain")
    async with ModelPool({"plain": spec_}, retry=FAST_RETRY) as pool:
        answer, calls, exc = await call(pool, "plain")
    assert exc is None and answer is not None and answer.text == ANSWER and answer.finish_reason == "stop"
    assert [c.status for c in calls] == ["ok"]


async def test_a_stream_answered_with_an_html_page_fails_once_and_says_what_came(fake_server):
    spec_ = fake_spec(fake_server, "proxy")
    fake_server.script(*[raw("<html>Please log in</html>", content_type="text/html")] * 8, model="proxy")
    async with ModelPool({"proxy": spec_}, retry=FAST_RETRY) as pool:
        _, calls, exc = await call(pool, "proxy")
    assert exc is not None and not exc.retryable and len(calls) == 1
    assert "text/html" in exc.reason and "base_url" in exc.reason


# -- #9: why an answer was empty or unusable

async def test_a_player_whose_reasoning_used_the_budget_is_told_to_raise_max_tokens(fake_server, fake_pool):
    fake_server.script(*[reply("", reasoning="Hmm, the user greets me. I should say", finish_reason="length")] * 2,
                       model="player")
    events = await collect(engine(fake_pool))
    (failed,) = of(events, SessionFailed)
    assert "finish_reason: length" in failed.error and "reasoning used the budget" in failed.error
    assert "raise max_tokens in [models.player.params]" in failed.error


async def test_a_judge_answer_cut_at_max_tokens_says_so(fake_server, fake_pool):
    cut_json = judge_json([1])[:40]
    fake_server.script(*[reply(cut_json, finish_reason="length")] * 2, model="judge-a")
    events = await collect(engine(fake_pool))
    (verdict,) = [e.verdict for e in events if type(e).__name__ == "VerdictReady"]
    errors = {s.error for s in verdict.scores}
    assert len(errors) == 1 and "cut at max_tokens; raise max_tokens in [models.judge-a.params]" in errors.pop()


# -- #10: a 404 says where it posted

async def test_a_404_names_the_url_and_asks_about_v1(fake_server):
    spec_ = fake_spec(fake_server, "no-v1").model_copy(update={"base_url": fake_server.base_url.removesuffix("/v1")})
    fake_server.script(raw({"detail": "Not Found"}, status=404), model="no-v1")
    async with ModelPool({"no-v1": spec_}, retry=FAST_RETRY) as pool:
        _, calls, exc = await call(pool, "no-v1")
    assert exc is not None and len(calls) == 1
    assert f"posted to {spec_.base_url}/chat/completions" in exc.reason
    assert "Not Found" in exc.reason and "does base_url need /v1?" in exc.reason


async def test_a_404_names_the_url_without_the_password_in_it(fake_server):
    url = fake_server.base_url.replace("http://", "http://qa:PWsecret987@")
    spec_ = fake_spec(fake_server, "locked").model_copy(update={"base_url": url})
    fake_server.script(raw({"detail": "Not Found"}, status=404), model="locked")
    async with ModelPool({"locked": spec_}, retry=FAST_RETRY) as pool:
        _, _, exc = await call(pool, "locked")
    assert exc is not None and "PWsecret987" not in exc.reason and "posted to http://qa:***@127.0.0.1" in exc.reason


# -- #12: a key a proxy wrote into the reply is not stored

async def test_an_api_key_echoed_into_a_reply_is_scrubbed(fake_server, monkeypatch):
    key = "sk-qa-SECRETKEY-1234567890abcdef"
    monkeypatch.setenv("PINGPONG_TEST_KEY", key)
    spec_ = fake_spec(fake_server, "echo", api_key_env="PINGPONG_TEST_KEY")
    fake_server.script(reply(f"Debug: your header was Bearer {key}. " + ANSWER), model="echo")
    async with ModelPool({"echo": spec_}, retry=FAST_RETRY) as pool:
        answer, _, _ = await call(pool, "echo")
    assert answer is not None and "SECRETKEY" not in answer.text and "Bearer ***" in answer.text


async def test_a_key_written_with_json_escapes_is_scrubbed_before_the_answer_is_parsed(fake_server, monkeypatch):
    """A judge's or interrogator's answer is JSON: a key in it may be spelt with escapes that
    decode to the key only once parsed (into an explanation or the next user message)."""
    import json

    key = "sk-QA/secret/KEY1234567890"
    monkeypatch.setenv("PINGPONG_TEST_KEY", key)
    spelt = key.replace("/", "\\/").replace("s", "\\u0073", 1)
    fake_server.script(reply('{"next_utterance": "user says ' + spelt + ' twice: ' + key.upper() + '"}'), model="echo")
    async with ModelPool({"echo": fake_spec(fake_server, "echo", api_key_env="PINGPONG_TEST_KEY")},
                         retry=FAST_RETRY) as pool:
        answer, _, _ = await call(pool, "echo")
    assert answer is not None and json.loads(answer.text) == {"next_utterance": "user says *** twice: ***"}


async def test_a_draft_never_holds_a_key_whole_or_begun(fake_server, monkeypatch):
    """A draft is the reply so far, stored and drawn as it streams: a key may be cut anywhere."""
    key = "sk-qa-DRAFTKEY-1234567890abcdef"
    monkeypatch.setenv("PINGPONG_TEST_KEY", key)
    async with ModelPool({"echo": fake_spec(fake_server, "echo", api_key_env="PINGPONG_TEST_KEY")}) as pool:
        pool.get("echo")
        text = f"Bearer {key} ask again"
        drafts = [pool.scrub_draft(text[:n]) for n in range(len(text) + 1)]
    assert all(key[:4].lower() not in d.lower() for d in drafts)
    assert drafts[-1] == "Bearer *** ask again" and drafts[6] == "Bearer" and drafts[10] == "Bearer sk-"


async def test_an_interrogator_or_v1_tester_that_only_reasons_says_so_once(fake_server, fake_pool):
    """The failure line of every seat that reads JSON gives the reason, and only once: the pingpong
    interrogator said "only reasoning" twice, v1's tester and DMT's generator not at all."""
    thinking = "<think>\nWhat should the user say next? Let me think about the character"
    fake_server.script(*[reply(thinking, finish_reason="length")] * 2, model="interrogator")
    (failed,) = of(await collect(engine(fake_pool)), SessionFailed)
    assert failed.error.count("only reasoning") == 1 and "raise max_tokens" in failed.error, failed.error
    fake_server.script(*[reply(thinking, finish_reason="length")] * 2, model="interrogator")
    v1 = SessionEngine(spec=spec(method="pingpong-v1", judges=["interrogator"]), character=card(),
                       situation=situation(1), pool=fake_pool)
    (failed,) = of(await collect(v1), SessionFailed)
    assert failed.error.count("only reasoning") == 1 and "raise max_tokens" in failed.error, failed.error
