"""DMT sessions in the TUI: a person in the interrogator seat from round 2 (seed topic, intent and a
suggested sub-intent on screen; ending the dialogue), each round's notes and labels in the replay,
labels overridden in the rating dialog, seeds in the new-session form and `play --method dmt`, and
the DMT board with its curves."""

from __future__ import annotations

from textual.widgets import DataTable, Select, Static

from pingpong.core.domain import SessionSpec, Situation
from pingpong.core.methods.dmt_hints import suggest_sub_intent
from pingpong.situations.seeds import seed_situation
from pingpong.tui.screens.leaderboard import LeaderboardScreen
from pingpong.tui.screens.live import LiveScreen
from pingpong.tui.screens.new_session import NewSessionScreen
from pingpong.tui.screens.override import OverrideScreen
from pingpong.tui.screens.replay import ReplayScreen
from pingpong.tui.widgets.clamped import ClampedText
from pingpong.tui.widgets.transcript import MessageCard
from tests.tui.conftest import CARDS, SEEDS, write_dmt_session
from tests.tui.helpers import form_filled, wait_for
from tests.tui.test_qa_polish import footer_keys

SEED = SEEDS[0]


def cards_of(screen) -> list[MessageCard]:
    return list(screen.query(MessageCard))


def reply(screen, turn: int) -> MessageCard | None:
    return next((c for c in cards_of(screen) if c.turn == turn and c.role == "assistant"), None)


async def test_a_person_writes_round_two_sees_the_seed_and_ends_the_dialogue(app, store):
    spec = SessionSpec(method="dmt", character=SEED.character, situation=SEED.name, player="offline",
                       interrogator="offline", judges=["offline"], lang="en")
    async with app.run_test(size=(80, 24)) as pilot:
        sid = app.start_session(spec, CARDS[0], seed_situation(SEED))
        app.open_live(sid, paused=True)
        await wait_for(pilot, lambda: isinstance(app.screen, LiveScreen) and app.screen.control is not None)
        live = app.screen
        await pilot.press("t")  # take the interrogator seat; round 1 is still the seed's own query
        await wait_for(pilot, lambda: app.focused is live.query_one("#human-input"))
        await pilot.press("escape", "space")  # leave the input box, continue
        await wait_for(pilot, lambda: live.control.human.waiting)
        assert live.control.human.turn == 2
        prompt = str(live.query_one("#human-prompt", Static).render())
        assert SEED.topic in prompt and "role knowledge qa" in prompt
        assert f"try: {suggest_sub_intent(SEED.intent, 2)}" in prompt
        keys = footer_keys(live)
        assert keys.get("End") and all(keys.values()), keys
        await wait_for(pilot, lambda: app.focused is live.query_one("#human-input"))
        await pilot.press(*"What oil do you burn?", "enter")
        await wait_for(pilot, lambda: reply(live, 2) is not None)
        assert "stop check: go on" in reply(live, 2).render().plain
        await wait_for(pilot, lambda: live.control.human.waiting and live.control.human.turn == 3)
        await pilot.press("ctrl+g")  # from the input box: end the dialogue instead of writing round 3
        await wait_for(pilot, lambda: live.status == "finished" and not live.running)
        assert "stop: ended by a person" in reply(live, 2).render().plain
        assert "written by a person" in next(c for c in cards_of(live) if (c.turn, c.role) == (2, "user")).render().plain
        assert "judges" in reply(live, 2).scores.plain
    stored = store.session(sid)
    assert [(m.turn, m.role, m.author) for m in stored.messages] == [
        (1, "user", "seed"), (1, "assistant", "offline"), (2, "user", "human"), (2, "assistant", "offline")]
    asked = stored.messages[2]
    assert asked.text == "What oil do you burn?" and asked.notes["quality"] == "human"
    assert asked.notes["suggested_sub_intent"] == suggest_sub_intent(SEED.intent, 2)
    assert stored.messages[3].notes["stop"] == "ended_by_person"
    assert stored.messages[3].notes["stop_check"] == "continue"
    assert {s.turn for v in stored.verdicts for s in v.scores} == {1, 2}


