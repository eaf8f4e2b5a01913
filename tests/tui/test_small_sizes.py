"""Small terminals (a 60x20 split pane, 80x24, 120x15): every part of a screen stays on it, or scrolls to view."""

from __future__ import annotations

from textual.geometry import Region

from pingpong.tui.app import AnnotateRequest
from pingpong.tui.screens.annotate import AnnotateScreen
from pingpong.tui.screens.live import LiveScreen
from pingpong.tui.screens.replay import ReplayScreen
from pingpong.tui.widgets.transcript import MessageCard
from tests.tui.conftest import write_dmt_session, write_session
from tests.tui.helpers import settled, wait_for


def on_screen(screen, selector: str) -> bool:
    """The widget is shown, and lies whole within the screen."""
    widget = screen.query_one(selector)
    region = widget.region
    return widget.display and region.area > 0 and Region(0, 0, *screen.size).contains_region(region)


def seen_in(screen, selector: str, widget) -> bool:
    """The widget lies whole within the part of the screen the container `selector` shows."""
    return widget.region.area > 0 and screen.query_one(selector).region.contains_region(widget.region) \
        and Region(0, 0, *screen.size).contains_region(widget.region)


async def test_a_narrow_replay_puts_the_explanations_under_the_transcript(app, store):
    sid = write_session(store)
    async with app.run_test(size=(60, 20)) as pilot:
        app.action_open_replay(sid)
        await wait_for(pilot, lambda: isinstance(app.screen, ReplayScreen) and app.screen.stored is not None)
        await settled(pilot)
        replay = app.screen
        assert on_screen(replay, "#transcript") and on_screen(replay, "#explanations")
        transcript, panel = replay.query_one("#transcript").region, replay.query_one("#explanations").region
        assert panel.y >= transcript.bottom and transcript.width == 60
        # each message wraps within the screen (none laid out wider than it)
        assert all(card.region.right <= 60 for card in replay.query(MessageCard))
        await pilot.resize_terminal(100, 30)
        await settled(pilot)
        transcript, panel = replay.query_one("#transcript").region, replay.query_one("#explanations").region
        assert panel.x >= transcript.right and panel.y == transcript.y   # wide: side by side again


async def test_a_narrow_live_screen_keeps_transcript_and_explanations_on_it(app, store):
    sid = write_session(store)
    async with app.run_test(size=(56, 20)) as pilot:
        app.open_live(sid)
        await wait_for(pilot, lambda: isinstance(app.screen, LiveScreen) and len(app.screen.query(MessageCard)) == 4)
        await settled(pilot)
        assert on_screen(app.screen, "#transcript") and on_screen(app.screen, "#explanations")
        assert all(card.region.right <= 56 for card in app.screen.query(MessageCard))


async def test_the_rating_panel_scrolls_to_the_focused_field_and_to_the_judges_revealed(make_app, store):
    from pingpong.tui.widgets.rating import LabelField

    write_dmt_session(store)
    app = make_app(initial=AnnotateRequest(methods=["dmt"]))
    async with app.run_test(size=(120, 15)) as pilot:   # ten DMT metrics, a few rows for them
        await wait_for(pilot, lambda: isinstance(app.screen, AnnotateScreen) and app.screen.stored is not None)
        screen = app.screen
        title = lambda: str(screen.query_one("#annotate-title").render())  # noqa: E731
        for round_ in (1, 2, 3):
            await wait_for(pilot, lambda r=round_: f"Round {r} of 3" in title())
            for _ in screen.query(LabelField):
                await settled(pilot)
                assert seen_in(screen, "#annotate-panel", app.focused), (app.focused, app.focused.region)
                await pilot.press("g")
        screen.query(LabelField).last().focus()
        await pilot.press("left")   # the panel scrolls, yet left/right still step the rounds
        await wait_for(pilot, lambda: "Round 2 of 3" in title())
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: screen.saved)
        await settled(pilot)
        assert seen_in(screen, "#annotate-panel", screen.query_one("#annotate-judges"))


async def test_a_narrow_rating_queue_puts_the_panel_under_the_conversation(make_app, store):
    write_session(store)
    app = make_app(initial=AnnotateRequest())
    async with app.run_test(size=(60, 20)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, AnnotateScreen) and app.screen.stored is not None)
        await settled(pilot)
        screen = app.screen
        assert on_screen(screen, "#transcript") and on_screen(screen, "#annotate-panel")
        assert all(card.region.right <= 60 for card in screen.query(MessageCard))
        for key in ("4", "3", "5"):
            assert seen_in(screen, "#annotate-panel", app.focused)
            await pilot.press(key)
        await pilot.press("n", "ctrl+s")
        await wait_for(pilot, lambda: screen.saved)
        await settled(pilot)
        assert seen_in(screen, "#annotate-panel", screen.query_one("#annotate-judges"))


