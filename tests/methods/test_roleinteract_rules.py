"""RoleInteract's scoring rules: reading option letters from free replies, and the three scores."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pingpong.core.methods.roleinteract_data import ChoiceQuestion
from pingpong.core.methods.roleinteract_rules import (
    accuracy,
    keyword_coverage,
    parse_choice,
    score_multiple,
    score_question,
    score_single,
)

ABCD = ("A", "B", "C", "D")
ABCDEF = ("A", "B", "C", "D", "E", "F")

SINGLE = [
    # a choice said not to be made, or an option answered "no", is not the choice
    ("I would never choose A; B is right.", "B"),
    ("Option A: no. Option B: yes.", "B"),
    ("I don't pick B. A.", "A"),
    ("I would not go for (C). D.", "D"),
    ("Не выбираю А, ответ: В", "B"),
    # bare and formatted letters
    ("B", "B"),
    ("(B)", "B"),
    ("B.", "B"),
    ("B)", "B"),
    ("**B**", "B"),
    ("*C*", "C"),
    ('"D"', "D"),
    ("D!", "D"),
    ("C — the line about the tobacco ash.", "C"),
    ("answer: (d)", "D"),
    # declared choices
    ("Answer: B", "B"),
    ("**Answer:** A", "A"),
    ("Answer - B", "B"),
    ("My answer would be A.", "A"),
    ("I'd pick B, because it is sharper.", "B"),
    ("I choose A over C.", "A"),
    ("Option B", "B"),
    ("Option (B)", "B"),
    ("The answer is clearly C.", "C"),
    ("The answer is not A, it's C", "C"),
    ("A) no\nB) yes\nI choose B", "B"),
    # capitals that are words, not choices
    ("A fine question. I would say C.", "C"),
    ("A capital question! Answer: D", "D"),
    ("I think B is right", "B"),
    ("A is the right one.", "A"),
    ("Not A, but C.", "C"),
    ("*adjusts his monocle* B. The ash gives it away.", "B"),
    ("*whirr* Item one: the answer is D. Filed and ticked.", "D"),
    # Russian replies, Latin and Cyrillic look-alike letters
    ("вариант B", "B"),
    ("Ответ: В", "B"),
    ("Я выбираю вариант В, потому что он точнее.", "B"),
    ("В этом я уверен: правильный вариант — С.", "C"),
    ("С удовольствием отвечу: D", "D"),
    ("Думаю, что В.", "B"),
    ("Вариант: С", "C"),
    ("«В»", "B"),
    ("Не А, а С", "C"),
    ("Конечно, Е!", "E"),
    ("Мой выбор — Н.", "H"),
    ("Ответ: А, потому что так говорят старики.", "A"),
    ("А, потому что так вернее.", "A"),
    ("А!", "A"),
    ("B is wrong, C is right.", "C"),
    ("(A) is false; (C) is true", "C"),
    ("Option B is clearly wrong; option D fits.", "D"),
]


@pytest.mark.parametrize(("reply", "letter"), SINGLE)
def test_single_choice_is_read(reply, letter):
    assert parse_choice(reply, "ABCDEFGH", multiple=False) == frozenset({letter})


@pytest.mark.parametrize("reply", [
    "A fine question, traveller.",
    "I think so.",
    "Because the knight would never yield.",
    "Elementary, Watson.",
    "C'est la vie",
    "Plan B-movie",
    "I'd pick a different one",
    "Hmm, hard to say.",
    "none of these",
    "",
    "А вот тут сложно сказать.",
    "В этом нет сомнений.",
    "С удовольствием, мой друг.",
    "А, эта штука. Знаю, видала такие.",
    "А! Вот оно что.",
])
def test_words_with_capitals_are_no_choice(reply):
    assert parse_choice(reply, ABCD, multiple=False) is None
    assert parse_choice(reply, ABCD, multiple=True) is None


@pytest.mark.parametrize("reply", [
    "B and D",
    "B or C",
    "Tough one. A or C?",
    "(A) or (C)",
    "Neither A nor B",
    "Ни А, ни В.",
    "A)\nB)",
    "I would never choose A.",
    "Hmm. (A or B)",  # a bracketed list after other words is read whole, not as its last 'B)'
])
def test_conflicting_or_refused_single_answer_is_none(reply):
    assert parse_choice(reply, ABCD, multiple=False) is None


def test_letters_outside_the_options_do_not_count():
    assert parse_choice("Answer: E", ABCD, multiple=False) is None
    assert parse_choice("Answer: E", ABCDEF, multiple=False) == frozenset({"E"})
    assert parse_choice("B and F", ABCD, multiple=True) == frozenset({"B"})


MULTIPLE = [
    ("B and D", {"B", "D"}),
    ("B, D", {"B", "D"}),
    ("B & D", {"B", "D"}),
    ("B,D,E", {"B", "D", "E"}),
    ("B, C, and E are true.", {"B", "C", "E"}),
    ("The correct options are B, C and D.", {"B", "C", "D"}),
    ("Answer: A, C", {"A", "C"}),
    ("pick B, A is wrong", {"B"}),
    ("A.\nC.\nD.", {"A", "C", "D"}),
    ("Only C", {"C"}),
    ("Варианты B и D.", {"B", "D"}),
    ("А и С", {"A", "C"}),
    ("Ответ: А и Е", {"A", "E"}),
    ("Правильные ответы: А, С.", {"A", "C"}),
    ("B и D верны", {"B", "D"}),
    ("Only A and C are true; B is false.", {"A", "C"}),
    ("True: A, C. False: B, D.", {"A", "C"}),
    ("A is true, but B and D are wrong.", {"A"}),
    ("Верно А и С, а В — неверно.", {"A", "C"}),
    ("Неверно: В. Верно: А, С.", {"A", "C"}),
    ("Hmm. (A and B)", {"A", "B"}),
    ("[offline] (A and B and E)", {"A", "B", "E"}),
    ("I would say [A, C].", {"A", "C"}),
    ("Not (A and B), rather (C)", {"C"}),
]


@pytest.mark.parametrize(("reply", "letters"), MULTIPLE)
def test_several_letters_are_read(reply, letters):
    assert parse_choice(reply, ABCDEF, multiple=True) == frozenset(letters)


def test_parse_needs_letters():
    with pytest.raises(ValueError):
        parse_choice("B", [], multiple=False)


def test_score_single():
    assert score_single(frozenset({"B"}), ["B"]) == 1.0
    assert score_single(frozenset({"C"}), ["B"]) == 0.0
    assert score_single(None, ["B"]) == 0.0
    assert score_single(frozenset({"B", "C"}), ["B"]) == 0.0


def test_score_multiple_gives_partial_credit_and_zero_for_any_wrong_pick():
    correct = ["A", "C", "D"]
    assert score_multiple(frozenset({"A", "C", "D"}), correct) == 1.0
    assert score_multiple(frozenset({"A", "C"}), correct) == pytest.approx(2 / 3)
    assert score_multiple(frozenset({"D"}), correct) == pytest.approx(1 / 3)
    assert score_multiple(frozenset({"A", "C", "D", "B"}), correct) == 0.0  # one wrong pick spoils all
    assert score_multiple(frozenset({"B"}), correct) == 0.0
    assert score_multiple(frozenset(), correct) == 0.0
    assert score_multiple(None, correct) == 0.0
    with pytest.raises(ValueError):
        score_multiple(frozenset({"A"}), [])


def test_score_question_uses_the_rule_of_the_dimension():
    single = ChoiceQuestion(id="q", dimension="emotion", question="?", options={"A": "x", "B": "y"}, answer=["B"])
    several = ChoiceQuestion(id="s", dimension="situation", question="?",
                             options={"A": "w", "B": "x", "C": "y", "D": "z"}, answer=["A", "C"])
    assert score_question(single, "I'd say B.") == 1.0
    assert score_question(single, "A and B") == 0.0
    assert score_question(several, "A") == 0.5
    assert score_question(several, "A and C") == 1.0
    assert score_question(several, "A, B and C") == 0.0


def test_keyword_coverage_is_case_insensitive_substring_matching():
    assert keyword_coverage("Your sister EDITH lives in brighton.", ["Edith", "Brighton"]) == 1.0
    assert keyword_coverage("Your sister lives in Brighton, I believe.", ["Edith", "Brighton"]) == 0.5
    assert keyword_coverage("I do not recall.", ["Edith", "Brighton"]) == 0.0
    assert keyword_coverage("The Brightonian air", ["brighton"]) == 1.0  # a substring, as the paper counts
    assert keyword_coverage("Baker\nStreet, number 221", ["baker street", "221"]) == 1.0
    with pytest.raises(ValueError):
        keyword_coverage("anything", [])


def test_keyword_coverage_folds_cyrillic_case_and_yo():
    assert keyword_coverage("Ваша собака по кличке ЖУЧКА живёт в Твери.", ["жучка", "Твери"]) == 1.0
    assert keyword_coverage("ЕЩЕ ОДНО: ключи под ковриком", ["ещё", "Коврик"]) == 1.0
    assert keyword_coverage("Ключи у соседа.", ["коврик", "ключи"]) == 0.5
    assert keyword_coverage("STRASSE", ["straße"]) == 1.0  # Unicode casefold, not lower()


def test_accuracy_is_the_mean_or_none():
    assert accuracy([1.0, 0.0, 0.5, 0.5]) == 0.5
    assert accuracy([]) is None


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ABCDEFGHabcdАВСЕНасе ,.;:!?()[]*-—\n'\"andorиилиnotwrongневерно")),
               max_size=60),
       st.integers(min_value=2, max_value=8), st.booleans())
def test_parse_never_fails_and_stays_within_the_options(text, n, multiple):
    letters = "ABCDEFGH"[:n]
    found = parse_choice(text, letters, multiple)
    assert found is None or (found and found <= set(letters))
    if not multiple and found is not None:
        assert len(found) == 1


@pytest.mark.parametrize("reply, letter", [
    ("A? No. C.", "C"), ("A... no, C.", "C"), ("Hmm, B? No, C, surely.", "C"), ("В? Нет, С.", "C"),
    ("A? Nope… D!", "D"), ("A, no, C.", "C"), ("A! No, C.", "C"), ("I'd say A. No — C.", "C"),
    # no change of mind: the choice stands
    ("B, no doubt.", "B"), ("Is it A? No idea.", "A"), ("A? No doubt. B would be foolish.", "A"),
    ("A? No hesitation: C is for cowards.", "A"), ("I'd choose B, no, not A.", "B"),
])
def test_a_choice_taken_back_gives_way_to_the_next(reply, letter):
    """A character correcting itself ("A? No. C.") was scored as the option it dropped."""
    assert parse_choice(reply, ABCD, multiple=False) == frozenset({letter})
