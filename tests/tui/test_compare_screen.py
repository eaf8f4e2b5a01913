"""The side-by-side screen: two players' sessions, the judges' verdicts in both orders, a person's pick;
and the new-session form's prompting strategy."""

from __future__ import annotations

from textual.widgets import Select

from pingpong.core.domain import Score
from pingpong.tui.screens.compare import CompareScreen
from pingpong.tui.screens.home import HomeScreen
from pingpong.tui.screens.leaderboard import LeaderboardScreen
from pingpong.tui.screens.new_session import NewSessionScreen
from pingpong.tui.widgets.transcript import MessageCard, Transcript
from tests.tui.conftest import write_session
from tests.tui.helpers import form_filled, run_palette_command, wait_for

SIZE = (80, 24)


def judged_pair(store) -> tuple[int, int]:
    """Sessions 1 (offline) and 2 (rival) of the same card and situation; the judge preferred session 1
    when it was shown first and session 2 when that was: the orders disagree."""
    a = write_session(store)
    b = write_session(store, player="rival")
    store.add_pair_verdict(a, b, "strict-judge", "ab", Score(metric="pairwise", value=1.0, scale="0-1",
                                                             explanation="A keeps Maren's dry voice."),
                           created_at="2026-01-03T10:00:00")
    store.add_pair_verdict(a, b, "strict-judge", "ba", Score(metric="pairwise", value=0.0, scale="0-1",
                                                             explanation="B answers the sailor directly."),
                           created_at="2026-01-03T10:00:01")
    return a, b


def with_author(home, name: str = "dana") -> None:
    home.config_path.write_text(f'author = "{name}"\n', encoding="utf-8")


async def test_v_on_home_opens_both_transcripts_and_a_stores_the_pick_with_author_and_time(app, store, home):
    with_author(home)
    a, b = judged_pair(store)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen) and app.screen.loaded)
        await pilot.press("v")
        await wait_for(pilot, lambda: isinstance(app.screen, CompareScreen))
        screen = app.screen
        left, right = screen.query_one("#pair-a", Transcript), screen.query_one("#pair-b", Transcript)
        await wait_for(pilot, lambda: len(left.query(MessageCard)) == 4 and len(right.query(MessageCard)) == 4)
        assert {c.author for c in right.query(MessageCard) if c.role == "assistant"} == {"rival"}
        verdicts = str(screen.query_one("#pair-verdicts").render())
        assert "A first: A better" in verdicts and "B first: B better" in verdicts and "= tie" in verdicts
        assert "not picked yet" in verdicts
        await pilot.press("a")
        await wait_for(pilot, lambda: "dana" in str(screen.query_one("#pair-verdicts").render()))
    rows = store.db.execute("select session_a, session_b, value, source, by, created_at, shown from pair_scores"
                            " where source = 'human'").fetchall()
    assert len(rows) == 1
    (sa, sb, value, source, by, created_at, shown) = rows[0]
    assert (sa, sb, value, source, by, shown) == (a, b, 1.0, "human", "dana", None)
    assert created_at.startswith("20") and "T" in created_at


async def test_b_and_t_are_appended_and_the_newest_counts(app, store, home):
    from pingpong.sessions.compare import pair_outcomes, plan_of

    with_author(home, "eli")
    a, b = judged_pair(store)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen) and app.screen.loaded)
        app.action_compare(b)
        await wait_for(pilot, lambda: isinstance(app.screen, CompareScreen) and app.screen.outcome is not None)
        await pilot.press("b")
        await pilot.press("t")
        await wait_for(pilot, lambda: len(app.screen.outcome.people) == 2)
    outcome = pair_outcomes(store.conn, [plan_of(store.session(a), store.session(b))])[0]
    assert [p.value for p in outcome.people] == [0.0, 0.5]
    assert outcome.value("strict-judge") == 0.5 and outcome.person.by == "eli"


async def test_a_session_without_a_judged_pair_can_still_be_compared_by_a_person(app, store, home):
    with_author(home)
    a = write_session(store)
    b = write_session(store, player="rival")
    write_session(store, player="rival")  # the rival's newest session of the same situation is the one shown
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen) and app.screen.loaded)
        app.action_compare(a)
        await wait_for(pilot, lambda: isinstance(app.screen, CompareScreen) and app.screen.outcome is not None)
        assert app.screen.pairs == [(a, b + 1)]
        assert "not picked yet" in str(app.screen.query_one("#pair-verdicts").render())


async def test_palette_and_leaderboard_open_the_judged_pairs(app, store):
    judged_pair(store)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen) and app.screen.loaded)
        await run_palette_command(pilot, "side by side")
        await wait_for(pilot, lambda: isinstance(app.screen, CompareScreen) and app.screen.outcome is not None)
        assert app.screen.pairs == [(1, 2)]
        await pilot.press("escape")
        await pilot.press("l")
        await wait_for(pilot, lambda: isinstance(app.screen, LeaderboardScreen))
        await pilot.press("v")
        await wait_for(pilot, lambda: isinstance(app.screen, CompareScreen))


