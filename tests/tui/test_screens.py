"""Override, replay, leaderboard, characters and watch flows."""

from __future__ import annotations

import json
import threading

import pytest
from textual.widgets import DataTable, Input, Static

from pingpong.core.domain import Message
from pingpong.tui.screens.characters import CharactersScreen
from pingpong.tui.screens.home import HomeScreen
from pingpong.tui.screens.leaderboard import LeaderboardScreen
from pingpong.tui.screens.live import LiveScreen
from pingpong.tui.screens.override import OverrideScreen
from pingpong.tui.screens.pickers import PathPrompt
from pingpong.tui.screens.replay import ReplayScreen
from pingpong.tui.screens.watch import WatchScreen
from pingpong.tui.widgets.transcript import MessageCard, Transcript
from tests.tui.conftest import CARDS, SITUATIONS, write_session
from tests.tui.helpers import wait_for


async def open_replay(app, pilot, session_id):
    await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen) and app.screen.loaded)
    await pilot.press("p")
    await wait_for(pilot, lambda: isinstance(app.screen, ReplayScreen))
    return app.screen


async def test_home_lists_sessions(app, store):
    write_session(store)
    write_session(store, character=CARDS[1], situation=SITUATIONS[2], human_turns=(1,))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen) and app.screen.loaded)
        table = app.screen.query_one(DataTable)
        assert table.row_count == 2
        assert table.get_row_at(0)[6] == "human+offline"  # newest first: a person wrote turn 1, offline turn 2
        assert table.get_row_at(1)[4] == "3.67"
        await pilot.press("f", *"chess")
        await wait_for(pilot, lambda: table.row_count == 1)  # the database answers the filter


async def test_replay_steps_and_override(app, store):
    sid = write_session(store)
    async with app.run_test(size=(100, 30)) as pilot:
        replay = await open_replay(app, pilot, sid)
        assert replay.turn == 1
        await wait_for(pilot, lambda: len(replay.query(MessageCard)) == 2)
        await pilot.press("right")
        assert replay.turn == 2
        await wait_for(pilot, lambda: len(replay.query(MessageCard)) == 4)
        await pilot.press("home")
        assert replay.turn == 1
        await pilot.press("end")
        panel = str(replay.query_one("#explanations Static").render())
        assert "strict-judge" in panel and "dry voice" in panel
        await pilot.press("o")
        await wait_for(pilot, lambda: isinstance(app.screen, OverrideScreen))
        await pilot.press("2", "4", "1", "y")
        await pilot.press(*"too flat")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is replay)
        await pilot.pause()
        card = [c for c in replay.query(MessageCard) if c.role == "assistant" and c.turn == 2][0]
        assert "person" in card.scores.plain and "IC 2" in card.scores.plain
    rows = store.db.execute("select turn, metric, value, explanation from scores where source = 'human'"
                            " order by id").fetchall()
    assert rows == [(2, "in_character", 2.0, "too flat"), (2, "entertaining", 4.0, "too flat"),
                    (2, "fluency", 1.0, "too flat"), (2, "is_refusal", 1.0, "too flat")]


async def test_up_and_down_step_the_replayed_turn_that_rating_and_forking_use(app, store):
    """up/down move the replay's one selected turn: the highlighted card, the explanations panel, the
    status line, and the turn o rates and f forks from."""
    sid = write_session(store, turns=3)
    async with app.run_test(size=(100, 30)) as pilot:
        replay = await open_replay(app, pilot, sid)
        await pilot.press("end", "up")
        assert replay.turn == 2
        transcript = replay.query_one(Transcript)
        await wait_for(pilot, lambda: transcript.selected_turn == 2)
        assert "turn 2 of 3" in str(replay.query_one("#status-line", Static).render())
        assert "'2' fits" in str(replay.query_one("#explanations Static").render())
        await pilot.press("o")
        await wait_for(pilot, lambda: isinstance(app.screen, OverrideScreen))
        assert app.screen.turn == 2
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is replay)
        await pilot.press("up", "down", "down")
        assert replay.turn == 3
        await wait_for(pilot, lambda: transcript.selected_turn == 3)
        await pilot.press("up", "f")
        await wait_for(pilot, lambda: isinstance(app.screen, LiveScreen))
        fork = app.screen.session_id
    assert store.session(fork).fork_turn == 2


