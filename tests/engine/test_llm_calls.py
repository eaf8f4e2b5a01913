"""Ordinary calls through the real openai client: streaming, usage, params, merge_system, keys."""

from __future__ import annotations

import pytest

from pingpong.core.domain import ModelSpec
from pingpong.core.errors import UserError
from pingpong.core.llm import ROLE_DEFAULTS, TASK_DEFAULTS, ChatRequest, ModelPool, merge_system
from tests.engine.conftest import FAST_RETRY, fake_spec
from tests.fakeserver import bad_request, reply

MSGS = [{"role": "system", "content": "You are Ada."}, {"role": "user", "content": "Hello?"}]


async def test_streamed_answer_with_usage(fake_server, fake_pool):
    fake_server.script(reply("Good evening, traveller. The lamp is lit."))
    deltas, calls = [], []
    c = await fake_pool.get("player").complete(ChatRequest("player", MSGS, turn=1),
                                               on_delta=deltas.append, on_call=calls.append)
    assert c.text == "Good evening, traveller. The lamp is lit."
    assert "".join(deltas) == c.text and len(deltas) > 1
    assert c.tokens_estimated is False and c.completion_tokens == 7 and c.prompt_tokens > 0
    assert c.attempts == 1 and c.finish_reason == "stop"
    assert [(r.status, r.attempt, r.role, r.model, r.turn) for r in calls] == [("ok", 1, "player", "player", 1)]
    assert calls[0].completion_tokens == 7 and calls[0].tokens_estimated is False
    body = fake_server.chat_requests[0].body
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert body["messages"] == MSGS and body["model"] == "player"
    stats = fake_pool.stats.total()
    assert (stats.requests, stats.ok, stats.completion_tokens, stats.in_flight) == (1, 1, 7, 0)
    assert fake_pool.stats.per_model["player"].ok == 1


async def test_missing_usage_is_estimated(fake_server, fake_pool):
    fake_server.script(reply("No usage comes with this answer at all.", usage=False))
    calls = []
    c = await fake_pool.get("player").complete(ChatRequest("player", MSGS), on_call=calls.append)
    assert c.tokens_estimated is True and c.prompt_tokens > 0 and c.completion_tokens > 0
    assert calls[0].tokens_estimated is True


@pytest.mark.parametrize("task,role", [("player", "player"), ("interrogator", "interrogator"),
                                       ("judge", "judge"), ("interrogator_judge", "interrogator")])
async def test_role_defaults(fake_server, fake_pool, task, role):
    calls = []
    await fake_pool.get("player").complete(ChatRequest(task, MSGS), on_call=calls.append)
    body = fake_server.chat_requests[0].body
    want = {**ROLE_DEFAULTS[role], **TASK_DEFAULTS.get(task, {})}  # v1's tester runs at 0.1 / 0.9
    assert (body["temperature"], body["top_p"]) == (want["temperature"], want["top_p"])
    assert calls[0].role == role


async def test_params_merge_spec_then_request(fake_server):
    spec = fake_spec(fake_server, "rep", params={"temperature": 0.3, "frequency_penalty": 0.5, "max_tokens": 64})
    async with ModelPool({"rep": spec}, retry=FAST_RETRY) as pool:
        await pool.get("rep").complete(ChatRequest("judge", MSGS, params={"top_p": 0.5, "max_tokens": 32}))
    body = fake_server.chat_requests[0].body
    assert body["temperature"] == 0.3 and body["top_p"] == 0.5
    assert body["frequency_penalty"] == 0.5 and body["max_tokens"] == 32


async def test_merge_system(fake_server):
    spec = fake_spec(fake_server, "nosys", merge_system=True)
    async with ModelPool({"nosys": spec}, retry=FAST_RETRY) as pool:
        await pool.get("nosys").complete(ChatRequest("player", MSGS))
    sent = fake_server.chat_requests[0].body["messages"]
    assert [m["role"] for m in sent] == ["user"]
    assert sent[0]["content"].startswith("You are Ada.") and sent[0]["content"].endswith("Hello?")


