"""A RoleInteract probe started from the new-session form: the roleinteract method offers the chosen
card's probes after the group scenes, and one runs as `play --situation PROBE` runs it."""

from __future__ import annotations

import yaml
from textual.widgets import Select

from pingpong.tui.screens.live import LiveScreen
from pingpong.tui.screens.new_session import NewSessionScreen
from tests.tui.helpers import wait_for
from tests.tui.scenes import SCENE, write_scene

PROBES = {
    "character": "lighthouse-keeper", "lang": "en",
    "questions": [{"id": "style-01", "dimension": "self_style", "question": "A sailor knocks at night. Your line?",
                   "options": {"A": "Wipe your boots.", "B": "Hail, traveller!"}, "answer": ["A"]}],
    "memory": [{"id": "mem-01", "plant": "My boat is called the Gannet.", "padding": 4,
                "ask": "What is my boat called?", "keywords": ["Gannet"]}],
}
PADDING = {"lang": "en", "lines": ["Do you like tea?", "Have you seen a whale?", "What do you cook on Sundays?"]}


def write_probes(home) -> None:
    """The keeper's probe set and an English padding pool as the person's own files."""
    folder = home.situations_dir / "probes"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "lighthouse-keeper.yaml").write_text(yaml.safe_dump(PROBES), encoding="utf-8")
    (folder / "padding-en.yaml").write_text(yaml.safe_dump(PADDING), encoding="utf-8")


async def test_a_memory_probe_of_the_chosen_card_starts_from_the_form_and_runs_to_the_end(app, home, store):
    write_scene(home)
    write_probes(home)
    async with app.run_test(size=(100, 34)) as pilot:
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, NewSessionScreen))
        form = app.screen
        form.query_one("#new-method", Select).value = "roleinteract"
        sits = form.query_one("#new-situation", Select)
        await wait_for(pilot, lambda: sits.value == SCENE.name)
        form.query_one("#new-character", Select).value = "lighthouse-keeper"
        await wait_for(pilot, lambda: "lighthouse-keeper-mem-01" in [value for _, value in sits._options])
        labels = [str(label) for label, value in sits._options if value is not Select.NULL]
        assert labels == ["quay-at-dusk (en, 3 characters)", "lighthouse-keeper-style-01 (self_style)", "lighthouse-keeper-mem-01 (memory_short)"]
        assert form.query_one("#new-cast-row").display  # a scene is still chosen: its cast shows
        sits.value = "lighthouse-keeper-mem-01"
        await wait_for(pilot, lambda: not form.query_one("#new-cast-row").display)
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, LiveScreen))
        live = app.screen
        await wait_for(pilot, lambda: live.status == "finished" and not live.running)
        session_id = live.session_id
    stored = store.session(session_id)
    assert (stored.spec.situation, stored.spec.method, stored.spec.character) == (
        "lighthouse-keeper-mem-01", "roleinteract", "lighthouse-keeper")
    assert not stored.spec.cast
    assert stored.situation.data["kind"] == "memory" and len(stored.situation.data["padding_lines"]) == 2
    users = [m.text for m in stored.messages if m.role == "user"]
    assert users[0] == "My boat is called the Gannet." and users[-1] == "What is my boat called?"
    assert len(users) == 4 and len([m for m in stored.messages if m.role == "assistant"]) == 4
    [score] = [s for v in stored.verdicts for s in v.scores]
    assert (score.metric, score.turn) == ("memory_short", 4)
