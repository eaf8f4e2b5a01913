"""Group scenes through the real openai client against the local test server: the narrator model
names the next speaker, members speak with their own prompts, and the answers are scored by rule."""

from __future__ import annotations

import json

from pingpong.core.events import SpeakerWanted, TurnStarted, VerdictReady
from tests.engine.engine_support import collect, messages, of
from tests.fakeserver import bad_request
from tests.scenes.support import scene_engine


def system_of(body: dict) -> str:
    return next((m["content"] for m in body["messages"] if m["role"] == "system"), "")


class Group:
    """One fake model for every seat, told apart by the prompts: the narrator names members from a
    queue (or answers something unreadable), members say who they are, the tested member answers."""

    def __init__(self, picks: list[str], answers: dict[str, str]):
        self.picks = list(picks)
        self.answers = answers
        self.narrator_asks: list[str] = []
        self.member_systems: list[str] = []

    def __call__(self, body: dict) -> str:
        system, last = system_of(body), body["messages"][-1]["content"]
        if system.startswith("You direct a group scene"):
            self.narrator_asks.append(last)
            return self.picks.pop(0)
        if "The scene pauses for a question" in last:
            question = next(q for q in self.answers if q in last)
            return self.answers[question]
        self.member_systems.append(system)
        name = system.split(",", 1)[0].removeprefix("You are ")
        return f"{name} speaks."


async def test_the_narrator_model_chooses_the_next_speaker(fake_server, fake_pool):
    fake_server.responder = Group(
        picks=[json.dumps({"next_speaker": "Tamsin"}), "I think Osric should answer that.",
               "Edda, surely", '{"next_speaker": "Old Bram"}'],
        answers={"Osric refuses": "A. I row out myself.", "Tamsin shrugs": "Maybe B, or C, hard to say."})
    events = await collect(scene_engine(fake_pool))
    msgs = messages(events)
    lines = [m for m in msgs if m.role == "assistant" and "question" not in m.notes]
    assert [m.speaker for m in lines] == ["net-mender", "harbour-master", "lighthouse-keeper", "ferryman"]
    assert all(m.notes == {"next_by": "narrator", "narrator": "interrogator"} for m in lines)
    assert lines[0].text == "Tamsin speaks." and lines[1].text == "Osric Vane speaks."
    assert [m.turn for m in msgs] == [1, 1, 2, 3, 3, 4, 5, 6, 6]
    assert [(m.role, m.speaker) for m in msgs if m.turn in (3, 6)] == [
        ("user", "narrator"), ("assistant", "lighthouse-keeper")] * 2
    assert [e.speaker for e in of(events, TurnStarted)][:2] == ["net-mender", "harbour-master"]
    asks = fake_server.responder.narrator_asks
    assert "Tamsin has just spoken" in asks[1] and "Tamsin" not in asks[1].split("Choose one of:")[1]
    assert "Osric refuses" not in asks[3], "the members never see the questions"
    assert "How Osric Vane behaves in this group: uncooperative" in fake_server.responder.member_systems[1]
    [verdict] = [e.verdict for e in of(events, VerdictReady)]
    assert verdict.judge == "roleinteract"
    assert [(s.turn, s.metric, s.value) for s in verdict.scores] == [
        (3, "social_preference_group", 1.0), (6, "social_preference_group", 0.0)]
    assert verdict.scores[1].explanation.startswith("unparseable")


async def test_an_unreadable_or_failed_narrator_falls_back_to_round_robin(fake_server, fake_pool):
    fake_server.responder = Group(picks=["no idea", json.dumps({"next_speaker": "the ghost"}), "Tamsin again"],
                                  answers={"Osric refuses": "A", "Tamsin shrugs": "(B)"})
    fake_server.script(bad_request("nope"), model="interrogator")
    events = await collect(scene_engine(fake_pool))
    lines = [m for m in messages(events) if m.role == "assistant" and "question" not in m.notes]
    assert [m.speaker for m in lines] == ["lighthouse-keeper", "harbour-master", "net-mender", "ferryman"]
    assert [m.notes["next_by"] for m in lines] == ["turn"] * 4
    assert "narrator 'interrogator' failed" in lines[0].notes["fallback"]
    assert lines[1].notes["fallback"] == "narrator 'interrogator' named no other member: \"no idea\""
    assert "the ghost" in lines[2].notes["fallback"]
    assert "Tamsin again" in lines[3].notes["fallback"], "the member who just spoke does not speak twice"
    scores = [s.value for e in of(events, VerdictReady) for s in e.verdict.scores]
    assert scores == [1.0, 1.0]


async def test_in_turn_order_never_asks_the_narrator(fake_server, fake_pool):
    fake_server.responder = Group(picks=[], answers={"Osric refuses": "C", "Tamsin shrugs": "B"})
    events = await collect(scene_engine(fake_pool, next_speaker="turn"))
    lines = [m for m in messages(events) if m.role == "assistant" and "question" not in m.notes]
    assert [m.speaker for m in lines] == ["lighthouse-keeper", "harbour-master", "net-mender", "ferryman"]
    assert not fake_server.responder.narrator_asks
    assert [s.value for e in of(events, VerdictReady) for s in e.verdict.scores] == [0.0, 1.0]
    assert not of(events, SpeakerWanted)


class Requests(Group):
    """The Group's answers, keeping every member request whole (system prompt and prior turns)."""

    def __init__(self) -> None:
        super().__init__(picks=[], answers={"Osric refuses": "A", "Tamsin shrugs": "B"})
        self.bodies: list[dict] = []

    def __call__(self, body: dict) -> str:
        if not system_of(body).startswith("You direct a group scene"):
            self.bodies.append(body)
        return super().__call__(body)

    def of(self, name: str) -> list[dict]:
        return [b for b in self.bodies if system_of(b).startswith(f"You are {name},")]


async def test_the_prompt_format_and_strategy_reach_the_member_under_test_only(fake_server, fake_pool):
    """--prompt-format and --prompting are the player's, in a scene as anywhere: the member under test
    (Edda) gets the name only, or name and summary, or its examples; the other members are unchanged."""
    seen = {}
    for changes in ({}, {"prompt_format": "minimal"}, {"prompt_format": "overview"},
                    {"prompting": "fsp"}, {"prompting": "fsd"}):
        fake_server.responder = Requests()
        await collect(scene_engine(fake_pool, next_speaker="turn", **changes))
        seen[tuple(changes.values()) or ("default",)] = fake_server.responder
    persona, summary, example = "forty years", "An old lighthouse keeper", "Not while I breathe."
    for key, requests in seen.items():
        edda, osric = requests.of("Edda"), requests.of("Osric Vane")
        assert len(edda) == 3 and osric  # a group line and two answers; Osric keeps his whole card
        assert all("trusts nobody's sums" in system_of(b) for b in osric)
        systems = [system_of(b) for b in edda]
        prior = [m["content"] for b in edda for m in b["messages"][1:-1]]
        expected = {"default": (True, False, False, []), "minimal": (False, False, False, []),
                    "overview": (False, True, False, []), "fsp": (True, False, True, []),
                    "fsd": (True, False, False, ["Is the light ever off?", example] * 3)}[key[0]]
        assert (all(persona in s for s in systems), all(summary in s for s in systems),
                all(example in s for s in systems), prior) == expected, key
