"""`pingpong play`: bad names fail before the app starts; good ones open the live session."""

from __future__ import annotations

from pingpong.core.domain import SessionSpec
from pingpong.tui.app import PlayRequest
from pingpong.tui.cli import main
from pingpong.tui.screens.live import LiveScreen
from tests.tui.conftest import CARDS, SITUATIONS
from tests.tui.helpers import wait_for


def test_play_unknown_character_is_one_line(tmp_path, capsys):
    assert main(["play", "--home", str(tmp_path), "--character", "no-such-card"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("pingpong: error: ") and "no-such-card" in err and err.count("\n") == 1


def test_play_unknown_model_is_one_line(tmp_path, capsys):
    assert main(["play", "--home", str(tmp_path), "--player", "gpt-nope"]) == 2
    assert "unknown model 'gpt-nope'" in capsys.readouterr().err


async def test_play_request_opens_live_session(make_app, store):
    spec = SessionSpec(character=CARDS[0].name, situation=SITUATIONS[0].name, player="offline",
                       interrogator="offline", judges=["offline"], num_turns=1, lang="en")
    app = make_app(initial=PlayRequest(spec, CARDS[0], SITUATIONS[0]))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, LiveScreen))
        live = app.screen
        await wait_for(pilot, lambda: live.status == "finished" and not live.running)
        await pilot.press("escape")
        assert not isinstance(app.screen, LiveScreen)
    stored = store.session(live.session_id)
    assert stored.status == "finished" and stored.turns_done == 1


def test_play_with_a_missing_key_is_one_line_before_the_tui_opens(tmp_path, monkeypatch, capsys):
    from pingpong.tui.cli import main

    monkeypatch.delenv("PP_TEST_MISSING_KEY", raising=False)
    tmp_path.joinpath("config.toml").write_text(
        '[models.remote]\nbase_url = "https://api.example.invalid/v1"\nmodel = "m"\n'
        'api_key_env = "PP_TEST_MISSING_KEY"\n', encoding="utf-8")
    code = main(["--home", str(tmp_path), "play", "--player", "remote", "--character", "tally",
                 "--situation", "casual-greeting"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "PP_TEST_MISSING_KEY" in err[0] and "remote" in err[0]


def test_a_fork_with_a_person_asking_names_a_command_that_works(tmp_path, capsys):
    """`sessions fork --interrogator human` used to name `sessions resume N`, which refused. From a
    script both now say to run it in a terminal, where it opens the TUI on the session."""
    root = str(tmp_path)
    assert main(["run", "--home", root, "--player", "offline", "--interrogator", "offline", "--judge", "offline",
                 "--characters", "sherlock-holmes", "--situations", "casual-greeting"]) == 0
    capsys.readouterr()
    assert main(["sessions", "fork", "1", "--turn", "1", "--interrogator", "human", "--home", root]) == 0
    out = capsys.readouterr().out
    again = f"pingpong --home {root} sessions resume 2"  # this home, not the default one
    assert "session 2: forked from session 1" in out and f"in a terminal: {again}" in out
    assert main(["sessions", "resume", "2", "--home", root]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"run `{again}` in a terminal" in err and f"`pingpong --home {root}`" in err


async def test_resume_request_opens_the_session_with_the_persons_seat_waiting(make_app, store):
    from pingpong.tui.app import ResumeRequest

    spec = SessionSpec(character=CARDS[0].name, situation=SITUATIONS[0].name, player="offline",
                       interrogator="human", judges=["offline"], num_turns=1, lang="en")
    sid = store.create_session(spec, CARDS[0], SITUATIONS[0])
    app = make_app(initial=ResumeRequest(sid))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, LiveScreen) and app.screen.control is not None
                       and app.screen.control.human.waiting)
        assert app.screen.session_id == sid


def test_a_fork_that_would_leave_nothing_to_play_is_refused(tmp_path, capsys):
    """A fork copies the first N turns and runs on with the new seats: at the last planned turn of a
    finished session, or of a one-turn session, the new player would be credited with another's words."""
    root = str(tmp_path)
    assert main(["run", "--home", root, "--player", "offline", "--interrogator", "offline", "--judge", "offline",
                 "--characters", "sherlock-holmes", "--situations", "casual-greeting"]) == 0
    assert main(["run", "--home", root, "--method", "rolebench", "--player", "offline", "--interrogator", "offline",
                 "--judge", "offline", "--characters", "tally", "--situations", "tally-s11", "--run", "rb"]) == 0
    capsys.readouterr()
    from pingpong.sessions.store import Store

    with Store(tmp_path / "pingpong.db") as store:
        planned = store.session(1).num_turns
        one_turn = store.sessions(method="rolebench")[0].id
    assert planned > 1
    assert main(["sessions", "fork", "1", "--turn", str(planned), "--home", root]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"would leave no turn to play; fork at turn {planned - 1} or before" in err
    assert main(["sessions", "fork", str(one_turn), "--turn", "1", "--home", root]) == 2
    assert "a session of one turn leaves nothing to fork" in capsys.readouterr().err
    assert main(["sessions", "fork", "1", "--turn", str(planned - 1), "--home", root]) == 0
    with Store(tmp_path / "pingpong.db") as store:
        assert len(store.sessions()) == 3  # the refusals stored nothing
