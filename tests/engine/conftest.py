"""Shared fixtures of the engine tests: a live fake OpenAI server and specs pointing at it.

Owned by the "models" helper; the engine's own tests use the same fixtures.
"""

from __future__ import annotations

import pytest

from pingpong.core.domain import ModelSpec
from pingpong.core.retry import RetryPolicy
from tests.fakeserver import FakeServer

FAST_RETRY = RetryPolicy(base=0.01, cap=0.05)
"""Tiny backoff so retry tests take milliseconds: pass as ModelPool(specs, retry=FAST_RETRY)."""


@pytest.fixture
def fake_server():
    """A started FakeServer (default responder, no faults); stopped after the test."""
    with FakeServer() as server:
        yield server


def fake_spec(server: FakeServer, name: str, **kw) -> ModelSpec:
    """A ModelSpec for `name` served by `server` (no key needed: it is local)."""
    kw.setdefault("model", name)
    kw.setdefault("timeout", 5.0)
    kw.setdefault("deadline", 20.0)
    return ModelSpec(name=name, base_url=server.base_url, **kw)


@pytest.fixture
def fake_specs(fake_server):
    """player / interrogator / judge-a / judge-b, all on the fake server, plus offline."""
    from pingpong.core.config import offline_spec

    specs = {n: fake_spec(fake_server, n) for n in ("player", "interrogator", "judge-a", "judge-b")}
    specs["offline"] = offline_spec()
    return specs


@pytest.fixture
async def fake_pool(fake_specs):
    """A ModelPool over fake_specs with tiny backoffs; closed after the test."""
    from pingpong.core.llm import ModelPool

    pool = ModelPool(fake_specs, retry=FAST_RETRY)
    try:
        yield pool
    finally:
        await pool.aclose()


@pytest.fixture
def unused_port_url():
    """A base_url on 127.0.0.1 where nothing listens (connection refused)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"
