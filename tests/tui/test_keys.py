"""Keys as a first-time user meets them: escape, leaving a running session, the palette, the
keymap, and the interrogator seat as every view tells it after a resume."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from textual.command import CommandList, CommandPalette
from textual.widgets import DataTable, Input, TextArea

from pingpong.core.domain import SessionSpec
from pingpong.core.errors import UserError
from pingpong.tui.app import NewSessionRequest
from pingpong.tui.screens.choice import ChoiceScreen
from pingpong.tui.screens.help import HelpScreen
from pingpong.tui.screens.home import HomeScreen
from pingpong.tui.screens.live import LiveScreen
from pingpong.tui.screens.new_session import NewSessionScreen
from tests.tui.conftest import CARDS, SITUATIONS, write_session
from tests.tui.helpers import wait_for

ROOT = Path(__file__).resolve().parents[2]


def human_spec(turns: int = 3) -> SessionSpec:
    return SessionSpec(character=CARDS[0].name, situation=SITUATIONS[0].name, player="offline",
                       interrogator="human", judges=["offline"], num_turns=turns, lang="en")


async def palette_entries(pilot) -> list[str]:
    """What the command palette lists before anything is typed."""
    await pilot.press("ctrl+p")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, CommandPalette))
    commands = pilot.app.screen.query_one(CommandList)
    await wait_for(pilot, lambda: commands.option_count > 0)
    await pilot.pause(0.2)  # every provider has answered
    entries = [str(commands.get_option_at_index(i).prompt) for i in range(commands.option_count)]
    await pilot.press("escape")
    return [" ".join(e.split()) for e in entries]


async def test_first_time_user_f1_escape_n_opens_new_session(app):
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen) and app.screen.loaded)
        await pilot.press("f1")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen))
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, NewSessionScreen))


async def test_escape_leaves_the_home_filter_then_keys_are_shortcuts_again(app, store):
    write_session(store)
    async with app.run_test(size=(80, 24)) as pilot:
        home = app.screen
        await wait_for(pilot, lambda: isinstance(home, HomeScreen) and home.loaded)
        await pilot.press("slash", *"storm")
        assert isinstance(app.focused, Input)
        await pilot.press("escape")
        assert app.focused is home.query_one(DataTable)
        assert home.query_one("#home-filter", Input).value == "storm"  # the filter stays
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, NewSessionScreen))


async def test_escape_leaves_the_free_text_box_of_the_new_session_form(make_app):
    """A free-form situation is written in a TextArea (a widget Home does not import): escape gives
    the keys back to the form rather than closing it."""
    app = make_app(initial=NewSessionRequest({"free_text": "A sailor knocks at the door."}))
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, NewSessionScreen))
        box = app.screen.query_one("#new-free-text", TextArea)
        await wait_for(pilot, lambda: box.display)
        box.focus()
        await pilot.pause()
        assert app.focused is box
        await pilot.press("escape")
        assert isinstance(app.screen, NewSessionScreen) and app.focused is not box


async def test_escape_on_a_running_session_asks_and_can_keep_it_running_in_the_background(app, store):
    async with app.run_test(size=(100, 30)) as pilot:
        sid = app.start_session(human_spec(), CARDS[0], SITUATIONS[0])
        app.open_live(sid)
        await wait_for(pilot, lambda: isinstance(app.screen, LiveScreen) and app.screen.control is not None
                       and app.screen.control.human.waiting)
        live = app.screen
        await pilot.press(*"Anyone here?")
        await pilot.press("escape")  # leaves the message box first
        assert isinstance(app.screen, LiveScreen) and live.query_one("#human-input", Input).value == "Anyone here?"
        await pilot.press("escape")  # then asks
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        await pilot.press("k")  # keep it running
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen) and app.screen.loaded)
        home = app.screen
        await wait_for(pilot, lambda: any(r.id == sid and r.status == "live" for r in home.rows))
        assert store.session(sid).status == "running" and sid in app.runs.ids()
        await pilot.press("enter")  # open it again: its controls come back, the typed text is gone with the box
        await wait_for(pilot, lambda: isinstance(app.screen, LiveScreen) and app.screen.running)
        again = app.screen
        assert again.control is app.runs.get(sid).control and not again.follow
        assert again.notice == "turn 1: you writing as interrogator"  # where it stands, as when it was left
        await wait_for(pilot, lambda: app.focused is again.query_one("#human-input", Input))
        await pilot.press(*"Hello?", "enter")
        # the engine waits for turn 2 (and has moved the focus to the box) before the escapes below
        await wait_for(pilot, lambda: again.control.human.waiting and again.control.human.turn == 2
                       and app.focused is again.query_one("#human-input", Input))
        assert [m.text for m in store.session(sid).messages if m.role == "user"] == ["Hello?"]
        # stop it from the question this time
        await pilot.press("escape", "escape")
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        await pilot.press("s")
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen) and sid not in app.runs.ids())
    assert store.session(sid).status == "interrupted"


async def test_x_asks_before_stopping(app, store):
    async with app.run_test(size=(100, 30)) as pilot:
        sid = app.start_session(human_spec().model_copy(update={"interrogator": "offline"}), CARDS[0], SITUATIONS[0])
        app.open_live(sid, paused=True)
        await wait_for(pilot, lambda: isinstance(app.screen, LiveScreen) and app.screen.running)
        live = app.screen
        await pilot.press("x")
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        await pilot.press("k")  # keep running
        await wait_for(pilot, lambda: app.screen is live)
        assert live.running
        await pilot.press("x")
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        await pilot.press("s")
        await wait_for(pilot, lambda: app.screen is live and not live.running)
        assert live.status == "interrupted"


async def test_ctrl_q_asks_while_a_session_runs(app, store):
    async with app.run_test(size=(100, 30)) as pilot:
        sid = app.start_session(human_spec(), CARDS[0], SITUATIONS[0])
        app.open_live(sid, paused=True)
        await wait_for(pilot, lambda: isinstance(app.screen, LiveScreen) and app.screen.running)
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        await pilot.press("escape")  # stay
        await wait_for(pilot, lambda: isinstance(app.screen, LiveScreen))
        assert app.is_running and app.screen.running


async def test_the_palette_lists_only_what_applies_here_with_keys(app, store):
    sid = write_session(store, status="interrupted", turns=1, planned=3)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen) and app.screen.loaded)
        home = await palette_entries(pilot)
        def listed(entries: list[str], text: str) -> bool:
            return any(e.startswith(text) for e in entries)

        assert listed(home, "New session n") and listed(home, "Leaderboard l")
        assert not any("interrogator seat" in e or e.startswith(("Pause", "Continue")) for e in home)
        app.open_live(sid, paused=True)
        await wait_for(pilot, lambda: isinstance(app.screen, LiveScreen) and app.screen.running)
        live = await palette_entries(pilot)
        assert listed(live, "Continue space") and listed(live, "Take the interrogator seat (type the user's turns) t")
        assert not any(e.startswith(("Pause", "Retry", "Hand your seat")) for e in live)
        assert listed(live, "Leaderboard leaderboard")  # the way to other screens, without a key here


async def test_keymap_remaps_a_binding_by_its_id(make_app, home, store):
    home.config_path.write_text('[keymap]\ntake_seat = "ctrl+t"\n"home.new" = "N"\n', encoding="utf-8")
    app = make_app()
    sid = write_session(store, status="interrupted", turns=1, planned=3)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen) and app.screen.loaded)
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)  # n no longer opens the form
        await pilot.press("N")
        await wait_for(pilot, lambda: isinstance(app.screen, NewSessionScreen))
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen))
        app.open_live(sid, paused=True)
        await wait_for(pilot, lambda: isinstance(app.screen, LiveScreen) and app.screen.running)
        live = app.screen
        await pilot.press("t")
        await pilot.pause()
        assert live._held_seat() is None
        await pilot.press("ctrl+t")
        await wait_for(pilot, lambda: live._held_seat() == "interrogator")
        await pilot.press("escape")  # out of the message box
        await pilot.press("f1")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        text = app.screen._keys()
        assert "`ctrl+t` Take the interrogator seat" in text and "*(live.take_seat)*" in text


@pytest.mark.parametrize(("entry", "message"), [
    ('nothing_like_this = "x"', "keymap.nothing_like_this: no binding has this id"),
    ('back = "b"', "keymap.back: several bindings end with this id"),
    ('new = "l"', "keymap: 'l' would be both home.new and home.leaderboard; give one of them another key"),
    ('"replay.override" = "f"', "keymap: 'f' would be both replay.override and replay.fork"),
    ('"home.new" = "ctrl+p"', "keymap: 'ctrl+p' would be both home.new and the command palette"),
    ("take_seat = 3", "keymap.take_seat: expected keys in quotes"),
])
def test_a_wrong_keymap_entry_is_one_line_and_exit_2(tmp_path, entry, message):
    (tmp_path / "config.toml").write_text(f"[keymap]\n{entry}\n", encoding="utf-8")
    from pingpong.core.home import Home
    from pingpong.tui.keymap import load_keymap

    with pytest.raises(UserError, match=re.escape(message)):
        load_keymap(Home(tmp_path))
    done = subprocess.run([sys.executable, "-m", "pingpong.tui.cli", "--home", str(tmp_path)], cwd=ROOT,
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and message in done.stderr


async def test_handing_the_seat_back_survives_a_resume_and_every_view_agrees(make_app, store, home):

    app = make_app()
    async with app.run_test(size=(120, 30)) as pilot:
        sid = app.start_session(human_spec(3), CARDS[0], SITUATIONS[0])
        app.open_live(sid)
        await wait_for(pilot, lambda: isinstance(app.screen, LiveScreen) and app.screen.control is not None
                       and app.screen.control.human.waiting)
        live = app.screen
        live.control.pause()  # held before the next message once this one is sent
        await pilot.press(*"Is anyone up there?", "enter")
        # hand the seat to the offline model, then stop before it writes
        await wait_for(pilot, lambda: app.focused is live.query_one("#human-input", Input))
        await pilot.press("ctrl+b")
        await wait_for(pilot, lambda: len(app.screen_stack) > 2)
        await pilot.press("enter")  # the first model in the picker: offline
        await wait_for(pilot, lambda: store.session(sid).seats.get("interrogator") == "offline")
        live._stop_now()
        await wait_for(pilot, lambda: not live.running)
        assert "human → offline" in str(live.query_one("#session-info").render())
    stored = store.session(sid)
    assert stored.status == "interrupted" and stored.seat("interrogator") == "offline"
    # a resume (a new app) goes on with the model in the seat
    app = make_app()
    async with app.run_test(size=(120, 30)) as pilot:
        app.open_live(sid, paused=True)
        await wait_for(pilot, lambda: isinstance(app.screen, LiveScreen) and app.screen.running)
        live = app.screen
        header = str(live.query_one("#session-info").render())
        assert "interrogator human → offline" in header
        assert live.check_action("take_seat", ()) and not live.check_action("hand_back", ())
        live.control.resume()
        await wait_for(pilot, lambda: live.status == "finished" and not live.running)
        header = str(live.query_one("#session-info").render())
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen) and app.screen.loaded)
        await wait_for(pilot, lambda: any(r.id == sid and r.status == "finished" for r in app.screen.rows))
        row = next(r for r in app.screen.rows if r.id == sid)
    users = [(m.turn, m.author) for m in store.session(sid).messages if m.role == "user"]
    assert users == [(1, "human"), (2, "offline"), (3, "offline")]
    assert row.interrogator == "human+offline" and "interrogator human+offline" in header
    shown = subprocess.run([sys.executable, "-m", "pingpong.tui.cli", "--home", str(home.root), "sessions", "show",
                            str(sid)], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert "interrogator human turn 1, offline turns 2-3" in " ".join(shown.stdout.split())
    listed = subprocess.run([sys.executable, "-m", "pingpong.tui.cli", "--home", str(home.root), "sessions", "list",
                             "--format", "tsv"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert "\thuman+offline\t" in listed.stdout


async def test_hints_written_on_screens_name_the_remapped_keys(make_app, home):
    """The footer, help and palette followed [keymap]; the sentences on screens kept naming the old keys."""
    from pingpong.tui.screens.home import HomeScreen

    home.config_path.write_text('[keymap]\n"home.new" = "N"\n"override.save" = "ctrl+w"\n', encoding="utf-8")
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen) and app.screen.loaded)
        empty = str(app.screen.query_one("#home-empty").render())
        assert "Press N to start a new session" in empty
        assert app.shown_key("override.save", "ctrl+s") == "ctrl+w" and app.shown_key("live.override", "o") == "o"


def test_the_help_screen_lists_every_binding_a_keymap_can_remap():
    """F1 is where people find the ids [keymap] takes: every remappable binding is there, dialogs too."""
    from pingpong.tui.app import PingPongApp
    from pingpong.tui.keymap import binding_ids
    from pingpong.tui.screens.help import _screens, key_lines

    listed = "\n".join(line for _, cls in [*_screens(), ("Everywhere", PingPongApp)] for line in key_lines(cls.BINDINGS, {}))
    assert [i for i in binding_ids() if f"*({i})*" not in listed] == []
    assert "*(scope.turn)*" in listed and "*(picker.cancel)*" in listed


async def test_remapped_keys_reach_the_hints_of_cards_and_side_by_side_and_keep_their_footer_place(make_app, home,
                                                                                                   store):
    """[keymap] changed the footer, but the cards bar, the cards' empty state, the pick hint and the empty
    side-by-side text kept naming i, g, a, b, t and v; and the footer moved a remapped key to its end."""
    from textual.widgets._footer import FooterKey

    from pingpong.tui.screens.characters import CardsRead, CharactersScreen
    from pingpong.tui.screens.compare import CompareScreen
    from tests.tui.test_compare_screen import judged_pair

    home.config_path.write_text('[keymap]\n"cards.import" = "I"\n"cards.lang" = "L"\n"compare.a" = "1"\n'
                                '"compare.tie" = "="\n"home.compare" = "V"\n', encoding="utf-8")
    app = make_app()
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen) and app.screen.loaded)
        app.action_compare()
        await wait_for(pilot, lambda: isinstance(app.screen, CompareScreen) and app.screen.query("#pair-empty"))
        assert "press V to compare" in str(app.screen.query_one("#pair-empty").render())
        await pilot.press("escape")
        await pilot.press("c")
        await wait_for(pilot, lambda: isinstance(app.screen, CharactersScreen) and app.screen.loaded)
        cards = app.screen
        bar = str(cards.query_one("#cards-bar").render())
        assert "L language  s spot-check  I import" in bar
        await pilot.pause()
        footer = [key.description for key in cards.query(FooterKey) if key.description]
        assert footer[:4] == ["Spot-check", "Import", "Language", "Back"]
        cards.post_message(CardsRead(None, [], [], None))
        await wait_for(pilot, lambda: not cards.cards)
        assert "Press I to import a card file" in str(cards.query_one("#card-text").render())
        assert "or L to switch language" in str(cards.query_one("#card-text").render())
        await pilot.press("escape")
        judged_pair(store)
        app.action_compare()
        await wait_for(pilot, lambda: isinstance(app.screen, CompareScreen) and app.screen.outcome is not None)
        pair = app.screen
        assert "(1: A better, b: B better, =: tie)" in str(pair.query_one("#pair-verdicts").render())
        await pilot.press("1")
        await wait_for(pilot, lambda: pair.outcome.person is not None and pair.outcome.person.value == 1.0)
