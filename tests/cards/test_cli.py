"""`pingpong cards ...` and `pingpong situations ...` as real processes: output, exit status, no tracebacks."""

from __future__ import annotations

import json
import zipfile

import pytest

from pingpong.characters.importers import import_card
from pingpong.characters.library import CardLibrary
from pingpong.core.home import Home

from .builders import (
    REPO,
    b64json,
    run_cli,
    settings_doc,
    snapshot,
    text_chunk,
    v2_card,
    v3_card,
    write_charx,
    write_json,
    write_png,
)


@pytest.fixture
def cards(tmp_path):
    """One good file of each importable kind."""
    d = tmp_path / "in"
    d.mkdir()
    return {
        "png": write_png(d / "mirela.png", text_chunk("chara", b64json(v2_card()))),
        "v3": write_json(d / "tomas.json", v3_card()),
        "charx": write_charx(d / "kestrel.charx", v3_card("Kestrel AI")),
        "settings": write_json(d / "settings.json", settings_doc()),
    }


def test_import_then_list_and_show(tmp_path, cards):
    home = tmp_path / "home"
    done = run_cli(home, "cards", "import", *map(str, cards.values()))
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("imported ") == 7  # 5 characters + 2 situations
    listed = json.loads(run_cli(home, "cards", "list", "--format", "json").stdout)
    mine = {c["name"]: c for c in listed if c["source"] == "user"}
    assert set(mine) == {"captain-mirela-voss", "old-tomas", "kestrel-ai", "ada", "tyotushka-fekla"}
    assert mine["tyotushka-fekla"]["lang"] == "ru" and mine["ada"]["lang"] == "en"
    shown = json.loads(run_cli(home, "cards", "show", "old-tomas", "--format", "json").stdout)
    assert shown["char_name"] == "Old Tomas" and shown["lang"] == "en"
    assert shown["extensions"]["unknown_tool"] == {"nested": [1, 2, {"x": True}]}
    assert shown["example_dialogue"][0] == {"user": "Who are you?", "char": "The captain. Who are YOU?"}
    table = run_cli(home, "cards", "show", "tyotushka-fekla")
    assert table.returncode == 0 and "Тётушка Фекла" in table.stdout
    assert "kestrel-ai" in run_cli(home, "cards", "list", "--lang", "en").stdout
    sits = json.loads(run_cli(home, "situations", "list", "--format", "json").stdout)
    user_sits = [s for s in sits if s["source"] == "user"]
    assert {(s["lang"], s["num_turns"]) for s in user_sits} == {("en", 3), ("ru", 2)}
    assert all({"name", "lang", "num_turns", "tags"} <= s.keys() for s in sits)
    one = json.loads(run_cli(home, "situations", "show", user_sits[0]["name"], "--format", "json").stdout)
    assert one["name"] == user_sits[0]["name"] and "num_turns" in one and "tags" in one
    assert run_cli(home, "situations", "list").returncode == 0


def test_reimport_is_refused_without_force_and_replaces_with_it(tmp_path, cards):
    home = tmp_path / "home"
    assert run_cli(home, "cards", "import", str(cards["settings"])).returncode == 0
    before = snapshot(home)
    again = run_cli(home, "cards", "import", str(cards["settings"]))
    assert again.returncode == 2 and "--force replaces it" in again.stderr
    assert len(again.stderr.strip().splitlines()) == 1
    assert snapshot(home) == before  # refused: nothing overwritten
    forced = run_cli(home, "cards", "import", str(cards["settings"]), "--force")
    assert forced.returncode == 0 and "already in your library" in forced.stdout
    assert snapshot(home) == before  # the same file again: the same cards, no "-2" copies


