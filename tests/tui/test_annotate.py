"""The rating queue: blind, balanced, and it resumes where the person left off."""

from __future__ import annotations

from pingpong.sessions.annotate import draw_sample, open_queue
from pingpong.tui.app import AnnotateRequest
from pingpong.tui.cli import main
from pingpong.tui.screens.annotate import HIDDEN, AnnotateScreen
from pingpong.tui.screens.home import HomeScreen
from pingpong.tui.widgets.transcript import MessageCard, Transcript
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
    assert draw_sample({("p", "pingpong"): [1, 2, 3, 4], ("q", "dmt"): [5]}, 2) == draw_sample(
        {("q", "dmt"): [5], ("p", "pingpong"): [4, 3, 2, 1]}, 2)
    only = open_queue(store, "ann", sample=5, players=["model-b"])
    assert {store.session(i.session_id).spec.player for i in only.items} == {"model-b"} and len(only.items) == 3


async def rate_one(pilot, screen, values=("4", "3", "5")) -> None:
    await pilot.press(*values, "n", "ctrl+s")
    await wait_for(pilot, lambda: screen.saved)


async def queue_ready(pilot, app) -> None:
    """Wait until the rating queue shows its conversation."""
    await wait_for(pilot, lambda: isinstance(app.screen, AnnotateScreen) and app.screen.stored is not None)


def shown(screen) -> str:
    return str(screen.query_one("#session-info").render())


async def test_rate_three_quit_and_continue_at_the_fourth(make_app, store):
    fill(store)
    app = make_app(initial=AnnotateRequest(sample=3))
    async with app.run_test(size=(110, 34)) as pilot:
        await queue_ready(pilot, app)
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
        await queue_ready(pilot, app)
        screen = app.screen
        assert "Conversation 4 of 6" in shown(screen)  # the queue last worked on, where it was left
        assert screen.stored.id not in seen


async def test_saving_needs_every_metric_and_next_needs_a_save(make_app, store):
    fill(store)
    app = make_app(initial=AnnotateRequest(sample=1))
    async with app.run_test(size=(110, 34)) as pilot:
        await queue_ready(pilot, app)
        screen = app.screen
        await pilot.press("ctrl+n")
        assert "Conversation 1 of 2" in shown(screen)
        await pilot.press("4", "ctrl+s")
        assert not screen.saved
        await pilot.press("3", "5", "ctrl+s")
        await pilot.pause()
        assert not screen.saved  # the refusal flag is part of the rubric: unset, people's view would read "no"
        assert any("refusal (y/n)" in n.message for n in app._notifications)
        await pilot.press("y", "ctrl+s")
        await wait_for(pilot, lambda: screen.saved)
        assert app.store.human_scores(screen.stored.id)[-1].metric == "is_refusal"
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: "Conversation 2 of 2" in shown(screen))
        await rate_one(pilot, screen)
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: "are rated" in shown(screen))


