"""DMT-RoleBench sessions through the real client against the local fake server."""

from __future__ import annotations

import json
import re

from pingpong.core.engine import SessionEngine
from pingpong.core.events import SessionFinished, VerdictReady
from pingpong.core.methods.dmt_rules import metrics_for
from pingpong.core.methods.dmt_seed import Seed
from pingpong.situations.seeds import seed_situation
from tests.engine.engine_support import card, collect, messages, of, spec

SEED = Seed(name="storm-night", lang="en", character="lighthouse-keeper", topic="the lighthouse's secret",
            intent="role_knowledge_qa", initial_query="May I shelter here from the storm?",
            goal="Edda tells why the light never goes out.", max_rounds=5)


def system_of(body: dict) -> str:
    return next((m["content"] for m in body["messages"] if m["role"] == "system"), "")


def labels_for(body: dict, metrics, skip: set[tuple[int, str]] = frozenset()) -> str:
    rounds = [int(n) for n in re.findall(r"\d+", body["messages"][-1]["content"].rsplit("Label rounds:", 1)[1])]
    entries = []
    for r in rounds:
        entry: dict = {"round": r}
        for m in metrics:
            if (r, m) not in skip:
                entry[f"{m}_explanation"] = "fine"
                entry[m] = "bad" if r == 2 else "good"
        entries.append(entry)
    return json.dumps({"labels": entries})


def labels_asked_again(body: dict, skip: set[tuple[int, str]]) -> str:
    """The answer to a re-ask ("round 1: fluency, coherence; round 3: empathy"): only those labels."""
    entries = []
    for turn, names in re.findall(r"round (\d+): ([a-z_, ]+)", body["messages"][-1]["content"]):
        entry: dict = {"round": int(turn)}
        for m in (n.strip() for n in names.split(",")):
            if (int(turn), m) not in skip:
                entry[f"{m}_explanation"], entry[m] = "now given", "good"
        entries.append(entry)
    return json.dumps({"labels": entries})


class Responder:
    """One fake model for every DMT task, told apart by the system prompt."""

    def __init__(self, *, stop_after: int = 99, reject_first: int = 0, role_type: str | None = None,
                 skip: set[tuple[int, str]] = frozenset(), skip_again: set[tuple[int, str]] | None = None):
        self.stop_after, self.reject_left, self.skip = stop_after, reject_first, skip
        self.skip_again = skip if skip_again is None else skip_again
        self.metrics = metrics_for(role_type)
        self.generated = 0
        self.checks: list[str] = []
        self.reasks: list[str] = []

    def __call__(self, body: dict) -> str:
        system, last = system_of(body), body["messages"][-1]["content"]
        if system.startswith("You write the user's side"):
            self.generated += 1
            return json.dumps({"sub_topic": f"topic {self.generated}", "sub_intent": "probe",
                               "next_query": f"question {self.generated}?"})
        if system.startswith("You review user messages"):
            self.checks.append(last)
            if self.reject_left:
                self.reject_left -= 1
                return json.dumps({"accept": False, "reason": "sounds like a test"})
            return json.dumps({"accept": True, "reason": "natural"})
        if system.startswith("You decide whether"):
            done = last.count("Edda:") >= self.stop_after
            return json.dumps({"stop": done, "reason": "goal reached" if done else "not yet"})
        if system.startswith("You evaluate") and last.startswith("Some labels are missing"):
            self.reasks.append(last)
            return labels_asked_again(body, self.skip_again)
        if system.startswith("You evaluate"):
            return labels_for(body, self.metrics, self.skip)
        return "*nods* Come in, wipe your boots."


def engine(pool, responder: Responder, role_type: str | None = None, judges=("judge-a",)) -> SessionEngine:
    return SessionEngine(spec=spec(method="dmt", situation=SEED.name, judges=list(judges)),
                         character=card(role_type=role_type), situation=seed_situation(SEED), pool=pool)


async def test_a_stop_signal_ends_the_dialogue_before_max_rounds(fake_server, fake_pool):
    fake_server.responder = Responder(stop_after=2)
    events = await collect(engine(fake_pool, fake_server.responder))
    msgs = messages(events)
    assert [m.turn for m in msgs if m.role == "assistant"] == [1, 2]
    assert msgs[0].text == SEED.initial_query and msgs[0].notes["quality"] == "seed"
    assert msgs[1].notes["stop"] == "continue"
    assert msgs[-1].notes["stop"] == "goal_reached"
    assert msgs[2].notes["sub_topic"] == "topic 1" and msgs[2].notes["sub_intent"] == "probe"
    assert of(events, SessionFinished)


async def test_without_a_stop_the_round_limit_ends_it(fake_server, fake_pool):
    fake_server.responder = Responder()
    msgs = messages(await collect(engine(fake_pool, fake_server.responder)))
    assert len([m for m in msgs if m.role == "assistant"]) == SEED.max_rounds
    assert msgs[-1].notes["stop"] == "max_rounds"


async def test_a_rejected_query_is_regenerated(fake_server, fake_pool):
    responder = fake_server.responder = Responder(stop_after=2, reject_first=1)
    msgs = messages(await collect(engine(fake_pool, responder)))
    second = next(m for m in msgs if m.role == "user" and m.turn == 2)
    assert second.text == "question 2?"
    assert second.notes["quality"] == "accepted" and second.notes["rejections"] == "1"
    assert responder.generated == 2 and "question 1?" in responder.checks[0]


