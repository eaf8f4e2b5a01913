"""Regression tests: every bad file, config and key the hardening probe found gives one line and exit 2.

Each test names the failure it guards against. Inputs that crashed the
interpreter itself (PyYAML's C loader) run in a child process.
"""

from __future__ import annotations

import json
import os

import pytest
import yaml

from pingpong.characters.files import load_yaml
from pingpong.characters.importers import import_file
from pingpong.characters.library import CardLibrary
from pingpong.core.config import api_key, check_ready, load_models
from pingpong.core.errors import UserError
from pingpong.core.home import Home
from pingpong.core.prompts import PromptRenderer, check_templates
from pingpong.core.safe_parse import MAX_DEPTH, check_plain, parse_json, parse_toml, real_path
from pingpong.situations.library import SituationLibrary

from .support import (
    SEED_RUN,
    card_doc,
    chara_chunk,
    charx_bytes,
    cli,
    cli_process,
    dumps,
    nested_json,
    one_error,
    one_warning,
    png_bytes,
    refused,
    situation_doc,
    v2_doc,
)

DEEP_YAML = "name: x\nextensions: " + "[" * 30000 + "]" * 30000 + "\n"
LONG = "9" * 5000
MODEL = '[models.x]\nbase_url = "https://api.example.invalid/v1"\nmodel = "m"\napi_key_env = "PINGPONG_BAD_KEY"\n'


def _yaml(doc: dict) -> str:
    return yaml.safe_dump(doc, allow_unicode=True, sort_keys=False)


def _deep_dict(levels: int) -> dict:
    value: dict = {"leaf": 1}
    for _ in range(levels - 1):
        value = {"a": value}
    return value


# -- the 30,000-deep YAML card that segfaulted PyYAML's C loader ---------------

def test_deep_yaml_card_is_refused_not_a_segfault(tmp_path):
    path = tmp_path / "deep.yaml"
    path.write_text(DEEP_YAML, encoding="utf-8")
    line = one_error(cli_process("cards", "validate", str(path), "--home", str(tmp_path / "home")))
    assert line == f"pingpong: error: {path}: nested deeper than {MAX_DEPTH} levels (line 2)"


def test_deep_yaml_in_the_home_breaks_neither_listing_nor_runs(tmp_path):
    home = tmp_path / "home"
    for folder in ("characters", "situations"):
        (home / folder).mkdir(parents=True)
        (home / folder / "deep.yaml").write_text(DEEP_YAML, encoding="utf-8")
    listing = cli_process("cards", "list", "--format", "json", "--home", str(home))
    assert "deep.yaml: nested deeper than" in one_warning(listing)
    assert any(card["name"] == "tally" for card in json.loads(listing.out))
    assert "deep.yaml" in one_warning(cli_process("situations", "list", "--format", "json", "--home", str(home)))
    run = cli_process(*SEED_RUN, "--home", str(home), timeout=120)
    assert run.rc == 0 and "Traceback" not in run.err, run.err


def test_the_libraries_skip_a_deep_home_file_with_a_problem(tmp_path):
    """What `cards list`, runs and the Characters screen use (the scan never composes the document)."""
    home = Home(tmp_path)
    for folder in (home.characters_dir, home.situations_dir):
        folder.mkdir()
        (folder / "deep.yaml").write_text("name: x\nextensions: " + "[" * 2000 + "]" * 2000 + "\n")
    cards, situations = CardLibrary(home), SituationLibrary(home)
    assert cards.get("tally").name == "tally" and situations.get("casual-greeting")
    assert [p.split(": ", 1)[1] for p in cards.problems + situations.problems] == [
        f"nested deeper than {MAX_DEPTH} levels (line 2)"] * 2


@pytest.mark.parametrize("text", [
    "a:\n  " + "- " * 70 + "x\n",
    "a: " + "{b: " * 70 + "1" + "}" * 70 + "\n",
    "a:" + "".join("\n" + " " * (2 + i) + "b:" for i in range(70)) + " 1\n",
], ids=["block-seq", "flow-map", "block-map"])
def test_yaml_depth_is_capped_in_every_style(text):
    with pytest.raises(UserError, match=f"f.yaml: nested deeper than {MAX_DEPTH} levels"):
        load_yaml(text, "f.yaml")


