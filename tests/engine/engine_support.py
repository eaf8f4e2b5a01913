"""Cards, situations and event helpers shared by the engine's own tests."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from pingpong.core.domain import Character, ExampleTurn, SessionSpec, Situation
from pingpong.core.events import Event, MessageCompleted


def card(**kw) -> Character:
    data = dict(
        name="lighthouse-keeper", char_name="Edda", lang="en",
        summary="An old lighthouse keeper on a windy island.",
        persona="Edda has kept the lighthouse for forty years. She is gruff, kind to gulls, "
                "and distrusts anyone from the mainland.",
        example_dialogue=[ExampleTurn(user="Is the light ever off?", char="Not while I breathe.")],
        greeting="*squints at you* Another visitor. Wipe your boots.",
    )
    data.update(kw)
    return Character(**data)


def situation(num_turns: int = 4, **kw) -> Situation:
    data = dict(name="storm-night", lang="en", num_turns=num_turns,
                text="You are a sailor who washed ashore; ask for shelter and learn her secret.")
    data.update(kw)
    return Situation(**data)


def spec(**kw) -> SessionSpec:
    data = dict(character="lighthouse-keeper", situation="storm-night", player="player",
                interrogator="interrogator", judges=["judge-a", "judge-b"])
    data.update(kw)
    return SessionSpec(**data)


async def collect(engine, on_event: Callable[[Event], None] | None = None) -> list[Event]:
    events: list[Event] = []
    async for event in engine.run():
        events.append(event)
        if on_event is not None:
            on_event(event)
    return events


def messages(events: list[Event]):
    return [e.message for e in events if isinstance(e, MessageCompleted)]


def of(events: list[Event], kind: type) -> list:
    return [e for e in events if isinstance(e, kind)]


def requests_for(server, model: str) -> list[dict]:
    return [r.body for r in server.chat_requests if r.body.get("model") == model]


async def until(predicate: Callable[[], bool], limit: float = 10.0) -> None:
    """Poll until predicate() holds (the limit only guards against a hang)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + limit
    while not predicate():
        if loop.time() > end:
            raise AssertionError("condition never became true")
        await asyncio.sleep(0.005)
