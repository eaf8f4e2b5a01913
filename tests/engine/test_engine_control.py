"""Human seats, pause/step/resume, cancel and resume from history."""

from __future__ import annotations

import asyncio

import pytest

from pingpong.core.control import SessionControl
from pingpong.core.domain import Message
from pingpong.core.engine import SessionEngine
from pingpong.core.events import (
    Delta,
    JudgeStarted,
    MessageCompleted,
    SeatChanged,
    SessionFinished,
    TurnStarted,
    VerdictReady,
)
from tests.engine.engine_support import card, collect, messages, of, requests_for, situation, spec, until
from tests.fakeserver import reply
from tests.scores import judged, turn_scores


def engine(pool, **kw) -> SessionEngine:
    return SessionEngine(spec=kw.pop("spec", spec()), character=card(),
                         situation=kw.pop("situation", situation()), pool=pool, **kw)


async def test_human_interrogator_then_model_takes_over(fake_server, fake_pool):
    control = SessionControl()
    run = engine(fake_pool, spec=spec(interrogator="human"), situation=situation(3), control=control)

    def react(event):
        if isinstance(event, TurnStarted) and event.role == "user" and event.author == "human":
            if event.turn == 1:
                control.human.submit_nowait("*knocks* Please, let me in, the storm is awful!")
            else:
                control.set_seat("interrogator", "interrogator")

    events = await collect(run, react)
    msgs = messages(events)
    assert [(m.turn, m.role, m.author) for m in msgs] == [
        (1, "user", "human"), (1, "assistant", "player"),
        (2, "user", "interrogator"), (2, "assistant", "player"),
        (3, "user", "interrogator"), (3, "assistant", "player")]
    assert msgs[0].text == "*knocks* Please, let me in, the storm is awful!"
    assert msgs[0].prompt_tokens is None   # a person used no tokens
    # the seat change happened while the engine waited in turn 2, and was announced
    changed = of(events, SeatChanged)
    assert changed == [SeatChanged("interrogator", "interrogator")]
    i = events.index(changed[0])
    assert events[i - 1] == TurnStarted(2, "user", "human")
    assert events[i + 1] == TurnStarted(2, "user", "interrogator")
    # the person's line reached the player as a user message
    assert requests_for(fake_server, "player")[0]["messages"][-1]["content"].startswith("*knocks*")
    assert not control.human.waiting and isinstance(events[-1], SessionFinished)


async def test_engine_waits_for_the_human_text(fake_server, fake_pool):
    control = SessionControl()
    run = engine(fake_pool, spec=spec(interrogator="human", judges=[]), situation=situation(1),
                 control=control)
    task = asyncio.create_task(collect(run))
    await until(lambda: control.human.waiting)
    assert control.human.role == "user" and control.human.turn == 1
    assert fake_server.chat_requests == []     # nothing is asked of a model while a person types
    await control.human.submit("Hello?")
    events = await task
    assert [m.author for m in messages(events)] == ["human", "player"]


async def test_human_player_for_spot_checks(fake_server, fake_pool):
    control = SessionControl()
    run = engine(fake_pool, spec=spec(player="human", judges=["judge-a"]), situation=situation(2),
                 control=control)

    def react(event):
        if isinstance(event, TurnStarted) and event.author == "human":
            control.human.submit_nowait(f"*Edda grumbles* turn {event.turn}")

    events = await collect(run, react)
    assert [m.author for m in messages(events) if m.role == "assistant"] == ["human", "human"]
    assert not of(events, Delta)
    verdict = of(events, VerdictReady)[0].verdict
    assert [t.turn for t in verdict.turns] == [1, 2]


async def test_pause_step_resume(fake_server, fake_pool):
    control = SessionControl(paused=True)
    run = engine(fake_pool, spec=spec(judges=["judge-a"]), situation=situation(3), control=control)
    task = asyncio.create_task(collect(run))
    await asyncio.sleep(0)
    assert control.paused and fake_server.chat_requests == []

    control.step()                     # exactly one turn, then held again
    await until(lambda: control.paused)
    assert [r.body["model"] for r in fake_server.chat_requests] == ["interrogator", "player"]

    control.step()
    await until(lambda: control.paused)
    assert len(fake_server.chat_requests) == 4

    control.resume()
    events = await task
    assert len(messages(events)) == 6 and isinstance(events[-1], SessionFinished)


async def test_pause_mid_turn_finishes_the_message_first(fake_server, fake_pool):
    control = SessionControl()
    run = engine(fake_pool, spec=spec(judges=[]), situation=situation(3), control=control)
    seen: list = []

    def react(event):
        seen.append(event)
        if event == TurnStarted(2, "assistant", "player"):
            control.pause()

    task = asyncio.create_task(collect(run, react))
    await until(lambda: control.paused and any(
        isinstance(e, MessageCompleted) and e.message.turn == 2 and e.message.role == "assistant"
        for e in seen))
    # the player's reply of turn 2 was completed; turn 3 has not started
    assert len(fake_server.chat_requests) == 4
    control.step()   # a step from a turn boundary runs turn 3, then the judges' gate holds
    await until(lambda: len(fake_server.chat_requests) == 6 and control.paused)
    control.resume()
    events = await task
    assert isinstance(events[-1], SessionFinished)


