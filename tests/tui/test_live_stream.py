"""A long reply streamed by a model on the fake HTTP server: the live screen adds only what is new
(lines it has finished stay drawn as they were), and once the reply ends the card holds it whole
and exact. Pause, step and taking the seat work while replies stream."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Static

from pingpong.core.domain import SessionSpec
from pingpong.tui.screens.live import LiveScreen
from pingpong.tui.widgets.transcript import MessageCard, StreamingCard, Transcript
from tests.fakeserver import FakeServer, reply
from tests.tui.conftest import CARDS, SITUATIONS
from tests.tui.helpers import wait_for


def long_reply(words: int) -> str:
    """A reply of `words` words in paragraphs, with one very long paragraph and double spaces."""
    out = []
    for i in range(words):
        out.append(f"w{i}")
        out.append("\n\n" if i % 40 == 39 and i < words // 2 else "  " if i % 17 == 0 else " ")
    return "".join(out).rstrip()


def _config(home, server: FakeServer) -> None:
    home.config_path.write_text(f'[models.streamer]\nbase_url = "{server.base_url}"\nmodel = "streamer"\n',
                                encoding="utf-8")


def _spec(**kw) -> SessionSpec:
    base = dict(character=CARDS[0].name, situation=SITUATIONS[0].name, player="streamer",
                interrogator="offline", judges=[], num_turns=1, lang="en")
    return SessionSpec(**{**base, **kw})


def _blocks(card: StreamingCard) -> list[Static]:
    return list(card.query(".-block").results(Static))


def _drawn(card: StreamingCard) -> list[str]:
    """The text of each line block and of the tail, as drawn (the first child is the head)."""
    return [str(s.render()) for s in card.query_children(Static)][1:]


async def test_a_long_streamed_reply_is_whole_and_exact_when_it_ends(make_app, home, store):
    text = long_reply(700)
    with FakeServer() as server:
        _config(home, server)
        server.script(reply(text, words_per_chunk=1, chunk_delay=0.004), model="streamer")
        app = make_app()
        async with app.run_test(size=(100, 30)) as pilot:
            sid = app.start_session(_spec(), CARDS[0], SITUATIONS[0])
            app.open_live(sid)
            await wait_for(pilot, lambda: isinstance(app.screen, LiveScreen) and app.screen.query(Transcript))
            live = app.screen
            transcript = live.query_one(Transcript)
            seen: list[str] = []
            kept: dict[int, tuple[Static, str]] = {}  # the blocks drawn so far and what they said then
            for _ in range(2000):  # until the stored reply replaces the streaming card (same handler)
                if any(c.role == "assistant" for c in transcript.cards()):
                    break
                card = live.query(StreamingCard).first() if live.query(StreamingCard) else None
                if card is not None and card.body and card.body != (seen or [""])[-1]:
                    seen.append(card.body)
                    for block in _blocks(card):
                        kept.setdefault(id(block), (block, str(block.render())))
                    assert "\n".join(_drawn(card)) == card.body  # blocks and tail are the text, nothing else
                await pilot.pause(0.02)
            await wait_for(pilot, lambda: live.status == "finished" and not live.running)
            await wait_for(pilot, lambda: not live.query(StreamingCard))  # the stored card replaced it
            replies = [c for c in live.query_one(Transcript).cards() if c.role == "assistant"]
            assert [c.body for c in replies] == [text]
    assert len(seen) >= 3 and all(text.startswith(part) for part in seen)  # it grew, in batches
    assert kept and all(str(block.render()) == drawn for block, drawn in kept.values())  # never drawn again
    assert [m.text for m in store.session(sid).messages if m.role == "assistant"] == [text]


class _Host(App):
    def compose(self) -> ComposeResult:
        yield Transcript()


async def test_a_streaming_card_takes_the_room_one_text_would_and_starts_over_on_a_retry():
    text = long_reply(1200)
    app = _Host()
    async with app.run_test(size=(70, 200)) as pilot:
        transcript = app.query_one(Transcript)
        steps = [text[:n] for n in range(0, len(text) + 1, 97)] + [text]
        for part in steps:
            transcript.set_streaming(1, "assistant", "streamer", part)
            await pilot.pause()
        card = app.query_one(StreamingCard)
        assert _blocks(card)
        whole = MessageCard(1, "assistant", "streamer", text)
        await transcript.mount(whole)
        await pilot.pause()
        # the same lines: one text wraps line by line, as the blocks do
        assert card.size.height == whole.size.height
        assert str(whole.render()).split("\n", 1)[1] == "\n".join(_drawn(card))
        transcript.set_streaming(1, "assistant", "streamer", "Another try")  # a retry: not a continuation
        await pilot.pause()
        assert card.body == "Another try" and _drawn(card) == ["Another try"]


async def test_pause_step_and_taking_the_seat_work_while_replies_stream(make_app, home, store):
    with FakeServer() as server:
        _config(home, server)
        server.script(*(reply(long_reply(60), words_per_chunk=1, chunk_delay=0.005) for _ in range(3)),
                      model="streamer")
        app = make_app()
        async with app.run_test(size=(100, 30)) as pilot:
            sid = app.start_session(_spec(num_turns=3), CARDS[0], SITUATIONS[0])
            app.open_live(sid, paused=True)
            await wait_for(pilot, lambda: isinstance(app.screen, LiveScreen) and app.screen.running)
            live = app.screen
            assert not live.query_one(Transcript).cards()  # held before turn 1
            await pilot.press("s")  # one turn: the question, then the streamed reply, then it holds
            await wait_for(pilot, lambda: [c.role for c in live.query_one(Transcript).cards()] == ["user", "assistant"]
                           and live.control.paused)
            assert live.query_one(Transcript).cards()[1].body == long_reply(60)
            await pilot.press("t")  # the person takes the seat: turn 2's question is theirs, typed ahead
            await wait_for(pilot, lambda: app.focused is live.query_one("#human-input"))
            await pilot.press(*"Is the lamp lit?", "enter")  # queued: the box stays, what is typed is text
            assert live.control.human.pending == 1 and app.focused is live.query_one("#human-input")
            await pilot.press("escape", "space")  # out of the box, continue
            await wait_for(pilot, lambda: len(live.query_one(Transcript).cards()) == 4)
            cards = live.query_one(Transcript).cards()
            assert (cards[2].author, cards[2].body) == ("human", "Is the lamp lit?")
            assert cards[3].body == long_reply(60)


async def test_a_transcript_loaded_whole_shows_its_newest_message():
    """A session opened again (or a replay step) shows where it stands: the end, not the first turn."""
    from pingpong.core.domain import Message

    app = _Host()
    async with app.run_test(size=(70, 20)) as pilot:
        transcript = app.query_one(Transcript)
        transcript.load([Message(turn=t // 2 + 1, role="user" if t % 2 == 0 else "assistant", author="offline",
                                 text=f"line {t} " + "word " * 30) for t in range(12)])
        await wait_for(pilot, lambda: transcript.max_scroll_y > 0 and transcript.scroll_y == transcript.max_scroll_y)


async def test_a_key_echoed_into_a_streaming_reply_never_shows_on_the_live_screen(make_app, home, monkeypatch):
    """Its start is held back until the next pieces tell whether it is the key: the key never
    shows whole or in part (four characters or more), and the finished message holds ***."""
    key = "sk-live-screen-0123456789abcdef"
    monkeypatch.setenv("PINGPONG_TEST_LIVE_KEY", key)
    text = f"The key is {key} and so on"
    pieces = ("The key is ", *(key[i:i + 5] for i in range(0, len(key), 5)), " and so on")
    with FakeServer() as server:
        home.config_path.write_text(f'[models.streamer]\nbase_url = "{server.base_url}"\nmodel = "streamer"\n'
                                    'api_key_env = "PINGPONG_TEST_LIVE_KEY"\n', encoding="utf-8")
        server.script(reply(text, pieces=pieces, chunk_delay=0.1), model="streamer")
        app = make_app()
        async with app.run_test(size=(120, 30)) as pilot:
            spec = SessionSpec(character=CARDS[0].name, situation=SITUATIONS[0].name, player="streamer",
                               interrogator="offline", judges=[], num_turns=1, lang="en")
            sid = app.start_session(spec, CARDS[0], SITUATIONS[0])
            app.open_live(sid)
            await wait_for(pilot, lambda: isinstance(app.screen, LiveScreen))
            live, shown = app.screen, []

            def done() -> bool:
                shown.extend(card.body for card in live.query(StreamingCard))
                return any(card.role == "assistant" for card in live.query(MessageCard))

            await wait_for(pilot, done)
            final = [card.body for card in live.query(MessageCard) if card.role == "assistant"]
    assert shown and all(key[:4] not in body for body in shown), shown
    assert final == ["The key is *** and so on"]
