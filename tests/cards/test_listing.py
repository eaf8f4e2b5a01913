"""`cards list` reads cards without pydantic (characters.listing): it must list exactly what the
card library holds, refuse exactly what the model refuses, and keep its bundled index current."""

from __future__ import annotations

import shutil

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from pingpong.characters.library import BUNDLED_DIR, CardLibrary, CardListing
from pingpong.characters.listing import CARD_FIELDS, INDEX_NAME, REQUIRED, CardEntry, index_text, plainly_valid
from pingpong.core.domain import Character
from pingpong.core.home import Home

CARD_SCHEMA = {
    "$defs": {"ExampleTurn": {"additionalProperties": False, "properties": {"user": {"type": "string"},
                                                                            "char": {"type": "string"}},
                              "required": ["user", "char"], "type": "object"}},
    "additionalProperties": False,
    "properties": {
        "name": {"pattern": "^[a-z0-9][a-z0-9_-]*$", "type": "string"},
        "char_name": {"minLength": 1, "type": "string"},
        "lang": {"pattern": "^[a-z]{2}$", "type": "string"},
        "summary": {"minLength": 1, "type": "string"},
        "persona": {"minLength": 1, "type": "string"},
        "example_dialogue": {"items": {"$ref": "#/$defs/ExampleTurn"}, "type": "array"},
        "example_text": {"type": "string"},
        "greeting": {"type": "string"},
        "catchphrases": {"items": {"type": "string"}, "type": "array"},
        "tags": {"items": {"type": "string"}, "type": "array"},
        "source_kind": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        "role_type": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        "prompt_style": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        "extensions": {"additionalProperties": True, "type": "object"},
        "origin": {"anyOf": [{"type": "string"}, {"type": "null"}]},
    },
    "required": ["name", "char_name", "lang", "summary", "persona"],
    "type": "object",
}
"""The card model as characters.listing's rules know it (descriptions, titles and defaults aside)."""

GOOD = {"name": "zed", "char_name": "Zed", "lang": "en", "summary": "A test card.", "persona": "Zed tests."}


def _bare(schema):
    if isinstance(schema, dict):
        return {k: _bare(v) for k, v in schema.items() if k not in ("description", "title", "default")}
    if isinstance(schema, list):
        return [_bare(v) for v in schema]
    return schema


def test_the_listing_rules_know_the_card_model_as_it_is():
    """A changed card model must change characters.listing with it (else a listing could show a
    card the model refuses): this fails until both say the same."""
    assert _bare(Character.model_json_schema()) == CARD_SCHEMA
    assert set(CARD_FIELDS) == set(CARD_SCHEMA["properties"]) and REQUIRED == set(CARD_SCHEMA["required"])


def test_the_bundled_index_is_current():
    assert (BUNDLED_DIR / INDEX_NAME).read_text(encoding="utf-8") == index_text(BUNDLED_DIR), (
        "a bundled card changed: run `python -m pingpong.characters.listing` to write the index again")


def _library_view(home: Home, bundled=None):
    lib = CardLibrary(home, bundled_dir=bundled)
    cards = lib.all()
    return [CardEntry.of(c) for c in cards], [lib.source(c.name) for c in cards], lib.problems


def _listing_view(home: Home, bundled=None):
    listing = CardListing(home, bundled_dir=bundled)
    cards = listing.all()
    return cards, [listing.source(c.name) for c in cards], listing.problems


def test_the_listing_is_the_library_with_user_cards_good_and_bad(tmp_path):
    home = Home(tmp_path / "home")
    folder = home.characters_dir
    folder.mkdir(parents=True)
    docs = {
        "full": {**GOOD, "name": "full", "example_dialogue": [{"user": "hi", "char": "yo"}], "tags": ["a"],
                 "catchphrases": ["c"], "source_kind": "game", "extensions": {"x": [1, {"y": None}]}},
        "tally": {**GOOD, "name": "tally", "char_name": "Another Tally"},  # replaces the bundled one
        "extra": {**GOOD, "name": "extra", "colour": "red"},
        "no-persona": {k: v for k, v in GOOD.items() if k != "persona"} | {"name": "no-persona"},
        "tags-text": {**GOOD, "name": "tags-text", "tags": "a"},
        "upper": {**GOOD, "name": "Upper"},
        "newline": {**GOOD, "name": "newline\n"},
        "twin-a": {**GOOD, "name": "twin"},
        "twin-b": {**GOOD, "name": "twin", "char_name": "Twin B"},
    }
    for stem, doc in docs.items():
        (folder / f"{stem}.yaml").write_text(yaml.safe_dump(doc, allow_unicode=True), encoding="utf-8")
    (folder / "broken.yaml").write_text("name: x\npersona: [oops\n", encoding="utf-8")
    listed = _listing_view(home)
    assert listed == _library_view(home)
    entries, sources, problems = listed
    assert {e.name: s for e, s in zip(entries, sources) if s == "user"} == {"full": "user", "tally": "user",
                                                                            "twin": "user"}
    assert len(problems) == 7


