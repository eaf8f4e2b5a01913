"""Example retrieval for few-shot dialogue engineering: BM25 picks, card order kept (METHOD.md "RoleLLM")."""

from __future__ import annotations

import subprocess
import sys

import pytest

from pingpong.core.domain import ExampleTurn
from pingpong.core.retrieval import select_examples, tokenize


def turn(user: str, char: str) -> ExampleTurn:
    return ExampleTurn(user=user, char=char)


KEEPER = [
    turn("How long have you kept this lighthouse?", "Thirty winters, give or take a storm."),
    turn("Do you ever get lonely out here?", "The gulls talk more than most people I knew."),
    turn("What do you eat?", "Fish, mostly. And the tinned peaches the supply boat forgets to count."),
    turn("Have you seen a shipwreck?", "Two. The second one still wakes me some nights."),
    turn("Is the lamp hard to keep burning?", "The lamp is easy. Keeping the oil dry is the trick."),
    turn("Who was here before you?", "Old Marten. He left his pipe and his bad temper behind."),
    turn("Do you read at night?", "Tide tables and sea stories, in that order."),
]

YAGA = [
    turn("Бабушка, пусти переночевать.", "Ишь какой! Сперва дров наколи, а там посмотрим, касатик."),
    turn("Где твой кот?", "Ерошка-то? На печи дрыхнет, лентяй усатый."),
    turn("Как найти Кощееву смерть?", "Смерть его в игле, игла в яйце, а яйцо далеко, голубчик."),
    turn("Ты умеешь летать?", "В ступе летаю, помелом след заметаю. Завидно?"),
    turn("Чем ты лечишь простуду?", "Травкой зверобоем да малиной, а ещё банькой жаркой."),
    turn("Сколько тебе лет?", "Ох, батюшки, да разве ж их упомнишь! Лес при мне молодым был."),
]


def test_examples_sharing_words_beat_unrelated_ones():
    chosen = select_examples(KEEPER, "Tell me about the shipwreck and the lamp oil", k=2)
    assert chosen == [KEEPER[3], KEEPER[4]]


def test_char_line_is_indexed_too():
    chosen = select_examples(KEEPER, "peaches", k=1)
    assert chosen == [KEEPER[2]]


def test_russian_query_finds_russian_examples():
    chosen = select_examples(YAGA, "А на ступе далеко можно летать?", k=2)
    assert YAGA[3] in chosen
    chosen = select_examples(YAGA, "Кощеева смерть где спрятана?", k=1)
    assert chosen == [YAGA[2]]


def test_tokenizer_handles_cyrillic_case_and_yo():
    assert tokenize("Ёжик, ПРИВЕТ! it's 2 o'clock") == ["ежик", "привет", "it", "s", "2", "o", "clock"]


def test_k_or_fewer_examples_come_back_unchanged():
    assert select_examples(KEEPER[:3], "shipwreck", k=5) == KEEPER[:3]
    assert select_examples(KEEPER[:5], "nothing in common", k=5) == KEEPER[:5]
    assert select_examples([], "anything", k=5) == []


def test_result_keeps_the_cards_order_not_the_rank_order():
    # "Marten pipe" matches example 5 much better than "night" matches example 6 or 3.
    chosen = select_examples(KEEPER, "nights Marten pipe temper night", k=3)
    assert chosen == sorted(chosen, key=KEEPER.index)
    assert KEEPER[5] in chosen


def test_best_match_is_kept_even_when_it_is_last():
    chosen = select_examples(KEEPER, "tide tables", k=2)
    assert KEEPER[6] in chosen
    assert chosen[-1] == KEEPER[6]


def test_empty_query_or_no_overlap_gives_the_first_k():
    assert select_examples(KEEPER, "", k=3) == KEEPER[:3]
    assert select_examples(KEEPER, "?!...", k=3) == KEEPER[:3]
    assert select_examples(KEEPER, "quantum chromodynamics", k=3) == KEEPER[:3]


def test_ties_go_to_the_earlier_example():
    same = [turn("red apple", "yes"), turn("green pear", "no"), turn("red apple", "yes"), turn("blue plum", "hm")]
    assert select_examples(same, "apple", k=1) == [same[0]]


def test_tiny_corpus_still_prefers_an_overlapping_example():
    # With two documents BM25's idf is zero or negative; a shared word must still win.
    pair = [turn("hello there", "hi"), turn("where is the storm", "north")]
    assert select_examples(pair, "storm", k=1) == [pair[1]]


def test_same_input_same_output():
    runs = {tuple(id(e) for e in select_examples(KEEPER, "lonely gulls at night", k=3)) for _ in range(5)}
    assert len(runs) == 1


def test_negative_k_is_rejected():
    with pytest.raises(ValueError):
        select_examples(KEEPER, "x", k=-1)


def test_importing_core_does_not_import_rank_bm25():
    code = "import sys, pingpong.core, pingpong.core.retrieval; print('rank_bm25' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
