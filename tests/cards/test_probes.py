"""RoleInteract files: the models refuse broken probes, the loaders find bundled and user files,
and every bundled probe set, padding pool and group scene is valid and big enough to score."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from pydantic import ValidationError

from pingpong.characters.library import CardLibrary
from pingpong.core.errors import UserError
from pingpong.core.methods.roleinteract_data import (
    DIMENSIONS,
    MEMORY_SHORT_LIMIT,
    ChoiceQuestion,
    GroupScene,
    MemoryProbe,
    ProbeSet,
    memory_dimension,
)
from pingpong.core.methods.roleinteract_rules import keyword_coverage, parse_choice
from pingpong.situations.probes import (
    BUNDLED_PROBES_DIR,
    BUNDLED_SCENES_DIR,
    ProbeLibrary,
    SceneLibrary,
    load_padding,
    load_probe_file,
)

# -- the models --------------------------------------------------------------------------------


def _question(**changes) -> dict:
    data = {"id": "q-01", "dimension": "emotion", "question": "What does she feel?",
            "options": {"A": "Joy", "B": "Fear", "C": "Anger"}, "answer": ["B"]}
    data.update(changes)
    return data


def _error(model, data) -> str:
    with pytest.raises(ValidationError) as info:
        model.model_validate(data)
    return str(info.value)


def test_a_good_question_keeps_its_options_in_letter_order():
    q = ChoiceQuestion.model_validate(_question(options={"B": "Fear", "A": "Joy"}))
    assert q.letters == ("A", "B") and q.correct == frozenset({"B"}) and not q.multiple


@pytest.mark.parametrize(("changes", "message"), [
    ({"options": {"A": "Joy", "C": "Anger"}}, "without gaps: expected A, B, found A, C"),
    ({"options": {"A": "Joy"}}, "expected 2 to 8 options, found 1"),
    ({"options": {letter: letter for letter in "ABCDEFGHI"}}, "expected 2 to 8 options, found 9"),
    ({"options": {"А": "Joy", "B": "Fear"}}, "option letter 'А' is Cyrillic; use the Latin 'A'"),
    ({"options": {"a": "Joy", "b": "Fear"}}, "option letter 'a' is not one of A, B"),
    ({"options": {"A": "Joy", "B": "  "}}, "option B is blank"),
    ({"answer": ["D"]}, "answer D is not one of the options (A, B, C)"),
    ({"answer": ["В"]}, "answer: option letter 'В' is Cyrillic; use the Latin 'B'"),
    ({"answer": ["A", "B"]}, "dimension emotion takes exactly one answer, found 2"),
    ({"answer": []}, "at least 1 item"),
    ({"dimension": "memory"}, "dimension"),
    ({"hint": "x"}, "Extra inputs are not permitted"),
    ({"question": "   "}, "question is blank"),
])
def test_broken_questions_are_refused_with_a_clear_message(changes, message):
    assert message in _error(ChoiceQuestion, _question(**changes))


def test_situation_questions_may_have_several_answers_but_not_twice_the_same():
    q = ChoiceQuestion.model_validate(_question(dimension="situation", answer=["A", "C"]))
    assert q.multiple and q.correct == frozenset({"A", "C"})
    assert "answer A is given twice" in _error(ChoiceQuestion, _question(dimension="situation", answer=["A", "A"]))


def test_options_may_be_numbers_in_yaml():
    q = ChoiceQuestion.model_validate(_question(options={"A": 1887, "B": 1891}, answer=["A"]))
    assert q.options == {"A": "1887", "B": "1891"}


def _memory(**changes) -> dict:
    data = {"id": "mem-01", "plant": "My dog is called Biscuit.", "padding": 10, "ask": "What is my dog called?",
            "keywords": ["Biscuit"]}
    data.update(changes)
    return data


def test_memory_probe_rules():
    assert "must be even (found 11)" in _error(MemoryProbe, _memory(padding=11))
    assert "greater than or equal to 0" in _error(MemoryProbe, _memory(padding=-2))
    assert "at least 1 item" in _error(MemoryProbe, _memory(keywords=[]))
    assert "keyword 2 is blank" in _error(MemoryProbe, _memory(keywords=["Biscuit", " "]))
    assert MemoryProbe.model_validate(_memory(keywords=[221])).keywords == ["221"]


@pytest.mark.parametrize(("padding", "dimension"), [
    (0, "memory_short"), (20, "memory_short"), (MEMORY_SHORT_LIMIT - 2, "memory_short"),
    (MEMORY_SHORT_LIMIT, "memory_long"), (60, "memory_long"),
])
def test_memory_dimension_counts_the_plant_and_its_reply(padding, dimension):
    assert memory_dimension(MemoryProbe.model_validate(_memory(padding=padding))) == dimension


def test_probe_set_ids_are_unique_across_questions_and_memory():
    data = {"character": "ranger", "lang": "en", "questions": [_question(id="x")], "memory": [_memory(id="x")]}
    assert "id 'x' is used by more than one" in _error(ProbeSet, data)
    assert "at least one question or memory probe" in _error(ProbeSet, {"character": "ranger", "lang": "en"})
    ok = ProbeSet.model_validate({**data, "memory": [_memory()]})
    assert [q.id for q in ok.by_dimension("emotion")] == ["x"] and ok.by_dimension("situation") == []


def _scene(**changes) -> dict:
    data = {"name": "harbour-dispute", "lang": "en", "setting": "A quay at dusk.", "opening": "The tide turns.",
            "tested": "a", "members": [{"character": "a", "preference": "positive"},
                                       {"character": "b", "preference": "negative"}],
            "rounds": 6, "questions": [_question(dimension="social_preference")]}
    data.update(changes)
    return data


def test_group_scene_rules():
    scene = GroupScene.model_validate(_scene())
    assert scene.tested_member.preference == "positive" and scene.member("b").preference == "negative"
    assert "'z' is not among the members (a, b)" in _error(GroupScene, _scene(tested="z"))
    one = [{"character": "a", "preference": "neutral"}]
    assert "2 to 10 members, found 1" in _error(GroupScene, _scene(members=one))
    many = [{"character": f"c{i}", "preference": "neutral"} for i in range(11)]
    assert "2 to 10 members, found 11" in _error(GroupScene, _scene(members=many, tested="c0"))
    assert "'a' is a member twice" in _error(GroupScene, _scene(members=one + one))
    assert "preference" in _error(GroupScene, _scene(members=[{"character": "a", "preference": "friendly"}] + one))
    assert "dimension social_preference, found emotion" in _error(GroupScene, _scene(questions=[_question()]))
    assert "greater than or equal to 1" in _error(GroupScene, _scene(rounds=0))


# -- the loaders ---------------------------------------------------------------------------------

PROBES = """character: ranger
lang: en
questions:
  - id: q-01
    dimension: emotion
    question: What does she feel?
    options: {A: Joy, B: Fear}
    answer: [B]
