"""Fuzz: a few hundred generated bad files of every kind, each through the real command line.

Kinds: cards (our YAML, V2 JSON, PingPong settings JSON, PNG, .charx), situations,
DMT seeds, probe sets, RoleBench question sets, config.toml, template overrides,
API keys, and import files (our JSONL, PingPong results JSON, junk). Every one
must end in exit status 2 and exactly one line on stderr, never a traceback (a
bad file in the home's folders: skipped with one warning line; probe and question
sets, which no command lists yet, with one line in their library's problems),
and the database seeded before the fuzzing must keep every byte. Examples are
derandomised and bounded so the file runs in well under a minute; the inputs
that could crash the interpreter itself (PyYAML's C loader on nesting tens of
thousands deep) run in a child process instead.
"""

from __future__ import annotations

import copy
import json
import os
import uuid

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pingpong.core.home import Home
from pingpong.situations.probes import ProbeLibrary
from pingpong.situations.questions import QuestionLibrary

from .support import (
    card_doc,
    chara_chunk,
    charx_bytes,
    cli,
    cli_process,
    dumps,
    nested_json,
    nested_yaml,
    one_error,
    one_warning,
    png_bytes,
    png_chunk,
    probe_doc,
    question_doc,
    refused,
    seed_doc,
    situation_doc,
    v2_doc,
)

# PINGPONG_FUZZ_EXAMPLES=2000 fuzzes longer and with fresh random examples (not in CI)
EXAMPLES = int(os.environ.get("PINGPONG_FUZZ_EXAMPLES", "0")) or None
FUZZ = settings(max_examples=EXAMPLES or 60, deadline=None, derandomize=EXAMPLES is None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
FEW = settings(FUZZ, max_examples=EXAMPLES or 30)

# -- generators ---------------------------------------------------------------

scalars = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6),
                    st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=12))
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(st.text(max_size=6), inner, max_size=3), max_leaves=6)
not_text = values.filter(lambda v: not isinstance(v, str))
junk_bytes = st.binary(max_size=400)
yamlish = st.text(alphabet=st.sampled_from(list("{}[]:-?&*!|>'\"#%@`, \n\tab1.\\")), max_size=200)
big_number = st.integers(4301, 6000).map(lambda n: "9" * n)
depth = st.integers(65, 1500)

BAD_YAML_VALUES = (
    "2024-13-45", "!!binary not*base64", "!!python/object/apply:os.system ['true']", ".nan", "-.inf",
    '"\\ud800"', "!!set {a, b}", "2024-01-01", "{? [1]: 2}", "{1: a}", "!!int twelve", "&a [1]",
    "!!timestamp yesterday", "!!float nope", "{<<: 1}",
)


def _yaml_file(doc_of, required: tuple[str, ...], text_fields: tuple[str, ...],
               not_texts: st.SearchStrategy = not_text) -> st.SearchStrategy[bytes]:
    """Bad YAML for one of our YAML files: deep nesting, long numbers, something other than text
    where text belongs (not_texts), a required field missing, YAML-only values, junk."""
    good = doc_of()
    fields = sorted(good)

    def with_value(text: str) -> bytes:
        return (yaml.safe_dump(good, allow_unicode=True) + f"extensions: {text}\n").encode()

    deep = st.tuples(depth, st.sampled_from(["flow-list", "flow-map", "block-seq", "block-map"])).map(
        lambda t: with_value(nested_yaml(t[0], t[1])))
    number = st.tuples(st.sampled_from(fields), big_number).map(
        lambda t: yaml.safe_dump(doc_of(**{t[0]: 1}), allow_unicode=True).replace(": 1\n", f": {t[1]}\n").encode())
    wrong = st.tuples(st.sampled_from(text_fields), not_texts).map(
        lambda t: yaml.safe_dump(doc_of(**{t[0]: t[1]}), allow_unicode=True).encode())
    missing = st.sampled_from(required).map(
        lambda f: yaml.safe_dump({k: v for k, v in good.items() if k != f}, allow_unicode=True).encode())
    odd = st.sampled_from(BAD_YAML_VALUES).map(with_value)
    return st.one_of(deep, number, wrong, missing, odd, junk_bytes, yamlish.map(str.encode))


bad_card_yaml = _yaml_file(card_doc, ("name", "char_name", "lang", "summary", "persona"),
                           ("char_name", "greeting", "lang", "name", "persona", "summary"))