def test_annotate_without_sessions_is_one_line(tmp_path, capsys):
    assert main(["--home", str(tmp_path / "home"), "annotate"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("pingpong: error: ") and "no finished sessions to rate" in err and "\n" not in err


# --- every method a person rates ---------------------------------------------------------------

def write_v1_session(store, player: str = "model-v1") -> int:
    """A finished pingpong-v1 session: the tester scored each reply on ten points."""
    from pingpong.core.domain import Message, SessionSpec
    from tests.scores import likert, verdict

    spec = SessionSpec(method="pingpong-v1", character=CARDS[0].name, situation=SITUATIONS[0].name, player=player,
                       interrogator="tester", judges=[], lang="en")
    sid = store.create_session(spec, CARDS[0], SITUATIONS[0])
    for turn in (1, 2):
        store.add_message(sid, Message(turn=turn, role="user", author="tester", text=f"Question {turn}?"))
        store.add_message(sid, Message(turn=turn, role="assistant", author=player, text=f"Answer {turn}."))
    store.add_verdict(sid, verdict("tester", likert(1, 8, 6, 9, scale="1-10"), likert(2, 7, 6, 8, scale="1-10")))
    store.set_status(sid, "finished")
    return sid


def write_rule_scored(store, method: str, player: str = "model-a") -> int:
    """A finished session of a method scored by rule (no one rates it in a queue)."""
    from pingpong.core.domain import Message, SessionSpec

    spec = SessionSpec(method=method, character=CARDS[0].name, situation=SITUATIONS[0].name, player=player,
                       interrogator="offline", judges=[], lang="en")
    sid = store.create_session(spec, CARDS[0], SITUATIONS[0])
    store.add_message(sid, Message(turn=1, role="user", author="offline", text="Which line would you say? A or B"))
    store.add_message(sid, Message(turn=1, role="assistant", author=player, text="B"))
    store.set_status(sid, "finished")
    return sid


def test_the_queue_draws_every_method_people_rate_and_no_rule_scored_one(store):
    from pingpong.core.errors import UserError
    from pingpong.sessions.annotate import rated_methods
    from tests.tui.conftest import write_dmt_session

    fill(store)
    v1 = write_v1_session(store)
    dmt = write_dmt_session(store, player="model-a")
    rules = [write_rule_scored(store, "rolebench"), write_rule_scored(store, "roleinteract")]
    assert rated_methods() == ("pingpong", "pingpong-v1", "dmt")
    queue = open_queue(store, "ann", sample=2)
    ids = [i.session_id for i in queue.items]
    assert v1 in ids and dmt in ids and not set(rules) & set(ids)
    strata = [(store.session(i).spec.player, store.session(i).spec.method) for i in ids]
    assert strata[:4] == [("model-a", "dmt"), ("model-a", "pingpong"), ("model-b", "pingpong"),
                          ("model-v1", "pingpong-v1")]  # the first pick of each player and method, then the second
    assert sorted(strata[4:]) == [("model-a", "pingpong"), ("model-b", "pingpong")]
    only = open_queue(store, "ann", sample=5, methods=["dmt", "pingpong-v1"])
    assert {i.session_id for i in only.items} == {v1, dmt}
    for bad, problem in ((["rolebench"], "--method rolebench: scored by exact rules"),
                         (["nonsense"], "method 'nonsense'")):
        try:
            open_queue(store, "ann", methods=bad)
        except UserError as exc:
            assert problem in str(exc)
        else:
            raise AssertionError(bad)


async def test_a_pingpong_v1_conversation_is_rated_on_ten_points(make_app, store):
    sid = write_v1_session(store)
    app = make_app(initial=AnnotateRequest(methods=["pingpong-v1"], author="zoe"))
    async with app.run_test(size=(110, 34)) as pilot:
        await queue_ready(pilot, app)
        screen = app.screen
        assert "1-10, 0 is 10" in str(screen.query_one("#annotate-title").render())
        assert "rating as zoe" in str(screen.query_one("#status-line").render())
        await pilot.press("0", "7", "9", "y", "ctrl+s")
        await wait_for(pilot, lambda: screen.saved)
        revealed = str(screen.query_one("#annotate-judges").render())
        assert "tester" in revealed and "IC 7.5/10" in revealed and "model-v1" in revealed
    rows = store.db.execute("select session_id, turn, metric, value, scale, by from scores where source = 'human'"
                            " order by id").fetchall()
    assert rows == [(sid, None, "in_character", 10.0, "1-10", "zoe"), (sid, None, "entertaining", 7.0, "1-10", "zoe"),
                    (sid, None, "fluency", 9.0, "1-10", "zoe"), (sid, None, "is_refusal", 1.0, "0-1", "zoe")]
    assert store.db.execute("select author from annotation_queues").fetchall() == [("zoe",)]


async def test_a_dmt_dialogue_is_labelled_round_by_round(make_app, store):
    from pingpong.core.methods.dmt_rules import metrics_for
    from pingpong.tui.widgets.rating import LabelField
    from tests.tui.conftest import write_dmt_session

    sid = write_dmt_session(store, bad={(2, "coherence")})
    metrics = metrics_for(CARDS[0].role_type)
    app = make_app(initial=AnnotateRequest(methods=["dmt"]))
    async with app.run_test(size=(110, 40)) as pilot:
        await queue_ready(pilot, app)
        screen = app.screen
        title = lambda: str(screen.query_one("#annotate-title").render())  # noqa: E731
        assert "Round 1 of 3" in title()
        assert [f.metric for f in screen.query(LabelField)] == list(metrics)
        assert screen.query_one(Transcript).selected_turn == 1
        await pilot.press(*"g" * len(metrics))  # the round's last label: on to round 2
        await wait_for(pilot, lambda: "Round 2 of 3" in title())
        await pilot.press("b")  # round 2, first metric bad, the rest left open
        await pilot.press("ctrl+s")
        assert not screen.saved and "Round 2 of 3" in title()  # round 2 still needs labels
        await pilot.press("left")
        await wait_for(pilot, lambda: "Round 1 of 3" in title())
        assert all(f.value is True for f in screen.query(LabelField))  # round 1 kept what was given
        await pilot.press("right")
        await wait_for(pilot, lambda: "Round 2 of 3" in title())
        assert [f.value for f in screen.query(LabelField)][:2] == [False, None]
        screen.query(LabelField)[1].focus()
        await pilot.press(*"g" * (len(metrics) - 1))
        await wait_for(pilot, lambda: "Round 3 of 3" in title())
        await pilot.press(*"g" * len(metrics), "ctrl+s")
        await wait_for(pilot, lambda: screen.saved)
        revealed = str(screen.query_one("#annotate-judges").render())
        # the judge labelled round 2's coherence bad; the person the first metric of round 2
        same = 3 * len(metrics) - (2 if metrics[0] != "coherence" else 0)
        assert f"offline  {3 * len(metrics) - 1} good, 1 bad; agrees with you on {same} of {3 * len(metrics)}" in revealed
    rows = store.db.execute("select turn, metric, value, scale from scores where source = 'human' and session_id = ?"
                            " order by id", [sid]).fetchall()
    assert len(rows) == 3 * len(metrics) and {r[3] for r in rows} == {"good-bad"}
    assert [r for r in rows if r[2] == 0.0] == [(2, metrics[0], 0.0, "good-bad")]


async def test_a_skipped_conversation_comes_back_after_the_others(make_app, store):
    fill(store)
    app = make_app(initial=AnnotateRequest(sample=1))
    async with app.run_test(size=(110, 34)) as pilot:
        await queue_ready(pilot, app)
        screen = app.screen
        skipped = screen.stored.id
        await pilot.press("ctrl+l")
        await wait_for(pilot, lambda: screen.stored.id != skipped)
        assert "Conversation 1 of 2" in shown(screen)
        await pilot.press("escape")  # leave: the skipped one waits at the end
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen))
    app = make_app(initial=AnnotateRequest())  # comes back: the queue last worked on
    async with app.run_test(size=(110, 34)) as pilot:
        await queue_ready(pilot, app)
        screen = app.screen
        assert screen.stored.id != skipped
        await rate_one(pilot, screen)
        await pilot.press("ctrl+l")  # saved already: nothing to skip
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: "Conversation 2 of 2" in shown(screen))
        assert screen.stored.id == skipped
        await pilot.press("ctrl+l")  # the last one left: it stays
        await wait_for(pilot, lambda: screen.stored is not None and screen.stored.id == skipped)
        await rate_one(pilot, screen)
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: "are rated" in shown(screen))


