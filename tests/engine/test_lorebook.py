"""Lorebook entries switch on as SillyTavern users expect: keys, secondary keys, constant, case, regex, order."""

from __future__ import annotations

import pytest

from pingpong.core.domain import Character
from pingpong.core.lorebook import AND_ALL, AND_ANY, NOT_ALL, NOT_ANY, active_entries, character_book

FOREST = "The Hollowmere forest is older than the kingdom; its paths move at night."
EDGE = "The warden cannot step past the forest's edge."
RIVER = "The river Sable can only be crossed at the old stone bridge."
ASH = "Ash is the warden's tame raven."
WOLVES = "Grey wolves hunt in packs along the northern ridge."


def _book(*entries: dict, **book) -> dict:
    return {"name": "Hollowmere", "extensions": {}, "entries": list(entries), **book}


def _entry(keys: list[str], content: str, order: int = 100, **extra) -> dict:
    return {"keys": keys, "content": content, "enabled": True, "insertion_order": order, "extensions": {}, **extra}


BOOK = _book(
    _entry(["forest", "woods"], FOREST, 20),
    _entry([], EDGE, 5, constant=True),
    _entry(["forest"], "A disabled entry never shows.", 1, enabled=False),
    _entry(["Ash"], ASH, 30, case_sensitive=True),
    _entry(["/\\bwol(f|ves)\\b/i"], WOLVES, 40),
)


def test_a_forest_message_brings_the_forest_entry():
    assert active_entries(BOOK, ["Hello there.", "I got lost in the forest last night."]) == [EDGE, FOREST]
    assert active_entries(BOOK, ["Hello there.", "I got lost in the city last night."]) == [EDGE]


def test_constant_entries_need_no_messages_and_disabled_ones_never_show():
    assert active_entries(BOOK, []) == [EDGE]
    book = _book(_entry([], EDGE, constant=True, enabled=False), _entry(["forest"], FOREST, enabled=False))
    assert active_entries(book, ["the forest"]) == []


def test_keys_ignore_case_unless_the_entry_says_otherwise():
    assert active_entries(BOOK, ["THE WOODS ARE DARK"]) == [EDGE, FOREST]
    assert active_entries(BOOK, ["Ash flew off."]) == [EDGE, ASH]
    assert active_entries(BOOK, ["the ash tree fell"]) == [EDGE]
    by_extension = _book(_entry(["Ash"], ASH, extensions={"case_sensitive": True}))
    assert active_entries(by_extension, ["ash"]) == [] and active_entries(by_extension, ["Ash"]) == [ASH]


def test_regex_keys_with_flags():
    assert active_entries(BOOK, ["I heard WOLVES howl"]) == [EDGE, WOLVES]
    assert active_entries(BOOK, ["a werewolfish grin"]) == [EDGE]  # \b in the pattern is honoured
    sensitive = _book(_entry(["/^Raven$/m"], ASH))
    assert active_entries(sensitive, ["first line\nRaven\nlast"]) == [ASH]
    assert active_entries(sensitive, ["first line\nraven\nlast"]) == []
    named = _book(_entry(["/(?<beast>bear|boar)s?/"], WOLVES))
    assert active_entries(named, ["two boars"]) == [WOLVES]
    broken = _book(_entry(["/(unclosed/"], FOREST))  # does not compile: matched as plain text
    assert active_entries(broken, ["see /(unclosed/ here"]) == [FOREST]
    assert active_entries(broken, ["unclosed"]) == []


@pytest.mark.parametrize(("logic", "text", "active"), [
    (AND_ANY, "the river and the bridge", True),
    (AND_ANY, "the river alone", False),
    (NOT_ALL, "the river, the bridge and the ferry", False),
    (NOT_ALL, "the river and the bridge", True),
    (NOT_ANY, "the river and the ferry", False),
    (NOT_ANY, "the river alone", True),
    (AND_ALL, "the river and the bridge", False),
    (AND_ALL, "the river, the ferry, the bridge", True),
    (AND_ALL, "the bridge and the ferry, no water", False),  # the primary key is always needed
])
def test_selective_logic(logic, text, active):
    entry = _entry(["river"], RIVER, selective=True, secondary_keys=["bridge", "ferry"],
                   extensions={"selectiveLogic": logic})
    assert active_entries(_book(entry), [text]) == ([RIVER] if active else [])


def test_secondary_keys_count_only_when_selective():
    entry = _entry(["river"], RIVER, selective=False, secondary_keys=["bridge"])
    assert active_entries(_book(entry), ["the river alone"]) == [RIVER]
    default_logic = _entry(["river"], RIVER, selective=True, secondary_keys=["bridge"])
    assert active_entries(_book(default_logic), ["the river alone"]) == []  # AND ANY by default
    assert active_entries(_book(default_logic), ["the river by the bridge"]) == [RIVER]


def test_scan_depth_limits_the_messages_read():
    old_mention = ["We met in the forest.", "Then what?", "Then nothing."]
    assert active_entries(BOOK, old_mention) == [EDGE]  # SillyTavern's default: the last 2 messages
    assert active_entries(BOOK, old_mention, scan_depth=3) == [EDGE, FOREST]
    assert active_entries({**BOOK, "scan_depth": 3}, old_mention) == [EDGE, FOREST]
    assert active_entries({**BOOK, "scan_depth": 3}, old_mention, scan_depth=1) == [EDGE]  # the caller wins
    assert active_entries(BOOK, ["forest"], scan_depth=0) == [EDGE]
    deep = _book(_entry(["forest"], FOREST, extensions={"scan_depth": 5}))
    assert active_entries(deep, old_mention, scan_depth=1) == [FOREST]  # an entry's own depth wins


