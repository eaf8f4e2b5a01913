"""The roleinteract method's probes as situations, and the scoring of stored replies (pure functions)."""

from __future__ import annotations

import pytest

from pingpong.core.methods.roleinteract_data import MemoryProbe, PaddingPool, ProbeSet
from pingpong.core.methods.roleinteract_probes import (
    UNPARSEABLE,
    choice_situation,
    memory_situation,
    padding_lines,
    probe_situations,
    score_choice,
    score_memory,
)
from pingpong.situations.probes import ProbeLibrary, load_padding
from tests.methods.probe_builders import EMOTION, POOL, SITUATION, memory_probe, probe_set

# -- probes as situations ---------------------------------------------------------------------


def test_russian_questions_show_latin_letters_and_ask_for_one():
    probe = ProbeLibrary().get("koschei", "ru")
    question = probe.by_dimension("emotion")[0]
    situation = choice_situation(probe, question, "Кощей")
    assert situation.name == f"koschei-{question.id}" and situation.num_turns == 1 and situation.lang == "ru"
    for letter, text in question.options.items():
        assert f"\n{letter}) {text}" in situation.text
    assert "латинской буквой (A–" in situation.text and "Кощей" in situation.text
    assert situation.data["kind"] == "choice" and situation.data["dimension"] == "emotion"


def test_a_situation_question_says_several_options_may_be_right():
    situation = choice_situation(probe_set(), SITUATION, "Edda")
    assert "More than one option may be right" in situation.text and "(A-D)" in situation.text
    assert "More than one" not in choice_situation(probe_set(), EMOTION, "Edda").text


def test_memory_probes_take_fixed_padding_from_the_pool_and_know_short_from_long():
    short, long = memory_probe(10), memory_probe(42, id="mem-2")
    situations = probe_situations(probe_set(short, long), "Edda", POOL)
    assert [s.data["kind"] for s in situations] == ["choice", "choice", "memory", "memory"]
    first, second = situations[2:]
    assert (first.num_turns, first.data["dimension"]) == (7, "memory_short")
    assert (second.num_turns, second.data["dimension"]) == (23, "memory_long")
    assert len(second.data["padding_lines"]) == 21 and set(second.data["padding_lines"]) <= set(POOL.lines)
    assert memory_situation(probe_set(long), long, POOL).data == second.data  # the same for every player
    assert first.data["padding_lines"] != second.data["padding_lines"][:5]  # probes start at different lines
    with pytest.raises(ValueError, match="padding pool"):
        probe_situations(probe_set(short), "Edda", None)


def test_padding_cycles_when_the_pool_is_short():
    lines = padding_lines(["a", "b", "c"], "key", 7)
    assert len(lines) == 7 and lines[:3] == lines[3:6] and sorted(lines[:3]) == ["a", "b", "c"]


# -- scoring --------------------------------------------------------------------------------------


def test_choice_scores_name_the_pick_and_flag_what_cannot_be_read():
    single = choice_situation(probe_set(), EMOTION, "Edda").data
    several = choice_situation(probe_set(), SITUATION, "Edda").data
    right = score_choice("*shivers* I'd say (B), poor soul.", single)
    assert (right.turn, right.metric, right.value, right.scale) == (1, "emotion", 1.0, "0-1")
    assert right.explanation == "chose B; correct: B"
    assert score_choice("A", single).value == 0.0
    partial = score_choice("A and D", several)
    assert partial.value == pytest.approx(2 / 3) and partial.metric == "situation"
    spoiled = score_choice("A, B, C and D", several)
    assert spoiled.value == 0.0 and "a wrong pick scores 0" in spoiled.explanation
    lost = score_choice("The sea gives and the sea takes.", single)
    assert lost.value == 0.0 and lost.status == "ok" and lost.explanation.startswith(UNPARSEABLE)
    torn = score_choice("B and C", single)
    assert torn.value == 0.0 and torn.explanation.startswith(f"{UNPARSEABLE}: names several options (B, C)")
    broken = score_choice("B", {"kind": "choice", "dimension": "emotion"})
    assert broken.status == "failed" and broken.value is None


def test_memory_scores_keyword_coverage_at_the_asked_turn():
    data = memory_situation(probe_set(), memory_probe(44), POOL).data
    score = score_memory("Your brother ANSELM keeps bees, somewhere in the west.", data)
    assert (score.turn, score.metric, score.scale) == (24, "memory_long", "0-1")
    assert score.value == pytest.approx(2 / 3)
    assert score.explanation == "2 of 3 keywords; found: Anselm, bees; missing: Cornwall"
    ru = MemoryProbe(id="m", plant="Мою кошку зовут Ёлка, она живёт у бабушки в Твери.", padding=4,
                     ask="Как зовут мою кошку?", keywords=["Ёлка", "Твер"])
    ru_data = memory_situation(ProbeSet(character="koschei", lang="ru", memory=[ru]), ru,
                               PaddingPool(lang="ru", lines=["Какая погода?"])).data
    ru_score = score_memory("ЕЛКА её зовут, а живёт она в ТВЕРИ.", ru_data)
    assert (ru_score.metric, ru_score.value) == ("memory_short", 1.0)


def test_bundled_padding_pools_cover_the_longest_bundled_probe_without_repeats():
    for lang in ("en", "ru"):
        longest = max(m.padding for p in ProbeLibrary().all(lang) for m in p.memory)
        assert longest > 40 and len(load_padding(lang).lines) >= longest // 2


def test_a_person_may_ask_only_where_the_probe_leaves_user_lines_to_the_interrogator_seat():
    from pingpong.core.methods import get_method
    from pingpong.core.methods.roleinteract_probes import choice_situation, memory_situation
    from tests.methods.probe_builders import EMOTION, POOL, memory_probe, probe_set

    method = get_method("roleinteract")
    pooled, asked = memory_probe(4), memory_probe(4, padding_from="interrogator")
    assert not method.people_ask_in(choice_situation(probe_set(), EMOTION, "Edda"))
    assert not method.people_ask_in(memory_situation(probe_set(pooled), pooled, POOL))
    assert method.people_ask_in(memory_situation(probe_set(asked), asked, POOL))
    assert "probe set writes every user line" in (method.interrogator_refusal(
        choice_situation(probe_set(), EMOTION, "Edda")) or "")
    assert get_method("rolebench").interrogator_refusal() and get_method("pingpong").interrogator_refusal() is None
