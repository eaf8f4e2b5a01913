"""Sessions no judge model scores (RoleBench, RoleInteract by exact rules; PingPong v1 by its tester) in
the replay and live screens: what is offered, how their scores and people's corrections read."""

from __future__ import annotations

from textual.widgets._footer import FooterKey

from pingpong.tui.screens.replay import ReplayScreen
from tests.tui.conftest import write_rule_session, write_session
from tests.tui.helpers import home_loaded, wait_for


async def open_replay(app, pilot, session_id: int) -> ReplayScreen:
    await home_loaded(pilot)
    app.action_open_replay(session_id)
    await wait_for(pilot, lambda: isinstance(app.screen, ReplayScreen) and app.screen.stored is not None)
    await pilot.pause()
    return app.screen


def footer_keys(screen) -> set[str]:
    return {key.description for key in screen.query(FooterKey)}


def replies(screen) -> list:
    from pingpong.tui.widgets.transcript import MessageCard

    return [c for c in screen.query(MessageCard) if c.role == "assistant"]


def notices(app) -> list[str]:
    return [n.message for n in app._notifications]


async def test_rejudge_is_offered_only_where_judge_models_score(app, store):
    from tests.tui.test_annotate import write_v1_session

    ruled = [write_rule_session(store, "rolebench", {"raw": 0.656716}),
             write_rule_session(store, "roleinteract", {"emotion": 1.0}), write_v1_session(store)]
    judged = write_session(store)
    async with app.run_test(size=(100, 30)) as pilot:
        for sid in ruled:
            replay = await open_replay(app, pilot, sid)
            assert "Rejudge" not in footer_keys(replay), replay.stored.spec.method
            await pilot.press("J")
            await pilot.pause()
            assert not any("judg" in n for n in notices(app))
            await pilot.press("escape")
        replay = await open_replay(app, pilot, judged)
        assert "Rejudge" in footer_keys(replay)


async def test_a_failed_rejudge_never_says_re_judged(app, store):
    """Stored messages out of order (an old bug) cannot be judged: one error, no "Re-judged" after it."""
    from pingpong.core.domain import JudgeVerdict, Message
    from tests.scores import failed

    sid = write_session(store, status="running")
    store.add_message(sid, Message(turn=5, role="user", author="offline", text="A question out of turn"))
    store.add_verdict(sid, JudgeVerdict(judge="offline", scores=failed(1)))
    store.set_status(sid, "finished")
    async with app.run_test(size=(100, 30)) as pilot:
        await open_replay(app, pilot, sid)
        await pilot.press("J")
        await wait_for(pilot, lambda: any(n.startswith("Re-judging failed") for n in notices(app)))
        await pilot.pause(0.2)
        assert not any(n.startswith("Re-judged") for n in notices(app))


async def test_o_corrects_what_the_rule_scored_on_its_scale(app, store):
    """RoleBench's rating dialog offers the metrics its rule scored on that turn, 0 to 1 (never PingPong's
    rubric, which the store refuses for it); a value off the scale keeps the dialog open."""
    from textual.widgets import Input

    from pingpong.tui.screens.override import OverrideScreen

    sid = write_rule_session(store, "rolebench", {"raw": 0.656716, "cus": 0.1})
    async with app.run_test(size=(100, 30)) as pilot:
        replay = await open_replay(app, pilot, sid)
        await pilot.press("o")
        await wait_for(pilot, lambda: isinstance(app.screen, OverrideScreen))
        dialog = app.screen
        assert [i.id for i in dialog.query(".ruled-value")] == ["rate-raw", "rate-cus"]
        assert not dialog.query("#rate-in_character") and not dialog.query("#rate-refusal")
        assert app.focused is dialog.query_one("#rate-raw", Input)
        await pilot.press("2", "ctrl+s")
        await pilot.pause()
        assert app.screen is dialog and any("from 0 to 1" in n for n in notices(app))
        await pilot.press("backspace", *"0.9", "ctrl+s")
        await wait_for(pilot, lambda: app.screen is replay)
    assert store.db.execute("select turn, metric, value, scale from scores where source = 'human'").fetchall() == [
        (1, "raw", 0.9, "0-1")]