bad_situation_yaml = _yaml_file(situation_doc, ("name", "lang", "text", "num_turns"), ("lang", "name", "text"))
bad_seed_yaml = _yaml_file(seed_doc, ("name", "lang", "character", "topic", "intent", "initial_query", "goal"),
                           ("character", "goal", "initial_query", "intent", "lang", "name", "topic"))
bad_probe_yaml = _yaml_file(probe_doc, ("character", "lang", "questions"), ("character", "lang"),
                            # probe files take whole numbers as text (a year as an option)
                            not_text.filter(lambda v: type(v) is not int))
bad_question_yaml = _yaml_file(question_doc, ("kind", "character", "lang", "questions"), ("character", "kind", "lang"))


@st.composite
def bad_card_json(draw) -> bytes:
    """A V2 card (JSON text) spoiled in one way."""
    kind = draw(st.sampled_from(["deep", "number", "constant", "surrogate", "wrong", "truncated", "junk", "spec",
                                 "settings"]))
    if kind == "deep":
        style = draw(st.sampled_from(["list", "map"]))
        deep = nested_json(draw(depth), style).encode()
        return dumps(v2_doc(extensions={"x": 1})).replace(b'"x": 1', b'"x": ' + deep)
    if kind == "number":
        return dumps(v2_doc(extensions={"n": 1})).replace(b'"n": 1', b'"n": ' + draw(big_number).encode())
    if kind == "constant":
        return dumps(v2_doc(extensions={"n": 1})).replace(b'"n": 1', b'"n": ' + draw(
            st.sampled_from([b"NaN", b"Infinity", b"-Infinity", b"1e999"])))
    if kind == "surrogate":
        return dumps(v2_doc(description="x")).replace(b'"description": "x"', b'"description": "\\udc00"')
    if kind == "wrong":
        field = draw(st.sampled_from(["name", "description", "personality", "first_mes", "tags", "extensions"]))
        value = draw(not_text)
        if field == "tags":
            value = draw(st.one_of(st.lists(not_text, min_size=1, max_size=3), scalars.filter(lambda v: v is not None)))
        if field == "extensions" and (value is None or isinstance(value, dict)):
            value = [value]
        if value is None:  # null means "not given", which is fine for every field but these
            value = 0
        return dumps(v2_doc(**{field: value}))
    if kind == "truncated":
        whole = dumps(v2_doc())
        return whole[: draw(st.integers(0, len(whole) - 2))]
    if kind == "settings":  # a PingPong settings file with one bad character or situation
        character = {"char_name": "Nell", "system_prompt": "You pilot the ferry.", "tags": ["river"]}
        situation = {"text": "Ask for a ride.", "num_turns": 2}
        item, key = draw(st.sampled_from([(character, "characters"), (situation, "situations")]))
        field = draw(st.sampled_from(sorted(item)))
        value = draw(not_text.filter(lambda v: v is not None and not (field == "num_turns" and isinstance(v, int)
                                                                         and not isinstance(v, bool) and 1 <= v <= 50)))
        if field == "tags" and isinstance(value, list) and all(isinstance(t, str) for t in value):
            value = [0]
        return dumps({"en": {key: [{**item, field: value}]}})
    if kind == "spec":
        return dumps({"spec": "chara_card_v2", "data": draw(not_text.filter(lambda v: not isinstance(v, dict)))})
    return draw(junk_bytes)


@st.composite
def bad_png(draw) -> bytes:
    kind = draw(st.sampled_from(["card", "base64", "ztxt", "truncated", "junk", "empty"]))
    if kind == "card":
        return png_bytes(chara_chunk(draw(bad_card_json())))
    if kind == "base64":
        return png_bytes(png_chunk(b"tEXt", b"chara\x00" + draw(st.binary(min_size=1, max_size=200))
                                   .replace(b"\x00", b"!") + b"%"))
    if kind == "ztxt":
        return png_bytes(png_chunk(b"zTXt", b"ccv3\x00\x00" + draw(junk_bytes)))
    if kind == "truncated":
        good = png_bytes(chara_chunk(dumps(v2_doc())))
        start = good.index(b"tEXt") + 4
        return good[: draw(st.integers(start, start + 40))]
    if kind == "empty":
        return png_bytes()
    return b"\x89PNG\r\n\x1a\n" + draw(junk_bytes)


