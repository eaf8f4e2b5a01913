"""Small terminals (a 60x20 split pane, 80x24, 120x15): every part of a screen stays on it, or scrolls to view."""

from __future__ import annotations

from textual.geometry import Region

from pingpong.tui.screens.live import LiveScreen
from pingpong.tui.screens.replay import ReplayScreen
from pingpong.tui.widgets.transcript import MessageCard
from tests.tui.conftest import write_session
from tests.tui.helpers import settled, wait_for


def on_screen(screen, selector: str) -> bool:
    """The widget is shown, and lies whole within the screen."""
    widget = screen.query_one(selector)
    region = widget.region
    return widget.display and region.area > 0 and Region(0, 0, *screen.size).contains_region(region)


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