async def test_replay_shows_each_rounds_sub_topic_sub_intent_and_labels(app, store):
    sid = write_dmt_session(store, bad={(3, "coherence")})
    async with app.run_test(size=(100, 40)) as pilot:
        app.action_open_replay(sid)
        await wait_for(pilot, lambda: isinstance(app.screen, ReplayScreen))
        replay = app.screen
        await pilot.press("end")
        await wait_for(pilot, lambda: reply(replay, 3) is not None and reply(replay, 3).scores.plain)
        text = {(c.turn, c.role): c.render().plain for c in cards_of(replay)}
        assert "the seed's first query" in text[(1, "user")]
        assert "sub-topic: her teacher" in text[(2, "user")] and "sub-intent: ask about a person she knew" in text[(2, "user")]
        assert "query accepted after 1 rejected" in text[(2, "user")]
        assert "query rejected 3 times, used anyway" in text[(3, "user")]
        assert "stop check: go on - close" in text[(2, "assistant")]
        assert "stop: goal reached - she named what keeps it lit" in text[(3, "assistant")]
        assert "9 good, 1 bad (coherence)" in text[(3, "assistant")]
        panel = str(replay.query_one("#explanations").query_one(Static).render())
        assert "coherence: bad - round 3: off" in panel


async def test_the_rating_dialog_overrides_a_rounds_labels_good_or_bad(app, store):
    sid = write_dmt_session(store, bad={(3, "coherence")})
    async with app.run_test(size=(100, 40)) as pilot:
        app.action_open_replay(sid)
        await wait_for(pilot, lambda: isinstance(app.screen, ReplayScreen))
        replay = app.screen
        await pilot.press("end", "o")
        await wait_for(pilot, lambda: isinstance(app.screen, OverrideScreen))
        dialog = app.screen
        assert [f.metric for f in dialog.query("LabelField")][:2] == ["role_embodying", "fluency"]
        assert not dialog.query("RatingField") and not dialog.query("RefusalField")
        await pilot.press("b", "g")  # role_embodying bad, fluency good (focus moves on after each)
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: app.screen is replay and "person" in reply(replay, 3).scores.plain)
        assert "role_embodying bad" in reply(replay, 3).scores.plain
        assert "fluency good" in reply(replay, 3).scores.plain and "FL" not in reply(replay, 3).scores.plain
    people = {(h.turn, h.metric): (h.value, h.scale) for h in store.session(sid).human_scores}
    assert people == {(3, "role_embodying"): (0.0, "good-bad"), (3, "fluency"): (1.0, "good-bad")}


async def form_with_method(pilot, method: str) -> tuple[NewSessionScreen, Select]:
    """Open the new-session form from Home, choose `method`; returns the form and its situation select."""
    app = pilot.app
    await pilot.press("n")
    await wait_for(pilot, lambda: isinstance(app.screen, NewSessionScreen) and form_filled(app.screen))
    form = app.screen
    form.query_one("#new-method", Select).value = method
    return form, form.query_one("#new-situation", Select)


async def test_new_session_offers_the_cards_seeds_for_dmt(app, store):
    async with app.run_test(size=(100, 30)) as pilot:
        form, situation = await form_with_method(pilot, "dmt")
        await wait_for(pilot, lambda: situation.value == SEED.name)
        assert [str(label) for label, _ in situation._options if _ is not Select.NULL] == [
            f"{SEED.name} (en, up to 5 rounds)"]
        form.query_one("#new-lang", Select).value = "all"
        await wait_for(pilot, lambda: "chess-tutor" in [v for _, v in form.query_one("#new-character", Select)._options])
        form.query_one("#new-character", Select).value = "chess-tutor"  # a card without seeds
        await wait_for(pilot, lambda: situation.value is Select.NULL)
        form.query_one("#new-character", Select).value = SEED.character
        await wait_for(pilot, lambda: situation.value == SEED.name)
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, LiveScreen))
        live = app.screen
        await wait_for(pilot, lambda: live.status == "finished" and not live.running)
    stored = store.session(live.session_id)
    assert stored.spec.method == "dmt" and stored.situation.name == SEED.name
    assert (stored.messages[0].author, stored.messages[0].text) == ("seed", SEED.initial_query)
    assert stored.messages[-1].notes["stop"] == "goal_reached" and stored.turns_done == 4


