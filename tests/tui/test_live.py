"""Live sessions on the offline models: to the end, and with a person in the interrogator seat."""

from __future__ import annotations

from textual.widgets import Input, Select, Static

from pingpong.tui.screens.live import LiveScreen
from pingpong.tui.screens.new_session import NewSessionScreen
from pingpong.tui.screens.pickers import ModelPicker
from pingpong.tui.widgets.transcript import MessageCard
from tests.tui.helpers import form_filled, wait_for


async def test_new_session_runs_to_judged_end(app, store):
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, NewSessionScreen) and form_filled(app.screen))
        form = app.screen
        assert form.query_one("#new-character", Select).value == "lighthouse-keeper"
        form.query_one("#new-situation", Select).value = "storm-night"
        await pilot.pause()
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, LiveScreen))
        live = app.screen
        await wait_for(pilot, lambda: live.status == "finished" and not live.running)
        cards = list(live.query(MessageCard))
        assert [(c.turn, c.role) for c in cards] == [(1, "user"), (1, "assistant"), (2, "user"), (2, "assistant")]
        assert all(c.author == "offline" for c in cards)
        players = [c for c in cards if c.role == "assistant"]
        assert all("judges" in c.scores.plain for c in players)
        session_id = live.session_id
    stored = store.session(session_id)
    assert stored.status == "finished"
    assert [v.judge for v in stored.verdicts] == ["offline"]
    assert sorted(s.turn for s in stored.verdicts[0].turns) == [1, 2]


async def test_human_seat_two_turns_then_hand_back(app, store):
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, NewSessionScreen) and form_filled(app.screen))
        form = app.screen
        form.query_one("#new-situation", Select).value = "bot-check"
        form.query_one("#new-interrogator", Select).value = "human"
        form.query_one("#new-turns", Input).value = "4"
        await pilot.pause()
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, LiveScreen))
        live = app.screen
        for turn, text in ((1, "Are you a program?"), (2, "Prove you are not a machine.")):
            await wait_for(pilot, lambda: live.control.human.waiting and app.focused is live.query_one("#human-input"))
            await pilot.press(*text)
            await pilot.press("enter")
            await wait_for(pilot, lambda: any(c.turn == turn and c.role == "assistant"
                                              for c in live.query(MessageCard)))
        # hand the seat to the offline model (ctrl+b works from the input box) before turn 3
        await pilot.press("ctrl+b")
        await wait_for(pilot, lambda: isinstance(app.screen, ModelPicker))
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is live)
        await wait_for(pilot, lambda: live.status == "finished" and not live.running)
        session_id = live.session_id
    stored = store.session(session_id)
    users = [(m.turn, m.author) for m in stored.messages if m.role == "user"]
    assert users == [(1, "human"), (2, "human"), (3, "offline"), (4, "offline")]
    assert stored.messages[0].text == "Are you a program?"


async def test_human_seat_input_is_ready_before_the_engine_waits(app, store):
    """Keys typed as soon as a person holds the seat go to the input box (kept until the engine
    asks), never to the screen's shortcuts (h would open the hand-back picker)."""
    from pingpong.core.domain import SessionSpec
    from tests.tui.conftest import CARDS, SITUATIONS

    spec = SessionSpec(character=CARDS[0].name, situation=SITUATIONS[0].name, player="offline",
                       interrogator="human", judges=["offline"], lang="en")
    async with app.run_test(size=(100, 30)) as pilot:
        sid = app.start_session(spec, CARDS[0], SITUATIONS[0])
        app.open_live(sid, paused=True)  # the engine holds before turn 1: it is not waiting for text yet
        await wait_for(pilot, lambda: isinstance(app.screen, LiveScreen) and app.screen.control is not None)
        live = app.screen
        assert live.query_one("#human-box").display
        await wait_for(pilot, lambda: app.focused is live.query_one("#human-input"))  # focus() is deferred
        await pilot.press(*"hi there", "enter")
        assert not isinstance(app.screen, ModelPicker)
        assert live.control.human.pending == 1
        assert app.focused is live.query_one("#human-input")  # sent: the box stays, keys are still text
        await pilot.press("escape", "space")  # out of the box, continue: the engine takes the text for turn 1
        await wait_for(pilot, lambda: live.control.human.waiting and app.focused is live.query_one("#human-input"))
        await pilot.press(*"and again", "enter")
        await wait_for(pilot, lambda: live.status == "finished" and not live.running)
        assert not live.query_one("#human-box").display
    users = [(m.turn, m.author, m.text) for m in store.session(sid).messages if m.role == "user"]
    assert users == [(1, "human", "hi there"), (2, "human", "and again")]


