"""The fake OpenAI server itself: wire format, scripting, recording, default answers."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

from tests.fakeserver import FakeServer, Faults, cut, find_turns, quota_exhausted, rate_limit, reply, split_text


def _post(server: FakeServer, body: dict) -> tuple[int, dict, bytes]:
    req = urllib.request.Request(server.base_url + "/chat/completions", data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json", "X-Test": "yes"})
    try:
        with urllib.request.urlopen(req, timeout=5) as resp:
            return resp.status, dict(resp.headers), resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read()


def _sse_events(raw: bytes) -> list[str]:
    return [line[len("data: "):] for line in raw.decode().split("\n") if line.startswith("data: ")]


def test_models_listing_and_recording(fake_server):
    with urllib.request.urlopen(fake_server.base_url + "/models", timeout=5) as resp:
        data = json.load(resp)
    assert data["data"][0]["id"] == "fake-model"
    _post(fake_server, {"model": "m", "messages": [{"role": "user", "content": "hi"}]})
    assert fake_server.requests[0].method == "GET"
    posted = fake_server.chat_requests
    assert len(posted) == 1 and posted[0].body["model"] == "m"
    assert posted[0].headers.get("x-test") == "yes"


def test_stream_with_usage_and_done():
    with FakeServer() as srv:
        srv.script(reply("one two three four five six seven"))
        status, headers, raw = _post(srv, {"model": "m", "stream": True, "stream_options": {"include_usage": True},
                                           "messages": [{"role": "user", "content": "hi"}]})
    assert status == 200 and headers["Content-Type"] == "text/event-stream"
    events = _sse_events(raw)
    assert events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    text = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"])
    assert text == "one two three four five six seven"
    assert chunks[-1]["choices"] == [] and chunks[-1]["usage"]["completion_tokens"] == 7
    assert any(c["choices"] and c["choices"][0]["finish_reason"] == "stop" for c in chunks)


def test_no_usage_chunk_unless_asked(fake_server):
    fake_server.script(reply("hello there"))
    _, _, raw = _post(fake_server, {"model": "m", "stream": True, "messages": []})
    assert all("usage" not in json.loads(e) for e in _sse_events(raw)[:-1])


def test_errors_carry_openai_body_and_retry_after(fake_server):
    fake_server.script(rate_limit(0.25), quota_exhausted())
    status, headers, body = _post(fake_server, {"model": "m", "messages": []})
    assert status == 429 and headers["Retry-After"] == "0.25"
    assert json.loads(body)["error"]["code"] == "rate_limit_exceeded"
    status, headers, body = _post(fake_server, {"model": "m", "messages": []})
    assert status == 429 and "Retry-After" not in headers
    assert json.loads(body)["error"]["code"] == "insufficient_quota"


def test_cut_stream_has_no_done(fake_server):
    fake_server.script(cut("a b c d e f g h i j k l", after=2))
    try:
        _, _, raw = _post(fake_server, {"model": "m", "stream": True, "messages": []})
    except Exception:  # urllib may notice the broken chunked body itself
        raw = b""
    assert b"[DONE]" not in raw
    assert fake_server.cuts == 1


def test_per_model_script_wins_over_shared_queue(fake_server):
    fake_server.script("shared")
    fake_server.script("only for b", model="b")
    _, _, body = _post(fake_server, {"model": "b", "messages": []})
    assert json.loads(body)["choices"][0]["message"]["content"] == "only for b"
    _, _, body = _post(fake_server, {"model": "a", "messages": []})
    assert json.loads(body)["choices"][0]["message"]["content"] == "shared"
    assert fake_server.pending == 0


def test_default_responder_judge_interrogator_player(fake_server):
    judge = {"model": "j", "messages": [
        {"role": "system", "content": 'Answer JSON with "in_character_score" for every turn.'},
        {"role": "user", "content": "Turn 1\nuser: hi\nplayer: hello\n\nTurn 2\nuser: so?\nplayer: well\n"}]}
    scores = json.loads(json.loads(_post(fake_server, judge)[2])["choices"][0]["message"]["content"])["scores"]
    assert [s["turn"] for s in scores] == [1, 2]
    assert all(1 <= s["fluency_score"] <= 5 and s["is_refusal"] is False for s in scores)

    ask = {"model": "i", "messages": [{"role": "system", "content": 'Reply as {"next_utterance": "..."}'}]}
    content = json.loads(_post(fake_server, ask)[2])["choices"][0]["message"]["content"]
    assert "next_utterance" in json.loads(content)

    v1 = {"model": "i", "messages": [{"role": "user", "content": "answer with next_user_utterance"}]}
    content = json.loads(json.loads(_post(fake_server, v1)[2])["choices"][0]["message"]["content"])
    assert content["stay_in_character"] == 7 and content["next_user_utterance"]

    player = {"model": "p", "messages": [{"role": "user", "content": "Who are you?"}]}
    assert json.loads(_post(fake_server, player)[2])["choices"][0]["message"]["content"].startswith("Reply")


def test_find_turns_counts_assistant_messages_too():
    body = {"messages": [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"},
                         {"role": "user", "content": "c"}, {"role": "assistant", "content": "d"},
                         {"role": "user", "content": "judge it: in_character_score"}]}
    assert find_turns(body) == [1, 2]
    assert find_turns({"messages": [{"role": "user", "content": "[turn 3] ... ход 4"}]}) == [1, 2, 3, 4]


def test_callable_responder():
    with FakeServer(responder=lambda body: "echo " + body["messages"][-1]["content"]) as srv:
        body = json.loads(_post(srv, {"model": "m", "messages": [{"role": "user", "content": "ping"}]})[2])
    assert body["choices"][0]["message"]["content"] == "echo ping"


def test_faults_are_seeded():
    def statuses(seed: int) -> list[int]:
        with FakeServer(faults=Faults(p429=0.3, p500=0.3, seed=seed)) as srv:
            return [_post(srv, {"model": "m", "messages": []})[0] for _ in range(12)]

    first = statuses(7)
    assert first == statuses(7)
    assert {429, 500, 200} <= set(first)


def test_split_text_joins_back():
    text = "  Hello,   world!\nNew line  here. "
    assert "".join(split_text(text, 2)) == text


def test_stop_with_a_slow_request_in_flight():
    import threading

    srv = FakeServer().start()
    srv.script(reply("late", delay=30))
    t = threading.Thread(target=lambda: _post_quiet(srv), daemon=True)
    t.start()
    assert srv.wait_until(lambda s: s.in_flight == 1)
    srv.stop()
    t.join(timeout=5)
    assert not t.is_alive()


def _post_quiet(srv: FakeServer) -> None:
    try:
        _post(srv, {"model": "m", "messages": []})
    except Exception:
        pass
