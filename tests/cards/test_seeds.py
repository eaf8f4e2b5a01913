"""DMT seeds: the Seed model, the seed library, and the bundled seeds against the bundled cards."""

from __future__ import annotations

from collections import defaultdict

import pytest
from pydantic import ValidationError

from pingpong.characters.library import CardLibrary
from pingpong.core.domain import Intent
from pingpong.core.errors import UserError
from pingpong.core.methods.dmt_rules import ROLE_TYPES
from pingpong.core.methods.dmt_seed import Seed
from pingpong.situations.library import SituationLibrary
from pingpong.situations.seeds import BUNDLED_DMT_DIR, SeedLibrary, load_seed_file

SEED = (
    "name: ranger-lost-trail\nlang: en\ncharacter: ranger\ntopic: a lost hiker\nintent: professional_skill\n"
    "initial_query: I think I'm lost, which way to the lodge?\n"
    "goal: The ranger has given clear directions back to the lodge.\n"
)


def _bundled_seeds() -> list[Seed]:
    return SeedLibrary().all()


# --- the model ---------------------------------------------------------------------------------


def test_defaults():
    seed = Seed.model_validate({"name": "x", "lang": "en", "character": "c", "topic": "t",
                                "intent": "game_interaction", "initial_query": "q", "goal": "g"})
    assert seed.max_rounds == 6 and seed.tags == [] and seed.intent is Intent.game_interaction


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"max_rounds": 0}, "max_rounds"),
        ({"max_rounds": 21}, "max_rounds"),
        ({"intent": "small_talk"}, "intent"),
        ({"name": "Has Spaces"}, "name"),
        ({"lang": "eng"}, "lang"),
        ({"topic": ""}, "topic"),
        ({"colour": "red"}, "colour"),
    ],
)
def test_bad_seeds_are_refused(change, field):
    data = {"name": "x", "lang": "en", "character": "c", "topic": "t", "intent": "game_interaction",
            "initial_query": "q", "goal": "g", **change}
    with pytest.raises(ValidationError) as info:
        Seed.model_validate(data)
    assert info.value.errors()[0]["loc"] == (field,)


def test_bad_seed_file_gives_one_line(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text(SEED + "max_rounds: 40\n", encoding="utf-8")
    with pytest.raises(UserError, match=r"bad\.yaml: max_rounds: .*less than or equal to 20 \(line 8\)"):
        load_seed_file(path)


# --- the library -------------------------------------------------------------------------------


def test_user_seed_in_a_temp_home_is_listed(home):
    folder = home.situations_dir / "dmt"
    folder.mkdir(parents=True)
    (folder / "ranger-lost-trail.yaml").write_text(SEED, encoding="utf-8")
    lib = SeedLibrary(home)
    assert lib.get("ranger-lost-trail").character == "ranger"
    assert lib.source("ranger-lost-trail") == "user"
    assert [s.name for s in lib.for_character("ranger")] == ["ranger-lost-trail"]
    assert [s.name for s in lib.all("en")] == sorted(s.name for s in lib.all("en"))
    assert len(lib.all()) == len(_bundled_seeds()) + 1
    assert lib.problems == []


def test_broken_user_seed_is_skipped_with_a_problem_line(home):
    folder = home.situations_dir / "dmt"
    folder.mkdir(parents=True)
    (folder / "ok.yaml").write_text(SEED, encoding="utf-8")
    (folder / "broken.yaml").write_text(SEED.replace("intent: professional_skill", "intent: chatting"),
                                        encoding="utf-8")
    lib = SeedLibrary(home)
    names = lib.names()
    assert "ranger-lost-trail" in names and len(names) == len(_bundled_seeds()) + 1
    assert len(lib.problems) == 1
    assert "broken.yaml: intent:" in lib.problems[0] and "\n" not in lib.problems[0]


def test_user_seed_replaces_the_bundled_one_of_the_same_name(home):
    bundled = _bundled_seeds()[0]
    path = SeedLibrary(home).save(bundled.model_copy(update={"max_rounds": 2}))
    assert path.parent == home.situations_dir / "dmt"
    lib = SeedLibrary(home)
    assert lib.get(bundled.name).max_rounds == 2 and lib.source(bundled.name) == "user"
    assert load_seed_file(path) == bundled.model_copy(update={"max_rounds": 2})
    assert len(lib.all()) == len(_bundled_seeds())


def test_for_character_filters_by_language_too(home):
    folder = home.situations_dir / "dmt"
    folder.mkdir(parents=True)
    (folder / "a.yaml").write_text(SEED, encoding="utf-8")
    (folder / "b.yaml").write_text(SEED.replace("ranger-lost-trail", "ranger-ru").replace("lang: en", "lang: ru"),
                                   encoding="utf-8")
    lib = SeedLibrary(home, bundled_dir=home.root / "nowhere")
    assert [s.name for s in lib.for_character("ranger")] == ["ranger-lost-trail", "ranger-ru"]
    assert [s.name for s in lib.for_character("ranger", lang="ru")] == ["ranger-ru"]
    assert lib.for_character("nobody") == []


# --- the bundled seeds -------------------------------------------------------------------------


def test_every_bundled_seed_loads_and_is_named_after_its_file():
    files = sorted(BUNDLED_DMT_DIR.glob("*.yaml"))
    assert len(files) >= 44
    for path in files:
        seed = load_seed_file(path)
        assert seed.name == path.stem
        assert path.stem.startswith(seed.character + "-"), path.name
        assert 3 <= seed.max_rounds <= 8, path.name
    lib = SeedLibrary()
    assert len(lib.all()) == len(files) and lib.problems == []


def test_bundled_seeds_point_at_bundled_cards_of_the_same_language():
    cards = CardLibrary()
    for seed in _bundled_seeds():
        card = cards.get(seed.character)
        assert cards.source(seed.character) == "bundled"
        assert card.lang == seed.lang, seed.name


def test_every_bundled_character_has_at_least_two_seeds():
    counts: dict[str, int] = defaultdict(int)
    for seed in _bundled_seeds():
        counts[seed.character] += 1
    cards = CardLibrary().all()
    assert len(cards) == 22
    short = {card.name: counts[card.name] for card in cards if counts[card.name] < 2}
    assert not short, short


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_each_language_covers_every_intent_and_role_type(lang):
    cards = CardLibrary()
    seeds = SeedLibrary().all(lang)
    assert {seed.intent for seed in seeds} == set(Intent)
    assert {cards.get(seed.character).role_type for seed in seeds} == set(ROLE_TYPES)


def test_bundled_seeds_vary_in_length_and_do_not_repeat_queries():
    seeds = _bundled_seeds()
    assert len({seed.max_rounds for seed in seeds}) >= 4
    assert len({seed.initial_query for seed in seeds}) == len(seeds)
    assert len({seed.goal for seed in seeds}) == len(seeds)


def test_seeds_stay_out_of_the_situation_library():
    assert SituationLibrary().names().isdisjoint(SeedLibrary().names())
