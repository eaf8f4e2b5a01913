"""80x24 polish: footers that fit, the home list refreshing itself, final-score wording, the watch
table's width, the situation preview, importing a card from the characters screen."""

from __future__ import annotations

from textual.widgets import DataTable, Footer
from textual.widgets._footer import FooterKey

from pingpong.tui.screens.home import HomeScreen
from pingpong.tui.screens.live import LiveScreen
from tests.scores import judged, turn_scores
from tests.tui.conftest import SITUATIONS, write_session
from tests.tui.helpers import form_filled, wait_for

SIZE = (80, 24)


def footer_keys(screen) -> dict[str, bool]:
    """Footer descriptions -> fully in view (left of the command palette key, inside the screen)."""
    footer = screen.query_one(Footer)
    keys = list(footer.query(FooterKey))
    palette = [k for k in keys if "-command-palette" in k.classes]
    limit = palette[0].region.x if palette else screen.size.width
    return {k.description: k.region.right <= limit for k in keys if "-command-palette" not in k.classes}


async def test_home_footer_fits_80_columns(app, store):
    write_session(store)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen) and app.screen.loaded)
        await pilot.pause()
        keys = footer_keys(app.screen)
        for essential in ("New", "Resume", "Find", "Sort", "Quit", "Help"):
            assert keys.get(essential), (essential, keys)
        assert all(keys.values()), keys


async def test_live_footer_fits_80_columns_and_swaps_seat_keys(app, store):
    sid = write_session(store, status="interrupted", turns=1, planned=3)
    async with app.run_test(size=SIZE) as pilot:
        app.open_live(sid, paused=True)
        await wait_for(pilot, lambda: isinstance(app.screen, LiveScreen) and app.screen.control is not None)
        live = app.screen
        await pilot.pause()
        keys = footer_keys(live)
        assert all(keys.values()), keys
        # paused: space says what it does now
        assert {"Continue", "Step", "Stop", "Take seat", "Back", "Help"} <= set(keys) and "Pause" not in keys
        live.action_take_seat()
        await pilot.pause()
        keys = footer_keys(live)
        assert all(keys.values()), keys
        assert "Hand back" in keys and "Take seat" not in keys
        await pilot.press("escape", "space")  # out of the message box, then continue
        await wait_for(pilot, lambda: not live.control.paused and live.control.human.waiting)
        await pilot.press("escape")  # your turn took you to the box: out again, space is Pause now
        await wait_for(pilot, lambda: "Pause" in footer_keys(live))
        assert "Continue" not in footer_keys(live)


async def test_home_refreshes_by_itself_keeping_the_selection(app, store, monkeypatch):
    reads = []
    original = HomeScreen._read_stamp
    monkeypatch.setattr(HomeScreen, "_read_stamp", staticmethod(lambda s: reads.append(1) or original(s)))
    first = write_session(store)
    second = write_session(store)
    async with app.run_test(size=SIZE) as pilot:
        home = app.screen
        await wait_for(pilot, lambda: isinstance(home, HomeScreen) and home.loaded)
        table = home.query_one(DataTable)
        await pilot.press("down")  # newest first: the cursor is now on the first session
        assert home.selected().id == first
        loader = home._loader
        before = len(reads)
        await wait_for(pilot, lambda: len(reads) >= before + 3)  # checked, nothing changed: no reload
        assert home._loader is loader
        third = write_session(store)  # another process writes (the store fixture has its own connection)
        await wait_for(pilot, lambda: table.row_count == 3)
        assert home._loader is loader  # not read again: only the new session was
        assert table.get_row_at(0)[0] == str(third)
        assert home.selected().id == first  # still on the same session, not on the same line
        store.set_status(second, "failed")  # a status change is seen too
        await wait_for(pilot, lambda: table.get_row_at(1)[3] == "failed")
        assert home.selected().id == first


async def test_home_final_column_says_refusal_or_no_judges(app, store):

    scored = write_session(store, judges=("offline",), turns=1)
    refused = write_session(store, judges=(), turns=1)
    store.db.execute("update sessions set judges = ? where id = ?", ['["offline"]', refused])
    store.add_verdict(refused, judged("offline", turns=[
        turn_scores(1, is_refusal=True, in_character=1, entertaining=1, fluency=4)]))
    unjudged = write_session(store, judges=(), turns=1)
    running = write_session(store, judges=("offline",), turns=1, status="running")
    async with app.run_test(size=SIZE) as pilot:
        home = app.screen
        await wait_for(pilot, lambda: isinstance(home, HomeScreen) and home.loaded)
        table = home.query_one(DataTable)
        finals = {table.get_row_at(i)[0]: table.get_row_at(i)[4] for i in range(table.row_count)}
        assert finals == {str(scored): "4.00", str(refused): "refusal", str(unjudged): "no judges",
                          str(running): ""}


