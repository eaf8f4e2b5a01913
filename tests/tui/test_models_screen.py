"""The Models screen against real endpoints (tests/fakeserver.py): rows fill in as answers come,
in the words of `pingpong models`, and no key ever shows."""

from __future__ import annotations

import base64
import threading

from textual.widgets import DataTable, Static

from pingpong.tui.cli import main
from pingpong.tui.screens.models import CHECKING, ModelsScreen
from tests.fakeserver import FakeServer
from tests.tui.helpers import home_loaded, run_palette_command, wait_for

KEY_ENV = "PINGPONG_TEST_MODELS_SCREEN_KEY"
SECRET = "sk-never-on-screen-4711"
PASSWORD = "pw-never-on-screen"


def _unused_port_url() -> str:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def _config(home, fast: FakeServer, slow: FakeServer, listless: FakeServer) -> None:
    bare = listless.base_url.removesuffix("/v1")
    keyed = fast.base_url.replace("http://", f"http://ann:{PASSWORD}@")
    home.config_path.write_text(f"""
[models.fast]
base_url = "{fast.base_url}"
model = "fake-model"
max_concurrency = 3
timeout = 30
[models.fast.params]
temperature = 0.3

[models.slow]
base_url = "{slow.base_url}"
model = "fake-model"

[models.typo]
base_url = "{fast.base_url}"
model = "fake-modle"

[models.down]
base_url = "{_unused_port_url()}"
model = "gone"

[models.bare]
base_url = "{bare}"
model = "m"

[models.keyed]
base_url = "{keyed}"
model = "fake-model"
api_key_env = "{KEY_ENV}"
""", encoding="utf-8")


def cells(screen: ModelsScreen) -> dict[str, tuple[str, ...]]:
    """{model name: the row's cells as text}."""
    table = screen.query_one(DataTable)
    return {str(row[0]): tuple(str(c) for c in row) for row in (table.get_row_at(i) for i in range(table.row_count))}


def screen_text(app) -> str:
    """Everything the screen shows: the table's cells, the note and the detail panel, and the picture."""
    screen = app.screen
    shown = [" ".join(c) for c in cells(screen).values()]
    shown += [str(s.render()) for s in screen.query(Static)]
    return "\n".join(shown) + app.export_screenshot()


async def open_models(pilot) -> ModelsScreen:
    await home_loaded(pilot)
    await pilot.press("m")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, ModelsScreen) and bool(pilot.app.screen.rows))
    return pilot.app.screen


async def test_rows_fill_in_as_each_answer_comes_in_the_words_of_pingpong_models(app, home, monkeypatch, capsys):
    monkeypatch.setenv(KEY_ENV, SECRET)
    with FakeServer() as fast, FakeServer() as slow, FakeServer() as listless:
        slow.models_gate = threading.Event()
        listless.models_status = 404
        _config(home, fast, slow, listless)
        async with app.run_test(size=(120, 30)) as pilot:
            screen = await open_models(pilot)
            assert cells(screen)["slow"][1] == CHECKING
            await wait_for(pilot, lambda: screen.pending == {1})  # every other endpoint answered; slow still held
            rows = cells(screen)
            assert rows["slow"][1] == CHECKING and rows["slow"][2] == ""
            assert rows["fast"][1] == "yes" and rows["fast"][2].endswith(" ms")
            assert "checking 1…" in str(screen.query_one("#models-note", Static).render())
            slow.models_gate.set()
            await wait_for(pilot, lambda: not screen.pending)
            rows = cells(screen)
            assert rows["slow"][1] == "yes" and rows["slow"][2].endswith(" ms")
            assert rows["typo"][1:6:4] == ("yes", "but 'fake-modle' is not among the models it lists: fake-model")
            assert rows["down"][1] == "no" and rows["down"][2] == "" and "ConnectionRefusedError" in rows["down"][5]
            assert rows["bare"][1:6:4] == ("no", "HTTP 404 Not Found; does base_url need /v1?")
            assert rows["offline"][1:6:4] == ("yes", "built in, no network")
            shown = {name: (row[1], row[5] or None) for name, row in rows.items()}
        assert main(["models", "--format", "json", "--home", str(home.root)]) == 0
    import json

    cli = {r["name"]: (r["reachable"], r["reason"]) for r in json.loads(capsys.readouterr().out)}
    assert shown == cli  # the same checks, the same words