def test_yaml_at_the_depth_cap_still_loads():
    text = "a: " + "[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1) + "\n"
    assert load_yaml(text, "f.yaml")["a"] is not None


# -- integers over 4,300 digits ------------------------------------------------

def _one_line(tmp_path, name: str, data: bytes, *args: str) -> str:
    path = tmp_path / name
    path.write_bytes(data)
    return refused(tmp_path / "home", "cards", "validate", str(path), *args)


def test_long_integer_in_a_yaml_card(tmp_path):
    line = _one_line(tmp_path, "c.yaml", (_yaml(card_doc()) + f"extensions: {{n: {LONG}}}\n").encode())
    assert line.endswith("c.yaml: a number has more than 4300 digits (line 7)")


def test_long_integer_in_a_json_card(tmp_path):
    data = dumps(v2_doc(extensions={"n": 1})).replace(b'"n": 1', b'"n": ' + LONG.encode())
    assert _one_line(tmp_path, "c.json", data).endswith("c.json: a number has more than 4300 digits")


def test_long_integer_in_png_and_charx_cards(tmp_path):
    data = dumps(v2_doc(extensions={"n": 1})).replace(b'"n": 1', b'"n": ' + LONG.encode())
    assert "c.png: PNG chunk 'chara': a number has more than 4300 digits" in _one_line(
        tmp_path, "c.png", png_bytes(chara_chunk(data)))
    assert "c.charx: card.json: a number has more than 4300 digits" in _one_line(
        tmp_path, "c.charx", charx_bytes({"card.json": data}))


def test_long_integer_in_a_situation_in_the_home(tmp_path):
    home = tmp_path / "home"
    (home / "situations").mkdir(parents=True)
    (home / "situations" / "s.yaml").write_text(_yaml(situation_doc()).replace("num_turns: 3", f"num_turns: {LONG}"))
    warning = one_warning(cli("situations", "list", "--home", str(home)))
    assert "s.yaml: a number has more than 4300 digits (line 3)" in warning


def test_long_integers_in_config(tmp_path):
    (tmp_path / "config.toml").write_text(MODEL + f"max_concurrency = {LONG}\n")
    assert "config.toml: a number has more than 4300 digits (line 5)" in one_error(
        cli("models", "--no-check", "--home", str(tmp_path)))
    (tmp_path / "config.toml").write_text(MODEL + f"max_concurrency = 0x{'f' * 4000}\n")
    assert "config.toml: models.x.max_concurrency: number too large" in one_error(
        cli("models", "--no-check", "--home", str(tmp_path)))


# -- deep JSON and TOML: RecursionError ------------------------------------------

@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 900, 100_000])
def test_deep_json_is_one_line(depth):
    with pytest.raises(UserError, match=f"^f.json: .*nested deeper than {MAX_DEPTH} levels$"):
        parse_json(nested_json(depth), "f.json")


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 5000])
def test_deep_toml_is_one_line(depth):
    with pytest.raises(UserError, match=f"^c.toml: .*nested deeper than {MAX_DEPTH} levels$"):
        parse_toml("a = " + "[" * depth + "]" * depth, "c.toml")


def test_deep_config_through_the_cli(tmp_path):
    (tmp_path / "config.toml").write_text("a = " + "[" * 30000 + "]" * 30000 + "\n")
    assert "config.toml: nested deeper than 64 levels" in one_error(
        cli("models", "--no-check", "--home", str(tmp_path)))


# -- symlink loops -----------------------------------------------------------------

@pytest.fixture
def loop(tmp_path):
    (tmp_path / "a.json").symlink_to(tmp_path / "b.json")
    (tmp_path / "b.json").symlink_to(tmp_path / "a.json")
    return tmp_path / "a.json"


@pytest.mark.parametrize("command", ["validate", "import"])
def test_symlink_loop_card(tmp_path, loop, command):
    line = refused(tmp_path / "home", "cards", command, str(loop))
    assert line.endswith(f"{loop}: cannot resolve the path (a symlink loop)")


