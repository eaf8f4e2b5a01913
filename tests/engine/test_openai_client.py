"""The lean openai client sends what the library itself sends, request after request."""

from __future__ import annotations

import json

import pytest
from openai import AsyncOpenAI

from pingpong.core.http_transport import LeanTransport
from pingpong.core.llm import ChatRequest
from pingpong.core.openai_client import LeanAsyncOpenAI, LeanHttpClient
from tests.fakeserver import error, reply

MSGS = [{"role": "system", "content": "You are Ada. Ünïcode stays as it is."}, {"role": "user", "content": "Hi?"}]


async def _posts(client: AsyncOpenAI, bodies: list[dict], timeout: float) -> None:
    for body in bodies:
        if isinstance(client, LeanAsyncOpenAI):
            await client.post_json("/chat/completions", body, timeout=timeout)
        else:
            await client.post("/chat/completions", cast_to=object, body=body, options={"timeout": timeout})


async def test_requests_match_the_library_byte_for_byte(fake_server):
    bodies = [{"model": "m", "messages": MSGS, "temperature": 0.5},
              {"model": "m", "messages": [*MSGS, {"role": "assistant", "content": "Hello."}]},
              {"model": "m", "messages": MSGS, "max_tokens": 7}]
    for cls in (AsyncOpenAI, LeanAsyncOpenAI):
        async with cls(base_url=fake_server.base_url, api_key="sk-test-1234", max_retries=0) as client:
            await _posts(client, bodies, timeout=12.5)
    sent = fake_server.chat_requests
    library, lean = sent[:3], sent[3:]
    assert [r.body for r in lean] == bodies == [r.body for r in library]
    for ours, theirs in zip(lean, library, strict=True):
        assert ours.headers == theirs.headers  # content-length included: the bodies are the same
    assert lean[1].headers["authorization"] == "Bearer sk-test-1234"
    assert lean[1].headers["x-stainless-read-timeout"] == "12.5"


async def test_another_timeout_is_its_own_kind(fake_server):
    async with LeanAsyncOpenAI(base_url=fake_server.base_url, api_key="k", max_retries=0) as client:
        body = {"model": "m", "messages": MSGS}
        for timeout in (30.0, 30.0, 4.0, 30.0):
            await client.post_json("/chat/completions", body, timeout=timeout)
    assert [r.headers["x-stainless-read-timeout"] for r in fake_server.chat_requests] == ["30.0", "30.0", "4.0", "30.0"]


def _lean_http() -> LeanHttpClient:
    return LeanHttpClient(transport=LeanTransport())


@pytest.mark.parametrize("http", [None, _lean_http], ids=["library's client", "lean client"])
async def test_a_cookie_the_server_sets_goes_back_on_later_requests(fake_server, http):
    fake_server.script(reply("first", headers={"Set-Cookie": "lb=node-2; Path=/"}), reply("second"), reply("third"))
    async with LeanAsyncOpenAI(base_url=fake_server.base_url, api_key="k", max_retries=0,
                               http_client=http() if http else None) as client:
        for _ in range(3):
            await client.post_json("/chat/completions", {"model": "m", "messages": MSGS}, timeout=5.0)
    assert [r.headers.get("cookie") for r in fake_server.chat_requests] == [None, "lb=node-2", "lb=node-2"]


async def test_streamed_and_whole_answers_through_the_pool(fake_server, fake_pool):
    fake_server.script(reply("Streamed words arrive in pieces."), reply("A whole answer."))
    pieces: list[str] = []
    streamed = await fake_pool.get("player").complete(ChatRequest("player", MSGS), on_delta=pieces.append)
    whole = await fake_pool.get("judge-a").complete(ChatRequest("judge", MSGS))
    assert (streamed.text, whole.text) == ("Streamed words arrive in pieces.", "A whole answer.")
    assert "".join(pieces) == streamed.text and len(pieces) > 1
    first, second = fake_server.chat_requests
    assert first.body["stream"] is True and "stream" not in second.body
    assert int(second.headers["content-length"]) == len(json.dumps(second.body, ensure_ascii=False,
                                                                   separators=(",", ":")).encode())


async def test_a_redirect_is_followed_the_way_httpx_follows_it(fake_server):
    moved = error(307, "moved", headers={"Location": "/moved/chat/completions"})
    fake_server.script(moved, moved, reply("Answered at the new place."))
    async with LeanAsyncOpenAI(base_url=fake_server.base_url, api_key="k", max_retries=0,
                               http_client=_lean_http()) as client:
        answer = await client.post_json("/chat/completions", {"model": "m", "messages": MSGS}, timeout=5.0)
    assert answer["choices"][0]["message"]["content"] == "Answered at the new place."
    last = fake_server.chat_requests[-1]
    assert (last.method, last.path, last.body["messages"]) == ("POST", "/moved/chat/completions", MSGS)


async def test_a_client_with_an_event_hook_takes_httpx_s_own_way(fake_server):
    seen: list[str] = []

    async def hook(request) -> None:
        seen.append(request.url.path)

    http = LeanHttpClient(transport=LeanTransport(), event_hooks={"request": [hook]})
    async with LeanAsyncOpenAI(base_url=fake_server.base_url, api_key="k", max_retries=0, http_client=http) as client:
        await client.post_json("/chat/completions", {"model": "m", "messages": MSGS}, timeout=5.0)
    assert seen == ["/v1/chat/completions"]


def test_what_orjson_refuses_is_written_and_read_the_json_module_s_way():
    import math

    from pingpong.core.openai_client import _body, parsed

    big = {"model": "m", "seed": 2**70, "messages": MSGS}
    assert _body(big) == json.dumps(big, ensure_ascii=False, separators=(",", ":")).encode()
    assert json.loads(_body({"model": "m", "messages": MSGS, "top_p": 1e-07}))["top_p"] == 1e-07
    assert math.isnan(parsed(b'{"usage": NaN}')["usage"])
    assert parsed(b'{"n": 1180591620717411303424}')["n"] == 2**70
    with pytest.raises(UnicodeEncodeError):  # a lone surrogate: the same error as ever
        _body({"model": "m", "messages": [{"role": "user", "content": "\ud800"}]})
