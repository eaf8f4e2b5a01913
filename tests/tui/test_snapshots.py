"""SVG snapshots of every screen at 80x24 (fixed cards, fixed DB rows, offline models, no clocks).

Regenerate after an intended change: pytest tests/tui/test_snapshots.py --snapshot-update
"""

from __future__ import annotations

import pytest

from tests.tui.conftest import CARDS, SITUATIONS, write_dmt_session, write_session
from tests.tui.helpers import form_filled, home_loaded, settled, wait_for

SIZE = (80, 24)


@pytest.fixture
def filled(store):
    run = store.run_id("nightly")
    write_session(store)
    write_session(store, character=CARDS[1], situation=SITUATIONS[2], human_turns=(1,), run_id=run)
    write_session(store, run_id=run, status="running")
    store.add_human_score(1, 2, "in_character", 2, "dana", "too polite for Maren", created_at="2026-01-01T11:00:00")
    return store


async def _queue_open(pilot):
    """Home, then `a`: the rating queue with its first conversation shown."""
    from pingpong.tui.screens.annotate import AnnotateScreen

    await home_loaded(pilot)
    await pilot.press("a")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, AnnotateScreen) and pilot.app.screen.stored)


def test_home_empty(snap_compare, app):
    assert snap_compare(app, terminal_size=SIZE, run_before=home_loaded)


def test_home_sessions(snap_compare, app, filled):
    async def before(pilot):
        await home_loaded(pilot)
        # the table's first paint may still use its headers' widths: wait for the sized one
        await wait_for(pilot, lambda: "lighthouse-kee" in pilot.app.export_screenshot())  # cut at 80 columns

    assert snap_compare(app, terminal_size=SIZE, run_before=before)


def test_new_session(snap_compare, app):
    async def before(pilot):
        await home_loaded(pilot)
        await pilot.press("n")
        await wait_for(pilot, lambda: form_filled(pilot.app.screen))
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=before)


def test_live_finished(snap_compare, app):
    async def before(pilot):
        from pingpong.tui.screens.live import LiveScreen
        from pingpong.tui.widgets.transcript import MessageCard, Transcript

        await home_loaded(pilot)
        await pilot.press("n")
        await pilot.pause()
        pilot.app.screen.query_one("#new-situation").value = "storm-night"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, LiveScreen))
        live = pilot.app.screen
        await wait_for(pilot, lambda: live.status == "finished" and not live.running)
        await wait_for(pilot, lambda: all(c.scores.plain for c in live.query(MessageCard) if c.role == "assistant"))
        await settled(pilot)
        transcript = live.query_one(Transcript)
        transcript.select_turn(1)
        await settled(pilot)
        transcript.scroll_home(animate=False)  # from the top: one picture whatever the timing
        await wait_for(pilot, lambda: transcript.scroll_y == 0)
        await settled(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=before)


def test_group_scene_live(snap_compare, app, home, store):
    """The group transcript at 80 columns, resumed paused with a person sitting as Tamsin: every line
    named by its speaker in the speaker's colour, the input box for Tamsin's lines, the scene's keys."""
    from tests.tui.scenes import write_scene_session

    sid = write_scene_session(store, home, finished=False)

    async def before(pilot):
        from pingpong.tui.screens.live import LiveScreen
        from pingpong.tui.widgets.transcript import MessageCard, Transcript

        await home_loaded(pilot)
        pilot.app.open_live(sid, paused=True)
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, LiveScreen)
                       and len(pilot.app.screen.query(MessageCard)) == 6 and pilot.app.screen.running)
        live = pilot.app.screen
        await wait_for(pilot, lambda: live.query_one("#human-box").display)
        live.query_one("#human-input").cursor_blink = False  # one picture whatever the moment
        await settled(pilot)
        transcript = live.query_one(Transcript)
        transcript.scroll_end(animate=False)
        await settled(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=before)


def test_group_scene_replay(snap_compare, app, home, store):
    from tests.tui.scenes import write_scene_session

    sid = write_scene_session(store, home)

    async def before(pilot):
        await home_loaded(pilot)
        pilot.app.action_open_replay(sid)
        await pilot.pause()
        await pilot.press("end")
        await settled(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=before)


def test_replay_with_override(snap_compare, app, filled):
    async def before(pilot):
        await home_loaded(pilot)
        pilot.app.action_open_replay(1)
        await pilot.pause()
        await pilot.press("end")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=before)


def test_override_dialog(snap_compare, app, filled):
    async def before(pilot):
        await home_loaded(pilot)
        pilot.app.action_open_replay(1)
        await pilot.pause()
        await pilot.press("end", "o", "4")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=before)