def test_insertion_order_lower_first_and_ties_keep_the_book_order():
    book = _book(_entry(["x"], "third", 50), _entry(["x"], "first", -3), _entry(["x"], "second", 10),
                 _entry(["x"], "fourth", 50))
    assert active_entries(book, ["x"]) == ["first", "second", "third", "fourth"]


def test_whole_words_when_asked():
    book = _book(_entry(["elf"], "Elves keep to the hills.", extensions={"match_whole_words": True}))
    assert active_entries(book, ["a shelf of books"]) == []
    assert active_entries(book, ["an elf, tall"]) == ["Elves keep to the hills."]
    assert active_entries(_book(_entry(["elf"], "any")), ["a shelf"]) == ["any"]  # substring by default


def test_sillytavern_world_file_shape():
    world = {"entries": {
        "0": {"uid": 0, "key": ["forest"], "keysecondary": ["night"], "selective": True, "selectiveLogic": NOT_ANY,
              "content": FOREST, "order": 7, "disable": False, "constant": False},
        "1": {"uid": 1, "key": ["forest"], "content": "disabled", "disable": True},
        "2": {"uid": 2, "key": [], "content": EDGE, "constant": True, "order": 9},
    }}
    assert active_entries(world, ["the forest by day"]) == [FOREST, EDGE]
    assert active_entries(world, ["the forest at night"]) == [EDGE]


@pytest.mark.parametrize("book", [
    {}, {"entries": None}, {"entries": "nope"},
    {"entries": [None, 3, "x", {"keys": "forest", "content": 5}, {"keys": [1, None], "content": "odd"},
                 {"keys": ["forest"], "content": "   "}, {"keys": ["forest"]}]},
])
def test_malformed_books_give_nothing_instead_of_failing(book):
    assert active_entries(book, ["the forest"]) == []


def test_comma_separated_keys_and_odd_values_are_read_leniently():
    book = {"scan_depth": "three", "entries": [
        {"keys": "cave, forest", "content": FOREST, "insertion_order": "first", "selective": "yes",
         "secondary_keys": ["never"]},
    ]}
    assert active_entries(book, ["into the forest"]) == [FOREST]


def test_character_book_is_found_where_the_importers_keep_it():
    def card(extensions: dict) -> Character:
        return Character(name="w", char_name="W", lang="en", summary="s", persona="p", extensions=extensions)

    assert character_book(card({"source_card": {"spec": "chara_card_v2", "character_book": BOOK}})) == BOOK
    assert character_book(card({"character_book": BOOK})) == BOOK
    assert character_book(card({"source_card": {"character_book": {"entries": []}}})) is None
    assert character_book(card({"source_card": "odd"})) is None
    assert character_book(card({})) is None


def test_a_pattern_that_backtracks_for_ever_gives_up_instead_of_hanging_the_session():
    """A card's `/(a|aa)+$/` against a long run of a's backtracks without end in Python's re: the key
    does not match that message, the other keys still work, and the whole check takes a moment."""
    import time

    greeting = "a" * 60 + "!"
    book = _book({"keys": ["/(a|aa)+$/"], "content": RIVER}, {"keys": ["/(?<bird>raven)/i"], "content": ASH})
    started = time.monotonic()
    assert active_entries(book, [greeting, "A RAVEN lands on the sill."]) == [ASH]
    assert time.monotonic() - started < 5  # Python's re alone would not end in a lifetime


@pytest.mark.parametrize("entries", [5, True, "forest", 2.5])
def test_a_book_whose_entries_are_no_list_is_no_book_and_a_run_with_its_card_plays(tmp_path, entries):
    """A foreign card's odd `character_book` is skipped as the module promises, not a TypeError per session."""
    import yaml

    from tests.runner.conftest import pingpong

    card = {"name": "lore-bad", "char_name": "Lore Bad", "lang": "en", "summary": "A keeper of a broken book.",
            "persona": "{{char}} keeps a book of lore.", "extensions": {"character_book": {"entries": entries}}}
    assert character_book(Character(**card)) is None
    (tmp_path / "characters").mkdir()
    (tmp_path / "characters" / "lore-bad.yaml").write_text(yaml.safe_dump(card), encoding="utf-8")
    done = pingpong(tmp_path, "run", "--player", "offline", "--interrogator", "offline", "--judge", "offline",
                    "--characters", "lore-bad", "--situations", "casual-greeting")
    assert done.rc == 0, done.out + done.err


def test_a_pattern_whose_repeats_multiply_past_reason_is_plain_text_not_minutes_of_compiling():
    """Compiling expands counted repeats: `((a{100}){100}){100}` is a million copies (seconds and
    hundreds of MB), `(?:x{60000}){60000}` billions. Such a key is read as the text it is."""
    key = "/((a{100}){100}){100}/"
    book = _book(_entry([key], FOREST))
    assert active_entries(book, ["a" * 2000]) == []
    assert active_entries(book, [f"someone typed {key} here"]) == [FOREST]
    assert active_entries(_book(_entry(["/(ab){3}c/"], FOREST)), ["xxababab c ababc"]) == []
    assert active_entries(_book(_entry(["/(ab){3}c/"], FOREST)), ["xx abababc"]) == [FOREST]