async def test_after_three_rejections_the_last_query_is_used_and_marked(fake_server, fake_pool):
    responder = fake_server.responder = Responder(stop_after=2, reject_first=3)
    msgs = messages(await collect(engine(fake_pool, responder)))
    second = next(m for m in msgs if m.role == "user" and m.turn == 2)
    assert second.text == "question 3?" and second.notes["quality"] == "forced"
    assert second.notes["rejections"] == "3"


async def test_a_game_npc_gets_only_game_completion(fake_server, fake_pool):
    fake_server.responder = Responder(stop_after=2, role_type="npc")
    events = await collect(engine(fake_pool, fake_server.responder, role_type="npc", judges=("judge-a", "judge-b")))
    verdicts = [e.verdict for e in of(events, VerdictReady)]
    assert {v.judge for v in verdicts} == {"judge-a", "judge-b"}
    for v in verdicts:
        assert {s.metric for s in v.scores} == {"game_completion"}
        assert [(s.turn, s.value) for s in v.scores] == [(1, 1), (2, 0)]
        assert all(s.scale == "good-bad" and s.explanation == "fine" for s in v.scores)


async def test_a_missing_label_is_asked_again_once_then_recorded_failed(fake_server, fake_pool):
    responder = fake_server.responder = Responder(stop_after=2, skip={(1, "fluency")})
    events = await collect(engine(fake_pool, responder))
    (verdict,) = [e.verdict for e in of(events, VerdictReady)]
    assert {s.metric for s in verdict.scores} == set(metrics_for("fictional"))
    failed = verdict.failed
    assert [(s.turn, s.metric) for s in failed] == [(1, "fluency")]
    assert failed[0].value is None and "also when asked again" in failed[0].error
    assert len(responder.reasks) == 1 and responder.reasks[0].endswith("round 1: fluency")
    assert verdict.attempts == 2


async def test_a_label_given_when_asked_again_counts(fake_server, fake_pool):
    responder = fake_server.responder = Responder(stop_after=2, skip={(2, "coherence"), (2, "empathy")},
                                                  skip_again=set())
    events = await collect(engine(fake_pool, responder))
    (verdict,) = [e.verdict for e in of(events, VerdictReady)]
    assert not verdict.failed and len(responder.reasks) == 1
    asked = {s.metric: s for s in verdict.scores if s.turn == 2}
    assert asked["coherence"].value == 1 and asked["coherence"].explanation == "now given"
    assert "empathy" not in asked  # not a fictional character's metric: never asked for


async def test_a_complete_answer_is_not_asked_again(fake_server, fake_pool):
    responder = fake_server.responder = Responder(stop_after=2)
    events = await collect(engine(fake_pool, responder))
    (verdict,) = [e.verdict for e in of(events, VerdictReady)]
    assert not verdict.failed and not responder.reasks and verdict.attempts == 1


async def test_a_person_ends_the_dialogue_instead_of_writing(fake_server, fake_pool):
    """A person in the interrogator seat: round 1 is the seed's, the stop check (the first judge, as
    the seat has no model) says continue, and the person ends the dialogue before round 2."""
    from pingpong.core.control import SessionControl
    from pingpong.core.events import NotesChanged
    from tests.engine.engine_support import until

    fake_server.responder = Responder()
    control = SessionControl()
    eng = SessionEngine(spec=spec(method="dmt", situation=SEED.name, interrogator="human", judges=["judge-a"]),
                        character=card(), situation=seed_situation(SEED), pool=fake_pool, control=control)
    events: list = []

    async def run() -> None:
        async for event in eng.run():
            events.append(event)

    import asyncio

    task = asyncio.create_task(run())
    await until(lambda: control.human.waiting)
    assert control.human.turn == 2
    control.end_dialogue()
    await task
    msgs = messages(events)
    assert [(m.turn, m.role, m.author) for m in msgs] == [(1, "user", "seed"), (1, "assistant", "player")]
    assert msgs[1].notes["stop"] == "continue" and msgs[1].notes["stop_by"] == "judge-a"
    (changed,) = of(events, NotesChanged)
    assert changed.message.turn == 1 and changed.message.notes["stop"] == "ended_by_person"
    assert changed.message.notes["stop_check"] == "continue" and changed.message.notes["stop_by"] == "human"
    assert eng.transcript[-1].notes["stop"] == "ended_by_person"
    (verdict,) = [e.verdict for e in of(events, VerdictReady)]
    assert {s.turn for s in verdict.scores} == {1}
    assert of(events, SessionFinished)


def test_the_stop_check_asks_only_whether_the_goal_was_reached():
    """METHOD.md: the dialogue stops when the seed's goal is reached or at the round limit. A stop for
    any other reason would be stored as the goal reached and end the DMT-Score's curve early."""
    from pingpong.core.methods.dmt_prompts import stop

    system = stop(card(), seed_situation(SEED), [])[0]["content"]
    assert "Say stop only when the goal has been reached" in system and "cannot get closer" not in system


class Reasoner(Responder):
    """The generator thinks aloud until its budget ends, and never writes the query."""

    def __call__(self, body: dict) -> str:
        if system_of(body).startswith("You write the user's side"):
            return "<think>\nThe user should ask about the light, or maybe about the storm; let me weigh"
        return super().__call__(body)


async def test_a_generator_that_only_reasons_says_so_in_the_failure(fake_server, fake_pool):
    from pingpong.core.events import SessionFailed

    fake_server.responder = Reasoner(stop_after=9)
    (failed,) = of(await collect(engine(fake_pool, fake_server.responder)), SessionFailed)
    assert "gave no usable next_query after a re-ask (only reasoning, no answer)" in failed.error, failed.error
