"""The pool: per-endpoint concurrency (adaptive), cancellation, closing, offline built in."""

from __future__ import annotations

import asyncio

import pytest

from pingpong.core.llm import AdaptiveLimiter, ChatRequest, ModelPool
from tests.engine.conftest import FAST_RETRY, fake_spec
from tests.fakeserver import FakeServer, rate_limit, reply

MSGS = [{"role": "user", "content": "Hello?"}]
LONG = " ".join(f"word{i}" for i in range(300))


async def test_concurrency_cap_is_respected():
    with FakeServer(latency=0.05) as srv:
        specs = {"a": fake_spec(srv, "a", max_concurrency=2), "b": fake_spec(srv, "b", max_concurrency=5)}
        async with ModelPool(specs, retry=FAST_RETRY) as pool:
            calls = [pool.get(n).complete(ChatRequest("player", MSGS)) for n in "ab" * 5]
            results = await asyncio.gather(*calls)
            assert pool.stats.total().in_flight == 0 and pool.stats.total().waiting == 0
    assert len(results) == 10
    assert srv.max_in_flight <= 2  # same endpoint: the strictest cap wins
    assert srv.max_in_flight >= 1


async def test_429_halves_the_limit_and_successes_restore_it():
    with FakeServer(latency=0.02) as srv:
        spec = fake_spec(srv, "a", max_concurrency=4)
        async with ModelPool({"a": spec}, retry=FAST_RETRY) as pool:
            srv.script(rate_limit(0.01))
            await pool.get("a").complete(ChatRequest("player", MSGS))
            key = next(iter(pool.stats.limits))
            assert pool.stats.limits[key] == 2
            for _ in range(20):
                await pool.get("a").complete(ChatRequest("player", MSGS))
            assert pool.stats.limits[key] == 4


def test_limiter_aimd():
    lim = AdaptiveLimiter(5, recover_after=2)
    lim.on_throttle()
    assert lim.limit == 2
    lim.on_throttle()
    lim.on_throttle()
    assert lim.limit == 1
    for _ in range(4):
        lim.on_success()
    assert lim.limit == 3
    for _ in range(20):
        lim.on_success()
    assert lim.limit == 5
    lim.lower_ceiling(3)
    assert (lim.ceiling, lim.limit) == (3, 3)


async def test_limiter_waiters_and_cancellation():
    lim = AdaptiveLimiter(1)
    await lim.acquire()
    waiter = asyncio.create_task(lim.acquire())
    await asyncio.sleep(0)
    waiter.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiter
    second = asyncio.create_task(lim.acquire())
    await asyncio.sleep(0)
    lim.release()
    await asyncio.wait_for(second, 1)
    assert lim.in_flight == 1
    lim.release()
    assert lim.in_flight == 0


async def test_cancellation_closes_the_stream(fake_server, fake_pool):
    fake_server.script(reply(LONG, chunk_delay=0.02, words_per_chunk=1))
    got_text = asyncio.Event()
    calls = []
    task = asyncio.create_task(fake_pool.get("player").complete(
        ChatRequest("player", MSGS), on_delta=lambda _: got_text.set(), on_call=calls.append))
    await asyncio.wait_for(got_text.wait(), 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await fake_server.wait_until_async(lambda s: s.disconnects >= 1 and s.in_flight == 0)
    assert fake_pool.stats.total().in_flight == 0 and calls == []
    # the pool still works afterwards
    c = await fake_pool.get("player").complete(ChatRequest("player", MSGS))
    assert c.text


async def test_aclose_closes_clients(fake_server):
    pool = ModelPool({"a": fake_spec(fake_server, "a")}, retry=FAST_RETRY)
    model = pool.get("a")
    await model.complete(ChatRequest("player", MSGS))
    clients = list(model._ep.clients)
    await pool.aclose()
    assert clients and all(c.is_closed() for c in clients)
    with pytest.raises(RuntimeError):
        pool.get("a")


async def test_offline_is_always_there():
    async with ModelPool({}) as pool:
        model = pool.get("offline")
        c = await model.complete(ChatRequest("interrogator", MSGS))
        assert c.text.startswith("{") and c.tokens_estimated
        assert pool.stats.per_model["offline"].ok == 1