def test_annotate_options_that_cannot_work_are_one_line(tmp_path, capsys, store):
    write_rule_scored(store, "rolebench")
    write_v1_session(store)
    cases = [(["--method", "rolebench"], "--method rolebench: scored by exact rules"),
             (["--method", "dmt"], "no finished sessions to rate yet (dmt;"),
             (["--player", "nobody", "--author", "zoe"], "--player: no finished sessions of nobody")]
    for args, problem in cases:
        assert main(["--home", str(tmp_path / "home"), "annotate", *args]) == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith("pingpong: error: ") and problem in err and "\n" not in err, err


async def test_a_conversation_opens_at_its_first_line_and_scrolls_by_page(make_app, store):
    """A blind rater reads a conversation from its start; the transcript takes no focus (the keys go to
    the rating fields), so page up and down scroll it."""
    from pingpong.tui.widgets.transcript import Transcript

    fill(store)
    app = make_app(initial=AnnotateRequest(sample=1))
    async with app.run_test(size=(80, 18)) as pilot:
        await queue_ready(pilot, app)
        transcript = app.screen.query_one(Transcript)
        await wait_for(pilot, lambda: transcript.max_scroll_y > 0)
        await pilot.pause()
        assert transcript.scroll_y == 0
        await pilot.press("pagedown")
        await wait_for(pilot, lambda: transcript.scroll_y > 0)
        await pilot.press("pageup")
        await wait_for(pilot, lambda: transcript.scroll_y == 0)


async def test_a_long_situation_is_shown_whole_above_the_conversation(make_app, store):
    """The blind rater reads the whole situation (it wraps; past 40% of the screen its head scrolls)."""
    from pingpong.core.domain import Situation

    text = ("Without warning, a supernatural monster that fits the character's world bursts in and attacks "
            "you both. Describe the fight vividly, turn by turn, ask the character for help and make decisions "
            "together, and let the battle build to a climax and an ending.")
    write_session(store, situation=Situation(name="supernatural-battle", lang="en", num_turns=2, text=text))
    app = make_app(initial=AnnotateRequest(sample=1))
    async with app.run_test(size=(80, 24)) as pilot:
        await queue_ready(pilot, app)
        info = app.screen.query_one("#session-info")
        await wait_for(pilot, lambda: info.size.height > 2)
        drawn = " ".join(info.render_line(y).text.strip() for y in range(info.size.height))
        assert "a climax and an ending." in drawn
        assert app.screen.query_one("#annotate-head").size.height == info.size.height