def test_symlink_loop_in_the_home_is_skipped(tmp_path):
    folder = tmp_path / "characters"
    folder.mkdir()
    (folder / "a.yaml").symlink_to(folder / "b.yaml")
    (folder / "b.yaml").symlink_to(folder / "a.yaml")
    result = cli("cards", "list", "--format", "json", "--home", str(tmp_path))
    assert result.rc == 0 and "Traceback" not in result.err
    reasons = [line.split(": ")[-1] for line in result.err_lines]
    assert reasons == ["cannot read (Too many levels of symbolic links)"] * 2


def test_symlink_loop_config(tmp_path):
    (tmp_path / "config.toml").symlink_to(tmp_path / "config.toml")
    assert "config.toml: cannot read" in refused(tmp_path, "models", "--no-check")


def test_real_path_names_the_loop(loop):
    with pytest.raises(UserError, match="a symlink loop"):
        real_path(loop)


# -- validation means import works ---------------------------------------------------

def test_v2_card_with_400_deep_extensions_fails_validation_in_one_line(tmp_path):
    path = tmp_path / "deep.json"
    path.write_bytes(dumps(v2_doc(extensions=_deep_dict(400))))
    line = refused(tmp_path / "home", "cards", "validate", str(path))
    assert line.startswith(f"pingpong: error: {path}: data.extensions.a.") and line.endswith(
        f"nested deeper than {MAX_DEPTH} levels")
    assert refused(tmp_path / "home", "cards", "import", str(path)) == line
    assert not (tmp_path / "home" / "characters").exists()


def test_a_card_too_deep_once_saved_fails_validation_as_import_would(tmp_path):
    """Within the file's cap, but the converted card nests one level deeper (source_card): refused up front."""
    doc = v2_doc()
    doc["extra"] = _deep_dict(MAX_DEPTH - 1)  # the file is MAX_DEPTH deep; once saved it would be one more
    path = tmp_path / "edge.json"
    path.write_bytes(dumps(doc))
    line = refused(tmp_path / "home", "cards", "validate", str(path))
    assert f"{path}: extensions.source_card.extra." in line and "nested deeper than" in line
    assert not (tmp_path / "home" / "characters").exists()


def test_a_validated_card_imports_loads_and_renders(tmp_path):
    """'ok' from validate means: import saves it, the library loads it back, prompts and the store can use it."""
    path = tmp_path / "fine.json"
    path.write_bytes(dumps(v2_doc(extensions={"deep": _deep_dict(50), "n": 10**40, "x": 0.1})))
    home = tmp_path / "home"
    assert cli("cards", "validate", str(path), "--home", str(home)).out.startswith("ok: ")
    assert cli("cards", "import", str(path), "--home", str(home)).rc == 0
    card = CardLibrary(Home(home)).get("nell-varga")
    assert card == import_file(path).characters[0] and card.extensions["n"] == 10**40
    json.dumps(card.model_dump(mode="json"), allow_nan=False)
    assert PromptRenderer().player(card, [])[0]["role"] == "system"


@pytest.mark.parametrize("value,problem", [
    (b"NaN", "NaN is not a JSON number"),
    (b"-Infinity", "-Infinity is not a JSON number"),
    (b"1e999", "extensions.n: inf is not a finite number"),
    (b'"\\udc00"', "extensions.n: text holds an invalid character (a lone surrogate)"),
])
def test_json_values_the_store_cannot_keep_are_refused(tmp_path, value, problem):
    data = dumps(v2_doc(extensions={"n": 1})).replace(b'"n": 1', b'"n": ' + value)
    assert _one_line(tmp_path, "c.json", data).endswith(problem)


@pytest.mark.parametrize("value,problem", [
    ("2024-01-01", "extensions.d: a date is not allowed here"),
    ("!!binary aGk=", "extensions.d: binary data is not allowed here"),
    ("!!timestamp yesterday", "invalid YAML value"),
    ("2024-13-45", "invalid YAML value (month must be in 1..12)"),
    (".nan", "extensions.d: nan is not a finite number"),
    ('"\\ud800"', "invalid YAML at line 7: found invalid Unicode character escape code"),
    ("{1: x}", "extensions.d: key 1 is not text"),
])
def test_yaml_values_json_cannot_carry_are_refused(tmp_path, value, problem):
    line = _one_line(tmp_path, "c.yaml", (_yaml(card_doc()) + f"extensions: {{d: {value}}}\n").encode())
    assert problem in line


