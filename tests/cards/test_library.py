"""CardLibrary / SituationLibrary / load_card_file: loading, overriding, saving, one-line errors."""

from __future__ import annotations

import pytest

from pingpong.characters.library import CardLibrary, load_card_file
from pingpong.core.domain import Character, ExampleTurn, Situation
from pingpong.core.errors import UserError
from pingpong.situations.library import SituationLibrary, load_situation_file

GOOD = "name: ranger\nchar_name: Ola\nlang: en\nsummary: A ranger.\npersona: You are Ola.\n"


def test_user_card_overrides_bundled_and_others_are_added(home, bundled):
    home.characters_dir.mkdir(parents=True)
    (home.characters_dir / "mine.yaml").write_text(GOOD.replace("You are Ola.", "You are my Ola."), encoding="utf-8")
    (home.characters_dir / "other.yaml").write_text(GOOD.replace("ranger", "ivan").replace("en", "ru"), encoding="utf-8")
    lib = CardLibrary(home, bundled_dir=bundled)
    assert [c.name for c in lib.all()] == ["ranger", "ivan"]  # sorted by lang then name
    assert lib.get("ranger").persona == "You are my Ola."
    assert lib.source("ranger") == "user"
    assert [c.name for c in lib.all(lang="ru")] == ["ivan"]


def test_unknown_name_suggests_close_names(home, bundled):
    with pytest.raises(UserError, match=r"unknown character 'rangr' \(did you mean: ranger\?\)"):
        CardLibrary(home, bundled_dir=bundled).get("rangr")


def test_broken_user_card_is_reported_not_fatal(home, bundled):
    home.characters_dir.mkdir(parents=True)
    (home.characters_dir / "bad.yaml").write_text("name: [unclosed\n", encoding="utf-8")
    lib = CardLibrary(home, bundled_dir=bundled)
    assert [c.name for c in lib.all()] == ["ranger"]
    assert len(lib.problems) == 1 and "bad.yaml: invalid YAML" in lib.problems[0]


def test_save_round_trips_tricky_text(home, bundled):
    lib = CardLibrary(home, bundled_dir=bundled)
    card = Character(
        name="tricky", char_name="Кот Учёный", lang="ru", summary="*purrs* {{ 7*7 }}",
        persona="Line one  \n  indented: yes\n{% for x in y %}\n- not a list\n", greeting="'quoted' \"both\"",
        example_dialogue=[ExampleTurn(user="a: b", char="#not a comment")], tags=["a", "b"],
        extensions={"x": {"y": [1, None, True]}},
    )
    path = lib.save(card)
    assert path == home.characters_dir / "tricky.yaml"
    assert load_card_file(path) == card
    assert CardLibrary(home, bundled_dir=bundled).get("tricky") == card


def test_save_replaces_the_user_file_that_defines_the_name(home, bundled):
    home.characters_dir.mkdir(parents=True)
    (home.characters_dir / "my-ola.yaml").write_text(GOOD, encoding="utf-8")
    lib = CardLibrary(home, bundled_dir=bundled)
    path = lib.save(lib.get("ranger").model_copy(update={"summary": "Changed."}))
    assert path.name == "my-ola.yaml"
    assert sorted(p.name for p in home.characters_dir.iterdir()) == ["my-ola.yaml"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("name: x\npersona: [unclosed\n", r"bad\.yaml: invalid YAML at line \d"),
        (GOOD + "tags: 5\n", r"bad\.yaml: tags: Input should be a valid list \(line 6\)"),
        (GOOD.replace("persona: You are Ola.\n", ""), r"bad\.yaml: persona: Field required"),
        (GOOD + "example_dialogue:\n- user: hi\n  char: 7\n", r"example_dialogue\.0\.char: .*string \(line 8\)"),
        (GOOD + "colour: red\n", r"bad\.yaml: colour: unknown field \(line 6\)"),
        (GOOD.replace("name: ranger", "name: Ranger Ola"), r"bad\.yaml: name: String should match pattern"),
        ("- just\n- a list\n", r"bad\.yaml: expected a mapping of card fields, found a list"),
        ("", r"bad\.yaml: expected a mapping of card fields, found empty"),
        ("a: &x [1]\nb: *x\n", r"bad\.yaml: YAML aliases"),
    ],
)
def test_bad_yaml_cards_give_one_line(tmp_path, text, message):
    path = tmp_path / "bad.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(UserError, match=message) as info:
        load_card_file(path)
    assert "\n" not in str(info.value)