async def test_a_pasted_text_of_several_lines_is_sent_whole(app, store):
    """A terminal pastes several lines as one Paste event: the message keeps every line's words."""
    from textual import events

    from pingpong.core.domain import SessionSpec
    from tests.tui.conftest import CARDS, SITUATIONS

    spec = SessionSpec(character=CARDS[0].name, situation=SITUATIONS[0].name, player="offline",
                       interrogator="human", judges=["offline"], lang="en", num_turns=1)
    async with app.run_test(size=(100, 30)) as pilot:
        sid = app.start_session(spec, CARDS[0], SITUATIONS[0])
        app.open_live(sid)
        await wait_for(pilot, lambda: isinstance(app.screen, LiveScreen) and app.screen.control is not None
                       and app.screen.control.human.waiting)
        live = app.screen
        box = live.query_one("#human-input", Input)
        await wait_for(pilot, lambda: app.focused is box)
        await pilot.press(*"Listen: ")
        box.post_message(events.Paste("Первая строка.\nВторая строка.\n\nThird line.\n"))
        await wait_for(pilot, lambda: box.value != "Listen: ")
        assert box.value == "Listen: Первая строка. Вторая строка. Third line."
        await pilot.press("enter")
        await wait_for(pilot, lambda: not live.running)
    users = [m.text for m in store.session(sid).messages if m.role == "user"]
    assert users == ["Listen: Первая строка. Вторая строка. Third line."]


async def test_unsent_text_is_in_the_box_again_when_the_session_is_reopened(app, store):
    """Leaving a running session (keep running) and opening it again from Home: the message box holds
    what was typed and not sent."""
    from pingpong.core.domain import SessionSpec
    from pingpong.tui.screens.choice import ChoiceScreen
    from pingpong.tui.screens.home import HomeScreen
    from tests.tui.conftest import CARDS, SITUATIONS

    spec = SessionSpec(character=CARDS[0].name, situation=SITUATIONS[0].name, player="offline",
                       interrogator="human", judges=["offline"], lang="en", num_turns=1)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen) and app.screen.loaded)
        sid = app.start_session(spec, CARDS[0], SITUATIONS[0])
        app.open_live(sid)
        await wait_for(pilot, lambda: isinstance(app.screen, LiveScreen) and app.screen.control is not None
                       and app.screen.control.human.waiting)
        first = app.screen
        await wait_for(pilot, lambda: app.focused is first.query_one("#human-input"))
        await pilot.press(*"half a thought", "escape", "escape")
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        await pilot.press("k")  # keep running
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen))
        app.open_live(sid)
        await wait_for(pilot, lambda: isinstance(app.screen, LiveScreen) and app.screen is not first
                       and app.screen.control is not None)
        live = app.screen
        box = live.query_one("#human-input", Input)
        assert box.value == "half a thought"
        await wait_for(pilot, lambda: app.focused is box)
        await pilot.press("end", *", finished", "enter")
        await wait_for(pilot, lambda: not live.running)
    users = [m.text for m in store.session(sid).messages if m.role == "user"]
    assert users == ["half a thought, finished"]


async def test_quitting_mid_session_leaves_it_interrupted_for_resume(app, store):
    from pingpong.core.domain import SessionSpec
    from tests.tui.conftest import CARDS, SITUATIONS

    spec = SessionSpec(character=CARDS[0].name, situation=SITUATIONS[0].name, player="offline",
                       interrogator="human", judges=["offline"], lang="en")
    async with app.run_test(size=(100, 30)) as pilot:
        sid = app.start_session(spec, CARDS[0], SITUATIONS[0])
        app.open_live(sid)
        await wait_for(pilot, lambda: isinstance(app.screen, LiveScreen) and app.screen.control is not None
                       and app.screen.control.human.waiting)
        assert store.session(sid).status == "running"
    assert store.session(sid).status == "interrupted"