async def test_the_dmt_board_lists_players_and_plots_their_curves(app, store):
    write_dmt_session(store, player="alpha")
    write_dmt_session(store, player="beta", bad={(2, "fluency")})
    async with app.run_test(size=(80, 24)) as pilot:
        app.action_leaderboard()
        await wait_for(pilot, lambda: isinstance(app.screen, LeaderboardScreen))
        board = app.screen
        await pilot.press("d")
        await wait_for(pilot, lambda: board.board == "dmt" and board.query_one(DataTable).row_count == 2)
        table = board.query_one(DataTable)
        assert [table.get_row_at(i)[:2] for i in range(2)] == [["1", "alpha"], ["2", "beta"]]
        assert table.get_row_at(0)[4] == "1.000±0.000"
        assert "plot: all metrics (mean)" in str(board.query_one("#board-note", Static).render())
        keys = footer_keys(board)
        assert keys.get("Curve") and all(keys.values()), keys
        await pilot.press("c")
        assert board.curve == "role_embodying"
        await pilot.press(*"c" * 2)
        assert board.curve == "coherence"  # fluency came before it
        await pilot.press("d")   # on to the next method's board, which has no curve to pick
        await wait_for(pilot, lambda: board.board == "roleinteract" and "Curve" not in footer_keys(board))


def test_play_method_dmt_opens_the_named_seed_with_its_card(tmp_path):
    from pingpong.core.home import Home
    from pingpong.tui.app import NewSessionRequest, PlayRequest
    from pingpong.tui.cli import build_parser
    from pingpong.tui.commands.app import play_request

    home = Home(tmp_path)

    def request(*argv: str):
        return play_request(build_parser(["play", *argv]).parse_args(["play", *argv]), home)

    req = request("--method", "dmt", "--situation", "ada-lovelace-analytical-engine", "--prompt-format", "overview")
    assert isinstance(req, PlayRequest)
    assert (req.character.name, req.spec.method, req.spec.prompt_format) == ("ada-lovelace", "dmt", "overview")
    assert req.situation.data["initial_query"] and req.situation.intent is not None
    form = request("--method", "dmt", "--character", "ada-lovelace")
    assert isinstance(form, NewSessionRequest) and form.defaults["method"] == "dmt"
    assert form.defaults["character"] == "ada-lovelace" and form.defaults["prompt_format"] == "detailed"


def test_play_with_a_seed_written_for_another_card_is_one_line(tmp_path, capsys):
    from pingpong.tui.cli import main

    code = main(["--home", str(tmp_path), "play", "--method", "dmt", "--character", "tally",
                 "--situation", "ada-lovelace-analytical-engine"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "written for 'ada-lovelace', not 'tally'" in err[0]
    assert main(["--home", str(tmp_path), "play", "--method", "dmt", "--situation", "no-such-seed"]) == 2
    assert "unknown seed 'no-such-seed'" in capsys.readouterr().err


async def test_new_session_offers_the_cards_rolebench_questions_and_the_answer_is_scored(app, store):
    """RoleBench in the form: the situations are the card's questions (a card without any says so),
    and the session started from one is scored by Rouge-L against its references."""
    _questions(app)
    async with app.run_test(size=(100, 30)) as pilot:
        form, situation = await form_with_method(pilot, "rolebench")
        await wait_for(pilot, lambda: situation.value == "lighthouse-keeper-s01")
        assert [v for _, v in situation._options if v is not Select.NULL] == ["lighthouse-keeper-s01"]
        form.query_one("#new-lang", Select).value = "all"
        await wait_for(pilot, lambda: "chess-tutor" in [v for _, v in form.query_one("#new-character", Select)._options])
        form.query_one("#new-character", Select).value = "chess-tutor"  # no questions for this card
        await wait_for(pilot, lambda: situation.value is Select.NULL)
        form.query_one("#new-character", Select).value = "lighthouse-keeper"
        await wait_for(pilot, lambda: situation.value == "lighthouse-keeper-s01")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, LiveScreen))
        live = app.screen
        await wait_for(pilot, lambda: live.status == "finished" and not live.running)
    stored = store.session(live.session_id)
    assert stored.spec.method == "rolebench" and stored.situation.name == "lighthouse-keeper-s01"
    (verdict,) = stored.verdicts
    assert [(s.metric, s.status) for s in verdict.scores] == [("spe", "ok")]


def _questions(app) -> None:
    """A RoleBench question set of the lighthouse keeper's own, in the app's home."""
    questions = app.home.situations_dir / "rolebench"
    questions.mkdir(parents=True)
    (questions / "lighthouse-keeper.yaml").write_text(
        "kind: role_specific\ncharacter: lighthouse-keeper\nlang: en\nquestions:\n"
        "  - id: s01\n    instruction: What do you do when a storm comes?\n"
        "    references: [I light the lamp and watch the rocks until dawn.]\n", encoding="utf-8")


