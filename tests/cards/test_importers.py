"""import_card / import_file for every supported format, and every bad input we promise to refuse."""

from __future__ import annotations

import base64
import json
import zipfile

import pytest

from pingpong.characters.importers import import_card, import_file
from pingpong.characters.text import first_sentences, guess_lang, slugify
from pingpong.core.errors import UserError
from pingpong.core.macros import with_names

from .builders import b64json, settings_doc, text_chunk, v2_card, v3_card, write_charx, write_json, write_png


def test_v2_png_maps_every_field(tmp_path):
    path = write_png(tmp_path / "mirela.png", text_chunk("chara", b64json(v2_card())))
    [card] = import_card(path)
    assert card.name == "captain-mirela-voss"
    assert card.char_name == "Captain Mirela Voss" and card.lang == "en"
    assert card.persona.startswith("{{char}} commands the airship Kestrel.")  # macros kept until a prompt is built
    assert "Personality: brave, sarcastic" in card.persona
    assert "Scenario: {{user}} has just stowed away" in card.persona
    assert card.greeting == "*grabs {{user}} by the collar* Well, well. A stowaway."
    assert card.summary == ("{{char}} commands the airship Kestrel. She is blunt, loyal and fond of bad puns. "
                            "Personality: brave, sarcastic. Scenario: {{user}} has just stowed away aboard the Kestrel.")
    seen = with_names(card, "Rook")
    assert seen.greeting == "*grabs Rook by the collar* Well, well. A stowaway."
    assert seen.summary.startswith("Captain Mirela Voss commands")
    assert [(t.user, t.char) for t in card.example_dialogue] == [
        ("Who are you?", "The captain. Who are YOU?"),
        ("Can I stay?", "If you can peel potatoes.\nLots of them."),
    ]
    assert card.tags == ["adventure", "airship"]
    assert card.extensions["unknown_tool"] == {"nested": [1, 2, {"x": True}]}
    assert card.extensions["talkativeness"] == "0.5"
    source = card.extensions["source_card"]
    assert source["spec"] == "chara_card_v2" and source["creator"] == "tests"
    assert source["creator_notes"] == "An airship captain for sky-pirate adventures."  # kept, but not the summary
    assert source["post_history_instructions"] == "Keep replies under 100 words."
    assert source["alternate_greetings"] == ["Ahoy!"]
    assert card.origin == str(path.resolve())


@pytest.mark.parametrize("kind", ["tEXt", "zTXt", "iTXt"])
def test_png_prefers_ccv3_over_chara(tmp_path, kind):
    path = write_png(
        tmp_path / "both.png",
        text_chunk("chara", b64json(v2_card("Old Name"))),
        text_chunk("ccv3", b64json(v3_card("New Name")), kind),
    )
    [card] = import_card(path)
    assert card.char_name == "New Name"
    assert card.extensions["source_card"]["spec"] == "chara_card_v3"


def test_png_falls_back_to_chara_when_ccv3_is_damaged(tmp_path):
    path = write_png(tmp_path / "c.png", text_chunk("ccv3", b"%%% not base64"), text_chunk("chara", b64json(v2_card())))
    assert import_card(path)[0].char_name == "Captain Mirela Voss"


def test_v3_json_and_charx(tmp_path):
    [card] = import_card(write_json(tmp_path / "tomas.json", v3_card()))
    assert card.name == "old-tomas"
    assert card.extensions["source_card"]["nickname"] == "Tom"
    assert card.extensions["source_card"]["assets"][0]["type"] == "icon"
    [card2] = import_card(write_charx(tmp_path / "tomas.charx", v3_card()))
    assert card2.model_dump(exclude={"origin"}) == card.model_dump(exclude={"origin"})


def test_v1_flat_card_with_unsplittable_examples(tmp_path):
    v1 = {"name": "Grumpy Bob", "description": "<BOT> hates Mondays.", "personality": "", "scenario": "",
          "first_mes": "What.", "mes_example": "<BOT>: Go away.\n<USER>: No.", "avatar": "none"}
    [card] = import_card(write_json(tmp_path / "bob.json", v1))
    assert card.persona == "<BOT> hates Mondays."
    assert card.example_dialogue == [] and card.example_text == "<BOT>: Go away.\n<USER>: No."
    assert card.summary == "<BOT> hates Mondays."
    seen = with_names(card)
    assert (seen.persona, seen.example_text) == ("Grumpy Bob hates Mondays.", "Grumpy Bob: Go away.\nUser: No.")
    assert card.extensions == {"source_card": {"avatar": "none"}}