async def test_no_key_or_password_is_ever_shown_but_the_credentials_are_sent(app, home, monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)
    with FakeServer() as fast, FakeServer() as slow, FakeServer() as listless:
        _config(home, fast, slow, listless)
        async with app.run_test(size=(120, 30)) as pilot:
            screen = await open_models(pilot)
            await wait_for(pilot, lambda: not screen.pending)
            table = screen.query_one(DataTable)
            for row in range(table.row_count):  # every row's detail panel in turn
                table.move_cursor(row=row)
                await pilot.pause()
                text = screen_text(pilot.app)
                assert SECRET not in text and PASSWORD not in text
            table.move_cursor(row=list(cells(screen)).index("keyed"))
            await pilot.pause()
            detail = str(screen.query_one("#models-detail", Static).render())
            assert f"{KEY_ENV} set" in detail and "ann:***@" in cells(screen)["keyed"][4]
            assert cells(screen)["keyed"][1] == "yes"
            table.move_cursor(row=0)
            await pilot.pause()
            detail = str(screen.query_one("#models-detail", Static).render())
            assert "max_concurrency 3" in detail and "timeout 30s" in detail and "deadline 600s" in detail
            assert "temperature = 0.3" in detail and "player 0.6/0.9/1536" in detail
        sent = [r.headers.get("authorization", "") for r in fast.requests if r.method == "GET"]
        # credentials in the URL go as Basic auth, as the model calls send them (they win over the key)
        assert f"Basic {base64.b64encode(f'ann:{PASSWORD}'.encode()).decode()}" in sent, sent


async def test_r_checks_again_and_reads_the_config_again(app, home):
    with FakeServer() as fast, FakeServer() as slow, FakeServer() as listless:
        _config(home, fast, slow, listless)
        async with app.run_test(size=(120, 30)) as pilot:
            screen = await open_models(pilot)
            await wait_for(pilot, lambda: not screen.pending)
            assert cells(screen)["fast"][5] == ""
            asked = len(fast.requests)
            fast.models = ["another-model"]
            with home.config_path.open("a", encoding="utf-8") as config:
                config.write(f'\n[models.added]\nbase_url = "{slow.base_url}"\nmodel = "fake-model"\n')
            await pilot.press("r")
            await wait_for(pilot, lambda: "added" in cells(screen) and not screen.pending)
            assert len(fast.requests) > asked
            assert cells(screen)["fast"][5] == "but 'fake-model' is not among the models it lists: another-model"
            assert cells(screen)["added"][1] == "yes"


async def test_with_only_the_offline_model_it_says_how_to_add_one(app, home):
    async with app.run_test(size=(80, 24)) as pilot:
        await run_palette_command(pilot, "models")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, ModelsScreen) and bool(pilot.app.screen.rows))
        screen = pilot.app.screen
        await pilot.pause()
        assert not screen.query_one(DataTable).display
        empty = screen.query_one("#models-empty", Static)
        assert empty.display
        text = str(empty.render())
        assert str(home.config_path) in text and "[models.gpt-4o-mini]" in text and "api_key_env" in text


async def test_a_broken_config_is_its_one_line(app, home):
    home.config_path.write_text("[models.x]\nbase_url = 'http://h/v1'\nmodel = 'm'\nwat = 1\n", encoding="utf-8")
    async with app.run_test(size=(80, 24)) as pilot:
        await home_loaded(pilot)
        await pilot.press("m")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, ModelsScreen)
                       and "models.x.wat: unknown field" in str(pilot.app.screen.query_one("#models-note").render()))
        assert not pilot.app.screen.query_one(DataTable).display
        # mended and checked again: the table is back, and the arrows move in it (it had lost the focus)
        home.config_path.write_text("[models.x]\nbase_url = 'http://127.0.0.1:9/v1'\nmodel = 'm'\n"
                                    "[models.y]\nbase_url = 'http://127.0.0.1:9/v1'\nmodel = 'n'\n", encoding="utf-8")
        await pilot.press("r")
        table = pilot.app.screen.query_one(DataTable)
        await wait_for(pilot, lambda: table.display and table.row_count == 3)
        await pilot.press("down")
        assert table.has_focus and table.cursor_row == 1


def test_a_password_in_the_base_url_goes_as_basic_auth_never_into_a_line():
    """urllib took `user:password@host` for a host and a port: no check ever reached such an endpoint,
    and one without a port crashed with the password in its error."""
    import base64

    from pingpong.tui.commands.models import Probe, check_endpoint

    with FakeServer() as server:
        answer = check_endpoint(Probe(server.base_url.replace("http://", f"http://ann:{PASSWORD}@"), None, "fake-model"))
        assert (answer.reachable, answer.reason) == ("yes", None)
        assert server.requests[-1].headers["authorization"] == "Basic " + base64.b64encode(
            f"ann:{PASSWORD}".encode()).decode()
    answer = check_endpoint(Probe(f"http://ann:{PASSWORD}@127.0.0.1/v1", None, "m"), timeout=2)
    assert answer.reachable == "no" and PASSWORD not in (answer.reason or "")