async def test_step_while_a_reply_streams_finishes_that_turn_only(fake_server, fake_pool):
    slow = " ".join(f"word{i}" for i in range(20))
    fake_server.script(reply(slow, chunk_delay=0.01, words_per_chunk=1), model="player")
    control = SessionControl()
    run = engine(fake_pool, spec=spec(judges=[]), situation=situation(3), control=control)

    def react(event):
        if isinstance(event, Delta) and event.turn == 1 and not control._stepping and not control.paused:
            control.step()  # pressed while turn 1's reply is being written

    task = asyncio.create_task(collect(run, react))
    await until(lambda: control.paused)
    assert [r.body["model"] for r in fake_server.chat_requests] == ["interrogator", "player"]
    control.step()  # from the boundary: exactly turn 2
    await until(lambda: control.paused and len(fake_server.chat_requests) == 4)
    control.resume()
    assert isinstance((await task)[-1], SessionFinished)


async def test_step_while_the_user_message_is_written_runs_that_turn(fake_server, fake_pool):
    control = SessionControl()
    run = engine(fake_pool, spec=spec(judges=[]), situation=situation(3), control=control)

    def react(event):
        if event == TurnStarted(2, "user", "interrogator"):
            control.step()

    task = asyncio.create_task(collect(run, react))
    await until(lambda: control.paused)
    assert len(fake_server.chat_requests) == 4  # turns 1 and 2, then held before turn 3
    control.resume()
    await task


async def test_the_seats_given_win_over_the_spec(fake_server, fake_pool):
    history = [Message(turn=1, role="user", author="human", text="Hi."),
               Message(turn=1, role="assistant", author="player", text="Hello.")]
    run = engine(fake_pool, spec=spec(interrogator="human", judges=[]), situation=situation(2), history=history,
                 seats={"interrogator": "interrogator"})
    events = await collect(run)
    assert [(m.turn, m.author) for m in messages(events) if m.role == "user"] == [(2, "interrogator")]


async def test_cancel_leaves_no_partial_message(fake_server, fake_pool):
    slow = " ".join(f"word{i}" for i in range(60))
    fake_server.script(reply(slow, chunk_delay=0.05, words_per_chunk=1), model="player")
    control = SessionControl()
    run = engine(fake_pool, control=control)
    seen = []

    with pytest.raises(asyncio.CancelledError):
        async for event in run.run():
            seen.append(event)
            if isinstance(event, Delta):
                control.cancel()
    assert [(m.turn, m.role) for m in messages(seen)] == [(1, "user")]
    assert not of(seen, SessionFinished)


async def test_cancelling_the_consumer_task_stops_the_engine(fake_server, fake_pool):
    slow = " ".join(f"word{i}" for i in range(60))
    fake_server.script(reply(slow, chunk_delay=0.05, words_per_chunk=1), model="player")
    run = engine(fake_pool)
    seen = []
    streaming = asyncio.Event()

    async def consume():
        async for event in run.run():
            seen.append(event)
            if isinstance(event, Delta):
                streaming.set()

    task = asyncio.create_task(consume())
    await streaming.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert [(m.turn, m.role) for m in messages(seen)] == [(1, "user")]
    assert run.control._task is not None and run.control._task.done()


async def test_resume_from_history_continues_with_the_player(fake_server, fake_pool):
    history = [
        Message(turn=1, role="user", author="interrogator", text="Shelter, please!"),
        Message(turn=1, role="assistant", author="player", text="Boots. Now."),
        Message(turn=2, role="user", author="human", text="What is that noise upstairs?"),
    ]
    done = judged("judge-a", turns=[turn_scores(1, in_character=4, entertaining=3, fluency=5, is_refusal=False)])
    run = engine(fake_pool, history=history, verdicts=[done], situation=situation(3))
    events = await collect(run)
    assert events[0] == TurnStarted(2, "assistant", "player")
    msgs = messages(events)
    assert [(m.turn, m.role) for m in msgs] == [(2, "assistant"), (3, "user"), (3, "assistant")]
    first = fake_server.chat_requests[0].body
    assert first["model"] == "player"
    assert [m["content"] for m in first["messages"][-3:]] == [
        "Shelter, please!", "Boots. Now.", "What is that noise upstairs?"]
    # judge-a already scored turn 1: it is asked only for the turns it owes; judge-b for all three
    started = {e.judge: e.turns for e in of(events, JudgeStarted)}
    assert started == {"judge-a": (2, 3), "judge-b": (1, 2, 3)}
    verdicts = {e.verdict.judge: e.verdict for e in of(events, VerdictReady)}
    assert [t.turn for t in verdicts["judge-b"].turns] == [1, 2, 3]


async def test_resume_of_a_finished_conversation_only_judges(fake_server, fake_pool):
    history = [Message(turn=t, role=r, author="x", text=f"{r} {t}") for t in (1, 2) for r in ("user", "assistant")]
    events = await collect(engine(fake_pool, history=history, situation=situation(2)))
    assert not messages(events)
    assert len(of(events, VerdictReady)) == 2
    assert {r.body["model"] for r in fake_server.chat_requests} == {"judge-a", "judge-b"}


async def test_history_out_of_order_is_refused(fake_pool):
    bad = [Message(turn=1, role="assistant", author="x", text="hi")]
    with pytest.raises(ValueError, match="expected turn 1 user"):
        engine(fake_pool, history=bad)


async def test_user_becomes_the_sessions_user_name_when_the_prompt_is_built(fake_server, fake_pool):
    """{{user}} stays in the card; the player's prompt gets the name the session was started with
    (config `user_name`), or "User" without one."""
    edda = card(persona="Edda has kept the lighthouse for forty years and calls {{user}} a landlubber.")
    for name, expected in (("Alex", "calls Alex a landlubber"), (None, "calls User a landlubber")):
        run = SessionEngine(spec=spec(judges=[], user_name=name), character=edda, situation=situation(1),
                            pool=fake_pool)
        await collect(run)
        system = requests_for(fake_server, "player")[-1]["messages"][0]["content"]  # this session's
        assert expected in system and "{{user}}" not in system
    assert "{{user}}" in edda.persona