async def test_tester_seat_is_not_offered_to_a_person(app, store):
    """pingpong-v1's interrogator also scores the replies: the live screen never offers its seat (a person
    in it would finish the session with no score)."""
    from textual.widgets._footer import FooterKey

    from pingpong.core.domain import SessionSpec
    from tests.tui.conftest import CARDS, SITUATIONS

    spec = SessionSpec(method="pingpong-v1", character=CARDS[0].name, situation=SITUATIONS[0].name,
                       player="offline", interrogator="offline", judges=["offline"], lang="en")
    async with app.run_test(size=(100, 30)) as pilot:
        sid = app.start_session(spec, CARDS[0], SITUATIONS[0])
        app.open_live(sid, paused=True)
        await wait_for(pilot, lambda: isinstance(app.screen, LiveScreen) and app.screen.control is not None)
        live = app.screen
        await pilot.pause()
        shown = {key.description for key in live.query(FooterKey)}
        assert "Step" in shown and "Take seat" not in shown
        await pilot.press("t")
        await pilot.pause()
        assert live._held_seat() is None and not live.query_one("#human-box").display


async def test_the_final_and_status_stay_in_the_header_at_80_columns(app, store):
    """The header shows two rows: a long seat list comes after the final and the status, never over them."""
    from tests.tui.conftest import write_session

    sid = write_session(store, player="llama-3-70b-instruct",
                        judges=("offline", "strict-judge", "a-judge-with-a-very-long-model-name"))
    async with app.run_test(size=(80, 24)) as pilot:
        app.open_live(sid)
        await wait_for(pilot, lambda: isinstance(app.screen, LiveScreen) and app.screen.status == "finished")
        await pilot.pause()
        info = app.screen.query_one("#session-info")
        shown = "".join(info.render_line(y).text for y in range(info.size.height))
        assert info.size.height == 2 and "final " in shown and "[finished]" in shown


async def test_rating_a_turn_redraws_the_final_in_the_header(app, store):
    """o on a finished session: the header's final is the one Home and replay show after the rating."""
    from pingpong.sessions.scoring import stored_final
    from pingpong.tui.screens.override import OverrideScreen
    from tests.tui.conftest import write_session

    sid = write_session(store)
    before = stored_final(store.session(sid)).text()
    async with app.run_test(size=(100, 30)) as pilot:
        app.open_live(sid)
        await wait_for(pilot, lambda: isinstance(app.screen, LiveScreen) and app.screen.status == "finished")
        live = app.screen
        info = live.query_one("#session-info", Static)
        assert f"final {before}" in str(info.render())
        await pilot.press("o")
        await wait_for(pilot, lambda: isinstance(app.screen, OverrideScreen))
        await pilot.press("1", "1", "1", "ctrl+s")
        await wait_for(pilot, lambda: app.screen is live and live.human)
        after = stored_final(store.session(sid)).text()
        assert after != before
        assert f"final {after}" in str(info.render())


async def test_the_greeting_the_player_was_given_opens_the_transcript(make_app, store):
    """A model interrogator reads the card's greeting before turn 1; a person in the seat saw nothing
    of it. It is shown above turn 1 exactly where the player was given it (not with a RoleLLM strategy)."""
    from textual.widgets import Static

    from pingpong.core.domain import HUMAN, SessionSpec
    from tests.tui.conftest import CARDS, SITUATIONS

    for prompting, shown in ((None, True), ("zsp", False)):
        spec = SessionSpec(character=CARDS[0].name, situation=SITUATIONS[0].name, player="offline",
                           interrogator=HUMAN, judges=["offline"], lang="en", prompting=prompting)
        app = make_app()
        async with app.run_test(size=(100, 30)) as pilot:
            sid = app.start_session(spec, CARDS[0], SITUATIONS[0])
            app.open_live(sid, paused=True)
            await wait_for(pilot, lambda: isinstance(app.screen, LiveScreen) and app.screen.stored is not None)
            await pilot.pause()
            lines = [str(w.render()) for w in app.screen.query(".greeting").results(Static)]
            assert bool(lines) is shown, prompting
            if shown:
                assert CARDS[0].greeting in lines[0] and "before turn 1" in lines[0]