async def test_the_rating_dialog_rates_the_whole_conversation(app, store):
    sid = write_session(store)
    store.add_message(sid, Message(turn=3, role="user", author="offline", text="One more question?"))
    store.add_message(sid, Message(turn=3, role="assistant", author="offline", text="The lamp needs oil and",
                                   notes={"finish_reason": "length"}))
    async with app.run_test(size=(100, 30)) as pilot:
        replay = await open_replay(app, pilot, sid)
        await pilot.press("end")
        await wait_for(pilot, lambda: len(replay.query(MessageCard)) == 6)
        cut = [c for c in replay.query(MessageCard) if c.turn == 3 and c.role == "assistant"][0]
        assert "cut at max_tokens" in str(cut.render())
        assert not any("cut at" in str(c.render()) for c in replay.query(MessageCard) if c.turn < 3)
        await pilot.press("o")
        await wait_for(pilot, lambda: isinstance(app.screen, OverrideScreen))
        dialog = app.screen
        assert "turn 3" in str(dialog.query_one("#override-title").render())
        await pilot.press("c")
        await wait_for(pilot, lambda: "whole conversation" in str(dialog.query_one("#override-title").render()))
        # the judges' figures shown are now their means over the conversation (judges 4 and 3 -> 3.5)
        assert dialog.query_one("#rate-in_character").judges == "3.5"
        await pilot.press("3", "4", "5", "n", "ctrl+s")
        await wait_for(pilot, lambda: app.screen is replay)
        await wait_for(pilot, lambda: "whole conversation" in str(replay.query_one("#explanations Static").render()))
    rows = store.db.execute("select turn, metric, value from scores where source = 'human' order by id").fetchall()
    assert rows == [(None, "in_character", 3.0), (None, "entertaining", 4.0), (None, "fluency", 5.0),
                    (None, "is_refusal", 0.0)]


async def test_the_rating_dialog_rates_a_pingpong_v1_turn_on_ten_points(app, store):
    from tests.tui.test_annotate import write_v1_session

    sid = write_v1_session(store)
    async with app.run_test(size=(100, 30)) as pilot:
        replay = await open_replay(app, pilot, sid)
        await pilot.press("o")
        await wait_for(pilot, lambda: isinstance(app.screen, OverrideScreen))
        assert "0 is 10" in str(app.screen.query_one(".hint").render())
        await pilot.press("0", "8", "ctrl+s")
        await wait_for(pilot, lambda: app.screen is replay)
    assert store.db.execute("select turn, metric, value, scale from scores where source = 'human' order by id"
                            ).fetchall() == [(1, "in_character", 10.0, "1-10"), (1, "entertaining", 8.0, "1-10")]


async def test_override_on_live_screen(app, store):
    sid = write_session(store)
    async with app.run_test(size=(100, 30)) as pilot:
        app.open_live(sid)
        await wait_for(pilot, lambda: isinstance(app.screen, LiveScreen))
        live = app.screen
        await wait_for(pilot, lambda: len(live.query(MessageCard)) == 4)
        await pilot.press("up")  # select the last player turn
        await pilot.press("o")
        await wait_for(pilot, lambda: isinstance(app.screen, OverrideScreen))
        await pilot.press("5", "ctrl+s")
        await wait_for(pilot, lambda: app.screen is live)
    assert store.db.execute("select turn, metric, value from scores where source = 'human'").fetchall() == [
        (2, "in_character", 5.0)]


async def test_leaderboard_shows_rows(app, store):
    write_session(store)
    write_session(store, player="other-model")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("l")
        await wait_for(pilot, lambda: isinstance(app.screen, LeaderboardScreen))
        table = app.screen.query_one(DataTable)
        await wait_for(pilot, lambda: table.row_count == 2)
        assert {str(table.get_row_at(i)[1]) for i in range(2)} == {"offline", "other-model"}
        await pilot.press("m")
        await wait_for(pilot, lambda: "judges" in str(app.screen.query_one("#board-note").render()))
        await pilot.press("m")  # people's scores: nobody scored yet, which the note says (not "no judged sessions")
        await wait_for(pilot, lambda: "No sessions people scored in this board yet" in str(app.screen.query_one("#board-note").render()))
        assert table.row_count == 0