def test_field_names_with_newlines_stay_on_one_line(tmp_path):
    line = _one_line(tmp_path, "c.yaml", (_yaml(card_doc()) + '"bad\\nkey": 1\n').encode())
    assert line.endswith("c.yaml: bad\\nkey: unknown field (line 7)")
    line = _one_line(tmp_path, "s.json", b'{"e\\n": {"characters": []}}')
    assert line.endswith("s.json: e\\n: not a language code (expected e.g. 'en', 'ru')")


def test_plain_data_check_names_the_field():
    with pytest.raises(UserError, match=r"^f: extensions\.a\.0: a set is not allowed here"):
        check_plain({"a": [{1, 2}]}, "f", ["extensions"])


# -- config: timeouts, keys, templates ----------------------------------------------

def _models(tmp_path, body: str) -> str:
    (tmp_path / "config.toml").write_text(MODEL + body, encoding="utf-8")
    return refused(tmp_path, "models", "--no-check")


@pytest.mark.parametrize("body,problem", [
    ("timeout = inf\n", "models.x.timeout: inf is not a finite number"),
    ("timeout = nan\n", "models.x.timeout: nan is not a finite number"),
    ("deadline = -inf\n", "models.x.deadline: -inf is not a finite number"),
    ("timeout = 0\n", "models.x.timeout: Input should be greater than 0"),
    ("deadline = 1e300\n", "models.x.deadline: expected seconds above 0 and at most 86400, got 1e+300"),
    ("timeout = true\n", "models.x.timeout: expected a number, got True"),
    ("[models.x.params]\ntemperature = nan\n", "models.x.params.temperature: nan is not a finite number"),
    ("[models.x.params]\nstop = 1979-05-27\n", "models.x.params.stop: a date is not allowed here (text, numbers,"
                                             " lists and objects only)"),
])
def test_timeouts_and_params_must_be_finite(tmp_path, body, problem):
    assert _models(tmp_path, body).endswith(problem)


def test_finite_timeouts_pass(tmp_path):
    (tmp_path / "config.toml").write_text(MODEL + "timeout = 0.5\ndeadline = 86400\n")
    spec = load_models(Home(tmp_path))["x"]
    assert (spec.timeout, spec.deadline) == (0.5, 86400)


def test_control_characters_in_model_names_stay_on_one_line(tmp_path):
    (tmp_path / "config.toml").write_text('[models."a\\nb"]\nkind = "offline"\n')
    assert "models.'a\\nb': a model name must be printable text" in one_error(
        cli("models", "--no-check", "--home", str(tmp_path)))


@pytest.mark.parametrize("key", ["sk-SECRET\n", "sk-SECRET\r\nX-Evil: 1", "sk-SECRETé", "sk-SECRET\x7f", "sk-SECRET\t"])
def test_keys_a_header_cannot_carry_are_refused_without_showing_them(tmp_path, monkeypatch, key):
    monkeypatch.setenv("PINGPONG_BAD_KEY", key)
    (tmp_path / "config.toml").write_text(MODEL)
    spec = load_models(Home(tmp_path))["x"]
    for check in (check_ready, api_key):
        with pytest.raises(UserError) as info:
            check(spec)
        message = str(info.value)
        assert message.startswith("model 'x': environment variable PINGPONG_BAD_KEY holds a character an HTTP header")
        assert "SECRET" not in message and "\n" not in message
    result = cli("run", "--player", "x", "--interrogator", "offline", "--judge", "offline",
                 "--characters", "tally", "--situations", "casual-greeting", "--home", str(tmp_path))
    assert "PINGPONG_BAD_KEY" in one_error(result) and "SECRET" not in result.err + result.out


def test_a_plain_key_passes(tmp_path, monkeypatch):
    monkeypatch.setenv("PINGPONG_BAD_KEY", "sk-proj-AbC_123.xyz")
    (tmp_path / "config.toml").write_text(MODEL)
    spec = load_models(Home(tmp_path))["x"]
    check_ready(spec)
    assert api_key(spec) == "sk-proj-AbC_123.xyz"