async def test_text_sent_ahead_goes_back_to_the_box_when_the_seat_is_handed_back(app, store):
    """A message queued for the person's next turn is never used once the seat goes to a model: it is
    back in the box, unsent, and taking the seat again starts with nothing queued."""
    async with app.run_test(size=(100, 30)) as pilot:
        sid, live, box = await _asking_paused(app, pilot, turns=None)
        await pilot.press(*"typed ahead", "enter")
        assert live.control.human.pending == 1
        assert app.focused is box  # the box stays while the text waits: keys typed now are text
        await pilot.press("ctrl+b")
        await wait_for(pilot, lambda: isinstance(app.screen, ModelPicker))
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is live)
        assert live.control.human.pending == 0
        assert box.value == "typed ahead"
        await pilot.press("s")  # one turn by the model
        await wait_for(pilot, lambda: live.control.paused and any(
            c.turn == 1 and c.role == "assistant" for c in live.query(MessageCard)))
        await pilot.press("t")  # the seat again, from turn 2: the old text is in the box, not queued
        await wait_for(pilot, lambda: app.focused is box)
        await pilot.press("escape", "space")  # out of the box, continue
        await wait_for(pilot, lambda: live.control.human.waiting)
        assert live.control.human.pending == 0 and box.value == "typed ahead"
        box.value = "my own turn two"
        await pilot.press("enter")
        await wait_for(pilot, lambda: live.control.human.waiting and live.control.human.turn == 3)
        await pilot.press(*"and three", "enter")
        await wait_for(pilot, lambda: live.status == "finished" and not live.running)
    users = [(m.turn, m.author, m.text) for m in store.session(sid).messages if m.role == "user"]
    assert [(t, a) for t, a, _ in users] == [(1, "offline"), (2, "human"), (3, "human")]
    assert [text for _, _, text in users[1:]] == ["my own turn two", "and three"]


async def _asking_paused(app, pilot, turns: int | None = 2) -> tuple[int, LiveScreen, Input]:
    """A session with a person in the interrogator seat (of `turns` turns, None: the situation's),
    opened paused before turn 1, the message box focused: (its id, the screen, the box)."""
    from pingpong.core.domain import SessionSpec
    from tests.tui.conftest import CARDS, SITUATIONS

    spec = SessionSpec(character=CARDS[0].name, situation=SITUATIONS[1].name, player="offline",
                       interrogator="human", judges=["offline"], lang="en", num_turns=turns)
    sid = app.start_session(spec, CARDS[0], SITUATIONS[1])
    app.open_live(sid, paused=True)
    await wait_for(pilot, lambda: isinstance(app.screen, LiveScreen) and app.screen.control is not None)
    live = app.screen
    box = live.query_one("#human-input", Input)
    await wait_for(pilot, lambda: app.focused is box)
    return sid, live, box


async def test_keys_typed_after_a_line_sent_ahead_are_text_never_commands(app, store):
    """With a line sent ahead, the box stays focused: 'excuse me' typed next once opened the stop
    dialog (x) and confirmed it (s). Enter keeps a second line in the box until the first is taken."""
    async with app.run_test(size=(100, 30)) as pilot:
        sid, live, box = await _asking_paused(app, pilot)
        await pilot.press(*"first line", "enter")
        assert live.control.human.pending == 1 and app.focused is box
        await pilot.press(*"excuse me, shh", "enter")
        assert app.screen is live and live.running and live.control.human.pending == 1
        assert box.value == "excuse me, shh"  # kept: one line ahead at most
        await pilot.press("escape", "space")  # out of the box, continue: turn 1 takes the first line
        await wait_for(pilot, lambda: live.control.human.waiting and live.control.human.turn == 2)
        await wait_for(pilot, lambda: app.focused is box)
        await pilot.press("enter")
        await wait_for(pilot, lambda: live.status == "finished" and not live.running)
    users = [m.text for m in store.session(sid).messages if m.role == "user"]
    assert users == ["first line", "excuse me, shh"]