"""


@pytest.fixture
def probes_dir(tmp_path):
    folder = tmp_path / "probes"
    folder.mkdir()
    (folder / "ranger.yaml").write_text(PROBES, encoding="utf-8")
    (folder / "padding-en.yaml").write_text("lang: en\nlines: [Nice weather?, Any plans?]\n", encoding="utf-8")
    return folder


def test_probe_library_skips_padding_files_and_lets_user_sets_override(home, probes_dir):
    user = home.situations_dir / "probes"
    user.mkdir(parents=True)
    (user / "ranger.yaml").write_text(PROBES.replace("What does she feel?", "Mine?"), encoding="utf-8")
    (user / "ivan.yaml").write_text(PROBES.replace("ranger", "ivan").replace("lang: en", "lang: ru"), encoding="utf-8")
    lib = ProbeLibrary(home, bundled_dir=probes_dir)
    assert [(p.character, p.lang) for p in lib.all()] == [("ranger", "en"), ("ivan", "ru")]
    assert lib.get("ranger").questions[0].question == "Mine?"
    assert lib.source("ranger", "en") == "user" and lib.path("ivan", "ru") == user / "ivan.yaml"
    assert lib.characters("ru") == {"ivan"} and lib.find("ivan", "en") is None
    assert lib.problems == []


def test_probe_library_errors_name_the_problem(home, probes_dir):
    lib = ProbeLibrary(home, bundled_dir=probes_dir)
    with pytest.raises(UserError, match=r"no probe set for character 'rangr' \(did you mean: ranger\?\)"):
        lib.get("rangr")
    with pytest.raises(UserError, match=r"no probe set for character 'ranger' in 'ru'"):
        lib.get("ranger", "ru")


def test_probe_set_in_two_languages_needs_the_language(home, probes_dir):
    (probes_dir / "ranger-ru.yaml").write_text(PROBES.replace("lang: en", "lang: ru"), encoding="utf-8")
    lib = ProbeLibrary(home, bundled_dir=probes_dir)
    assert lib.get("ranger", "ru").lang == "ru"
    with pytest.raises(UserError, match=r"several languages \(en, ru\)"):
        lib.get("ranger")


def test_broken_user_probe_set_is_reported_not_fatal_but_a_broken_bundled_one_is(home, probes_dir):
    user = home.situations_dir / "probes"
    user.mkdir(parents=True)
    (user / "bad.yaml").write_text(PROBES.replace("answer: [B]", "answer: [C]"), encoding="utf-8")
    lib = ProbeLibrary(home, bundled_dir=probes_dir)
    assert [p.character for p in lib.all()] == ["ranger"]
    assert len(lib.problems) == 1
    assert "bad.yaml: questions.0: Value error, question q-01: answer C is not one of the options" in lib.problems[0]
    assert "(line 4)" in lib.problems[0]
    (probes_dir / "worse.yaml").write_text("character: ranger\nlang: english\nquestions: []\n", encoding="utf-8")
    with pytest.raises(UserError, match=r"worse.yaml: lang: String should match pattern"):
        ProbeLibrary(None, bundled_dir=probes_dir).all()


def test_padding_pool_user_file_wins_and_errors_are_one_line(home, probes_dir):
    assert load_padding("en", bundled_dir=probes_dir).lines == ["Nice weather?", "Any plans?"]
    user = home.situations_dir / "probes"
    user.mkdir(parents=True)
    (user / "padding-en.yaml").write_text("lang: en\nlines: [Mine?]\n", encoding="utf-8")
    assert load_padding("en", home, bundled_dir=probes_dir).lines == ["Mine?"]
    with pytest.raises(UserError, match=r"no padding pool for language 'de'"):
        load_padding("de", home, bundled_dir=probes_dir)
    (probes_dir / "padding-fr.yaml").write_text("lang: en\nlines: [Hello]\n", encoding="utf-8")
    with pytest.raises(UserError, match=r"lang is 'en', but the file name says 'fr'"):
        load_padding("fr", bundled_dir=probes_dir)


SCENE = """name: quay
lang: en
setting: A quay at dusk.
opening: The tide turns.
tested: a
members:
  - {character: a, preference: positive}
  - {character: b, preference: negative}
