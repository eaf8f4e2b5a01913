"""The session screens show what a session cost when prices are configured: live (counted from the
engine's calls as they come) and replay (read back from the database) agree with tokens x prices."""

from __future__ import annotations

import re
import sqlite3

from textual.widgets import Static

from pingpong.core.domain import SessionSpec
from pingpong.tui.screens.live import LiveScreen
from pingpong.tui.screens.replay import ReplayScreen
from tests.fakeserver import FakeServer
from tests.tui.conftest import CARDS, SITUATIONS
from tests.tui.helpers import wait_for

PRICES = {"actor": (3.0, 12.0), "asker": (1.0, 2.0), "critic": (0.5, 1.5)}


def _config(base_url: str) -> str:
    return "".join(f'[models.{name}]\nbase_url = "{base_url}"\nmodel = "{name}-model"\n'
                   f"price = {{ input = {inp}, output = {out} }}\n\n" for name, (inp, out) in PRICES.items())


def _expected(db_path, session_id: int) -> tuple[float, float]:
    """(all seats, the player's replies) from the stored tokens of the calls, times the prices."""
    conn = sqlite3.connect(db_path)
    try:
        calls = conn.execute("SELECT role, model, prompt_tokens, completion_tokens FROM model_calls"
                             " WHERE session_id = ? AND status = 'ok'", [session_id]).fetchall()
    finally:
        conn.close()
    cost = {role: 0.0 for role in ("all", "player")}
    for role, model, prompt, completion in calls:
        inp, out = PRICES[model]
        spent = (prompt * inp + completion * out) / 1e6
        cost["all"] += spent
        cost["player"] += spent if role == "player" else 0.0
    return cost["all"], cost["player"]


def _info(screen) -> str:
    return str(screen.query_one("#session-info", Static).render())


async def test_live_and_replay_show_the_sessions_cost(make_app, home):
    with FakeServer() as srv:
        home.config_path.write_text(_config(srv.base_url), encoding="utf-8")
        app = make_app()
        spec = SessionSpec(character=CARDS[0].name, situation=SITUATIONS[0].name, player="actor",
                           interrogator="asker", judges=["critic"], lang="en")
        async with app.run_test(size=(160, 30)) as pilot:
            sid = app.start_session(spec, CARDS[0], SITUATIONS[0])
            app.open_live(sid)
            await wait_for(pilot, lambda: isinstance(app.screen, LiveScreen))
            live = app.screen
            await wait_for(pilot, lambda: live.status == "finished" and not live.running)
            total, player = _expected(home.db_path, sid)
            assert player > 0 and total > player
            shown = f"spent ${total:.4f} (player ${player:.4f})"
            assert shown in _info(live), _info(live)
            await pilot.press("escape")
            app.action_open_replay(sid)
            await wait_for(pilot, lambda: isinstance(app.screen, ReplayScreen) and app.screen.stored is not None)
            assert shown in _info(app.screen), _info(app.screen)


async def test_no_prices_no_cost_line(app, store):
    from tests.tui.conftest import write_session

    sid = write_session(store)
    async with app.run_test(size=(120, 30)) as pilot:
        app.action_open_replay(sid)
        await wait_for(pilot, lambda: isinstance(app.screen, ReplayScreen) and app.screen.stored is not None)
        assert not re.search(r"spent", _info(app.screen))