def test_merge_system_starts_with_the_user_and_alternates():
    """Models without a system role usually also insist on user/assistant alternation."""
    msgs = [{"role": "system", "content": "S"}, {"role": "assistant", "content": "A"},
            {"role": "user", "content": "U"}]
    assert merge_system(msgs) == [{"role": "user", "content": "S"}, {"role": "assistant", "content": "A"},
                                  {"role": "user", "content": "U"}]
    assert merge_system([{"role": "system", "content": "S"}]) == [{"role": "user", "content": "S"}]
    assert msgs[2]["content"] == "U"  # input not mutated
    # a card with example dialogue and a greeting: the greeting joins the last example reply
    player = [{"role": "system", "content": "S"}, {"role": "user", "content": "eu"},
              {"role": "assistant", "content": "ea"}, {"role": "assistant", "content": "hi"},
              {"role": "user", "content": "u1"}]
    assert merge_system(player) == [{"role": "user", "content": "S\n\neu"}, {"role": "assistant", "content": "ea\n\nhi"},
                                    {"role": "user", "content": "u1"}]


async def test_non_streaming_mode(fake_server):
    spec = fake_spec(fake_server, "plain", params={"stream": False})
    async with ModelPool({"plain": spec}, retry=FAST_RETRY) as pool:
        fake_server.script(reply("Whole answer at once."))
        deltas = []
        c = await pool.get("plain").complete(ChatRequest("player", MSGS), on_delta=deltas.append)
    assert c.text == "Whole answer at once." and deltas == [c.text] and not c.tokens_estimated
    assert not fake_server.chat_requests[0].body.get("stream")


async def test_missing_key_env_for_remote_endpoint_is_a_user_error(monkeypatch):
    monkeypatch.delenv("PINGPONG_TEST_ABSENT_KEY", raising=False)
    spec = ModelSpec(name="far", base_url="https://llm.example.invalid/v1", model="x",
                     api_key_env="PINGPONG_TEST_ABSENT_KEY")
    async with ModelPool({"far": spec}) as pool:
        with pytest.raises(UserError, match="model 'far': environment variable PINGPONG_TEST_ABSENT_KEY is not set"):
            pool.get("far")
        with pytest.raises(UserError, match="unknown model 'nope'"):
            pool.get("nope")


async def test_local_endpoint_without_key_and_key_never_leaks(fake_server, monkeypatch):
    monkeypatch.delenv("PINGPONG_TEST_ABSENT_KEY", raising=False)
    monkeypatch.setenv("PINGPONG_TEST_KEY", "sk-very-secret-123")
    specs = {"local": fake_spec(fake_server, "local", api_key_env="PINGPONG_TEST_ABSENT_KEY"),
             "keyed": fake_spec(fake_server, "keyed", api_key_env="PINGPONG_TEST_KEY")}
    async with ModelPool(specs, retry=FAST_RETRY) as pool:
        await pool.get("local").complete(ChatRequest("player", MSGS))
        fake_server.script(bad_request("bad key sk-very-secret-123 given"))
        calls = []
        with pytest.raises(Exception) as info:
            await pool.get("keyed").complete(ChatRequest("player", MSGS), on_call=calls.append)
    assert "sk-very-secret-123" not in str(info.value)
    assert all("sk-very-secret-123" not in (c.error or "") for c in calls)
    assert "sk-very-secret-123" not in repr(calls)
    assert fake_server.chat_requests[1].headers["authorization"] == "Bearer sk-very-secret-123"
    assert "secret" not in fake_server.chat_requests[0].headers["authorization"]


async def test_one_client_per_endpoint(fake_server, fake_pool):
    a, b = fake_pool.get("player"), fake_pool.get("judge-a")
    assert a._ep is b._ep and fake_pool.get("player") is a
    await a.complete(ChatRequest("player", MSGS))
    await b.complete(ChatRequest("judge", MSGS))
    assert len(a._ep.clients) == 1