def test_file_guards(tmp_path):
    big = tmp_path / "big.yaml"
    with big.open("wb") as f:
        f.truncate(20 * 1024 * 1024)
    with pytest.raises(UserError, match=r"big\.yaml: too large \(20\.0 MB"):
        load_card_file(big)
    binary = tmp_path / "bin.yaml"
    binary.write_bytes(b"name: x\x00\x01\x02")
    with pytest.raises(UserError, match=r"bin\.yaml: binary content"):
        load_card_file(binary)
    latin = tmp_path / "latin.yaml"
    latin.write_bytes("name: x\npersona: caf\xe9\n".encode("latin-1"))
    with pytest.raises(UserError, match=r"latin\.yaml: not UTF-8 text \(bad byte at line 2\)"):
        load_card_file(latin)
    with pytest.raises(UserError, match=r"missing\.yaml: no such file"):
        load_card_file(tmp_path / "missing.yaml")


def test_situation_library(tmp_path, home):
    bundled = tmp_path / "sb"
    bundled.mkdir()
    (bundled / "greet.yaml").write_text("name: greet\nlang: en\ntext: Say hello.\nnum_turns: 2\ntags: [greetings]\n", encoding="utf-8")
    lib = SituationLibrary(home, bundled_dir=bundled)
    assert lib.get("greet").num_turns == 2
    saved = lib.save(Situation(name="mine", lang="ru", text="Привет", num_turns=1, intent="identity_recognition"))
    assert load_situation_file(saved).intent.value == "identity_recognition"
    assert [s.name for s in SituationLibrary(home, bundled_dir=bundled).all()] == ["greet", "mine"]
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nlang: en\ntext: t\nnum_turns: 99\n", encoding="utf-8")
    with pytest.raises(UserError, match=r"bad\.yaml: num_turns: .*50 \(line 4\)"):
        load_situation_file(bad)
    with pytest.raises(UserError, match="unknown situation 'nope'"):
        lib.get("nope")


def test_cards_are_found_by_id_file_name_or_display_name_ignoring_case(home, bundled):
    home.characters_dir.mkdir(parents=True)
    (home.characters_dir / "My-Yaga.yaml").write_text(
        "name: baba-yaga\nchar_name: Баба-Яга\nlang: ru\nsummary: Ведьма.\npersona: Живёт в избушке.\n", encoding="utf-8")
    lib = CardLibrary(home, bundled_dir=bundled)
    for asked in ("ranger", "RANGER", " Ranger Ola ", "ranger ola"):
        assert lib.get(asked).name == "ranger", asked
    for asked in ("baba-yaga", "my-yaga", "MY-YAGA", "баба-яга", "БАБА-ЯГА"):
        assert lib.get(asked).name == "baba-yaga", asked
    with pytest.raises(UserError, match=r"unknown character 'Ranger Olga' \(did you mean: ranger\?\)"):
        lib.get("Ranger Olga")


def test_an_exact_id_wins_and_a_shared_display_name_is_one_clear_line(home, bundled):
    home.characters_dir.mkdir(parents=True)
    for name, lang in (("ola", "en"), ("ola-ru", "ru")):
        (home.characters_dir / f"{name}.yaml").write_text(
            f"name: {name}\nchar_name: Ola\nlang: {lang}\nsummary: s\npersona: p\n", encoding="utf-8")
    lib = CardLibrary(home, bundled_dir=bundled)
    assert lib.get("ola").name == "ola" and lib.get("OLA").name == "ola"  # ids before display names
    (home.characters_dir / "ola.yaml").rename(home.characters_dir / "first.yaml")
    (home.characters_dir / "first.yaml").write_text(
        "name: ola-en\nchar_name: Ola\nlang: en\nsummary: s\npersona: p\n", encoding="utf-8")
    with pytest.raises(UserError, match=r"^'Ola' is the name of several characters \(ola-en, ola-ru\); give one of these$"):
        CardLibrary(home, bundled_dir=bundled).get("Ola")