async def test_a_line_sent_ahead_is_back_in_the_box_when_the_session_stops(app, store):
    from pingpong.tui.screens.choice import ChoiceScreen

    async with app.run_test(size=(100, 30)) as pilot:
        sid, live, box = await _asking_paused(app, pilot)
        await pilot.press(*"not yet taken", "enter")
        assert live.control.human.pending == 1
        await pilot.press("escape", "x")
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        await pilot.press("s")
        await wait_for(pilot, lambda: app.screen is live and not live.running)
        assert box.value == "not yet taken" and live.control.human.pending == 0
        await pilot.press("r")  # resumed: the line waits in the box, sent when the person says so
        await wait_for(pilot, lambda: live.running and app.focused is box and box.value == "not yet taken")
    assert [m.text for m in store.session(sid).messages if m.role == "user"] == []


async def test_a_smaller_terminal_keeps_the_reply_to_answer_in_sight(app, store):
    """At 120x40 the transcript fits; shrunk to 60x20 (a split pane) it overflows, and the view
    stayed at its top, the player's reply below it."""
    from pingpong.core.domain import SessionSpec
    from tests.tui.conftest import CARDS, SITUATIONS

    spec = SessionSpec(character=CARDS[0].name, situation=SITUATIONS[1].name, player="offline",
                       interrogator="human", judges=["offline"], lang="en", num_turns=3)
    async with app.run_test(size=(120, 40)) as pilot:
        sid = app.start_session(spec, CARDS[0], SITUATIONS[1])
        app.open_live(sid)
        await wait_for(pilot, lambda: isinstance(app.screen, LiveScreen) and app.screen.control is not None)
        live = app.screen
        await wait_for(pilot, lambda: live.control.human.waiting)
        await pilot.press(*"a long question " * 3, "enter")
        await wait_for(pilot, lambda: live.control.human.waiting and live.control.human.turn == 2)
        from pingpong.tui.widgets.transcript import Transcript

        transcript = live.query_one(Transcript)
        assert transcript.max_scroll_y == 0
        await pilot.resize_terminal(60, 20)
        await wait_for(pilot, lambda: transcript.max_scroll_y > 0 and transcript.scroll_y == transcript.max_scroll_y)
        reply = [c for c in live.query(MessageCard) if c.role == "assistant"][-1]
        assert reply.region.bottom <= transcript.region.bottom and reply.region.y >= transcript.region.y


async def test_after_a_resume_hand_back_offers_the_model_the_person_took_the_seat_from(make_app, home, store):
    """The picker's first choice was the first configured model (another session's player) once the
    screen that saw the seat taken was gone."""
    from textual.widgets import OptionList

    from pingpong.core.domain import SessionSpec
    from tests.tui.conftest import CARDS, SITUATIONS

    home.config_path.write_text('[models.other]\nkind = "offline"\n', encoding="utf-8")
    spec = SessionSpec(character=CARDS[0].name, situation=SITUATIONS[1].name, player="other",
                       interrogator="offline", judges=["offline"], lang="en", num_turns=2)
    sid = store.create_session(spec, CARDS[0], SITUATIONS[1], None, status="interrupted")
    store.set_seat(sid, "interrogator", "human")  # taken by a person, then the session was stopped
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        app.open_live(sid)
        await wait_for(pilot, lambda: isinstance(app.screen, LiveScreen) and app.screen.control is not None
                       and app.screen.control.human.waiting)
        live = app.screen
        await pilot.press("ctrl+b")
        await wait_for(pilot, lambda: isinstance(app.screen, ModelPicker))
        picker = app.screen
        options = picker.query_one(OptionList)
        assert options.get_option_at_index(options.highlighted).id == "offline"
        await pilot.press("enter")
        await wait_for(pilot, lambda: live.status == "finished" and not live.running)
    assert {m.author for m in store.session(sid).messages if m.role == "user"} == {"offline"}