async def test_leaderboard_player_column_fits_long_names(app, store):
    """Every board's player column is as wide as its longest name: en and ru rows of one model read apart."""
    from textual.widgets.data_table import ColumnKey

    from tests.tui.conftest import write_dmt_session

    long = "llama-3-70b-instruct"
    write_session(store, player=long)
    write_session(store, character=CARDS[1], situation=SITUATIONS[2], player=long)
    write_dmt_session(store, player=long)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("l")
        await wait_for(pilot, lambda: isinstance(app.screen, LeaderboardScreen))
        board = app.screen
        table = board.query_one(DataTable)
        await wait_for(pilot, lambda: table.row_count == 2)
        assert {str(table.get_row_at(i)[1]) for i in range(2)} == {f"{long} (en)", f"{long} (ru)"}
        assert table.columns[ColumnKey("player")].width == len(f"{long} (en)")
        await pilot.press("d")
        await wait_for(pilot, lambda: board.board == "dmt" and table.row_count == 1)
        assert table.columns[ColumnKey("player")].width == len(long)


async def test_characters_import(app, home, tmp_path):
    card = {"spec": "chara_card_v2", "spec_version": "2.0", "data": {
        "name": "Captain Brine", "description": "{{char}} is an old sea captain who tells tall tales.",
        "personality": "boastful, warm", "scenario": "", "first_mes": "Ahoy!", "mes_example": "",
        "tags": [], "creator_notes": "", "system_prompt": "", "post_history_instructions": "",
        "alternate_greetings": [], "character_book": None, "creator": "", "character_version": "",
        "extensions": {}}}
    path = tmp_path / "brine.json"
    path.write_text(json.dumps(card), encoding="utf-8")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("c")
        await wait_for(pilot, lambda: isinstance(app.screen, CharactersScreen) and app.screen.loaded)
        screen = app.screen
        assert len(screen.cards) == 2
        await pilot.press("i")
        await wait_for(pilot, lambda: isinstance(app.screen, PathPrompt))
        app.screen.query_one(Input).value = str(tmp_path / "missing.json")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is screen)
        assert len(screen.cards) == 2  # the error was a notification, not a crash
        await pilot.press("i")
        await wait_for(pilot, lambda: isinstance(app.screen, PathPrompt))
        app.screen.query_one(Input).value = str(path)
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is screen and len(screen.cards) == 3)
        assert "Brine" in str(screen.query_one("#card-text").render())
    assert any(home.characters_dir.glob("*.yaml"))


async def test_watch_with_no_runs_shows_the_whole_command_at_80_columns(app, home):
    """The suggested command wraps instead of being cut; once a run exists its counts take one line."""
    from pingpong.sessions.store import Store

    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("w")
        await wait_for(pilot, lambda: isinstance(app.screen, WatchScreen))
        counts = app.screen.query_one("#watch-counts", Static)
        await wait_for(pilot, lambda: "No runs yet" in str(counts.render()) and counts.size.height > 1)
        drawn = " ".join(counts.render_line(y).text.strip() for y in range(counts.size.height))
        assert "pingpong run --player offline --interrogator offline --judge offline" in drawn
        with Store(home.db_path) as other:
            write_session(other, run_id=other.run_id("nightly"))
        await wait_for(pilot, lambda: "sessions done" in str(counts.render()))
        await wait_for(pilot, lambda: counts.size.height == 1)


async def test_watch_sees_sessions_written_by_another_thread(app, home):
    from pingpong.sessions.store import Store

    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("w")
        await wait_for(pilot, lambda: isinstance(app.screen, WatchScreen))
        watch = app.screen

        def writer():
            with Store(home.db_path) as other:
                run = other.run_id("nightly")
                write_session(other, run_id=run, status="running")
                write_session(other, run_id=run)

        thread = threading.Thread(target=writer)
        thread.start()
        thread.join()
        sessions = watch.query_one("#run-sessions", DataTable)
        await wait_for(pilot, lambda: sessions.row_count == 2)
        assert "running 1" in str(watch.query_one("#watch-counts").render())
        await pilot.press("enter")  # runs table -> sessions table
        await pilot.press("enter")  # open the running session read-only
        await wait_for(pilot, lambda: isinstance(app.screen, LiveScreen))
        assert app.screen.follow
        await wait_for(pilot, lambda: len(app.screen.query(MessageCard)) == 4)


