"""The Watch screen: planned totals, names in full when there is room, and the reply another process
is streaming, read from the database."""

from __future__ import annotations

from textual.widgets import DataTable

from pingpong.core.domain import Character, Message
from pingpong.sessions.records import Draft
from pingpong.tui.screens.live import LiveScreen
from pingpong.tui.screens.watch import WatchScreen
from pingpong.tui.widgets.transcript import MessageCard, StreamingCard
from tests.tui.conftest import CARDS, write_session
from tests.tui.helpers import wait_for

LONG = Character(name="the-keeper-of-the-northern-skerry-light", char_name="Maren", lang="en",
                 summary="A keeper.", persona="Maren keeps a light.")


async def test_watch_shows_the_planned_total_and_full_names(app, store):
    run = store.run_id("offline-vs-offline-judged-by-offline-en", {"planned": 16})
    write_session(store, run_id=run, status="running", character=LONG, turns=1, planned=3)
    write_session(store, status="finished")  # a session outside any run
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("w")
        await wait_for(pilot, lambda: isinstance(app.screen, WatchScreen)
                       and app.screen.query_one("#run-sessions", DataTable).row_count == 1)
        watch = app.screen
        runs = watch.query_one("#runs-table", DataTable)
        await wait_for(pilot, lambda: runs.row_count == 2)
        assert runs.get_row_at(0)[1:3] == ["offline-vs-offline-judged-by-offline-en", "16"]
        assert runs.get_row_at(1)[1] == "single sessions"
        counts = str(watch.query_one("#watch-counts").render())
        assert counts.startswith("0 of 16 sessions done, running 1") and "((" not in counts
        assert watch.query_one("#run-sessions", DataTable).get_row_at(0)[1] == LONG.name  # whole at 120 columns
        await pilot.press("down")
        await wait_for(pilot, lambda: "single sessions" in str(watch.query_one("#watch-counts").render()))
        assert "((" not in str(watch.query_one("#watch-counts").render())


async def test_following_a_session_shows_the_reply_as_it_streams(app, store):
    sid = write_session(store, status="running", turns=1, planned=2)
    store.add_message(sid, Message(turn=2, role="user", author="offline", text="And the fog?"))
    async with app.run_test(size=(100, 30)) as pilot:
        app.open_live(sid, follow=True)
        await wait_for(pilot, lambda: isinstance(app.screen, LiveScreen) and len(app.screen.query(MessageCard)) == 3)
        live = app.screen
        store.save_draft(sid, Draft(turn=2, role="assistant", author="offline", text="Fog is"))

        def streaming() -> list[str]:
            return [card.body for card in live.query(StreamingCard)]

        await wait_for(pilot, lambda: streaming() == ["Fog is"])
        assert "turn 2: offline writing as player" in str(live.query_one("#status-line").render())
        store.save_draft(sid, Draft(turn=2, role="assistant", author="offline", text="Fog is the keeper's"))
        await wait_for(pilot, lambda: streaming() == ["Fog is the keeper's"])
        store.add_message(sid, Message(turn=2, role="assistant", author="offline", text="Fog is the keeper's foe."))
        assert store.draft(sid) is None  # the whole message replaces the draft
        await wait_for(pilot, lambda: streaming() == [] and len(live.query(MessageCard)) == 4)


async def test_a_streamed_reply_is_saved_as_a_draft_until_it_is_whole(home):
    """The recorder keeps the reply so far for other processes, then drops it with the message."""
    from tests.fakeserver import FakeServer

    with FakeServer() as fake_server:
        await _stream_one(fake_server, home)


async def test_a_draft_holds_neither_inline_reasoning_nor_an_echoed_api_key(home, monkeypatch):
    """A draft is stored every half second for other processes: a reasoning model's thinking (not
    the character's words) and a key a proxy echoed into the reply must not reach the database."""
    from tests.fakeserver import FakeServer

    key = "sk-draft-test-0123456789abcdef"
    monkeypatch.setenv("PINGPONG_TEST_DRAFT_KEY", key)
    text = "<think> the user greets me; I am an AI playing Maren </think> " + " ".join(
        f"w{i}" for i in range(6)) + f" {key} " + " ".join(f"v{i}" for i in range(6))
    with FakeServer() as fake_server:
        drafts = await _stream_one(fake_server, home, text=text, key_env="PINGPONG_TEST_DRAFT_KEY")
    assert drafts and all("think" not in d and "AI playing" not in d and key not in d for d in drafts)
    assert any("***" in d for d in drafts) and drafts[0].startswith("w0")


async def _stream_one(fake_server, home, text: str | None = None, key_env: str | None = None) -> list[str]:
    import asyncio

    from pingpong.core.config import offline_spec
    from pingpong.core.domain import ModelSpec, SessionSpec
    from pingpong.core.events import Delta, MessageCompleted
    from pingpong.core.llm import ModelPool
    from pingpong.sessions.live import run_session, start_session
    from pingpong.sessions.store import Store
    from tests.fakeserver import reply
    from tests.tui.conftest import SITUATIONS

    words = text or " ".join(f"w{i}" for i in range(12))
    fake_server.script(reply(words, chunk_delay=0.1, words_per_chunk=1), model="slow")
    seen: list[tuple[str, str | None]] = []
    with Store(home.db_path) as store:
        spec = SessionSpec(character=CARDS[0].name, situation=SITUATIONS[0].name, player="slow",
                           interrogator="offline", judges=[], num_turns=1, lang="en")
        sid = start_session(store, spec, CARDS[0], SITUATIONS[0])
        pool = ModelPool({"slow": ModelSpec(name="slow", base_url=fake_server.base_url, model="slow",
                                            api_key_env=key_env),
                          "offline": offline_spec()})
        try:
            async for event in run_session(store, pool, sid, offload=True):
                if isinstance(event, (Delta, MessageCompleted)):
                    draft = store.draft(sid)
                    seen.append((type(event).__name__, draft.text if draft else None))
                await asyncio.sleep(0)
        finally:
            await pool.aclose()
    drafts = [text for kind, text in seen if kind == "Delta" and text]
    assert drafts and drafts[0].startswith("w0") and len(set(drafts)) >= 2  # rewritten as it grew
    assert seen[-1] == ("MessageCompleted", None)
    return drafts
