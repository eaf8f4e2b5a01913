"""The runner's counters, fed with engine events, and what the display prints from them."""

from __future__ import annotations

import io

from rich.console import Console

from pingpong.core.domain import CallRecord
from pingpong.core.events import CallFinished, Delta
from pingpong.sessions.runner import PlayerCounts, RunProgress
from pingpong.tui.progress import bars, status_line, summary


def call(role, status, latency=100.0, tokens=(10, 5)):
    return CallFinished(CallRecord(role=role, model="m", status=status, latency_ms=latency,
                                   prompt_tokens=tokens[0], completion_tokens=tokens[1]))


def test_counters_follow_call_events():
    p = RunProgress({"a": PlayerCounts(total=4), "b": PlayerCounts(total=4)})
    a = p.players["a"]
    for event in (call("player", "retry"), call("player", "ok", 300.0), call("interrogator", "ok"),
                  call("judge", "failed", tokens=(0, 0)), Delta(1, "assistant", "hi")):
        p.on_event(a, event)
    assert (p.requests, p.retries, p.failed_requests, p.tokens) == (4, 1, 1, 45)
    assert (a.requests, a.retries, a.tokens) == (4, 1, 45)
    assert a.mean_latency_ms == 300.0  # only the player's successful replies
    assert p.players["b"].requests == 0
    assert p.eta is None  # nothing finished yet in this process


def test_eta_and_lines():
    p = RunProgress({"a": PlayerCounts(total=10, done=4, skipped=2, failed=1)}, started=0.0)
    p.finished_here = 3
    assert p.eta is not None and p.eta > 0
    line = status_line(p)
    assert line.startswith("4/10 done, 0 in flight, 1 failed")
    out = io.StringIO()
    console = Console(file=out, width=120)
    console.print(bars(p, "demo"))
    console.print(summary(p))
    text = out.getvalue()
    assert "run demo" in text and "4/10" in text and "run summary" in text
