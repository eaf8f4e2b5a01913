"""People in a group scene, at the engine: the narrator seat chooses who speaks, a person sits as a
member and types its lines, and seats change hands while the engine waits."""

from __future__ import annotations

import asyncio

from pingpong.core.config import offline_spec
from pingpong.core.control import SessionControl
from pingpong.core.domain import HUMAN
from pingpong.core.events import SeatChanged, SpeakerWanted
from pingpong.core.llm import ModelPool
from tests.engine.engine_support import collect, messages, of, until
from tests.scenes.support import scene, scene_engine


def offline_pool() -> ModelPool:
    return ModelPool({"offline": offline_spec()})


def waits(control: SessionControl) -> bool:
    """The engine waits for a person's text and holds none already handed over."""
    return control.human.waiting and control.human.pending == 0


async def test_a_person_as_narrator_chooses_every_speaker_and_can_hand_the_seat_on():
    control = SessionControl()
    pool = offline_pool()
    engine = scene_engine(pool, player="offline", others="offline", interrogator=HUMAN, control=control)
    wanted: list[int] = []

    async def narrate() -> None:
        for pick in ("ferryman", "nobody-here", "net-mender"):
            await until(lambda n=len(wanted): len(wanted) > n)
            control.choose_speaker(pick)
        await until(lambda: len(wanted) == 4)
        control.set_seat("interrogator", "offline")  # from now on the offline narrator picks

    task = asyncio.create_task(narrate())
    events = await collect(engine, lambda e: wanted.append(e.turn) if isinstance(e, SpeakerWanted) else None)
    await task
    await pool.aclose()
    lines = [m for m in messages(events) if m.role == "assistant" and "question" not in m.notes]
    assert [e.turn for e in of(events, SpeakerWanted)] == [1, 2, 4, 5]
    assert [m.speaker for m in lines][:3] == ["ferryman", "lighthouse-keeper", "net-mender"]
    assert [m.notes["next_by"] for m in lines] == ["person", "turn", "person", "narrator"]
    assert "'nobody-here', who is not in the cast" in lines[1].notes["fallback"]
    assert lines[3].notes["narrator"] == "offline"


async def test_a_person_sits_as_a_member_types_its_line_and_hands_the_seat_back():
    control = SessionControl()
    pool = offline_pool()
    engine = scene_engine(pool, scene(rounds=6), player="offline", others="offline", interrogator="offline",
                          next_speaker="turn", seats={"harbour-master": HUMAN}, control=control)

    async def sit() -> None:
        await until(lambda: waits(control))
        assert control.human.speaker == "harbour-master" and control.human.role == "assistant"
        control.choose_speaker("ferryman")
        await control.human.submit("My boat stays tied.")
        await until(lambda: waits(control))
        control.set_member_seat("harbour-master", "offline")  # nobody types: the seat goes to a model

    task = asyncio.create_task(sit())
    events = await collect(engine)
    await task
    await pool.aclose()
    lines = [m for m in messages(events) if m.role == "assistant" and "question" not in m.notes]
    assert [(m.speaker, m.author) for m in lines] == [
        ("lighthouse-keeper", "offline"), ("harbour-master", HUMAN), ("ferryman", "offline"),
        ("lighthouse-keeper", "offline"), ("harbour-master", "offline"), ("net-mender", "offline")]
    assert lines[1].text == "My boat stays tied." and lines[2].notes == {"next_by": "person"}
    changed = of(events, SeatChanged)
    assert [(e.role, e.author, e.character) for e in changed] == [("player", "offline", "harbour-master")]


async def test_the_tested_member_in_a_persons_hands_answers_the_questions():
    control = SessionControl()
    pool = offline_pool()
    engine = scene_engine(pool, player=HUMAN, others="offline", interrogator="offline", next_speaker="turn",
                          control=control)

    async def play() -> None:
        for text in ("I row out.", "A", "b, I would ask her kindly"):
            await until(lambda: waits(control))
            assert control.human.speaker == "lighthouse-keeper"
            await control.human.submit(text)

    task = asyncio.create_task(play())
    events = await collect(engine)
    await task
    await pool.aclose()
    answers = [m for m in messages(events) if "question" in m.notes and m.role == "assistant"]
    assert [(m.author, m.text) for m in answers] == [(HUMAN, "A"), (HUMAN, "b, I would ask her kindly")]
    assert [s.value for v in engine.verdicts for s in v.scores] == [1.0, 1.0]