def test_another_files_card_of_the_same_name_gets_a_new_name_unless_forced(tmp_path):
    """Two files both named "Bob": the second becomes bob-2 and importing it again keeps that name;
    --force on a file never imported before takes the name, replacing the card that held it."""
    home, a, b, c = tmp_path / "home", tmp_path / "a", tmp_path / "b", tmp_path / "c"
    for folder, where in ((a, "the harbour"), (b, "the mill"), (c, "the forest")):
        folder.mkdir()
        write_json(folder / "bob.json", v2_card("Bob", description=f"Bob from {where}."))

    def bob(name: str) -> str:
        return json.loads(run_cli(home, "cards", "show", name, "--format", "json").stdout)["persona"]

    assert ": bob (Bob, en) -> " in run_cli(home, "cards", "import", str(a / "bob.json")).stdout
    assert ": bob-2 (Bob, en) -> " in run_cli(home, "cards", "import", str(b / "bob.json")).stdout
    assert ": bob-2 (Bob, en) -> " in run_cli(home, "cards", "import", str(b / "bob.json"), "--force").stdout
    assert "the harbour" in bob("bob") and "the mill" in bob("bob-2")
    assert ": bob (Bob, en) -> " in run_cli(home, "cards", "import", str(c / "bob.json"), "--force").stdout
    assert "the forest" in bob("bob") and "the mill" in bob("bob-2")


def _write(path, data):
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


def _big(d):
    path = d / "big.json"
    with path.open("wb") as f:
        f.truncate(20 * 1024 * 1024)
    return path


BAD = {
    "broken yaml": lambda d: _write(d / "broken.yaml", "name: x\npersona: [oops\n"),
    "png without card": lambda d: write_png(d / "plain.png"),
    "wrong field types": lambda d: write_json(d / "types.json", v2_card(personality=["a", "b"])),
    "20 MB file": _big,
    "binary named json": lambda d: _write(d / "bin.json", bytes(range(256)) * 64),
    "missing file": lambda d: d / "nope.json",
}


@pytest.mark.parametrize("command", ["import", "validate"])
@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_input_one_line_exit_2_library_untouched(tmp_path, cards, case, command):
    home = tmp_path / "home"
    CardLibrary(Home(home)).save(import_card(cards["v3"])[0])
    before = snapshot(home)
    assert before
    bad = BAD[case](tmp_path)
    done = run_cli(home, "cards", command, str(bad))
    assert done.returncode == 2
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("pingpong: error: ") and bad.name in lines[0]
    assert "Traceback" not in done.stderr + done.stdout
    assert snapshot(home) == before


def test_import_is_all_or_nothing(tmp_path, cards):
    home = tmp_path / "home"
    done = run_cli(home, "cards", "import", str(cards["png"]), str(write_png(tmp_path / "plain.png")))
    assert done.returncode == 2 and done.stdout == ""
    assert snapshot(home) == {}


def test_validate_reports_each_file(tmp_path, cards):
    home = tmp_path / "home"
    plain = write_png(tmp_path / "plain.png")
    done = run_cli(home, "cards", "validate", str(cards["png"]), str(plain), str(cards["settings"]))
    assert done.returncode == 2
    assert done.stdout.splitlines() == [
        f"ok: {cards['png']}: captain-mirela-voss",
        f"ok: {cards['settings']}: ada, tyotushka-fekla (+ 2 situations)",
    ]
    assert done.stderr.splitlines() == [f"pingpong: error: {plain}: no character card in this PNG (no 'ccv3' or 'chara' text chunk)"]
    assert snapshot(home) == {}


def test_unknown_names_exit_2(tmp_path):
    for args in (("cards", "show", "no-such-card"), ("situations", "show", "no-such-situation")):
        done = run_cli(tmp_path / "home", *args)
        assert done.returncode == 2 and len(done.stderr.splitlines()) == 1 and "unknown" in done.stderr


def test_charx_zip_bomb_is_refused(tmp_path):
    bomb = tmp_path / "bomb.charx"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("card.json", b" " * (64 * 1024 * 1024))
    assert bomb.stat().st_size < 1024 * 1024
    done = run_cli(tmp_path / "home", "cards", "import", str(bomb))
    assert done.returncode == 2 and "too large when uncompressed" in done.stderr