def test_template_syntax_survives_verbatim(tmp_path):
    trap = "Knows {{ 7*7 }} and {% for x in y %}{{x}}{% endfor %} and {{random:a,b}} and ${HOME}."
    card = v2_card(description=trap + " {{Char}} / {{ user }}", first_mes="{{ 7*7 }} {{char}}",
                   mes_example="{{user}}: {% raw %}\n{{char}}: {{ config }}")
    [c] = import_card(write_json(tmp_path / "t.json", card))
    assert c.persona.startswith(trap + " {{Char}} / {{ user }}")
    assert c.greeting == "{{ 7*7 }} {{char}}"
    assert (c.example_dialogue[0].user, c.example_dialogue[0].char) == ("{% raw %}", "{{ config }}")
    seen = with_names(c)
    assert seen.persona.startswith(trap + " Captain Mirela Voss / User")
    assert seen.greeting == "{{ 7*7 }} Captain Mirela Voss"


def test_russian_card_gets_russian_lang_labels_and_user_name(tmp_path):
    card = v2_card("Марфа", description="{{char}} печёт пироги.", personality="добрая", scenario="{{user}} в гостях.",
                   first_mes="Заходи!", creator_notes="")
    [c] = import_card(write_json(tmp_path / "m.json", card))
    assert (c.name, c.lang) == ("marfa", "ru")
    assert "Характер: добрая" in c.persona and "Обстановка: {{user}} в гостях." in c.persona
    assert c.summary == "{{char}} печёт пироги. Характер: добрая. Обстановка: {{user}} в гостях."
    assert with_names(c).summary == "Марфа печёт пироги. Характер: добрая. Обстановка: Пользователь в гостях."
    assert with_names(c, "Алёша").summary.endswith("Обстановка: Алёша в гостях.")
    [en] = import_card(write_json(tmp_path / "m2.json", card), lang="en")
    assert en.lang == "en"


def test_names_are_made_unique(tmp_path):
    taken = {"captain-mirela-voss"}
    [c] = import_card(write_json(tmp_path / "a.json", v2_card()), taken=taken)
    assert c.name == "captain-mirela-voss-2"
    assert "captain-mirela-voss-2" in taken


def test_pingpong_settings(tmp_path):
    path = write_json(tmp_path / "settings.json", settings_doc())
    imported = import_file(path)
    assert imported.format == "pingpong"
    chars, situations = imported.characters, imported.situations
    assert [(c.name, c.lang) for c in chars] == [("ada", "en"), ("tyotushka-fekla", "ru")]
    assert chars[0].example_dialogue[0].char == "Sit down, then."
    assert chars[0].extensions == {"source_card": {"fandom": "original"}}
    # {{char}} stays in the card; the name goes in when a prompt is built
    assert chars[1].persona == "Ты {{char}}, ворчливая соседка с огородом." and chars[1].greeting == "Кто тут шастает?"
    assert with_names(chars[1]).persona == "Ты Тётушка Фекла, ворчливая соседка с огородом."
    assert [(s.lang, s.num_turns, s.tags) for s in situations] == [("en", 3, ["games"]), ("ru", 2, ["break"])]
    assert situations[0].name == "you-want-to-learn-chess-but"
    assert situations[1].name.startswith("poprobuy-ubedit")
    assert [c.name for c in import_card(path)] == ["ada", "tyotushka-fekla"]


def test_our_yaml_imports_as_is(tmp_path):
    path = tmp_path / "x.yaml"
    path.write_text("name: ranger\nchar_name: Ola\nlang: en\nsummary: s\npersona: p\n", encoding="utf-8")
    assert import_card(path, taken={"ranger"})[0].name == "ranger"
    assert import_file(path).format == "yaml"


def _zip_bomb(path):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("card.json", b"{" + b" " * (6 * 1024 * 1024) + b"}")
    return path


def _write(path, data: bytes):
    path.write_bytes(data)
    return path


