"""Faults on the wire and the one retry layer: what is retried, how long it waits, when it gives up."""

from __future__ import annotations

import email.utils

import pytest

from pingpong.core.llm import ChatRequest, ModelCallError, ModelPool
from pingpong.core.retry import RetryPolicy, parse_retry_after
from tests.engine.conftest import FAST_RETRY, fake_spec
from tests.fakeserver import (
    FakeServer,
    Faults,
    bad_request,
    cut,
    error,
    quota_exhausted,
    rate_limit,
    reply,
    server_error,
)

MSGS = [{"role": "user", "content": "Hello?"}]


async def _call(pool, name="player", **kw):
    calls, deltas = [], []
    try:
        c = await pool.get(name).complete(ChatRequest("player", MSGS, turn=2), on_delta=deltas.append,
                                          on_call=calls.append, **kw)
        return c, calls, deltas, None
    except ModelCallError as exc:
        return None, calls, deltas, exc


async def test_429_waits_for_retry_after(fake_server, fake_pool):
    fake_server.script(rate_limit(0.3), reply("fine now"))
    c, calls, _, _ = await _call(fake_pool)
    assert c.text == "fine now" and c.attempts == 2
    assert [r.status for r in calls] == ["retry", "ok"] and "429" in calls[0].error
    first, second = fake_server.chat_requests
    assert second.time - first.time >= 0.3  # FAST_RETRY alone would wait at most 0.05 s
    assert fake_pool.stats.total().retries == 1


async def test_retry_after_as_http_date(fake_server, fake_pool):
    fake_server.script(error(503, retry_after=email.utils.formatdate(0, usegmt=True)), reply("ok"))
    c, calls, _, _ = await _call(fake_pool)
    assert c.text == "ok" and [r.status for r in calls] == ["retry", "ok"]


def test_parse_retry_after():
    assert parse_retry_after("2") == 2.0
    assert parse_retry_after("0.5") == 0.5
    assert parse_retry_after(email.utils.formatdate(1000.0, usegmt=True), now=990.0) == pytest.approx(10.0)
    assert parse_retry_after("soon") is None and parse_retry_after(None) is None
    assert parse_retry_after("-3") == 0.0


async def test_quota_exhausted_is_not_retried(fake_server, fake_pool):
    fake_server.script(quota_exhausted(), reply("never"))
    _, calls, _, exc = await _call(fake_pool)
    assert exc is not None and exc.retryable is False and "quota" in exc.reason
    assert exc.model == "player" and exc.role == "player"
    assert [r.status for r in calls] == ["failed"] and len(fake_server.chat_requests) == 1
    assert fake_pool.stats.total().failures == 1


async def test_400_is_not_retried(fake_server, fake_pool):
    fake_server.script(bad_request("messages: too long"), reply("never"))
    _, calls, _, exc = await _call(fake_pool)
    assert exc.retryable is False and "400" in exc.reason and "too long" in exc.reason
    assert len(calls) == 1 and len(fake_server.chat_requests) == 1


@pytest.mark.parametrize("status", [408, 409, 500, 502, 503])
async def test_retryable_statuses_then_success(fake_server, fake_pool, status):
    fake_server.script(error(status), reply("recovered"))
    c, calls, _, _ = await _call(fake_pool)
    assert c.text == "recovered" and [r.status for r in calls] == ["retry", "ok"]


@pytest.mark.parametrize("status", [401, 403, 404, 422])
async def test_other_4xx_fail_at_once(fake_server, fake_pool, status):
    fake_server.script(error(status), reply("never"))
    _, calls, _, exc = await _call(fake_pool)
    assert exc is not None and not exc.retryable and len(calls) == 1


