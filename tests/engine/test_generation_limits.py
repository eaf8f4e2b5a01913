"""Generation limits as the published PingPong runs set them: max_tokens per seat, a short player
reply asked for again then failed, a reply cut at max_tokens stored with a flag."""

from __future__ import annotations

from pingpong.core.engine import SessionEngine
from pingpong.core.events import MessageCompleted, SessionFailed, SessionFinished, TurnStarted
from pingpong.core.llm import ModelPool
from tests.engine.conftest import FAST_RETRY, fake_spec
from tests.engine.engine_support import card, collect, messages, of, requests_for, situation, spec
from tests.fakeserver import reply


def engine(pool, turns: int = 2) -> SessionEngine:
    return SessionEngine(spec=spec(judges=["judge-a"]), character=card(), situation=situation(turns), pool=pool)


async def test_each_seat_sends_its_max_tokens(fake_server, fake_pool):
    events = await collect(engine(fake_pool))
    assert of(events, SessionFinished)
    assert {r["max_tokens"] for r in requests_for(fake_server, "player")} == {1536}
    assert {r["max_tokens"] for r in requests_for(fake_server, "interrogator")} == {1024}
    assert {r["max_tokens"] for r in requests_for(fake_server, "judge-a")} == {4096}


async def test_a_model_overrides_max_tokens_or_uses_max_completion_tokens(fake_server, fake_specs):
    specs = {**fake_specs, "player": fake_spec(fake_server, "player", params={"max_tokens": 300}),
             "judge-a": fake_spec(fake_server, "judge-a", params={"max_completion_tokens": 2000})}
    async with ModelPool(specs, retry=FAST_RETRY) as pool:
        await collect(engine(pool, turns=1))
    assert {r["max_tokens"] for r in requests_for(fake_server, "player")} == {300}
    judge = requests_for(fake_server, "judge-a")
    assert judge and all(r["max_completion_tokens"] == 2000 and "max_tokens" not in r for r in judge)


async def test_a_short_player_reply_is_asked_for_again(fake_server, fake_pool):
    fake_server.script(reply(" x "), model="player")
    events = await collect(engine(fake_pool, turns=1))
    assert of(events, SessionFinished)
    player = [m for m in messages(events) if m.role == "assistant"]
    assert len(player) == 1 and len(player[0].text) >= 2 and player[0].text != "x"
    assert len(requests_for(fake_server, "player")) == 2
    starts = [e for e in of(events, TurnStarted) if e.role == "assistant"]
    assert len(starts) == 2  # the dropped reply's stream is started afresh


async def test_two_short_player_replies_fail_the_session(fake_server, fake_pool):
    fake_server.script(reply(""), reply("."), model="player")
    events = await collect(engine(fake_pool, turns=1))
    failed = of(events, SessionFailed)
    assert failed and failed[0].role == "player" and "fewer than 2 characters" in failed[0].error
    assert not [m for m in messages(events) if m.role == "assistant"]
    assert not of(events, SessionFinished)


async def test_a_reply_cut_at_max_tokens_is_flagged(fake_server, fake_pool):
    fake_server.script(reply("I was saying that the lamp needs", finish_reason="length"), model="player")
    events = await collect(engine(fake_pool, turns=2))
    player = [e.message for e in of(events, MessageCompleted) if e.message.role == "assistant"]
    assert player[0].truncated and player[0].notes == {"finish_reason": "length"}
    assert not player[1].truncated and player[1].notes == {}
