"""A player model on the fake HTTP server: a cut stream is retried (partial text dropped), a hard
failure is shown with a retry action, and retry resumes the session to the end."""

from __future__ import annotations

from pingpong.core.domain import SessionSpec
from pingpong.tui.app import PlayRequest
from pingpong.tui.screens.live import LiveScreen
from pingpong.tui.widgets.transcript import MessageCard
from tests.fakeserver import FakeServer, bad_request, cut, reply
from tests.tui.conftest import CARDS, SITUATIONS
from tests.tui.helpers import wait_for


async def test_retry_notice_failure_and_resume(make_app, home, store):
    with FakeServer() as server:
        home.config_path.write_text(
            f'[models.fake]\nbase_url = "{server.base_url}"\nmodel = "fake"\ntimeout = 5\ndeadline = 20\n',
            encoding="utf-8")
        server.script(cut("Half a sentence that must vanish", after=2), reply("Turn one, whole."),
                      bad_request("the model refuses this request"))
        spec = SessionSpec(character=CARDS[0].name, situation=SITUATIONS[0].name, player="fake",
                           interrogator="offline", judges=["offline"], lang="en")
        app = make_app(initial=PlayRequest(spec, CARDS[0], SITUATIONS[0]))
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, LiveScreen))
            live = app.screen
            await wait_for(pilot, lambda: live.status == "failed" and not live.running)
            assert live.retries and live.retries[0].startswith("retrying (attempt 2)")
            bodies = [c.body for c in live.query(MessageCard)]
            assert "Turn one, whole." in bodies
            assert not any("vanish" in b for b in bodies)
            assert "refuses" in (live.error or "")
            assert live.check_action("retry", ()) is True
            await pilot.press("r")
            await wait_for(pilot, lambda: live.status == "finished" and not live.running)
            session_id = live.session_id
    stored = store.session(session_id)
    assert stored.status == "finished"
    assert [m.author for m in stored.messages if m.role == "assistant"] == ["fake", "fake"]