@pytest.mark.parametrize("source,problem", [
    ("Hello {{ character.char_name }\n", "line 1: unexpected '}'"),
    ("ok\n{% for t in transcript %}\n{{ t.text }}\n", "line 3: Unexpected end of template. Jinja was looking for the"
     " following tags: 'endfor' or 'else'. The innermost block that needs to be closed is 'for'."),
    ("{{ character | no_such_filter }}", "line 1: No filter named 'no_such_filter'."),
    ("{{ character.char_name }} {{ nosuchvar }}", "'nosuchvar' is undefined"),
    ("{% extends 'player_system.j2' %}", "includes or extends itself without end"),
    ("{% include 'my_rules.j2' %}", "no template 'my_rules.j2' to include or extend"),
    # what a template asks of its data fails: the same one line, never a traceback
    ("{{ 1 / 0 }}", "ZeroDivisionError: division by zero"),
    ("{{ 1 + 'a' }}", "TypeError: unsupported operand type(s) for +: 'int' and 'str'"),
    ("{{ range(10**10) | length }}", "OverflowError: Range too big. The sandbox blocks ranges larger than"
     " MAX_RANGE (100000)."),
    # or asks for more than any prompt needs (each would take a gigabyte or hang)
    ("{{ ('a' * 10**9) | length }}", "'*' would make 1,000,000,000 items (at most 1,000,000)"),
    ("{{ ([1] * 10**8) | length }}", "'*' would make 100,000,000 items (at most 1,000,000)"),
    ("{{ (7 ** 1000000000) % 10 }}", "'**' would make a number of more than 1,000,000 digits"),
    ("{{ 'a' | center(10**9) }}", "filter center: a width of 1,000,000,000 (at most 1,000,000)"),
    ("{{ 'a'.ljust(10**9) }}", "str.ljust: a width of 1,000,000,000 (at most 1,000,000)"),
    ("{{ '%0999999999d' % 1 }}", "'%': a field of seven digits' width or more"),
    ("{{ '%0999999999d' | format(1) }}", "filter format: a field of seven digits' width or more"),
    ("{{ '{:>999999999}'.format(1) }}", "str.format: a field of seven digits' width or more"),
    ("{{ ('a' * 999999) | replace('a', 'a' * 999999) | length }}", "replace would make more than 1,000,000 characters"),
    ("{{ ('ab' * 1000).replace('', 'xyz' * 1000) | length }}", "replace would make more than 1,000,000 characters"),
    # loops multiply: each is within the limits, together they would run for hours
    ("{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}",
     "the loops of one prompt took more than 1,000,000 steps"),
    ("{% for c in 'a' * 999999 %}{% for d in 'b' * 999999 %}{{ loop.index if false }}{% endfor %}{% endfor %}",
     "the loops of one prompt took more than 1,000,000 steps"),
    ("{% macro deep(n) %}{% for i in range(1000) %}{{ deep(n - 1) if n > 0 }}{% endfor %}{% endmacro %}{{ deep(3) }}",
     "the loops of one prompt took more than 1,000,000 steps"),
])
def test_broken_template_override_is_refused_at_start(tmp_path, source, problem):
    """Whether it fails to compile or only when rendered: one line naming the file before any run."""
    (tmp_path / "templates").mkdir()
    path = tmp_path / "templates" / "player_system.j2"
    path.write_text(source, encoding="utf-8")
    assert refused(tmp_path, "models", "--no-check") == f"pingpong: error: {path}: {problem}"
    result = cli(*SEED_RUN, "--home", str(tmp_path))
    assert one_error(result) == f"pingpong: error: {path}: {problem}"
    assert not (tmp_path / "pingpong.db").exists()


def test_template_overrides_that_compile_pass(tmp_path):
    folder = tmp_path / "templates"
    folder.mkdir()
    (folder / "player_system.j2").write_text("You are {{ character.char_name }}. Speak {{ language }}. "
                                             "{{ '%05d' % 42 }} {{ '%s: %d' | format('fee', 12345678) }} "
                                             "{{ 'x' | center(9) }} {{ '{:>4}'.format('ok') }} "
                                             "{{ 'a-b' | replace('-', ' and ') }} {{ 'c'.replace('c', 'd') }}"
                                             "{% for i in range(900) %}{% for j in range(1000) %}{% endfor %}"
                                             "{% endfor %}")
    (folder / "notes.txt").write_text("{{ not a template")
    assert check_templates(folder) == 1
    assert check_templates(tmp_path / "missing") == 0 and check_templates(None) == 0
    assert load_models(Home(tmp_path))["offline"].kind == "offline"