async def test_cut_stream_is_retried_whole(fake_server, fake_pool):
    full = "The whole message arrives on the second try, every word of it."
    fake_server.script(cut("Partial words that must be thrown away by the consumer", after=2), reply(full))
    c, calls, deltas, _ = await _call(fake_pool)
    assert c.text == full  # not the partial text plus the full one
    assert [r.status for r in calls] == ["retry", "ok"] and calls[0].turn == 2
    assert "".join(deltas).startswith("Partial words") and "".join(deltas).endswith(full)


async def test_stream_ended_by_done_without_finish_reason_is_whole(fake_server, fake_pool):
    """Some servers never send finish_reason; their [DONE] still says the answer is complete."""
    text = "Every word of this answer arrives, only the finish reason is never sent."
    fake_server.script(reply(text, finish_reason=None), reply("never asked for"))
    c, calls, deltas, _ = await _call(fake_pool)
    assert c.text == text and "".join(deltas) == text
    assert c.finish_reason is None and c.attempts == 1
    assert [r.status for r in calls] == ["ok"] and len(fake_server.chat_requests) == 1


async def test_stream_closed_without_finish_reason_or_done_is_retried(fake_server, fake_pool):
    fake_server.script(reply("Cut short but closed politely", finish_reason=None, done=False), reply("whole"))
    c, calls, _, _ = await _call(fake_pool)
    assert c.text == "whole" and [r.status for r in calls] == ["retry", "ok"]
    assert "stream ended early: no finish_reason nor [DONE]" in calls[0].error


async def test_stream_with_finish_reason_but_no_done_is_whole(fake_server, fake_pool):
    fake_server.script(reply("Finished, though [DONE] never came", done=False))
    c, calls, _, _ = await _call(fake_pool)
    assert c.text == "Finished, though [DONE] never came" and c.finish_reason == "stop"
    assert [r.status for r in calls] == ["ok"]


async def test_slow_answer_past_attempt_timeout_then_ok(fake_server):
    spec = fake_spec(fake_server, "slow", timeout=1.0, deadline=10)  # roomy: the second reply must fit
    fake_server.script(reply("too late", delay=5), reply("in time"))
    async with ModelPool({"slow": spec}, retry=FAST_RETRY) as pool:
        c, calls, _, _ = await _call(pool, "slow")
    assert c.text == "in time"
    assert [r.status for r in calls] == ["retry", "ok"] and "timed out" in calls[0].error


async def test_a_stream_still_arriving_is_not_cut_by_its_timeout(fake_server):
    """The timeout of a streamed reply is an idle one: a slow local model that keeps sending
    tokens for longer than it is not cut and asked again; the deadline alone bounds it."""
    spec = fake_spec(fake_server, "slow", timeout=2.0, deadline=30)
    text = "one two three four five six seven eight nine ten eleven twelve"
    fake_server.script(reply(text, chunk_delay=0.3, words_per_chunk=1), reply("quick"))
    async with ModelPool({"slow": spec}, retry=FAST_RETRY) as pool:
        c, calls, _, _ = await _call(pool, "slow")
    assert c.text == text and [r.status for r in calls] == ["ok"]


async def test_a_stream_that_stalls_past_its_timeout_is_asked_again_naming_the_timeout(fake_server):
    spec = fake_spec(fake_server, "slow", timeout=0.5, deadline=30)
    fake_server.script(reply("one two three", chunk_delay=5, words_per_chunk=1), reply("quick"))
    async with ModelPool({"slow": spec}, retry=FAST_RETRY) as pool:
        c, calls, _, _ = await _call(pool, "slow")
    assert c.text == "quick" and [r.status for r in calls] == ["retry", "ok"]
    assert "timeout = 0.5" in calls[0].error


async def test_deadline_exceeded(fake_server):
    spec = fake_spec(fake_server, "slow", timeout=0.2, deadline=0.5)
    fake_server.script(*[reply("late", delay=3) for _ in range(5)])
    async with ModelPool({"slow": spec}, retry=FAST_RETRY) as pool:
        _, calls, _, exc = await _call(pool, "slow")
    assert exc is not None and exc.retryable is True and "deadline" in exc.reason
    assert calls[-1].status == "failed" and all(r.status == "retry" for r in calls[:-1])
    assert 2 <= len(calls) <= 4


