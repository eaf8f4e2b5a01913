"""RoleInteract probe sessions through the real client against the local fake server: one-turn
questions, memory probes with their padding stored as real messages, resuming, offline answers."""

from __future__ import annotations

import pytest

from pingpong.core.config import offline_spec
from pingpong.core.engine import SessionEngine
from pingpong.core.llm import ModelPool
from pingpong.core.methods.roleinteract_probes import (
    PADDING_BRIEF,
    choice_situation,
    memory_situation,
    probe_situations,
)
from pingpong.core.offline import MARK
from tests.engine.engine_support import card, collect, messages, requests_for, spec
from tests.methods.probe_builders import EMOTION, POOL, memory_probe, probe_set


def player_replies(server, answers: dict[str, str]) -> None:
    """The fake player answers a user message that contains a key with its value, anything else plainly."""
    def respond(body: dict) -> str:
        last = body["messages"][-1]["content"]
        return next((reply for key, reply in answers.items() if key in last), "Mm. The gulls are loud today.")
    server.responder = respond


async def test_a_question_is_one_turn_scored_by_rule_without_a_judge_call(fake_server, fake_pool):
    player_replies(fake_server, {"How does the guest feel?": "Afraid, plainly. I choose B."})
    situation = choice_situation(probe_set(), EMOTION, "Edda")
    engine = SessionEngine(spec=spec(method="roleinteract", situation=situation.name), character=card(),
                           situation=situation, pool=fake_pool)
    user, reply = messages(await collect(engine))
    assert (user.author, user.text, reply.author) == ("roleinteract", situation.text, "player")
    [verdict] = engine.verdicts
    assert verdict.judge == "roleinteract" and [(s.metric, s.value) for s in verdict.scores] == [("emotion", 1.0)]
    assert {r.body["model"] for r in fake_server.chat_requests} == {"player"}


async def test_a_long_memory_probe_stores_its_padding_and_scores_the_question_again(fake_server, fake_pool):
    player_replies(fake_server, {"What does my brother keep": "Bees! Your brother keeps bees, I think."})
    probe = memory_probe(44)
    situation = memory_situation(probe_set(probe), probe, POOL)
    engine = SessionEngine(spec=spec(method="roleinteract", situation=situation.name), character=card(),
                           situation=situation, pool=fake_pool)
    stored = messages(await collect(engine))
    assert len(stored) == 48 and [m.turn for m in stored[::2]] == list(range(1, 25))
    users = [m for m in stored if m.role == "user"]
    assert users[0].text == probe.plant and users[-1].text == probe.ask
    assert [m.text for m in users[1:-1]] == situation.data["padding_lines"] and len(users[1:-1]) == 22
    assert {m.author for m in users} == {"roleinteract"}
    assert all(m.author == "player" for m in stored if m.role == "assistant")
    last_request = requests_for(fake_server, "player")[-1]["messages"]
    assert len([m for m in last_request if m["role"] == "user"]) >= 24  # the player sees the whole talk
    [score] = engine.verdicts[0].scores
    assert (score.turn, score.metric, score.value) == (24, "memory_long", pytest.approx(1 / 3))


async def test_a_memory_probe_resumes_with_the_padding_it_was_planned_with(fake_server, fake_pool):
    probe = memory_probe(6)
    situation = memory_situation(probe_set(probe), probe, POOL)
    first = SessionEngine(spec=spec(method="roleinteract"), character=card(), situation=situation, pool=fake_pool)
    done = messages(await collect(first))
    engine = SessionEngine(spec=spec(method="roleinteract"), character=card(), situation=situation,
                           pool=fake_pool, history=done[:5])
    rest = messages(await collect(engine))
    assert [(m.turn, m.role) for m in rest] == [(3, "assistant"), (4, "user"), (4, "assistant"), (5, "user"),
                                                (5, "assistant")]
    assert [m.text for m in rest if m.role == "user"] == [m.text for m in done[6::2]]


async def test_the_interrogator_seat_can_write_the_padding(fake_server, fake_pool):
    player_replies(fake_server, {})
    fake_server.responder = None  # the default: the interrogator's JSON line, plain player lines
    probe = memory_probe(4, padding_from="interrogator")
    situation = memory_situation(probe_set(probe), probe, POOL)
    engine = SessionEngine(spec=spec(method="roleinteract"), character=card(), situation=situation, pool=fake_pool)
    users = [m for m in messages(await collect(engine)) if m.role == "user"]
    assert [m.author for m in users] == ["roleinteract", "interrogator", "interrogator", "roleinteract"]
    assert all(m.text.startswith("What do you do all day?") for m in users[1:3])
    prompts = [r["messages"][0]["content"] for r in requests_for(fake_server, "interrogator")]
    assert len(prompts) == 2 and all(PADDING_BRIEF["en"] in p and probe.plant not in p for p in prompts)


async def test_offline_answers_every_probe_kind_without_a_network():
    pool = ModelPool({"offline": offline_spec()})
    probe = memory_probe(4, padding_from="interrogator")
    situations = probe_situations(probe_set(probe), "Edda", POOL)
    try:
        for situation in situations:
            engine = SessionEngine(spec=spec(method="roleinteract", player="offline", interrogator="offline",
                                             judges=[]), character=card(), situation=situation, pool=pool)
            stored = messages(await collect(engine))
            assert all(m.text.startswith(MARK) for m in stored if m.author == "offline")
            [score] = engine.verdicts[0].scores
            assert score.status == "ok" and 0.0 <= score.value <= 1.0
    finally:
        await pool.aclose()
    assert [m.text for m in stored if m.role == "user"][1:3] == [f"{MARK} {line}" for line in
                                                                  situations[-1].data["padding_lines"]]