async def test_watch_runs_table_fits_80_columns(app, store):
    from pingpong.sessions.plan import default_run_name
    from pingpong.tui.screens.watch import WatchScreen

    name = default_run_name(["player-model-a", "player-model-b"], "slow", ["judge-one", "judge-two"], "en")
    run = store.run_id(name)
    for status in ("running", "finished", "failed", "interrupted"):
        write_session(store, run_id=run, status=status)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("w")
        await wait_for(pilot, lambda: isinstance(app.screen, WatchScreen)
                       and app.screen.query_one("#runs-table", DataTable).row_count == 1)
        await pilot.pause()
        table = app.screen.query_one("#runs-table", DataTable)
        assert table.virtual_size.width <= table.scrollable_content_region.width
        header = table.render_line(0).text
        assert "failed" in header and "intr" in header
        counts = str(app.screen.query_one("#watch-counts").render())
        assert "failed 1" in counts and "enter opens" in counts
        assert counts.index("enter opens") + len("enter opens") <= SIZE[0] - 2  # in view


async def test_new_session_situation_text_ends_in_an_ellipsis_when_cut(app, bundled):
    from pingpong.tui.screens.new_session import NewSessionScreen
    from pingpong.tui.widgets.clamped import ClampedText

    long_text = " ".join(["The storm has knocked out the radio and the sailor keeps asking questions."] * 6)
    (bundled[1] / "long-night.yaml").write_text(
        f"name: long-night\nlang: en\nnum_turns: 2\ntext: {long_text}\n", encoding="utf-8")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, NewSessionScreen) and form_filled(app.screen))
        app.screen.query_one("#new-situation").value = "long-night"
        await pilot.pause()
        hint = app.screen.query_one("#new-situation-text", ClampedText)
        await wait_for(pilot, lambda: hint.size.height == 3)
        lines = hint.shown().splitlines()
        assert len(lines) == 3 and lines[-1].endswith("…")
        assert all(len(line) <= hint.content_size.width for line in lines)
        assert hint.tooltip == long_text
        app.screen.query_one("#new-situation").value = "storm-night"  # short: whole, no ellipsis
        await wait_for(pilot, lambda: hint.shown().replace("\n", " ") == SITUATIONS[0].text)
        assert hint.size.height <= 3


async def test_follow_view_adds_new_messages_and_stays_at_the_end(app, store):
    from pingpong.core.domain import Message
    from pingpong.tui.widgets.transcript import MessageCard, Transcript

    sid = write_session(store, status="running", turns=5, planned=8)
    async with app.run_test(size=SIZE) as pilot:
        app.open_live(sid, follow=True)
        await wait_for(pilot, lambda: isinstance(app.screen, LiveScreen) and len(app.screen.query(MessageCard)) == 10)
        live = app.screen
        transcript = live.query_one(Transcript)
        first = transcript.cards()[0]
        await wait_for(pilot, lambda: transcript.max_scroll_y > 0 and transcript.scroll_y == transcript.max_scroll_y)
        for turn in (6, 7):  # another process writes two more turns
            store.add_message(sid, Message(turn=turn, role="user", author="offline", text=f"Question {turn}?"))
            store.add_message(sid, Message(turn=turn, role="assistant", author="offline", text=f"Answer {turn}."))
        await wait_for(pilot, lambda: len(transcript.cards()) == 14
                       and transcript.scroll_y == transcript.max_scroll_y)
        assert transcript.cards()[0] is first  # added, not rebuilt
        transcript.scroll_home(animate=False)  # the person scrolls up to read: new messages keep that
        await pilot.pause()
        store.add_message(sid, Message(turn=8, role="user", author="offline", text="Question 8?"))
        await wait_for(pilot, lambda: len(transcript.cards()) == 15)
        await pilot.pause()
        assert transcript.scroll_y == 0


async def test_first_sessions_arriving_on_an_empty_home_take_the_focus(app, store):
    from pingpong.tui.screens.characters import CharactersScreen
    from pingpong.tui.screens.watch import WatchScreen

    async with app.run_test(size=SIZE) as pilot:
        home = app.screen
        await wait_for(pilot, lambda: isinstance(home, HomeScreen) and home.loaded)
        await pilot.press("w")
        await wait_for(pilot, lambda: isinstance(app.screen, WatchScreen))
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is home)
        write_session(store)  # a run in another terminal starts
        table = home.query_one(DataTable)
        await wait_for(pilot, lambda: table.row_count == 1 and table.display)
        # not the filter: the keys below are shortcuts, not text (focus() lands a message later)
        await wait_for(pilot, lambda: app.focused is table)
        await pilot.press("c")
        await wait_for(pilot, lambda: isinstance(app.screen, CharactersScreen) and app.screen.loaded)
        assert home.query_one("#home-filter").value == ""
