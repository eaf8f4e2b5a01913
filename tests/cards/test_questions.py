"""RoleBench question sets: the bundled ones load and fit our cards; the loader reports bad files in one line."""

from __future__ import annotations

import re

import pytest
from pydantic import ValidationError

from pingpong.characters.library import CardLibrary
from pingpong.core.errors import UserError
from pingpong.core.methods.rolebench_data import GeneralQuestion, GeneralSet, RoleSet
from pingpong.situations.library import SituationLibrary
from pingpong.situations.questions import BUNDLED_DIR, QuestionLibrary, load_question_file

ROLE_SETS = {
    "en": {"sherlock-holmes", "count-dracula", "don-quixote", "tally"},
    "ru": {"baba-yaga", "koschei", "dmitri-mendeleev", "domovoy-kuzmich"},
}
CYRILLIC = re.compile("[а-яё]", re.IGNORECASE)


def sentences(text: str) -> int:
    """Sentences in a reference answer: ends of sentence followed by a capital (stage directions in *...* skipped)."""
    text = re.sub(r"\*[^*]+\*", "", text).strip()
    return 1 + len(re.findall(r"(?<!\.\.)[.!?]+[»\"]?\s+(?=[A-ZА-ЯЁ«\"*])", text))


def all_answers(qset: GeneralSet | RoleSet) -> list[str]:
    found = [a for q in qset.questions for a in q.references]
    if isinstance(qset, GeneralSet):
        found += [a for q in qset.questions for answers in q.in_role.values() for a in answers]
    return found


@pytest.fixture(scope="module")
def library() -> QuestionLibrary:
    return QuestionLibrary()


def test_every_bundled_set_loads_under_its_file_name(library):
    sets = library.all()
    assert library.problems == []
    assert len(sets) == len(list(BUNDLED_DIR.glob("*.yaml"))) == 10
    for qset in sets:
        assert library.path(qset.name).stem == qset.name
        assert library.source(qset.name) == "bundled"


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_general_sets_have_plain_and_in_role_references_for_the_four_characters(library, lang):
    general = library.general(lang)
    assert general is not None and general.lang == lang and general.name == f"general-{lang}"
    assert len(general.questions) >= 10
    assert set(general.characters()) == ROLE_SETS[lang]
    for q in general.questions:
        assert q.references and q.instruction
        assert set(q.in_role) == ROLE_SETS[lang], q.id
        assert all(len(answers) >= 1 for answers in q.in_role.values())
        # an in-role answer is not the plain one restyled by copy: each differs from the reference
        assert all(a not in q.references for answers in q.in_role.values() for a in answers)


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_role_specific_sets_for_the_four_characters(library, lang):
    sets = library.role_sets(lang)
    assert {s.character for s in sets} == ROLE_SETS[lang]
    assert [s.character for s in sets] == sorted(s.character for s in sets)
    for qset in sets:
        assert qset.lang == lang and library.role_set(qset.character) is qset
        assert len(qset.questions) >= 10, qset.character
        assert all(1 <= len(q.references) <= 2 for q in qset.questions), qset.character
        instructions = [q.instruction.casefold() for q in qset.questions]
        assert len(set(instructions)) == len(instructions)


def test_no_set_for_other_characters_or_languages(library):
    assert library.role_set("juniper") is None
    assert library.role_set("general-en") is None  # a general set is not a character's set
    assert library.general("de") is None
    assert library.role_sets("de") == []


def test_every_character_named_is_a_bundled_card_of_the_same_language(library):
    cards = CardLibrary()
    for qset in library.all():
        names = qset.characters() if isinstance(qset, GeneralSet) else [qset.character]
        for name in names:
            assert cards.get(name).lang == qset.lang, (qset.name, name)


def test_answers_are_short_and_in_the_sets_language(library):
    for qset in library.all():
        for answer in all_answers(qset):
            assert 1 <= sentences(answer) <= 4, (qset.name, answer)
            assert bool(CYRILLIC.search(answer)) == (qset.lang == "ru"), (qset.name, answer)


def test_sentence_counter_counts():
    assert sentences("Elementary. Sit down! Who sent you? *He smiles.* Speak.") == 4
    assert sentences("*click... click* I regret it. Filed and ticked.") == 2
    assert sentences("Ну-с... да. Позвольте, батенька! Вот «Основы химии». Так.") == 4


def test_rolebench_files_are_not_situations():
    names = {s.name for s in SituationLibrary().all()}
    assert not names & {"general-en", "general-ru", "sherlock-holmes", "koschei"}


# --- the loader, on files of our own ---

GOOD_ROLE = """\
kind: role_specific
character: sherlock-holmes
lang: en
questions:
  - id: s01
    instruction: Where do you live?
    references: [At 221B Baker Street.]
"""


