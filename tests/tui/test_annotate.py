"""The rating queue: blind, balanced, and it resumes where the person left off."""

from __future__ import annotations

from pingpong.sessions.annotate import draw_sample, open_queue
from pingpong.tui.app import AnnotateRequest
from pingpong.tui.cli import main
from pingpong.tui.screens.annotate import HIDDEN, AnnotateScreen
from pingpong.tui.screens.home import HomeScreen
from pingpong.tui.widgets.transcript import MessageCard
from tests.tui.conftest import CARDS, SITUATIONS, write_session
from tests.tui.helpers import wait_for


def fill(store) -> None:
    """Two players, three finished sessions each (judged), and one unfinished one."""
    for player in ("model-a", "model-b"):
        for character, situation in ((CARDS[0], SITUATIONS[0]), (CARDS[0], SITUATIONS[1]), (CARDS[1], SITUATIONS[2])):
            write_session(store, player=player, character=character, situation=situation)
    write_session(store, player="model-a", status="interrupted")


def test_the_sample_is_balanced_and_fixed(store):
    fill(store)
    queue = open_queue(store, "ann", sample=2)
    players = [store.session(i.session_id).spec.player for i in queue.items]
    assert players == ["model-a", "model-b", "model-a", "model-b"]
    assert all(store.session(i.session_id).status == "finished" for i in queue.items)
    again = open_queue(store, "bob", sample=2)  # another person, same options: the same draw
    assert [i.session_id for i in again.items] == [i.session_id for i in queue.items]
    assert again.id != queue.id
    assert draw_sample({"p": [1, 2, 3, 4], "q": [5]}, 2) == draw_sample({"q": [5], "p": [4, 3, 2, 1]}, 2)
    only = open_queue(store, "ann", sample=5, players=["model-b"])
    assert {store.session(i.session_id).spec.player for i in only.items} == {"model-b"} and len(only.items) == 3


async def rate_one(pilot, screen, values=("4", "3", "5")) -> None:
    await pilot.press(*values, "n", "ctrl+s")
    await wait_for(pilot, lambda: screen.saved)


def shown(screen) -> str:
    return str(screen.query_one("#session-info").render())


async def test_rate_three_quit_and_continue_at_the_fourth(make_app, store):
    fill(store)
    app = make_app(initial=AnnotateRequest(sample=3))
    async with app.run_test(size=(110, 34)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, AnnotateScreen) and app.screen.stored is not None)
        screen = app.screen
        seen = []
        for n in range(1, 4):
            await wait_for(pilot, lambda n=n: f"Conversation {n} of 6" in shown(screen))
            await wait_for(pilot, lambda: len(screen.query(MessageCard)) == 4)
            cards = list(screen.query(MessageCard))
            # blind: no judge's scores under the replies, no player name anywhere before saving
            assert all(not c.scores.plain for c in cards) and all(c.author == "" for c in cards)
            player = screen.stored.spec.player
            assert player not in shown(screen)
            assert str(screen.query_one("#annotate-judges").render()) == HIDDEN
            seen.append(screen.stored.id)
            await rate_one(pilot, screen)
            revealed = str(screen.query_one("#annotate-judges").render())
            assert player in revealed and "strict-judge" in revealed and "IC " in revealed
            await pilot.press("ctrl+n")
            await wait_for(pilot, lambda n=n: f"Conversation {n + 1} of 6" in shown(screen))
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen))
    rows = store.db.execute("select session_id, turn, metric, value from scores where source = 'human'"
                            " order by id").fetchall()
    assert [r[0] for r in rows[::4]] == seen and {r[1] for r in rows} == {None}
    assert [r[2:] for r in rows[:4]] == [("in_character", 4.0), ("entertaining", 3.0), ("fluency", 5.0),
                                         ("is_refusal", 0.0)]

    app = make_app()  # later, from Home
    async with app.run_test(size=(110, 34)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen) and app.screen.loaded)
        await pilot.press("a")
        await wait_for(pilot, lambda: isinstance(app.screen, AnnotateScreen) and app.screen.stored is not None)
        screen = app.screen
        assert "Conversation 4 of 6" in shown(screen)  # the queue last worked on, where it was left
        assert screen.stored.id not in seen


async def test_saving_needs_every_metric_and_next_needs_a_save(make_app, store):
    fill(store)
    app = make_app(initial=AnnotateRequest(sample=1))
    async with app.run_test(size=(110, 34)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, AnnotateScreen) and app.screen.stored is not None)
        screen = app.screen
        await pilot.press("ctrl+n")
        assert "Conversation 1 of 2" in shown(screen)
        await pilot.press("4", "ctrl+s")
        assert not screen.saved
        await pilot.press("3", "5", "ctrl+s")
        await wait_for(pilot, lambda: screen.saved)
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: "Conversation 2 of 2" in shown(screen))
        await rate_one(pilot, screen)
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: "are rated" in shown(screen))


def test_annotate_without_sessions_is_one_line(tmp_path, capsys):
    assert main(["--home", str(tmp_path / "home"), "annotate"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("pingpong: error: ") and "no finished pingpong sessions" in err and "\n" not in err