async def test_a_deadline_that_cuts_the_last_attempt_short_names_the_failure_before_it(fake_server):
    """On a slow machine the last try gets only the deadline's rest and times out: the line a user
    reads still says what went wrong (the server's 500), not the timeout the deadline caused."""
    spec = fake_spec(fake_server, "judge", timeout=5, deadline=0.5)
    fake_server.script(server_error(), reply("late", delay=3))
    async with ModelPool({"judge": spec}, retry=RetryPolicy(base=0.01, cap=0.02)) as pool:
        calls: list = []
        with pytest.raises(ModelCallError) as caught:
            await pool.get("judge").complete(ChatRequest("judge", MSGS, turn=2), on_call=calls.append)
    assert caught.value.reason.startswith("HTTP 500") and "deadline of 0.5s" in caught.value.reason
    assert [r.status for r in calls] == ["retry", "failed"] and "timed out" not in calls[0].error


async def test_max_attempts(fake_server):
    spec = fake_spec(fake_server, "flaky")
    fake_server.script(*[server_error() for _ in range(5)])
    async with ModelPool({"flaky": spec}, retry=RetryPolicy(base=0.01, cap=0.02, max_attempts=3)) as pool:
        _, calls, _, exc = await _call(pool, "flaky")
    assert "after 3 attempts" in exc.reason and len(calls) == 3
    assert len(fake_server.chat_requests) == 3


async def test_too_long_retry_after_gives_up(fake_server):
    spec = fake_spec(fake_server, "busy")
    fake_server.script(rate_limit(3600))
    async with ModelPool({"busy": spec}, retry=RetryPolicy(base=0.01, cap=0.02, max_retry_after=5)) as pool:
        _, calls, _, exc = await _call(pool, "busy")
    assert exc.retryable and "wait" in exc.reason and len(calls) == 1


async def test_connection_refused_is_retried_then_fails(unused_port_url):
    from pingpong.core.domain import ModelSpec

    spec = ModelSpec(name="gone", base_url=unused_port_url, model="x", timeout=1, deadline=5)
    async with ModelPool({"gone": spec}, retry=RetryPolicy(base=0.01, cap=0.02, max_attempts=2)) as pool:
        _, calls, _, exc = await _call(pool, "gone")
    assert exc.retryable and "connection" in exc.reason and [r.status for r in calls] == ["retry", "failed"]


async def test_random_faults_all_survived():
    with FakeServer(faults=Faults(p429=0.2, p500=0.15, pcut=0.15, retry_after=0.01, seed=3)) as srv:
        spec = fake_spec(srv, "noisy", max_concurrency=4)
        async with ModelPool({"noisy": spec}, retry=RetryPolicy(base=0.005, cap=0.02, max_attempts=30)) as pool:
            import asyncio

            results = await asyncio.gather(*[_call(pool, "noisy") for _ in range(20)])
            stats = pool.stats.total()
    assert all(c is not None and c.text.startswith("Reply") for c, *_ in results)
    assert stats.ok == 20 and stats.retries > 0 and stats.failures == 0
    assert srv.max_in_flight <= 4


async def test_a_stream_that_never_starts_is_not_said_to_be_streaming(fake_server):
    """A server that accepts and never sends a byte ended with "still streaming when the deadline was
    reached" once the deadline fell inside an attempt's idle timeout."""
    spec = fake_spec(fake_server, "mute", timeout=5, deadline=1)
    fake_server.script(reply("never", delay=10))
    async with ModelPool({"mute": spec}, retry=FAST_RETRY) as pool:
        _, calls, _, exc = await _call(pool, "mute")
    assert exc is not None and "streaming" not in exc.reason and "the reply had not ended" in exc.reason