async def test_a_card_with_no_question_or_seed_says_so_under_the_situation(app, store):
    """The hint stays: the empty list's own change event does not wipe it."""
    from tests.tui.helpers import settled

    async with app.run_test(size=(100, 30)) as pilot:
        form, situation = await form_with_method(pilot, "pingpong")
        form.query_one("#new-lang", Select).value = "all"
        await wait_for(pilot, lambda: "chess-tutor" in [v for _, v in form.query_one("#new-character", Select)._options])
        form.query_one("#new-character", Select).value = "chess-tutor"
        await settled(pilot)
        for method, hint in (("rolebench", "No RoleBench questions for this character"),
                             ("dmt", "No DMT seeds for this character")):
            form.query_one("#new-method", Select).value = method  # the card first, then the method
            await wait_for(pilot, lambda: situation.value is Select.NULL)
            await settled(pilot)
            assert hint in form.query_one("#new-situation-text", ClampedText).shown()


async def test_rolebench_never_seats_a_person_in_the_interrogator_seat(app, store):
    """RoleBench asks its instruction as written: the form hides the seat (a person would type nothing
    that is used), and a person chosen there before the method was is not stored."""
    _questions(app)
    async with app.run_test(size=(100, 30)) as pilot:
        form, situation = await form_with_method(pilot, "pingpong")
        form.query_one("#new-interrogator", Select).value = "human"
        form.query_one("#new-method", Select).value = "rolebench"
        await wait_for(pilot, lambda: situation.value == "lighthouse-keeper-s01")
        assert not form.query_one("#new-interrogator").display
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, LiveScreen))
    (stored,) = store.sessions()
    assert store.session(stored.id).spec.interrogator == "offline"


async def test_the_form_says_which_seats_a_method_never_uses(app, store):
    """pingpong-v1 offered judges, then stored its tester; RoleBench offered an interrogator, judges and
    turns it never uses. The rows say so in place of the choice."""
    from textual.widgets import Input, SelectionList, Static

    _questions(app)
    async with app.run_test(size=(100, 40)) as pilot:
        form, situation = await form_with_method(pilot, "pingpong-v1")
        await pilot.pause()

        def shown(row: str) -> str:
            note = form.query_one(f"#new-{row}-note", Static)
            return str(note.render()) if note.display and not form.query_one(f"#new-{row}").display else ""

        assert "scored by their tester (the interrogator above)" in shown("judges")
        assert shown("interrogator") == "" and shown("turns") == ""
        form.query_one("#new-judges", SelectionList).deselect_all()
        await pilot.pause()
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, LiveScreen))
        live = app.screen
        await wait_for(pilot, lambda: live.status == "finished" and not live.running)
        assert store.session(live.session_id).spec.judges == ["offline"]
        await pilot.press("escape")
        form, situation = await form_with_method(pilot, "rolebench")
        await wait_for(pilot, lambda: situation.value == "lighthouse-keeper-s01")
        assert "scored by exact rules" in shown("judges") and "asked as written" in shown("interrogator")
        assert shown("turns").startswith("1")
        form.query_one("#new-method", Select).value = "pingpong"
        await pilot.pause()
        assert all(shown(row) == "" for row in ("judges", "interrogator", "turns"))
        assert form.query_one("#new-turns", Input).display and form.query_one("#new-judges").display


async def test_a_session_whose_user_lines_the_method_writes_never_offers_the_message_box(app, store):
    """A rolebench question or a roleinteract multiple-choice probe with a person stored in the
    interrogator seat (an older session): no message box, no Take seat; the method asks."""
    from pingpong.core.methods.roleinteract_probes import choice_situation
    from tests.methods.probe_builders import EMOTION, probe_set

    question = Situation(name="lighthouse-keeper-s01", lang="en", text="What do you do when a storm comes?",
                         num_turns=1)
    async with app.run_test(size=(100, 30)) as pilot:
        for method, situation in (("rolebench", question), ("roleinteract", choice_situation(probe_set(), EMOTION,
                                                                                            "Maren"))):
            spec = SessionSpec(method=method, character=CARDS[0].name, situation=situation.name, player="offline",
                               interrogator="human", judges=["offline"], lang="en")
            sid = app.start_session(spec, CARDS[0], situation)
            app.open_live(sid, paused=True)
            await wait_for(pilot, lambda sid=sid: isinstance(app.screen, LiveScreen) and app.screen.session_id == sid
                           and app.screen.control is not None)
            live = app.screen
            await pilot.pause()
            assert not live.query_one("#human-box").display
            assert "Take seat" not in footer_keys(live)
            await pilot.press("space")
            await wait_for(pilot, lambda live=live: live.status == "finished" and not live.running)
            assert not live.query_one("#human-box").display
            await pilot.press("escape")
            await wait_for(pilot, lambda live=live: app.screen is not live)
            assert [m.author for m in store.session(sid).messages] == [method, "offline"]