rounds: 2
questions:
  - id: q-01
    dimension: social_preference
    question: What does a do?
    options: {A: Helps, B: Leaves}
    answer: [A]
"""


def test_scene_library_loads_saves_and_reports(home, tmp_path):
    bundled = tmp_path / "scenes"
    bundled.mkdir()
    (bundled / "quay.yaml").write_text(SCENE, encoding="utf-8")
    lib = SceneLibrary(home, bundled_dir=bundled)
    scene = lib.get("quay")
    assert scene.tested == "a" and lib.source("quay") == "bundled"
    path = lib.save(scene.model_copy(update={"rounds": 5}))
    assert path == home.situations_dir / "scenes" / "quay.yaml"
    again = SceneLibrary(home, bundled_dir=bundled)
    assert again.get("quay").rounds == 5 and again.source("quay") == "user"
    (home.situations_dir / "scenes" / "bad.yaml").write_text(SCENE.replace("tested: a", "tested: z")
                                                               .replace("name: quay", "name: bad"), encoding="utf-8")
    third = SceneLibrary(home, bundled_dir=bundled)
    assert [s.name for s in third.all()] == ["quay"]
    assert "tested member 'z' is not among the members" in third.problems[0]


# -- the bundled files ---------------------------------------------------------------------------

CARDS = CardLibrary(None)
PROBE_SETS = ProbeLibrary(None).all()
SCENES = SceneLibrary(None).all()
PROBE_LANGS = sorted({"en"} | {p.lang for p in PROBE_SETS})
SCENE_LANGS = sorted({"en"} | {s.lang for s in SCENES})


def _fold(text: str) -> str:
    return text.casefold().replace("ё", "е")


def _card_lang(name: str) -> str:
    return CARDS.get(name).lang


def test_bundled_probe_sets_belong_to_bundled_cards_of_their_language():
    lib = ProbeLibrary(None)
    assert lib.problems == [] and PROBE_SETS
    for probes in PROBE_SETS:
        assert lib.path(probes.character, probes.lang).stem == probes.character
        assert _card_lang(probes.character) == probes.lang, probes.character


@pytest.mark.parametrize("lang", PROBE_LANGS)
def test_each_language_has_enough_probes_for_every_dimension(lang):
    sets = ProbeLibrary(None).all(lang)
    full = [p for p in sets if all(len(p.by_dimension(d)) >= 8 for d in DIMENSIONS)]
    assert len(full) >= 4, f"{lang}: {len(full)} characters with >= 8 questions in every dimension"
    kinds = Counter(memory_dimension(m) for p in sets for m in p.memory)
    assert kinds["memory_short"] >= 1 and kinds["memory_long"] >= 1, kinds


def test_english_sets_have_the_memory_probes_we_promise():
    for probes in ProbeLibrary(None).all("en"):
        short = [m.padding for m in probes.memory if memory_dimension(m) == "memory_short"]
        long = [m.padding for m in probes.memory if memory_dimension(m) == "memory_long"]
        assert len(short) >= 2 and all(8 <= p <= 20 for p in short), (probes.character, short)
        assert len(long) >= 2 and all(44 <= p <= 60 for p in long), (probes.character, long)


@pytest.mark.parametrize("probes", PROBE_SETS, ids=lambda p: f"{p.lang}-{p.character}")
def test_bundled_questions_are_well_built(probes):
    singles = Counter(q.answer[0] for q in probes.questions if not q.multiple)
    assert len(singles) >= 3, f"correct answers should not sit on one or two letters: {dict(singles)}"
    for q in probes.by_dimension("situation"):
        assert 4 <= len(q.options) <= 6, q.id
        assert 2 <= len(q.answer) < len(q.options), f"{q.id}: several correct options and at least one wrong"
        assert q.context, f"{q.id}: a situation question describes its scene"
    for q in probes.by_dimension("emotion"):
        assert q.context, f"{q.id}: an emotion question quotes the line it is about"
    for q in probes.questions:
        texts = [_fold(t.strip()) for t in q.options.values()]
        assert len(set(texts)) == len(texts), f"{q.id}: two options say the same"


@pytest.mark.parametrize("probes", PROBE_SETS, ids=lambda p: f"{p.lang}-{p.character}")
def test_an_option_quoted_in_a_reply_is_read_as_its_own_letter(probes):
    """A player that copies an option's text must not be scored as choosing a letter inside that text."""
    for q in probes.questions:
        for letter, text in q.options.items():
            assert parse_choice(text, q.letters, q.multiple) is None, f"{q.id} {letter}: its text names a letter"
            assert parse_choice(f"{letter}) {text}", q.letters, q.multiple) == {letter}, f"{q.id} {letter}"