@st.composite
def bad_charx(draw) -> bytes:
    kind = draw(st.sampled_from(["card", "missing", "truncated", "junk"]))
    if kind == "card":
        return charx_bytes({"card.json": draw(bad_card_json())})
    if kind == "missing":
        return charx_bytes({draw(st.sampled_from(["Card.json", "x/card.json", "card.jsn"])): dumps(v2_doc())})
    if kind == "truncated":
        good = charx_bytes({"card.json": dumps(v2_doc())})
        return good[: draw(st.integers(0, len(good) - 1))]
    return b"PK\x03\x04" + draw(junk_bytes)


MODEL = '[models.x]\nbase_url = "http://127.0.0.1:9/v1"\nmodel = "m"\n'


@st.composite
def bad_toml(draw) -> bytes:
    kind = draw(st.sampled_from(["deep", "number", "seconds", "junk", "binary", "name", "params", "wrong"]))
    if kind == "deep":
        value = draw(st.sampled_from(["[", "{a = "]))
        n = draw(depth)
        closing = "]" if value == "[" else "}"
        inner = "1" if value != "[" else ""
        return (MODEL + f"[models.x.params]\nstop = {value * n}{inner}{closing * n}\n").encode()
    if kind == "number":
        return (MODEL + f"max_concurrency = {draw(big_number)}\n").encode()
    if kind == "seconds":
        key = draw(st.sampled_from(["timeout", "deadline"]))
        value = draw(st.sampled_from(["inf", "+inf", "-inf", "nan", "0", "-5", "1e300", '"soon"', "true"]))
        return (MODEL + f"{key} = {value}\n").encode()
    if kind == "binary":
        return b"\x00" + draw(junk_bytes)
    if kind == "name":
        return draw(st.sampled_from(['[models."a\\u0007b"]\n', '[models.""]\n', '[models." "]\n',
                                     '[models.offline]\nkind = "offline"\n'])).encode()
    if kind == "params":
        value = draw(st.sampled_from(["1979-05-27", "nan", "inf", '"hot"', "0x" + "f" * 4000]))
        return (MODEL + f"[models.x.params]\ntemperature = {value}\n").encode()
    if kind == "wrong":
        key = draw(st.sampled_from(["base_url", "model", "max_concurrency", "merge_system", "params", "colour"]))
        return (MODEL.replace(f"{key} = ", f"old_{key} = ") + f"{key} = [[1], {{}}]\n").encode()
    return ("[models.x]\n" + draw(yamlish)).encode("utf-8")


BROKEN_TEMPLATES = ("{% for x in y %}", "{{ x ", "{{ x | no_such_filter }}", "{% endif %}", "{% if %}",
                    "{{ x }", "{% block a %}{% block a %}{% endblock %}{% endblock %}", "{% set %}",
                    "{{ (" * 400 + "1" + ")" * 400 + " }}")


def _breaker(draw) -> tuple[str, bytes]:
    """Something no JSON value of ours may hold: (kind, raw JSON text)."""
    kind = draw(st.sampled_from(["deep", "number", "constant"]))
    if kind == "deep":
        return kind, nested_json(draw(depth), draw(st.sampled_from(["list", "map"]))).encode()
    if kind == "number":
        return kind, draw(big_number).encode()
    return kind, draw(st.sampled_from([b"NaN", b"Infinity", b"-Infinity"]))


def _with_raw(doc: dict, place: list, raw: bytes) -> bytes:
    """doc as JSON with the raw text set at place (a path of keys ending in a new key)."""
    marker = "\u0000fuzz\u0000"
    target = doc
    for key in place[:-1]:
        target = target[key]
    target[place[-1]] = marker
    return dumps(doc).replace(json.dumps(marker).encode(), raw)