def test_play_refuses_a_person_asking_rolebench_questions(tmp_path, capsys):
    from pingpong.tui.cli import main

    assert main(["--home", str(tmp_path), "play", "--method", "rolebench", "--character", "tally",
                 "--situation", "tally-s01", "--interrogator", "human"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "rolebench needs a model in the interrogator seat" in err[0]


def test_play_method_rolebench_opens_a_question_of_the_card(tmp_path, capsys):
    from pingpong.core.home import Home
    from pingpong.tui.app import NewSessionRequest, PlayRequest
    from pingpong.tui.cli import build_parser, main
    from pingpong.tui.commands.app import play_request

    def request(*argv: str):
        return play_request(build_parser(["play", *argv]).parse_args(["play", *argv]), Home(tmp_path))

    req = request("--method", "rolebench", "--character", "tally", "--situation", "tally-s01")
    assert isinstance(req, PlayRequest) and req.situation.data["kind"] == "role_specific"
    assert isinstance(request("--method", "rolebench", "--character", "tally"), NewSessionRequest)
    assert main(["--home", str(tmp_path), "play", "--method", "rolebench", "--character", "tally",
                 "--situation", "bedtime"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "'bedtime' is not a RoleBench question of 'tally'" in err[0]


async def test_t_brings_a_person_back_to_the_message_box(app, store):
    """Escape leaves the message box on a person's turn; t (shown in the footer) goes back to it, so what
    is typed next is the message, not shortcuts (h would open the hand-back picker)."""
    spec = SessionSpec(method="dmt", character=SEED.character, situation=SEED.name, player="offline",
                       interrogator="human", judges=["offline"], lang="en")
    async with app.run_test(size=(80, 24)) as pilot:
        sid = app.start_session(spec, CARDS[0], seed_situation(SEED))
        app.open_live(sid)
        await wait_for(pilot, lambda: isinstance(app.screen, LiveScreen) and app.screen.control is not None)
        live = app.screen
        box = live.query_one("#human-input")
        await wait_for(pilot, lambda: live.control.human.waiting and app.focused is box)
        assert "Type" not in footer_keys(live)
        await pilot.press("escape")
        await wait_for(pilot, lambda: footer_keys(live).get("Type"))
        assert app.focused is not box
        await pilot.press("t")
        await wait_for(pilot, lambda: app.focused is box)
        await pilot.press(*"hello")
        assert box.value == "hello" and app.screen is live
        await wait_for(pilot, lambda: "Type" not in footer_keys(live))


async def test_saving_labels_again_writes_only_what_changed_and_a_saved_one_is_not_cleared(app, store):
    """The dialog opens with the labels that count: saving it again re-recorded every one in the
    saver's name, and 0 on one of them said it cleared it, yet it stayed."""
    sid = write_dmt_session(store, bad={(3, "coherence")})
    store.add_human_score(sid, 3, "role_embodying", 0, "ann")
    store.add_human_score(sid, 3, "fluency", 1, "ann")
    async with app.run_test(size=(100, 40)) as pilot:
        app.action_open_replay(sid)
        await wait_for(pilot, lambda: isinstance(app.screen, ReplayScreen))
        replay = app.screen
        for keys, says in ((("0",), "role_embodying: a saved score stays"), ((), "Nothing changed")):
            await pilot.press("end", "o")
            await wait_for(pilot, lambda: isinstance(app.screen, OverrideScreen))
            await pilot.press(*keys, "ctrl+s")
            await wait_for(pilot, lambda: any(says in n.message for n in app._notifications))
            if app.screen is not replay:
                await pilot.press("escape")
            await wait_for(pilot, lambda: app.screen is replay)
        await pilot.press("o")
        await wait_for(pilot, lambda: isinstance(app.screen, OverrideScreen))
        await pilot.press("g", "ctrl+s")  # role_embodying good now; fluency as it was
        await wait_for(pilot, lambda: app.screen is replay)
    people = [(h.metric, h.value, h.author) for h in store.session(sid).human_scores]
    assert people == [("role_embodying", 0.0, "ann"), ("fluency", 1.0, "ann"),
                      ("role_embodying", 1.0, app.author())]