@pytest.mark.parametrize("method", [zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA])
def test_a_charx_whose_card_json_is_damaged_is_one_line_whatever_its_compression(tmp_path, method):
    charx = tmp_path / "bad.charx"
    with zipfile.ZipFile(charx, "w", method) as zf:
        zf.writestr("card.json", json.dumps(v2_card("Nell")).encode() * 20)
    data = bytearray(charx.read_bytes())
    for i in range(30 + len("card.json") + 8, 30 + len("card.json") + 40):
        data[i] ^= 0x5A  # damage the compressed bytes of card.json
    charx.write_bytes(bytes(data))
    for command in ("validate", "import"):
        done = run_cli(tmp_path / "home", "cards", command, str(charx))
        assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
        assert str(charx) in done.stderr and "Traceback" not in done.stderr


def test_tables_do_not_interpret_card_text_as_markup(tmp_path):
    home = tmp_path / "home"
    card = v2_card("[bold]Evil[/]", tags=["[/red]", "x"], first_mes="[link=file:///etc]hi[/link]")
    assert run_cli(home, "cards", "import", str(write_json(tmp_path / "evil.json", card))).returncode == 0
    listed = run_cli(home, "cards", "list", columns=250)
    assert listed.returncode == 0 and "[bold]Evil[/]" in listed.stdout and "[/red]" in listed.stdout
    shown = run_cli(home, "cards", "show", "bold-evil")
    assert shown.returncode == 0 and "[link=file:///etc]hi[/link]" in shown.stdout


def test_import_into_a_home_that_is_a_file_is_one_line(tmp_path, cards):
    home = tmp_path / "home"
    home.write_text("I am a file, not a folder", encoding="utf-8")
    done = run_cli(home, "cards", "import", str(cards["v3"]))
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("pingpong: error: ") and str(home) in lines[0]
    assert "Traceback" not in done.stderr
    assert home.read_text(encoding="utf-8") == "I am a file, not a folder"


def test_show_lists_the_catchphrases_between_persona_and_greeting(tmp_path):
    home = tmp_path / "home"
    shown = run_cli(home, "cards", "show", "sherlock-holmes", columns=250)
    assert shown.returncode == 0, shown.stderr
    out = shown.stdout
    assert out.index("persona") < out.index("catchphrases") < out.index("greeting")
    for line in ("Elementary.", "Everyone looks; almost nobody observes.", "This is quite a three-pipe problem."):
        assert f"• {line}" in out
    as_json = json.loads(run_cli(home, "cards", "show", "koschei", "--format", "json").stdout)
    assert as_json["catchphrases"][0] == "Дерзок ты, смертный."
    (home / "characters").mkdir(parents=True)
    (home / "characters" / "ranger.yaml").write_text(
        "name: ranger\nchar_name: Ola\nlang: en\nsummary: A park ranger.\npersona: Ola keeps the park.\n"
        "greeting: Stay on the path.\n", encoding="utf-8")
    plain = run_cli(home, "cards", "show", "ranger", columns=250)
    assert plain.returncode == 0 and "Stay on the path." in plain.stdout
    assert "catchphrases" not in plain.stdout  # no empty panel for a card without any


def test_control_characters_in_a_card_reach_the_terminal_escaped(tmp_path):
    """A card can hold an escape sequence, a NUL or a right-to-left override: import, list and show
    print them written out, never as bytes a terminal would act on; JSON keeps the text as it is."""
    name = "\u202eEvil\x00Nul\x1b[31mRed"
    card = v2_card(name)
    card["data"]["description"] = "calm\x1b]0;title\x07 and kind"
    path = write_json(tmp_path / "ctrl.json", card)
    home = tmp_path / "home"
    done = run_cli(home, "cards", "import", str(path))
    assert done.returncode == 0, done.stderr
    slug = next(c["name"] for c in json.loads(run_cli(home, "cards", "list", "--format", "json").stdout)
                if c["source"] == "user")
    for out in (done.stdout, run_cli(home, "cards", "list").stdout, run_cli(home, "cards", "show", slug).stdout):
        assert not any(ch in out for ch in "\x1b\x00\x07\u202e"), out
        assert "\\x1b" in out
    shown = json.loads(run_cli(home, "cards", "show", slug, "--format", "json").stdout)
    assert shown["char_name"] == name