@st.composite
def bad_session_line(draw, good: dict) -> dict | bytes:
    """Our JSONL session (good) spoiled in one way: the document, or raw text for what JSON cannot hold."""
    doc = copy.deepcopy(good)
    doc["created_at"] = "1999-12-31T00:00:00.000+00:00"  # so it is not the stored session
    messages, scores = doc["messages"], doc["scores"]
    kind = draw(st.sampled_from(["missing", "status", "spec", "unknown", "dup-message", "drop-message",
                                 "swap-messages", "turn", "role", "dup-score", "off-scale", "breaker",
                                 "truncated"]))
    if kind == "missing":
        del doc[draw(st.sampled_from(["spec", "character_snapshot", "situation_snapshot", "status", "player",
                                      "created_at"]))]
    elif kind == "status":
        doc["status"] = draw(st.one_of(st.text(max_size=8).filter(
            lambda t: t not in ("running", "interrupted", "finished", "failed")), not_text.filter(bool)))
    elif kind == "spec":
        doc[draw(st.sampled_from(["spec", "character_snapshot", "situation_snapshot"]))] = draw(
            not_text.filter(lambda v: v is not None and not isinstance(v, dict)))
    elif kind == "unknown":
        doc[draw(st.sampled_from(["colour", "id", "Status"]))] = draw(values)
    elif kind == "dup-message":
        messages.append(dict(draw(st.sampled_from(messages))))
    elif kind == "drop-message":
        del messages[draw(st.integers(0, len(messages) - 2))]
    elif kind == "swap-messages":
        i = draw(st.integers(0, len(messages) - 2))
        messages[i], messages[i + 1] = messages[i + 1], messages[i]
    elif kind == "turn":
        message = draw(st.sampled_from(messages))
        message["turn"] = draw(st.integers(-3, 9).filter(lambda t, old=message["turn"]: t != old))
    elif kind == "role":
        message = draw(st.sampled_from(messages))
        message["role"] = draw(st.sampled_from(["system", "assistant" if message["role"] == "user" else "user",
                                                "player", ""]))
    elif kind == "dup-score":
        judged = [x for x in scores if x["source"] == "judge"]
        scores.append({**draw(st.sampled_from(judged)), "explanation": "said twice"})
    elif kind == "off-scale":
        score = draw(st.sampled_from([x for x in scores if x["scale"] == "1-5"]))
        score["value"] = draw(st.sampled_from([0, 6, -1, 2.5, "3/10", "good", True, [4], {"v": 4}]))
    elif kind == "breaker":
        _, raw = _breaker(draw)
        return _with_raw(doc, ["character_snapshot", "extensions", "x"], raw)
    else:
        whole = dumps(doc)
        return whole[: draw(st.integers(1, len(whole) - 2))]
    return doc


@st.composite
def bad_results(draw, good: dict) -> dict | bytes:
    """A PingPong results file (good) spoiled in one way."""
    doc = copy.deepcopy(good)
    entry = doc["outputs"][0]
    kind = draw(st.sampled_from(["score", "length", "messages", "char_name", "outputs", "model", "breaker",
                                 "truncated"]))
    if kind == "score":
        key = draw(st.sampled_from(sorted(entry["scores"])))
        off = [2, -1, 0.5, "0", None, [1]] if key == "is_refusal" else [0, 6, -1, 2.5, "4", None, [1], 11, True]
        entry["scores"][key][0] = draw(st.sampled_from(off))
    elif kind == "length":
        entry["scores"][draw(st.sampled_from(sorted(entry["scores"])))].pop()
    elif kind == "messages":
        how = draw(st.sampled_from(["first", "swap", "role", "content"]))
        if how == "first":
            del entry["messages"][0]
        elif how == "swap":
            entry["messages"][0], entry["messages"][1] = entry["messages"][1], entry["messages"][0]
        elif how == "role":
            entry["messages"][0]["role"] = draw(st.sampled_from(["tester", "", None, 3]))
        else:
            entry["messages"][0]["content"] = draw(not_text.filter(lambda v: v is not None))
    elif kind == "char_name":
        entry["character"]["char_name"] = draw(st.one_of(st.just(""), not_text))
    elif kind == "outputs":
        doc["outputs"] = draw(not_text.filter(lambda v: not isinstance(v, list)))
    elif kind == "model":
        doc[draw(st.sampled_from(["player", "judge"]))] = draw(st.one_of(
            not_text, st.just({"model_name": 3}), st.just({})))
    elif kind == "breaker":
        _, raw = _breaker(draw)
        return _with_raw(doc, ["outputs", 0, "character", "x"], raw)
    else:
        whole = dumps(doc)
        return whole[: draw(st.integers(1, len(whole) - 2))]
    return doc


# -- the file in a scratch folder, run through the CLI ------------------------

@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    return tmp_path_factory.mktemp("fuzz-files")


def _write(folder, suffix: str, data: bytes):
    path = folder / f"f{uuid.uuid4().hex[:8]}{suffix}"
    path.write_bytes(data)
    return path


def _refused(seeded, *args: str) -> str:
    line = refused(seeded.root, *args)
    seeded.assert_unchanged()
    return line