@pytest.mark.parametrize("probes", PROBE_SETS, ids=lambda p: f"{p.lang}-{p.character}")
def test_memory_keywords_come_from_the_plant_and_are_not_given_away(probes):
    for m in probes.memory:
        for keyword in m.keywords:
            assert keyword_coverage(m.plant, [keyword]) == 1.0, f"{m.id}: '{keyword}' is not in the planted fact"
            assert keyword_coverage(m.ask, [keyword]) == 0.0, f"{m.id}: the question gives away '{keyword}'"


@pytest.mark.parametrize("lang", PROBE_LANGS)
def test_padding_pool_is_long_and_unrelated_to_the_planted_facts(lang):
    pool = load_padding(lang)
    assert pool.lang == lang
    assert len(pool.lines) >= (60 if lang == "en" else 40)
    assert len(set(pool.lines)) == len(pool.lines), "padding lines repeat"
    keywords = {_fold(k) for p in ProbeLibrary(None).all(lang) for m in p.memory for k in m.keywords}
    for line in pool.lines:
        for keyword in keywords:
            assert not re.search(rf"(?<!\w){re.escape(keyword)}(?!\w)", _fold(line)), (line, keyword)


def test_bundled_probe_folder_holds_only_probe_sets_and_padding_pools():
    for path in BUNDLED_PROBES_DIR.iterdir():
        assert path.suffix == ".yaml", path
        if not path.name.startswith("padding-"):
            assert load_probe_file(path).character == path.stem


def test_bundled_scenes_are_valid_and_their_members_exist():
    lib = SceneLibrary(None)
    assert lib.problems == []
    assert {p.stem for p in BUNDLED_SCENES_DIR.glob("*.yaml")} == lib.names()
    for scene in SCENES:
        assert lib.path(scene.name).stem == scene.name
        assert 3 <= len(scene.members) <= 6, scene.name
        for member in scene.members:
            assert _card_lang(member.character) == scene.lang, (scene.name, member.character)


def _majority_differs(scene: GroupScene) -> bool:
    """Some preference other than the tested member's is held by more than half of the other members."""
    others = [m.preference for m in scene.members if m.character != scene.tested]
    mine = scene.tested_member.preference
    return any(n * 2 > len(others) and pref != mine for pref, n in Counter(others).items())


@pytest.mark.parametrize("lang", SCENE_LANGS)
def test_each_language_has_scenes_that_put_the_tested_member_under_pressure(lang):
    scenes = SceneLibrary(None).all(lang)
    assert len(scenes) >= 3, f"{lang}: {len(scenes)} group scenes"
    assert any(_majority_differs(s) for s in scenes), f"{lang}: no scene where the majority prefers otherwise"


def test_majority_rule():
    def scene(*prefs):
        members = [{"character": f"c{i}", "preference": p} for i, p in enumerate(prefs)]
        return GroupScene.model_validate(_scene(members=members, tested="c0"))

    assert _majority_differs(scene("positive", "negative", "negative"))
    assert _majority_differs(scene("positive", "negative", "negative", "neutral"))
    assert not _majority_differs(scene("positive", "negative", "neutral"))
    assert not _majority_differs(scene("negative", "negative", "negative", "positive"))