def test_unreadable_template_override_is_one_line(tmp_path):
    folder = tmp_path / "templates"
    folder.mkdir()
    (folder / "judge_user.j2").write_bytes(b"\xff\xfe broken")
    with pytest.raises(UserError, match="judge_user.j2: not UTF-8 text"):
        check_templates(folder)


@pytest.mark.parametrize("data,problem", [
    (b"\x00\x01binary", "binary content, not a text file"),
    (b"author = \"\xff\"\n", "not UTF-8 text (bad byte at line 1)"),
    (b"x = 1\n" * 300_000, "too large (1.7 MB; the limit is 1.0 MB)"),
])
def test_unreadable_config_is_one_line(tmp_path, data, problem):
    (tmp_path / "config.toml").write_bytes(data)
    assert refused(tmp_path, "models", "--no-check").endswith(f"config.toml: {problem}")


def test_key_variables_are_left_alone_when_unset(tmp_path, monkeypatch):
    monkeypatch.delenv("PINGPONG_BAD_KEY", raising=False)
    (tmp_path / "config.toml").write_text(MODEL)
    with pytest.raises(UserError, match="PINGPONG_BAD_KEY is not set"):
        check_ready(load_models(Home(tmp_path))["x"])
    assert "PINGPONG_BAD_KEY" not in os.environ


def test_a_pipe_or_a_device_is_refused_not_read_forever(tmp_path):
    """A named pipe would block the read; /dev/zero would fill the memory up to the size cap."""
    fifo = tmp_path / "card.json"
    os.mkfifo(fifo)
    for args in (("cards", "validate", str(fifo)), ("import", "/dev/zero"), ("--config", "/dev/zero", "models")):
        line = refused(tmp_path / "home", *args)
        assert "not a regular file (a device, pipe or socket)" in line


@pytest.mark.parametrize(("folder", "text", "problem"), [
    ("situations", "name: t1\nlang: en\nnum_turns: true\ntext: hello\n", "num_turns: Input should be a valid integer"),
    ("situations", "name: t1\nlang: en\nnum_turns: '3'\ntext: hello\n", "num_turns: Input should be a valid integer"),
    ("situations/dmt", "name: s1\nlang: en\ncharacter: tally\ntopic: t\nintent: game_interaction\n"
                       "initial_query: Hi?\ngoal: g\nmax_rounds: true\n", "max_rounds: Input should be a valid integer"),
    ("situations/rolebench", "kind: role_specific\ncharacter: tally\nlang: en\nquestions:\n"
                             "  - {id: s01, instruction: a, references: [b]}\n  - {id: s01, instruction: a, references: [b]}\n",
     "question set: Value error, question id 's01' appears more than once"),
    ("situations/probes", "character: tally\nlang: en\n", "probe set: Value error, a probe set needs at least one"),
])
def test_a_user_file_of_the_wrong_type_or_shape_is_a_warning_naming_its_kind(tmp_path, folder, text, problem):
    """`true` is not 1 turn nor "3" three; a rule of the whole file names the file's kind, not "card"."""
    path = tmp_path / folder / "bad.yaml"
    path.parent.mkdir(parents=True)
    path.write_text(text, encoding="utf-8")
    method = {"situations": [], "situations/dmt": ["--method", "dmt"], "situations/rolebench": ["--method", "rolebench"],
              "situations/probes": ["--method", "roleinteract"]}[folder]
    result = cli("--home", str(tmp_path), "situations", "list", *method)
    assert result.rc == 0
    assert f"pingpong: warning: {path}: {problem}" in result.err


def test_a_pipe_among_the_seeds_is_named_as_no_seed_file(tmp_path):
    path = tmp_path / "situations" / "dmt" / "pipe.yaml"
    path.parent.mkdir(parents=True)
    os.mkfifo(path)
    result = cli("--home", str(tmp_path), "situations", "list", "--method", "dmt")
    assert f"{path}: not a regular file (a device, pipe or socket), not a seed file" in result.err