@FUZZ
@given(data=bad_card_yaml, command=st.sampled_from(["validate", "import"]))
def test_bad_yaml_cards_are_refused(seeded, scratch, data, command):
    path = _write(scratch, ".yaml", data)
    assert str(path) in _refused(seeded, "cards", command, str(path))


@FUZZ
@given(data=bad_card_json(), command=st.sampled_from(["validate", "import"]))
def test_bad_json_cards_are_refused(seeded, scratch, data, command):
    path = _write(scratch, ".json", data)
    assert str(path) in _refused(seeded, "cards", command, str(path))


@FUZZ
@given(data=bad_png(), command=st.sampled_from(["validate", "import"]))
def test_bad_png_cards_are_refused(seeded, scratch, data, command):
    path = _write(scratch, ".png", data)
    assert str(path) in _refused(seeded, "cards", command, str(path))


@FEW
@given(data=bad_charx(), command=st.sampled_from(["validate", "import"]))
def test_bad_charx_cards_are_refused(seeded, scratch, data, command):
    path = _write(scratch, ".charx", data)
    assert str(path) in _refused(seeded, "cards", command, str(path))


@pytest.fixture(scope="module")
def exported(seeded, tmp_path_factory) -> tuple[dict, dict]:
    """The seeded home's session as our JSONL line and as a PingPong results file."""
    out = tmp_path_factory.mktemp("exported")
    at = ("--home", str(seeded.root))
    assert cli("export", "--format", "jsonl", "--out", str(out / "all.jsonl"), *at).rc == 0
    assert cli("export", "--format", "pingpong", "--out", str(out / "results"), *at).rc == 0
    seeded.assert_unchanged()
    (results,) = (out / "results").glob("*/*.json")
    return json.loads((out / "all.jsonl").read_text(encoding="utf-8")), json.loads(results.read_text(encoding="utf-8"))


def _as_bytes(doc: dict | bytes) -> bytes:
    return doc if isinstance(doc, bytes) else dumps(doc)


@FUZZ
@given(data=st.data(), second=st.booleans())
def test_bad_session_lines_are_refused_and_named(seeded, scratch, exported, data, second):
    """A bad line (alone, or after a good one) refuses the whole file, naming the line."""
    good, _ = exported
    fresh = {**good, "created_at": "1999-01-01T00:00:00.000+00:00"}
    lines = [dumps(fresh)] if second else []
    lines.append(_as_bytes(data.draw(bad_session_line(good))))
    path = _write(scratch, ".jsonl", b"\n".join(lines) + b"\n")
    line = _refused(seeded, "import", str(path))
    assert str(path) in line
    if second:
        assert f"{path}: line 2: " in line


@FUZZ
@given(data=st.data())
def test_bad_results_files_are_refused(seeded, scratch, exported, data):
    _, good = exported
    path = _write(scratch, ".json", _as_bytes(data.draw(bad_results(good))))
    assert str(path) in _refused(seeded, "import", str(path))


@FEW
@given(data=st.one_of(junk_bytes, yamlish.map(str.encode)).filter(lambda b: b.decode("utf-8-sig", "replace").strip()))
def test_junk_import_files_are_refused(seeded, scratch, data):
    """(A blank file is what `export` writes for an empty database: it imports as nothing.)"""
    path = _write(scratch, ".jsonl", data)
    assert str(path) in _refused(seeded, "import", str(path))


@FUZZ
@given(data=bad_toml())
def test_bad_configs_are_refused(seeded, scratch, data):
    path = _write(scratch, ".toml", data)
    assert str(path) in _refused(seeded, "models", "--no-check", "--config", str(path))


HOME_FILES = {  # kind -> (folder in the home, bad files, the listing that reads them)
    "characters": ("characters", bad_card_yaml, ("cards", "list")),
    "situations": ("situations", bad_situation_yaml, ("situations", "list")),
    "seeds": ("situations/dmt", bad_seed_yaml, ("situations", "list", "--method", "dmt")),
}


@FEW
@given(kind=st.sampled_from(sorted(HOME_FILES)), data=st.data())
def test_a_bad_file_in_the_home_is_skipped_with_one_warning(seeded, kind, data):
    where, files, listing = HOME_FILES[kind]
    folder = seeded.root / where
    folder.mkdir(parents=True, exist_ok=True)
    path = _write(folder, ".yaml", data.draw(files))
    try:
        result = cli(*listing, "--format", "json", "--home", str(seeded.root))
        assert path.name in one_warning(result)
    finally:
        path.unlink()
    seeded.assert_unchanged()