def test_a_bundled_card_changed_after_the_index_is_read_again(tmp_path):
    bundled = tmp_path / "bundled"
    shutil.copytree(BUNDLED_DIR, bundled)
    card = bundled / "tally.yaml"
    card.write_text(card.read_text(encoding="utf-8").replace("char_name: ", "char_name: Changed ", 1),
                    encoding="utf-8")
    home = Home(tmp_path / "home")
    listed = _listing_view(home, bundled)
    assert listed == _library_view(home, bundled)
    assert next(e for e in listed[0] if e.name == "tally").char_name.startswith("Changed ")


NEAR_MISSES = {
    "name with a final newline": {"name": "zed\n"}, "lang with a final newline": {"lang": "en\n"},
    "capital name": {"name": "Zed"}, "capital lang": {"lang": "EN"}, "accented name": {"name": "zéd"},
    "empty char_name": {"char_name": ""}, "empty persona": {"persona": ""}, "a number in tags": {"tags": ["a", 1]},
    "tags as text": {"tags": "a"}, "turn without char": {"example_dialogue": [{"user": "a"}]},
    "turn with more": {"example_dialogue": [{"user": "a", "char": "b", "x": "c"}]},
    "turn as text": {"example_dialogue": ["a"]}, "true greeting": {"greeting": True}, "number greeting": {"greeting": 1},
    "number kind": {"source_kind": 1}, "extensions as a list": {"extensions": []}, "unknown field": {"colour": "red"},
    "null lang": {"lang": None},
}


@pytest.mark.parametrize("change", NEAR_MISSES.values(), ids=NEAR_MISSES.keys())
def test_near_misses_are_left_to_the_model(change):
    card = {**GOOD, **change}
    assert not plainly_valid(card)
    with pytest.raises(ValidationError):
        Character.model_validate(card)


def test_a_card_without_persona_is_left_to_the_model():
    assert not plainly_valid({k: v for k, v in GOOD.items() if k != "persona"})


TEXTS = st.sampled_from(["", "x", "Zed", "zed", "Upper", "en", "eng", "ru", "a\n", "z-1_b", "é", "10"])
VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.floats(allow_nan=False, allow_infinity=False), TEXTS),
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(st.sampled_from(["user", "char", "x"]), inner, max_size=3)),
    max_leaves=6)
"""Any plain YAML value."""
TEXT_LISTS = st.lists(TEXTS, max_size=3)
LIKELY = {  # values of the right shape for each field (some still out of bounds: "", "Upper", "eng")
    "name": TEXTS, "char_name": TEXTS, "lang": TEXTS, "summary": TEXTS, "persona": TEXTS, "example_text": TEXTS,
    "greeting": TEXTS, "catchphrases": TEXT_LISTS, "tags": TEXT_LISTS, "source_kind": st.none() | TEXTS,
    "role_type": st.none() | TEXTS, "prompt_style": st.none() | TEXTS, "origin": st.none() | TEXTS,
    "example_dialogue": st.lists(st.fixed_dictionaries({"user": TEXTS, "char": TEXTS}), max_size=2),
    "extensions": st.dictionaries(TEXTS, VALUES, max_size=2), "colour": TEXTS,
}


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fields=st.sets(st.sampled_from(sorted(LIKELY)), max_size=4),
       dropped=st.sampled_from([(), (), (), ("persona",), ("name",)]), data=st.data())
def test_what_the_listing_takes_as_it_is_the_model_takes_unchanged(fields, dropped, data):
    changes = {f: data.draw(st.one_of(LIKELY[f], LIKELY[f], LIKELY[f], VALUES), label=f) for f in sorted(fields)}
    card = {k: v for k, v in {**GOOD, **changes}.items() if k not in dropped}
    if not plainly_valid(card):
        return  # the model decides, as everywhere
    assert Character.model_validate(card).model_dump(exclude_unset=True) == card