async def test_characters_spot_check_chat(app, store):
    from pingpong.tui.screens.characters import SpotCheckScreen

    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("c")
        await wait_for(pilot, lambda: isinstance(app.screen, CharactersScreen) and app.screen.loaded)
        await pilot.press("s")
        await wait_for(pilot, lambda: isinstance(app.screen, SpotCheckScreen))
        app.screen.query_one("#spot-turns", Input).value = "1"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, LiveScreen) and app.screen.control is not None)
        live = app.screen
        await wait_for(pilot, lambda: live.control.human.waiting and app.focused is live.query_one("#human-input"))
        await pilot.press(*"Evening, keeper", "enter")
        await wait_for(pilot, lambda: live.status == "finished" and not live.running)
        session_id = live.session_id
    stored = store.session(session_id)
    assert stored.spec.interrogator == "human" and stored.spec.judges == []
    assert stored.situation.text == "spot-check chat"
    assert [(m.role, m.author) for m in stored.messages] == [("user", "human"), ("assistant", "offline")]


async def test_version_one_session_shows_ten_point_scores(app, store):
    from pingpong.core.domain import SessionSpec
    from pingpong.tui.screens.live import LiveScreen as Live

    spec = SessionSpec(character=CARDS[0].name, situation=SITUATIONS[0].name, player="offline",
                       interrogator="offline", judges=[], method="pingpong-v1", lang="en")
    async with app.run_test(size=(80, 24)) as pilot:
        sid = app.start_session(spec, CARDS[0], SITUATIONS[0])
        app.open_live(sid)
        await wait_for(pilot, lambda: isinstance(app.screen, Live) and app.screen.control is not None)
        live = app.screen
        await wait_for(pilot, lambda: live.status == "finished" and not live.running)
        players = [c for c in live.query(MessageCard) if c.role == "assistant"]
        assert players and all("/10" in c.scores.plain for c in players)


async def test_replay_forks_at_the_shown_turn_and_runs_it_live(app, store):
    from pingpong.tui.screens.live import LiveScreen as Live
    from pingpong.tui.screens.replay import ReplayScreen

    async with app.run_test(size=(80, 24)) as pilot:
        sid = app.start_session(make_spec_for_tui(), CARDS[0], SITUATIONS[0])
        app.open_live(sid)
        await wait_for(pilot, lambda: isinstance(app.screen, Live) and app.screen.status == "finished"
                       and not app.screen.running)
        app.pop_screen()
        app.action_open_replay(sid)
        await wait_for(pilot, lambda: isinstance(app.screen, ReplayScreen) and app.screen.stored is not None)
        await pilot.press("home")
        await pilot.press("f")
        await wait_for(pilot, lambda: isinstance(app.screen, Live) and app.screen.session_id != sid)
        child = app.screen.session_id
        await wait_for(pilot, lambda: app.screen.status == "finished" and not app.screen.running)
    parent, forked = store.session(sid), store.session(child)
    assert (forked.parent_session, forked.fork_turn) == (sid, 1)
    assert [(m.role, m.author, m.text) for m in forked.messages[:2]] == [
        (m.role, m.author, m.text) for m in parent.messages[:2]]
    assert forked.status == "finished" and forked.verdicts


def make_spec_for_tui():
    from pingpong.core.domain import SessionSpec

    return SessionSpec(character=CARDS[0].name, situation=SITUATIONS[0].name, player="offline",
                       interrogator="offline", judges=["offline"], lang="en")


async def test_the_score_by_turn_plot_follows_the_scores_m_picks(app, store):
    """The table followed m (merged, judges, people); the plot under it stayed the judges' curves."""
    rated = write_session(store)
    write_session(store, player="other-model")
    for metric in ("in_character", "entertaining", "fluency"):
        store.add_human_score(rated, 2, metric, 1, "dana")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("l")
        await wait_for(pilot, lambda: isinstance(app.screen, LeaderboardScreen) and app.screen._loaded is not None)
        board = app.screen

        def curves(source: str) -> dict:
            return board._loaded.curves if board._loaded and source in str(board.query_one("#board-note").render()) \
                and "computing" not in str(board.query_one("#board-note").render()) else {}

        await wait_for(pilot, lambda: bool(curves("scores: merged")))
        merged = curves("scores: merged")
        assert merged["offline"][1] == (2, pytest.approx(1.0))
        await pilot.press("m")
        await wait_for(pilot, lambda: bool(curves("scores: judges")))
        assert curves("scores: judges")["offline"][1][1] > 1.0 and set(curves("scores: judges")) == set(merged)
        await pilot.press("m")
        await wait_for(pilot, lambda: bool(curves("scores: human")))
        assert curves("scores: human") == {"offline": [(2, pytest.approx(1.0))]}