@FUZZ
@given(kind=st.sampled_from(["probes", "rolebench"]), data=st.data())
def test_bad_probe_and_question_sets_are_skipped_with_one_problem(tmp_path_factory, kind, data):
    """No command lists these yet: their libraries (what runs use) skip a bad user file and keep
    one line naming it. No bundled sets, so each example reads only the file under test."""
    home = tmp_path_factory.mktemp("sets-home")
    folder = home / "situations" / kind
    folder.mkdir(parents=True)
    path = _write(folder, ".yaml", data.draw(bad_probe_yaml if kind == "probes" else bad_question_yaml))
    empty = home / "no-bundled-sets"
    empty.mkdir()
    library = ProbeLibrary if kind == "probes" else QuestionLibrary
    found = library(Home(home), bundled_dir=empty)
    assert found.all() == []
    (problem,) = found.problems
    assert problem.startswith(f"{path}: ") and "\n" not in problem


@FEW
@given(broken=st.sampled_from(BROKEN_TEMPLATES), before=st.text(alphabet="ab \n.", max_size=30),
       name=st.sampled_from(["player_system.j2", "judge_user.j2", "extra.j2"]))
def test_broken_template_overrides_are_refused_at_start(tmp_path_factory, broken, before, name):
    home = tmp_path_factory.mktemp("templates-home")
    (home / "templates").mkdir()
    (home / "templates" / name).write_text(before + broken, encoding="utf-8")
    line = refused(home, "models", "--no-check")
    assert name in line


@FEW
@given(bad=st.sampled_from(["\n", "\r", "\x01", "\t", "é", "\u2028", "\x7f", "ключ"]),
       tail=st.text(alphabet="abc123-", max_size=10))
def test_keys_a_header_cannot_carry_are_refused_unshown(tmp_path_factory, bad, tail):
    home = tmp_path_factory.mktemp("key-home")
    (home / "config.toml").write_text('[models.x]\nbase_url = "https://api.example.invalid/v1"\nmodel = "m"\n'
                                      'api_key_env = "PINGPONG_FUZZ_KEY"\n', encoding="utf-8")
    os.environ["PINGPONG_FUZZ_KEY"] = "sk-SECRET" + bad + tail
    try:
        result = cli("run", "--player", "x", "--interrogator", "offline", "--judge", "offline",
                     "--characters", "tally", "--situations", "casual-greeting", "--home", str(home))
    finally:
        del os.environ["PINGPONG_FUZZ_KEY"]
    line = one_error(result)
    assert "PINGPONG_FUZZ_KEY" in line and "'x'" in line
    assert "SECRET" not in result.err + result.out
    assert not (home / "pingpong.db").exists()


# -- inputs that crash the interpreter without the guard: in a child process ---

@pytest.mark.parametrize("name,text", [
    ("flow.yaml", "name: x\nextensions: " + "[" * 30000 + "]" * 30000 + "\n"),
    ("block.yaml", "name: x\nextensions:\n  " + "- " * 30000 + "x\n"),
    ("maps.yaml", "name: x\nextensions: " + "{a: " * 30000 + "1" + "}" * 30000 + "\n"),
], ids=["flow", "block", "maps"])
def test_yaml_nested_tens_of_thousands_deep_is_refused_not_a_crash(seeded, tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    line = one_error(cli_process("cards", "validate", str(path), "--home", str(seeded.root)))
    assert f"{path}: nested deeper than 64 levels" in line
    folder = seeded.root / "characters"
    folder.mkdir(exist_ok=True)
    (folder / name).write_text(text, encoding="utf-8")
    try:
        listing = cli_process("cards", "list", "--format", "json", "--home", str(seeded.root))
    finally:
        (folder / name).unlink()
    assert name in one_warning(listing)
    seeded.assert_unchanged()


@given(text=st.text(alphabet=st.sampled_from(["a", "я", "\n", "\r", "\u2028", " ", "{"]), max_size=40))
def test_a_big_jsonl_file_is_split_into_the_same_lines_one_at_a_time(text):
    """Import walks a file's lines one at a time (a list of them all doubled a big file's memory):
    they are the lines the whole-file split gives, at newlines only."""
    from pingpong.sessions.exchange_jsonl import jsonl_lines, line_spans

    data = text.encode("utf-8")
    assert [data[start:end].decode("utf-8") for start, end in line_spans(data)] == jsonl_lines(text)
