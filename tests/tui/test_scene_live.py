"""A group scene in the TUI: a person joins as one member, chooses the next speaker, and every
message is stored with its speaker."""

from __future__ import annotations

from textual.widgets import Select, SelectionList

from pingpong.core.domain import HUMAN
from pingpong.tui.screens.live import LiveScreen
from pingpong.tui.screens.new_session import NewSessionScreen
from pingpong.tui.screens.pickers import ModelPicker
from pingpong.tui.widgets.transcript import MessageCard
from tests.tui.helpers import wait_for
from tests.tui.scenes import SCENE, write_scene


async def scene_form(app, pilot) -> NewSessionScreen:
    """The new-session form with the group scene chosen and its cast checked."""
    await pilot.press("n")
    await wait_for(pilot, lambda: isinstance(app.screen, NewSessionScreen))
    form = app.screen
    form.query_one("#new-method", Select).value = "roleinteract"
    await wait_for(pilot, lambda: form.query_one("#new-situation", Select).value == SCENE.name)
    await wait_for(pilot, lambda: len(form.query_one("#new-cast", SelectionList).selected) == 3)
    return form


async def test_a_person_joins_a_three_character_scene_and_chooses_the_next_speaker_twice(app, home, store):
    write_scene(home)
    async with app.run_test(size=(100, 34)) as pilot:
        form = await scene_form(app, pilot)
        form.query_one("#new-sit-as", Select).value = "net-mender"
        form.query_one("#new-next", Select).value = "turn"
        await pilot.pause()
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, LiveScreen))
        live = app.screen
        for text in ("Not my boat.", "I hold the lantern."):
            # the engine waits for Tamsin's line: choose who speaks after her, then write it
            await wait_for(pilot, lambda: live.control.human.waiting and live.control.human.speaker == "net-mender")
            await pilot.press("ctrl+n")
            await wait_for(pilot, lambda: isinstance(app.screen, ModelPicker))
            await pilot.press("enter")  # the first member: Maren, the keeper (in turn it would be Osric)
            await wait_for(pilot, lambda: app.screen is live and live.control.chosen_speaker == "lighthouse-keeper")
            await pilot.press(*text)
            await pilot.press("enter")
        await wait_for(pilot, lambda: live.status == "finished" and not live.running)
        heads = [c.render().plain.splitlines()[0] for c in live.query(MessageCard)]
        session_id = live.session_id
    stored = store.session(session_id)
    assert stored.spec.cast[1].seat == HUMAN and stored.spec.character == "lighthouse-keeper"
    assert all(m.speaker for m in stored.messages)
    lines = [m for m in stored.messages if m.role == "assistant" and "question" not in m.notes]
    assert [m.speaker for m in lines] == ["lighthouse-keeper", "net-mender", "lighthouse-keeper", "net-mender",
                                          "lighthouse-keeper"]
    assert [m.notes["next_by"] for m in lines] == ["turn", "turn", "person", "turn", "person"]
    assert [m.author for m in lines] == ["offline", HUMAN, "offline", HUMAN, "offline"]
    assert lines[1].text == "Not my boat."
    names = {"lighthouse-keeper": "Maren", "net-mender": "Tamsin", "harbour-master": "Osric", "narrator": "narrator"}
    assert [head.split()[1] for head in heads] == [names[m.speaker] for m in stored.messages]
    answers = [m for m in stored.messages if m.role == "assistant" and "question" in m.notes]
    assert [m.notes["question"] for m in answers] == ["q-01", "q-02"]
    scores = [s for v in stored.verdicts for s in v.scores]
    assert [s.turn for s in scores] == [m.turn for m in answers]
    assert all(s.metric == "social_preference_group" and s.scale == "0-1" for s in scores)


async def test_the_person_narrates_takes_a_members_seat_and_hands_the_narrator_back(make_app, home, store):
    from pingpong.core.domain import SessionSpec
    from pingpong.core.methods.roleinteract_scene import scene_cast, scene_situation
    from pingpong.tui.app import PlayRequest
    from tests.tui.scenes import scene_cards

    write_scene(home)
    cards = scene_cards()
    cast = scene_cast(SCENE, None, player="offline", others="offline")
    spec = SessionSpec(character=SCENE.tested, situation=SCENE.name, player="offline", interrogator=HUMAN,
                       method="roleinteract", lang="en", cast=cast)
    app = make_app(initial=PlayRequest(spec, cards[SCENE.tested], scene_situation(SCENE),
                                       tuple(cards[c.character] for c in cast)))

    shown: list = []

    async def pick(*keys: str) -> None:
        """Answer the next picker that opens (a new one, not the one just answered)."""
        await wait_for(pilot, lambda: isinstance(app.screen, ModelPicker) and app.screen not in shown)
        shown.append(app.screen)
        await pilot.press(*keys)

    async with app.run_test(size=(100, 34)) as pilot:
        # the engine asks the narrator at once: the picker opens over the live screen
        await wait_for(pilot, lambda: isinstance(app.screen, ModelPicker))
        live = next(screen for screen in app.screen_stack if isinstance(screen, LiveScreen))
        await pick("down", "enter")  # the narrator's first choice: Tamsin, the net mender
        await pick("escape")  # no choice yet: first sit as Osric, then let him speak
        await wait_for(pilot, lambda: app.screen is live)
        await pilot.press("t")
        await pick("end", "enter")  # "Sit as": the narrator, Maren, Tamsin, Osric
        await wait_for(pilot, lambda: app.screen is live and live.member_seats["harbour-master"] == HUMAN)
        await pilot.press("ctrl+n")
        await pick("end", "enter")
        await wait_for(pilot, lambda: live.control.human.waiting and live.control.human.speaker == "harbour-master")
        await pilot.press(*"Mine.", "enter")
        await pick("enter")  # after the question to Maren, the narrator picks Maren again
        await pick("escape")  # the next choice is left to a model: hand the narrator seat back, then Osric's
        await wait_for(pilot, lambda: app.screen is live)
        await pilot.press("ctrl+b")
        await pick("enter")  # which seat: the narrator
        await pick("enter")  # to offline
        await wait_for(pilot, lambda: app.screen is live and live.seat == "offline")
        await pilot.press("ctrl+b")  # only Osric is left: straight to the models
        await pick("enter")
        await wait_for(pilot, lambda: live.status == "finished" and not live.running)
        session_id = live.session_id
    stored = store.session(session_id)
    lines = [m for m in stored.messages if m.role == "assistant" and "question" not in m.notes]
    assert [(m.speaker, m.author) for m in lines][:3] == [
        ("net-mender", "offline"), ("harbour-master", HUMAN), ("lighthouse-keeper", "offline")]
    assert [m.notes["next_by"] for m in lines][:3] == ["person", "person", "person"]
    assert all(m.notes["next_by"] in ("narrator", "turn") for m in lines[3:])
    assert all(m.speaker for m in stored.messages)


async def test_the_forms_prompting_reaches_a_group_scene(app, home, store):
    """The scene form showed the Prompting choice and then dropped it: the session stored none."""
    write_scene(home)
    async with app.run_test(size=(100, 34)) as pilot:
        form = await scene_form(app, pilot)
        form.query_one("#new-prompting", Select).value = "fsp"
        await pilot.pause()
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, LiveScreen))
        session_id = app.screen.session_id
    assert store.session(session_id).spec.prompting == "fsp"