def test_situations_show_takes_every_name_the_method_listings_give(tmp_path):
    """DMT seeds, probe sets and single probes show as situations and question sets do; --method picks
    among kinds that share a name (sherlock-holmes has a probe set and a RoleBench question set)."""
    home = tmp_path / "home"
    for method, kind in (("dmt", None), ("roleinteract", "probe_set")):
        listed = json.loads(run_cli(home, "situations", "list", "--method", method, "--format", "json").stdout)
        name = next(row["name"] for row in listed if kind is None or row.get("kind") == kind)
        shown = run_cli(home, "situations", "show", name, "--method", method, "--format", "json")
        assert shown.returncode == 0, shown.stderr
        assert json.loads(shown.stdout)["name"] == name and json.loads(shown.stdout)["method"] == method
    probe = json.loads(run_cli(home, "situations", "show", "sherlock-holmes-mem-03", "--format", "json").stdout)
    assert probe["set"] == "sherlock-holmes" and probe["keywords"] and probe["plant"]
    probe_set = json.loads(run_cli(home, "situations", "show", "sherlock-holmes", "--method", "roleinteract",
                                   "--format", "json").stdout)
    assert "sherlock-holmes-mem-03" in {p["name"] for p in probe_set["probes"]}
    assert json.loads(run_cli(home, "situations", "show", "sherlock-holmes", "--format", "json").stdout)["kind"] \
        == "role_specific"
    table = run_cli(home, "situations", "show", "ada-lovelace-analytical-engine")
    assert table.returncode == 0 and "first query" in table.stdout and "role_knowledge_qa" in table.stdout
    question = json.loads(run_cli(home, "situations", "show", "tally-s01", "--method", "rolebench", "--format",
                                  "json").stdout)
    assert question["set"] == "tally" and question["instruction"] and question["references"]
    general = json.loads(run_cli(home, "situations", "show", "general-en-g01", "--format", "json").stdout)
    assert general["kind"] == "general" and general["in_role"]
    wrong = run_cli(home, "situations", "show", "casual-greeting", "--method", "dmt")
    assert wrong.returncode == 2 and wrong.stderr.strip() == (
        "pingpong: error: unknown dmt situation 'casual-greeting' (see `pingpong situations list --method dmt`)")


def test_show_commands_print_peoples_text_as_written_without_highlighting_its_numbers(tmp_path):
    """Rich's highlighter coloured the numbers inside messages (and took quadratic time on a long
    run without spaces: a 12,000-digit reply took 17 s to show); `sessions show` prints them as written."""
    import subprocess
    import sys

    from pingpong.core.domain import Character, Message, SessionSpec, Situation
    from pingpong.sessions.store import Store

    home = tmp_path / "home"
    home.mkdir()
    card = Character(name="clerk", char_name="Clerk", lang="en", summary="s", persona="p")
    sit = Situation(name="desk", lang="en", num_turns=1, text="Ask for a room.")
    with Store(home / "pingpong.db") as store:
        sid = store.create_session(SessionSpec(character="clerk", situation="desk", player="p", interrogator="q",
                                               judges=["j"], lang="en"), card, sit)
        store.add_message(sid, Message(turn=1, role="user", author="q", text="Is room 4711 free?"))
    shown = subprocess.run([sys.executable, "-m", "pingpong.tui.cli", "sessions", "show", str(sid), "--home", str(home)],
                           capture_output=True, text=True, encoding="utf-8", timeout=60, cwd=REPO,
                           env={"PATH": "/usr/bin:/bin", "PYTHONIOENCODING": "utf-8", "FORCE_COLOR": "1",
                                "COLUMNS": "120", "PYTHONPATH": str(REPO)})
    assert shown.returncode == 0, shown.stderr
    assert "Is room 4711 free?" in shown.stdout and "\x1b[" in shown.stdout  # coloured output, but not the number