def test_leaderboard(snap_compare, app, filled):
    async def before(pilot):
        from textual.widgets import DataTable

        await home_loaded(pilot)
        await pilot.press("l")
        await wait_for(pilot, lambda: pilot.app.screen.query(DataTable) and pilot.app.screen.query_one(DataTable).row_count)
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=before)


def test_characters(snap_compare, app):
    async def before(pilot):
        from pingpong.tui.screens.characters import CharactersScreen

        await home_loaded(pilot)
        await pilot.press("c")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, CharactersScreen) and pilot.app.screen.loaded)
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=before)


def test_watch(snap_compare, app, filled):
    async def before(pilot):
        from textual.widgets import DataTable

        await home_loaded(pilot)
        await pilot.press("w")
        await wait_for(pilot, lambda: pilot.app.screen.query("#run-sessions")
                       and pilot.app.screen.query_one("#run-sessions", DataTable).row_count == 2)
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=before)


def test_help(snap_compare, app):
    async def before(pilot):
        await home_loaded(pilot)
        await pilot.press("f1")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=before)


def test_compare_side_by_side(snap_compare, app, store):
    """Two players' sessions of one situation, the judge's verdicts in both orders (they disagree:
    a tie) and a person's pick, at 80x24."""
    from pingpong.core.domain import Score

    a = write_session(store)
    b = write_session(store, player="rival")
    for turn, text in ((1, "Oil. And I trim the wick at dusk, every dusk."), (2, "Stubbornness, sailor. Sit.")):
        store.db.execute("update messages set text = ? where session_id = ? and turn = ? and role = 'assistant'",
                         [text, b, turn])
    for shown, value, why in (("ab", 1.0, "A keeps Maren's dry, clipped voice."),
                              ("ba", 0.0, "B's answers are shorter and fit the keeper.")):
        store.add_pair_verdict(a, b, "strict-judge", shown, Score(metric="pairwise", value=value, scale="0-1",
                                                                  explanation=why),
                               created_at="2026-01-03T10:00:00")
    store.add_pair_preference(b, a, 1, "dana", "B sounds like her", created_at="2026-01-03T11:00:00")

    async def before(pilot):
        from pingpong.tui.screens.compare import CompareScreen
        from pingpong.tui.widgets.transcript import MessageCard

        await home_loaded(pilot)
        pilot.app.action_compare(a)
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, CompareScreen)
                       and len(pilot.app.screen.query(MessageCard)) == 8)
        await settled(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=before)


def test_rating_queue(snap_compare, app, filled):
    """Blind: no player, no judges' scores until saved."""
    async def before(pilot):
        await _queue_open(pilot)
        await pilot.press("4", "3")
        await settled(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=before)


def test_rating_queue_after_saving(snap_compare, app, filled):
    async def before(pilot):
        await _queue_open(pilot)
        await pilot.press("4", "3", "5", "n", "ctrl+s")
        await wait_for(pilot, lambda: pilot.app.screen.saved)
        pilot.app.screen.query_one("#annotate-reason").cursor_blink = False  # the focused box: no blink phase
        await settled(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=before)


def test_rating_queue_dmt_round(snap_compare, app, store):
    """A DMT dialogue in the queue: the second round's good/bad labels, blind, the round selected."""
    write_dmt_session(store)

    async def before(pilot):
        await _queue_open(pilot)
        await pilot.press("g", "b", "right")
        await wait_for(pilot, lambda: pilot.app.screen.round == 1)
        await pilot.press("g")
        await settled(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=before)


def test_rating_queue_ten_points(snap_compare, app, store):
    """A pingpong-v1 conversation in the queue: 1-10 per metric (0 is 10)."""
    from tests.tui.test_annotate import write_v1_session

    write_v1_session(store)

    async def before(pilot):
        await _queue_open(pilot)
        await pilot.press("0", "7")
        await settled(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=before)


def test_dmt_replay(snap_compare, app, store):
    """A DMT round in the replay: sub-topic, sub-intent, quality check, stop decision and labels."""
    write_dmt_session(store, bad={(3, "coherence")})

    async def before(pilot):
        await home_loaded(pilot)
        pilot.app.action_open_replay(1)
        await pilot.pause()
        await pilot.press("end")
        await settled(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=before)


def test_dmt_leaderboard(snap_compare, app, store):
    write_dmt_session(store, player="alpha")
    write_dmt_session(store, player="beta", bad={(2, "fluency"), (3, "coherence")})

    async def before(pilot):
        from textual.widgets import DataTable

        await home_loaded(pilot)
        pilot.app.action_dmt_leaderboard()
        await wait_for(pilot, lambda: pilot.app.screen.query(DataTable)
                       and pilot.app.screen.query_one(DataTable).row_count == 2)
        await settled(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=before)