def _user_dir(home):
    folder = home.situations_dir / "rolebench"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def test_a_user_set_replaces_the_bundled_one_of_the_same_name(home):
    (_user_dir(home) / "mine.yaml").write_text(GOOD_ROLE, encoding="utf-8")
    lib = QuestionLibrary(home)
    mine = lib.role_set("sherlock-holmes")
    assert mine is not None and len(mine.questions) == 1 and lib.source("sherlock-holmes") == "user"
    assert lib.problems == []
    assert lib.general("en") is not None and lib.source("general-en") == "bundled"


def test_a_broken_user_file_is_skipped_with_one_line(home):
    (_user_dir(home) / "broken.yaml").write_text(GOOD_ROLE.replace("s01", "S 1"), encoding="utf-8")
    lib = QuestionLibrary(home)
    assert lib.role_set("sherlock-holmes") is not None and lib.source("sherlock-holmes") == "bundled"
    [problem] = lib.problems
    assert "broken.yaml" in problem and "questions.0.id" in problem and "(line 5)" in problem


BAD = {
    "duplicate ids": (GOOD_ROLE + "  - id: s01\n    instruction: Again?\n    references: [Yes.]\n",
                      "appears more than once"),
    "no references": (GOOD_ROLE.replace("[At 221B Baker Street.]", "[]"), "questions.0.references"),
    "blank reference": (GOOD_ROLE.replace("[At 221B Baker Street.]", "['  ']"), "questions.0.references.0"),
    "unknown field": (GOOD_ROLE + "difficulty: hard\n", "difficulty: unknown field (line 8)"),
    "unknown kind": (GOOD_ROLE.replace("role_specific", "trivia"), "kind: expected one of general, role_specific (line 1)"),
    "no kind": (GOOD_ROLE.replace("kind: role_specific\n", ""), "kind: expected one of"),
    "general field in a role set": (GOOD_ROLE + "    in_role: {}\n", "questions.0.in_role: unknown field"),
    "bad card name": (GOOD_ROLE.replace("character: sherlock-holmes", "character: Sherlock Holmes"), "character"),
    "not a mapping": ("- just\n- a list\n", "expected a mapping"),
    "no questions": ("kind: general\nlang: en\nquestions: []\n", "questions"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_files_fail_in_one_line_naming_file_and_field(tmp_path, case):
    text, expected = BAD[case]
    path = tmp_path / "set.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(UserError) as err:
        load_question_file(path)
    message = str(err.value)
    assert "\n" not in message and message.startswith(str(path)) and expected in message, message


def test_general_question_models():
    q = GeneralQuestion(id="g01", instruction="Name a colour.", references=["Blue."],
                        in_role={"tally": ["Item one: blue. Filed and ticked."]})
    general = GeneralSet(kind="general", lang="en", questions=[q])
    assert general.name == "general-en" and general.characters() == ["tally"]
    with pytest.raises(ValidationError):
        GeneralQuestion(id="g01", instruction="Name a colour.", references=["Blue."], in_role={"tally": []})
    with pytest.raises(ValidationError):
        GeneralQuestion(id="g01", instruction="Name a colour.", references=["Blue."], in_role={"Not A Card": ["x"]})
    with pytest.raises(ValidationError):
        GeneralSet(kind="general", lang="en", questions=[q, q])
    assert RoleSet(kind="role_specific", character="tally", lang="en",
                   questions=[{"id": "s01", "instruction": "Who built you?", "references": ["The Guild."]}]).name == "tally"


def test_a_user_set_in_another_language_than_its_card_does_not_hide_the_bundled_set(tmp_path):
    """tally's card is English: a Russian set for it cannot serve it, so the bundled questions stay, with a warning."""
    from tests.runner.conftest import pingpong

    offline = ("--method", "rolebench", "--player", "offline", "--interrogator", "offline", "--judge", "offline",
               "--characters", "tally")
    before = pingpong(tmp_path / "before", "run", *offline)
    path = tmp_path / "after" / "situations" / "rolebench" / "tally-ru.yaml"
    path.parent.mkdir(parents=True)
    path.write_text("kind: role_specific\ncharacter: tally\nlang: ru\nquestions:\n  - id: s01\n"
                    "    instruction: Кто тебя сделал?\n    references: [Гильдия архивистов.]\n", encoding="utf-8")
    after = pingpong(tmp_path / "after", "run", *offline)
    assert before.rc == after.rc == 0, after.err
    planned = re.compile(r"(\d+) conversations planned")
    assert planned.search(after.out)[1] == planned.search(before.out)[1]
    assert f"pingpong: warning: {path}: lang ru, but the card 'tally' is in en; the bundled set is used" in after.err