async def test_right_and_left_move_between_pairs_even_with_a_transcript_focused(app, store):
    a, b = judged_pair(store)
    c = write_session(store, player="third")
    store.add_pair_verdict(a, c, "strict-judge", "ab", Score(metric="pairwise", value=0.5, scale="0-1"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen) and app.screen.loaded)
        app.action_compare()
        await wait_for(pilot, lambda: isinstance(app.screen, CompareScreen) and app.screen.outcome is not None)
        screen = app.screen
        assert screen.pairs == [(a, c), (a, b)]  # the newest verdict first
        screen.query_one("#pair-a", Transcript).focus()
        await pilot.press("right")
        await wait_for(pilot, lambda: screen.outcome.plan.b == b)
        assert "pair 2/2" in str(screen.query_one("#pair-info").render())
        await pilot.press("right")  # stays on the last pair
        assert screen.index == 1
        await pilot.press("left")
        await wait_for(pilot, lambda: screen.outcome.plan.b == c)
        assert "third" in str(screen.query_one("#pair-b-title").render())


async def test_without_pairs_the_screen_says_how_to_get_some(app, store):
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen) and app.screen.loaded)
        app.action_compare()
        await wait_for(pilot, lambda: isinstance(app.screen, CompareScreen) and app.screen.query("#pair-empty"))
        await pilot.pause()
        assert app.screen.query_one("#pair-empty").display
        assert "pingpong compare" in str(app.screen.query_one("#pair-empty").render())
        await pilot.press("a")  # nothing to pick: a warning, no crash
    assert store.db.execute("select count(*) from pair_scores").fetchone()[0] == 0


async def test_new_session_form_stores_the_chosen_prompting_strategy(app, store):
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen) and app.screen.loaded)
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, NewSessionScreen) and form_filled(app.screen))
        app.screen.query_one("#new-prompting", Select).value = "fsd"
        await pilot.pause()
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: store.sessions())
    assert store.session(store.sessions()[0].id).spec.prompting == "fsd"


async def test_the_form_refuses_a_strategy_its_minimal_prompt_format_would_never_use(make_app, store):
    """`play --prompt-format minimal` opens the form with that format: fsd there would be stored and
    reported as a strategy, while the player gets the card's name and no examples."""
    from pingpong.tui.app import NewSessionRequest

    app = make_app(initial=NewSessionRequest({"prompt_format": "minimal"}))
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, NewSessionScreen) and form_filled(app.screen))
        app.screen.query_one("#new-prompting", Select).value = "fsd"
        await pilot.pause()
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: any("goes with the detailed prompt format" in n.message
                                          for n in app._notifications))
        assert isinstance(app.screen, NewSessionScreen) and store.sessions() == []


async def test_new_session_form_defaults_to_the_default_prompting(app, store):
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen) and app.screen.loaded)
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, NewSessionScreen) and form_filled(app.screen))
        assert app.screen.query_one("#new-prompting", Select).value == "default"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: store.sessions())
    assert store.session(store.sessions()[0].id).spec.prompting is None


async def test_a_fork_is_never_offered_side_by_side(app, store, home):
    """`pingpong compare` pairs unforked sessions only: v on a fork says so and shows no pair (a pick there
    would never count), and a pick once stored on a fork is not listed with the judged pairs."""
    from pingpong.tui.widgets.panels import EmptyState

    with_author(home)
    a, b = judged_pair(store)
    fork = store.fork(a, 1)
    store.set_status(fork, "finished")
    store.add_pair_preference(b, fork, 1.0, "dana")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen) and app.screen.loaded)
        app.action_compare(fork)
        await wait_for(pilot, lambda: isinstance(app.screen, CompareScreen))
        await pilot.pause()
        assert app.screen.pairs == [] and app.screen.query_one(EmptyState).display
        assert any(f"Session {fork} is a fork of {a}" in n.message for n in app._notifications)
        await pilot.press("escape")
        app.action_compare()
        await wait_for(pilot, lambda: isinstance(app.screen, CompareScreen) and app.screen.outcome is not None)
        assert app.screen.pairs == [(a, b)]


async def test_the_pair_line_says_tab_reaches_the_judges_reasons(app, store):
    judged_pair(store)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen) and app.screen.loaded)
        app.action_compare()
        await wait_for(pilot, lambda: isinstance(app.screen, CompareScreen) and app.screen.outcome is not None)
        screen = app.screen
        assert "tab: A, B, reasons" in str(screen.query_one("#pair-info").render())
        screen.query_one("#pair-a", Transcript).focus()
        await pilot.press("tab", "tab")
        assert app.focused is screen.query_one("#pair-verdicts-box")