async def test_the_rating_dialog_scrolls_on_a_short_screen(app, store):
    from textual.widgets import Button

    from pingpong.tui.screens.override import OverrideScreen

    sid = write_dmt_session(store)
    async with app.run_test(size=(120, 15)) as pilot:   # a DMT round's ten labels, taller than the screen
        app.action_open_replay(sid)
        await wait_for(pilot, lambda: isinstance(app.screen, ReplayScreen) and app.screen.stored is not None)
        await pilot.press("o")
        await wait_for(pilot, lambda: isinstance(app.screen, OverrideScreen))
        await settled(pilot)
        dialog = app.screen
        assert on_screen(dialog, "#override-dialog")
        assert seen_in(dialog, "#override-dialog", dialog.query_one("#override-title"))   # it opens at its top
        for _ in range(20):   # tab on to Save: each field scrolls into view on its turn
            assert seen_in(dialog, "#override-dialog", app.focused), (app.focused, app.focused.region)
            if isinstance(app.focused, Button):
                break
            await pilot.press("tab")
            await settled(pilot)
        assert app.focused is dialog.query_one("#override-save")


async def test_a_long_player_name_keeps_its_language_on_the_leaderboard(app, store):
    from textual.widgets import DataTable
    from textual.widgets.data_table import ColumnKey

    from pingpong.tui.screens.leaderboard import LeaderboardScreen
    from tests.tui.conftest import CARDS, SITUATIONS

    long = "meta-llama-3.1-70b-instruct-turbo-extended-context"
    write_session(store, player=long)
    write_session(store, character=CARDS[1], situation=SITUATIONS[2], player=long)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("l")
        await wait_for(pilot, lambda: isinstance(app.screen, LeaderboardScreen))
        table = app.screen.query_one(DataTable)
        await wait_for(pilot, lambda: table.row_count == 2)

        def shown() -> set[str]:   # the player cells, each as the column has room for it
            width = table.columns[ColumnKey("player")].width
            cells = {str(table.get_row_at(i)[1]) for i in range(2)}
            assert all(len(c) <= width for c in cells), (width, cells)
            return cells

        names = shown()   # no room for the whole name: its middle is cut, its start and language stay
        assert {n[-4:] for n in names} == {"(en)", "(ru)"} and all(n.startswith("meta-llama") for n in names)
        await pilot.resize_terminal(200, 50)   # room for it: the whole name
        await wait_for(pilot, lambda: table.columns[ColumnKey("player")].width == len(f"{long} (en)"))
        assert shown() == {f"{long} (en)", f"{long} (ru)"}


def screen_text(app) -> str:
    """What the terminal shows, as text."""
    import io

    from rich.console import Console

    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), record=True, legacy_windows=False)
    console.print(app.screen._compositor.render_update(full=True, screen_stack=app._background_screens))
    return console.export_text()


async def test_side_by_side_shows_both_names_and_the_judges_reason_whole(app, store):
    from pingpong.core.domain import Score
    from pingpong.tui.screens.compare import CompareScreen

    long = "meta-llama-3.1-70b-instruct-turbo-extended-context"
    reason = ("A keeps the keeper's voice in every line: the dry, short sentences, the ships known by their "
              "engines, the distrust of the mainland. B drifts into a generic assistant tone in its second "
              "reply and repeats the sailor's words back. Both are fluent, but A is clearly more in character.")
    a = write_session(store)
    b = write_session(store, player=long)
    for order in ("ab", "ba"):
        store.add_pair_verdict(a, b, "strict-judge", order, Score(metric="pairwise", value=1.0 if order == "ab"
                                                                  else 0.0, scale="0-1", explanation=reason))
    async with app.run_test(size=(100, 30)) as pilot:
        app.action_compare()
        await wait_for(pilot, lambda: isinstance(app.screen, CompareScreen) and app.screen.outcome is not None)
        await settled(pilot)
        screen = app.screen
        title_line = screen_text(app).splitlines()[screen.query_one("#pair-b-title").region.y]
        assert "B #2 meta-llama-3.1" in title_line and "A #1 offline" in title_line
        for _ in range(4):   # tab to the verdicts, end scrolls them to their last line
            if app.focused is not None and app.focused.id == "pair-verdicts-box":
                break
            await pilot.press("tab")
        await pilot.press("end")
        await settled(pilot)
        shown = " ".join(" ".join(screen_text(app).split()).split())
        assert "A is clearly more in character." in shown and "You: not picked yet" in shown