BAD = {
    "no card chunk": (lambda d: write_png(d / "plain.png"), r"plain\.png: no character card in this PNG"),
    "bad base64": (lambda d: write_png(d / "b.png", text_chunk("chara", b"@@@")), r"b\.png: PNG chunk 'chara' is not base64"),
    "latin-1 json in png": (lambda d: write_png(d / "l.png", text_chunk("chara", base64.b64encode(
        json.dumps(v2_card("Zoë"), ensure_ascii=False).encode("latin-1")))),
        r"l\.png: PNG chunk 'chara' decodes to card JSON that is not UTF-8 text"),
    "truncated png": (lambda d: _write(d / "t.png", write_png(d / "x.png", text_chunk("chara", b64json(v2_card()))).read_bytes()[:60]),
                      r"t\.png: truncated PNG"),
    "not a png": (lambda d: _write(d / "n.png", b"hello"), r"n\.png: not a PNG file"),
    "wrong types": (lambda d: write_json(d / "w.json", v2_card(tags="a,b")), r"w\.json: data\.tags: expected a list of text, got text"),
    "wrong type nested": (lambda d: write_json(d / "w.json", v2_card(description=12)), r"w\.json: data\.description: expected text, got a number"),
    "no name": (lambda d: write_json(d / "w.json", v2_card(name="  ")), r"w\.json: data\.name: the card has no character name"),
    "not a card": (lambda d: write_json(d / "w.json", {"hello": 1}), r"w\.json: not a character card"),
    "json list": (lambda d: write_json(d / "w.json", [1, 2]), r"w\.json: not a character card"),
    "broken json": (lambda d: _write(d / "w.json", b'{"name": "x",\n "description": }'), r"w\.json: invalid JSON at line 2 column"),
    "binary json": (lambda d: _write(d / "w.json", bytes(range(256)) * 4), r"w\.json: binary content"),
    "latin-1 json": (lambda d: _write(d / "w.json", '{"name": "Zoé"}'.encode("latin-1")), r"w\.json: not UTF-8"),
    "charx no card": (lambda d: _zip_with(d / "c.charx", "other.json"), r"c\.charx: no card\.json in this \.charx"),
    "charx bomb": (lambda d: _zip_bomb(d / "bomb.charx"), r"bomb\.charx: card\.json too large when uncompressed"),
    "charx not zip": (lambda d: _write(d / "c.charx", b"PK\x03\x04garbage"), r"c\.charx: not a readable \.charx"),
    "settings bad type": (lambda d: write_json(d / "s.json", {"en": {"characters": [{"char_name": "A", "system_prompt": "p", "tags": [1]}]}}),
                          r"s\.json: en\.characters\.0\.tags\.0: expected text, got a number"),
    "settings bad turns": (lambda d: write_json(d / "s.json", {"en": {"situations": [{"text": "t", "num_turns": 0}]}}),
                           r"s\.json: en\.situations\.0\.num_turns: Input should be greater than or equal to 1"),
    "empty file": (lambda d: _write(d / "e.json", b""), r"e\.json: invalid JSON at line 1"),
}


def _zip_with(path, name):
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(name, json.dumps(v2_card()))
    return path


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_inputs_give_one_line_naming_the_file(tmp_path, case):
    make, message = BAD[case]
    path = make(tmp_path)
    with pytest.raises(UserError, match=message) as info:
        import_card(path)
    assert "\n" not in str(info.value)


def test_twenty_megabytes_is_refused_without_reading(tmp_path):
    for name in ("big.json", "big.png", "big.charx"):
        path = tmp_path / name
        with path.open("wb") as f:
            f.truncate(20 * 1024 * 1024)
        with pytest.raises(UserError, match=rf"{name}: too large \(20\.0 MB"):
            import_card(path)


def test_bad_lang_option(tmp_path):
    with pytest.raises(UserError, match=r"--lang: 'english' is not a two-letter"):
        import_card(write_json(tmp_path / "a.json", v2_card()), lang="english")


def test_text_helpers():
    assert slugify("Щукарь Ёжиков!") == "shchukar-yozhikov"
    assert slugify("Zoë  O'Neil") == "zoe-o-neil"
    assert slugify("???") == "character"
    assert guess_lang("Hello там") == "en" and guess_lang("Привет, Bob") == "ru"
    assert first_sentences("One. Two two. Three.", limit=10) == "One."
    assert first_sentences("word " * 100, limit=20).endswith("…")
