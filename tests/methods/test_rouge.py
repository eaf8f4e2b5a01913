"""Rouge-L F1 for RoleBench answers: words of any script count, the best reference wins (METHOD.md "RoleLLM")."""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pingpong.core.methods.rouge import WordTokenizer, rouge_l

YAGA = "Фу-фу-фу! Живым духом пахнет, касатик."


def test_russian_answer_identical_to_its_reference_scores_one():
    assert rouge_l(YAGA, [YAGA]) == 1.0


def test_rouge_scores_default_tokenizer_would_have_scored_russian_zero():
    """Why we bring our own tokenizer: rouge_score's default drops every Cyrillic letter."""
    from rouge_score import rouge_scorer

    assert rouge_scorer.RougeScorer(["rougeL"]).score(YAGA, YAGA)["rougeL"].fmeasure == 0.0
    assert rouge_l("Живым духом пахнет", [YAGA]) > 0


def test_words_keep_their_script_case_and_digits_punctuation_goes():
    assert WordTokenizer().tokenize("Фу-фу! Ёлки, CAFÉ à 9 heures; Straße...") == [
        "фу", "фу", "елки", "café", "à", "9", "heures", "strasse"]
    assert rouge_l("ЭЛЕМЕНТАРНО, Ватсон!!!", ["элементарно ватсон"]) == 1.0
    assert rouge_l("Ёлки-моталки", ["елки моталки"]) == 1.0


def test_russian_partial_overlap_is_the_lcs_f1():
    # reference: кот сидит на теплой печке (5 words); candidate: кот спит на печке (4 words)
    # LCS = кот, на, печке = 3; P = 3/4, R = 3/5; F1 = 2PR / (P + R) = 2 * 3 / (4 + 5) = 2/3
    score = rouge_l("Кот спит на печке.", ["Кот сидит на тёплой печке."])
    assert 0 < score < 1
    assert score == pytest.approx(2 / 3)


def test_word_order_matters_through_the_lcs():
    # reference: the butler did it (4); candidate: it did the butler (4)
    # LCS = "the butler" = 2 (no longer common subsequence keeps the order); F1 = 2 * 2 / (4 + 4) = 0.5
    assert rouge_l("It did the butler.", ["The butler did it."]) == pytest.approx(0.5)


@pytest.mark.parametrize("candidate", ["", "   ", "?!... —"])
def test_a_candidate_without_words_scores_zero(candidate):
    assert rouge_l(candidate, [YAGA, "Elementary."]) == 0.0


def test_the_best_reference_is_taken():
    refs = ["Совсем про другое говорю.", "Кот сидит на тёплой печке.", "Кот спит."]
    candidate = "Кот спит на печке."
    each = [rouge_l(candidate, [r]) for r in refs]
    assert each[1] == pytest.approx(2 / 3) and each[2] == pytest.approx(2 * 2 / (4 + 2))  # LCS 2 of 4 and 2 words
    assert rouge_l(candidate, refs) == max(each) == rouge_l(candidate, list(reversed(refs)))
    assert rouge_l(candidate, refs + [candidate]) == 1.0


def test_references_must_be_a_non_empty_sequence():
    with pytest.raises(ValueError):
        rouge_l("anything", [])
    with pytest.raises(TypeError):
        rouge_l("anything", "a single string")  # type: ignore[arg-type]


_words = st.lists(st.sampled_from(["кот", "печка", "the", "butler", "café", "42", "ёж"]), min_size=1, max_size=12)


@given(_words, _words)
def test_f1_is_bounded_symmetric_and_one_on_itself(a, b):
    x, y = " ".join(a), ", ".join(b)
    score = rouge_l(x, [y])
    assert 0.0 <= score <= 1.0
    assert score == pytest.approx(rouge_l(y, [x]))
    assert rouge_l(x, [x.upper()]) == 1.0


def test_importing_core_does_not_import_rouge_score():
    code = ("import sys, pingpong.core.methods.rouge, pingpong.core.domain; "
            "print('rouge_score' in sys.modules or 'nltk' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


@pytest.mark.parametrize("text", ["Мой чайник пошёл", "नमस्ते दुनिया", "café crème"])
def test_a_decomposed_or_combining_script_is_one_word_per_word(text):
    """A decomposed "ё" (е + a combining mark) or Devanagari's vowel signs split words at the marks,
    so an answer identical to its reference scored 0 (METHOD.md: text in any script must tokenise)."""
    import unicodedata

    assert rouge_l(unicodedata.normalize("NFD", text), [text]) == 1.0
    assert len(WordTokenizer().tokenize(unicodedata.normalize("NFD", text))) == len(text.split())


def test_chinese_and_japanese_count_characters_as_tokens():
    """Without spaces a whole sentence was one "word": a near-identical answer scored 0."""
    assert WordTokenizer().tokenize("猫坐在垫子上。") == ["猫", "坐", "在", "垫", "子", "上"]
    assert rouge_l("猫坐在垫子上。", ["猫坐在地毯上。"]) == pytest.approx(4 / 6)
    assert rouge_l("ねこがすき", ["ねこがだいすき"]) == pytest.approx(2 * (5 / 5) * (5 / 7) / (5 / 5 + 5 / 7))
    assert WordTokenizer().tokenize("한국어 단어, mixed 漢字") == ["한국어", "단어", "mixed", "漢", "字"]