async def test_o_on_the_live_screen_corrects_a_roleinteract_answer(app, store):
    from pingpong.tui.screens.live import LiveScreen
    from pingpong.tui.screens.override import OverrideScreen

    sid = write_rule_session(store, "roleinteract", {"emotion": 0.0})
    async with app.run_test(size=(100, 30)) as pilot:
        await home_loaded(pilot)
        app.open_live(sid)
        await wait_for(pilot, lambda: isinstance(app.screen, LiveScreen) and app.screen.status == "finished")
        live = app.screen
        await pilot.press("o")
        await wait_for(pilot, lambda: isinstance(app.screen, OverrideScreen))
        await pilot.press("1", "ctrl+s")
        await wait_for(pilot, lambda: app.screen is live)
        await wait_for(pilot, lambda: "person emotion 1  by " in replies(live)[0].scores.plain)
        header = str(live.query_one("#session-info").render())
        assert "judges none (scored by rule)" in header  # the listed judge model is never asked
    assert store.db.execute("select turn, metric, value from scores where source = 'human'").fetchall() == [
        (1, "emotion", 1.0)]


async def test_rule_scores_read_to_three_decimals_as_the_cli_prints_them(app, store):
    from pingpong.tui.widgets.transcript import MessageCard

    sid = write_rule_session(store, "rolebench", {"raw": 0.656716, "cus": 1.0})
    async with app.run_test(size=(100, 30)) as pilot:
        replay = await open_replay(app, pilot, sid)
        await wait_for(pilot, lambda: len(replay.query(MessageCard)) == 2)
        reply = [c for c in replay.query(MessageCard) if c.role == "assistant"][0]
        assert "raw 0.657  cus 1" in reply.scores.plain
        assert "raw: 0.657" in str(replay.query_one("#explanations Static").render())


async def test_replay_says_a_rule_scored_turn_without_a_score_is_never_scored(app, store):
    """A RoleInteract memory probe's padding turns said "No judge has scored this turn yet", and a RoleBench
    question's header named the interrogator seat's model, which is never called."""
    from pingpong.core.domain import Message

    probe = write_rule_session(store, "roleinteract", {"memory": 1.0})
    store.add_message(probe, Message(turn=2, role="user", author="roleinteract", text="Nice weather today."))
    store.add_message(probe, Message(turn=2, role="assistant", author="offline", text="Fog by noon."))
    question = write_rule_session(store, "rolebench", {"raw": 0.5})
    judged = write_session(store, status="running", turns=1)
    async with app.run_test(size=(100, 30)) as pilot:
        replay = await open_replay(app, pilot, probe)
        await pilot.press("right")
        await wait_for(pilot, lambda: replay.turn == 2)
        panel = str(replay.query_one("#explanations Static").render())
        assert "Not scored: roleinteract's rules score only the answers to its questions" in panel
        assert "No judge" not in panel
        await pilot.press("escape")
        replay = await open_replay(app, pilot, question)
        assert "interrogator none (the question as written)" in str(replay.query_one("#session-info").render())
        await pilot.press("escape")
        replay = await open_replay(app, pilot, judged)
        assert "interrogator offline" in str(replay.query_one("#session-info").render())
        assert "Turn 1" in str(replay.query_one("#explanations Static").render())


async def test_the_live_screen_says_a_rule_scored_turn_without_a_score_is_never_scored(app, store):
    from pingpong.core.domain import Message
    from pingpong.tui.screens.live import LiveScreen
    from pingpong.tui.widgets.transcript import Transcript

    probe = write_rule_session(store, "roleinteract", {"memory": 1.0})
    store.add_message(probe, Message(turn=2, role="user", author="roleinteract", text="Nice weather today."))
    store.add_message(probe, Message(turn=2, role="assistant", author="offline", text="Fog by noon."))
    async with app.run_test(size=(100, 30)) as pilot:
        await home_loaded(pilot)
        app.open_live(probe)
        await wait_for(pilot, lambda: isinstance(app.screen, LiveScreen) and app.screen.status == "finished")
        live = app.screen
        live.query_one(Transcript).post_message(Transcript.TurnSelected(2))
        await wait_for(pilot, lambda: "Not scored: roleinteract's rules" in
                       str(live.query_one("#explanations Static").render()))


async def test_home_words_the_rolebench_interrogator_seat_as_every_other_view(app, store):
    """Home said the interrogator's model; `sessions list`, live and replay say nobody asks."""
    from pingpong.sessions.seats import AS_WRITTEN_WORDS
    from pingpong.tui.screens.home import HomeScreen

    sid = write_rule_session(store, "rolebench", {"raw": 0.5})
    async with app.run_test(size=(160, 30)) as pilot:
        await home_loaded(pilot)
        home = app.screen
        assert isinstance(home, HomeScreen)
        (row,) = [r for r in home.rows if r.id == sid]
        assert row.interrogator == AS_WRITTEN_WORDS
