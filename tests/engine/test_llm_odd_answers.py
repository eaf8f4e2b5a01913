"""Answers no chat completion should look like, from a real HTTP server through the real client:
each one is a failed call that names the model and says what came back, never a crash of the
conversation, an empty "success" or a count that is not one."""

from __future__ import annotations

import pytest

from pingpong.core.llm import ChatRequest, ModelCallError, ModelPool
from tests.engine.conftest import FAST_RETRY, fake_spec
from tests.fakeserver import error, raw

MSGS = [{"role": "user", "content": "Score this."}]


def completion(content: object, **extra: object) -> dict:
    return {"choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
            **extra}


@pytest.mark.parametrize("answer, problem, retried", [
    (raw({"error": {"message": "Provider returned error: context length exceeded"}}),
     "unusable answer: an error instead of a completion: Provider returned error: context length exceeded", True),
    (raw("<html><body>Welcome to nginx!</body></html>", content_type="text/html"),
     "unusable answer: not JSON but '<html><body>Welcome to nginx!</body></html>'", False),
    (raw(b'{"choices": [{"message": {"content": "caf\xe9\xff"}}]}'), "the body is not readable JSON", False),
    (raw('{"choices": ' + "[" * 3000 + "]" * 3000 + "}"), "the body is not readable JSON", False),
    (raw(completion({"text": "a mapping"})), "the message content is dict, not text", False),
], ids=["error-object", "html-page", "not-utf8", "nested-past-the-limit", "content-mapping"])
async def test_a_200_that_is_no_completion_fails_the_call_and_says_why(fake_server, answer, problem, retried):
    """An error object is tried again (a router's provider failed once); the rest fail at once."""
    spec = fake_spec(fake_server, "judge")
    async with ModelPool({"judge": spec}, retry=FAST_RETRY) as pool:
        fake_server.script(*[answer] * 8)
        calls = []
        with pytest.raises(ModelCallError) as info:
            await pool.get("judge").complete(ChatRequest("judge", MSGS), on_call=calls.append)
    assert info.value.model == "judge" and problem in info.value.reason
    assert [c.status for c in calls][-1] == "failed" and len(calls) == (FAST_RETRY.max_attempts if retried else 1)


async def test_content_as_a_list_of_parts_is_its_text_and_a_bad_usage_is_estimated(fake_server):
    spec = fake_spec(fake_server, "judge")
    async with ModelPool({"judge": spec}, retry=FAST_RETRY) as pool:
        fake_server.script(
            raw(completion([{"type": "text", "text": "Fine "}, {"type": "text", "text": "work."}],
                           usage={"prompt_tokens": -100000, "completion_tokens": -5000})),
            raw(completion("Plain.", usage={"prompt_tokens": "n/a", "completion_tokens": True})))
        first = await pool.get("judge").complete(ChatRequest("judge", MSGS))
        second = await pool.get("judge").complete(ChatRequest("judge", MSGS))
    assert first.text == "Fine work." and second.text == "Plain."
    for c in (first, second):
        assert c.tokens_estimated and c.prompt_tokens > 0 and c.completion_tokens > 0


@pytest.mark.parametrize("echo", [
    lambda key: "x" * 268 + " key " + key + " is not valid",  # cut to 300 characters inside the key
    lambda key: "the key " + key.upper() + " is not valid",
], ids=["cut-inside-the-key", "another-case"])
async def test_an_echoed_key_is_scrubbed_even_cut_short_or_in_another_case(fake_server, monkeypatch, echo):
    key = "sk-QA3SECRETKEY-zz9"
    monkeypatch.setenv("PINGPONG_TEST_KEY", key)
    spec = fake_spec(fake_server, "keyed", api_key_env="PINGPONG_TEST_KEY")
    async with ModelPool({"keyed": spec}, retry=FAST_RETRY) as pool:
        fake_server.script(error(401, echo(key)))
        calls = []
        with pytest.raises(ModelCallError) as info:
            await pool.get("keyed").complete(ChatRequest("judge", MSGS), on_call=calls.append)
    for text in (info.value.reason, *(c.error or "" for c in calls)):
        assert "***" in text
        assert not any(key[:k].lower() in text.lower() for k in range(5, len(key) + 1)), text