def test_dmt_person_writes_round_two(snap_compare, app, store):
    """A person in a dmt session's interrogator seat: the seed's topic and intent, a sub-intent to try."""
    from pingpong.core.domain import SessionSpec
    from pingpong.situations.seeds import seed_situation
    from tests.tui.conftest import SEEDS

    spec = SessionSpec(method="dmt", character=CARDS[0].name, situation=SEEDS[0].name, player="offline",
                       interrogator="offline", judges=["offline"], lang="en")

    async def before(pilot):
        from pingpong.tui.screens.live import LiveScreen

        await home_loaded(pilot)
        sid = pilot.app.start_session(spec, CARDS[0], seed_situation(SEEDS[0]))
        pilot.app.open_live(sid, paused=True)
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, LiveScreen) and pilot.app.screen.control)
        live = pilot.app.screen
        await pilot.press("t")
        await wait_for(pilot, lambda: pilot.app.focused is live.query_one("#human-input"))
        await pilot.press("escape", "space")
        await wait_for(pilot, lambda: live.control.human.waiting and pilot.app.focused is live.query_one("#human-input"))
        live.query_one("#human-input").cursor_blink = False  # one picture whatever the blink phase
        await settled(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=before)


def _paused_after_a_resume(store) -> int:
    """Turn 1 typed by a person, the seat then handed to the offline model; stopped, not finished."""
    sid = write_session(store, status="interrupted", human_turns=(1,), turns=1, planned=3)
    store.set_seat(sid, "interrogator", "offline")
    return sid


def test_live_paused_after_a_resume(snap_compare, app, store):
    """The header says who sat in the seat (the person, then the model), the footer says Continue."""
    sid = _paused_after_a_resume(store)

    async def before(pilot):
        from pingpong.tui.screens.live import LiveScreen

        await home_loaded(pilot)
        pilot.app.open_live(sid, paused=True)
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, LiveScreen) and pilot.app.screen.running)
        await settled(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=before)


def test_leaving_a_running_session_asks(snap_compare, app, store):
    sid = _paused_after_a_resume(store)

    async def before(pilot):
        from pingpong.tui.screens.choice import ChoiceScreen
        from pingpong.tui.screens.live import LiveScreen

        await home_loaded(pilot)
        pilot.app.open_live(sid, paused=True)
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, LiveScreen) and pilot.app.screen.running)
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, ChoiceScreen))
        await settled(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=before)


def test_models(snap_compare, app, home, monkeypatch):
    """Configured models checked: a remote one whose key variable is not set (not asked), a local one
    that refuses the connection, the offline one. No latency in view: no endpoint here answers."""
    monkeypatch.delenv("PINGPONG_SNAPSHOT_KEY", raising=False)
    home.config_path.write_text(
        '[models.remote]\nbase_url = "https://user:secret@llm.example.invalid/v1"\nmodel = "big-model"\n'
        'api_key_env = "PINGPONG_SNAPSHOT_KEY"\n[models.remote.params]\ntemperature = 0.3\n'
        '[models.local]\nbase_url = "http://127.0.0.1:9/v1"\nmodel = "qwen2.5-7b-instruct"\ntimeout = 30\n',
        encoding="utf-8")

    async def before(pilot):
        from pingpong.tui.screens.models import ModelsScreen

        await home_loaded(pilot)
        await pilot.press("m")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, ModelsScreen) and bool(pilot.app.screen.rows)
                       and not pilot.app.screen.pending)
        await settled(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=before)


def test_agreement(snap_compare, app, store):
    """Judges against people's ratings of whole conversations, at the conversation level."""
    from tests.stats.test_agreement_extras import populate

    populate(store)

    async def before(pilot):
        from pingpong.tui.screens.agreement import AgreementScreen

        await home_loaded(pilot)
        await pilot.press("l")
        await wait_for(pilot, lambda: pilot.app.screen.query("#board-table"))
        await pilot.press("a")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, AgreementScreen) and pilot.app.screen.report)
        await pilot.press("l")
        await wait_for(pilot, lambda: pilot.app.screen.report.level == "conversation")
        await settled(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=before)


def test_situations(snap_compare, app, bundled):
    """RoleInteract's list with the fixed card's probe set opened on its memory probe (no paths shown)."""
    from tests.tui.test_situations_screen import opened, switched, write_probes

    write_probes(bundled[1] / "probes")

    async def before(pilot):
        screen = await opened(pilot)
        await switched(pilot, screen, "m", "m", "m")  # pingpong-v1, dmt, roleinteract
        await pilot.press("enter", "down", "down")
        await settled(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=before)
