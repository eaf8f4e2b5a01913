"""RoleInteract probes as sessions: each question or memory probe becomes a `Situation`, and a
finished session's reply is scored from what that situation carries.

A situation's `data` holds the whole probe (the question with its options and answer, or the
memory probe with the padding lines chosen for it), so the stored snapshot of a session is
enough to score it again, and a resumed memory probe continues with the same padding.
The user's message of a multiple-choice probe is written here, once, at planning time: the
options always carry Latin letters, whatever the language.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from pingpong.core.domain import Score, Situation
from pingpong.core.methods.roleinteract_data import (
    ChoiceQuestion,
    MemoryProbe,
    PaddingPool,
    ProbeSet,
    memory_dimension,
)
from pingpong.core.methods.roleinteract_rules import UNPARSEABLE, keyword_coverage, parse_choice, score_question

CHOICE, MEMORY = "choice", "memory"
"""Values of a probe situation's data["kind"] (group scenes use "scene")."""

_ASK = {
    "en": ("Answer in character, as {name} would, and say which option you choose by its letter ({first}-{last}).",
           "Answer in character, as {name} would. More than one option may be right: name the letter of "
           "every option you choose ({first}-{last})."),
    "ru": ("Ответь в роли, от лица персонажа {name}, и назови выбранный вариант его латинской буквой "
           "({first}–{last}).",
           "Ответь в роли, от лица персонажа {name}. Верных вариантов может быть несколько: назови латинские "
           "буквы всех вариантов, которые выбираешь ({first}–{last})."),
}

PADDING_BRIEF = {
    "en": "You are having a relaxed chat with the character about everyday things: food, weather, travel, "
          "hobbies, childhood, animals. Every line of yours brings up something new that has nothing to do "
          "with what was said before. Never go back to earlier topics and never ask the character to "
          "remember anything.",
    "ru": "Ты непринуждённо болтаешь с персонажем о повседневном: еде, погоде, поездках, увлечениях, детстве, "
          "животных. Каждая твоя реплика заводит новую тему, никак не связанную со сказанным раньше. Не "
          "возвращайся к прежним темам и не проси персонажа что-либо вспомнить.",
}
"""What the interrogator seat is told when it writes a memory probe's padding (padding_from: interrogator)."""


def probe_name(probe_set: ProbeSet, probe_id: str) -> str:
    """The situation name of one probe: the card's name and the probe's id ('koschei-mem-01')."""
    return f"{probe_set.character}-{probe_id.lower().replace('.', '-')}"


def choice_text(question: ChoiceQuestion, char_name: str, lang: str) -> str:
    """The user's message: context, question, lettered options, and how to answer."""
    single, several = _ASK.get(lang, _ASK["en"])
    letters = question.letters
    ask = (several if question.multiple else single).format(name=char_name, first=letters[0], last=letters[-1])
    options = "\n".join(f"{letter}) {text}" for letter, text in question.options.items())
    return "\n\n".join(part for part in (question.context, question.question, options, ask) if part)


def choice_situation(probe_set: ProbeSet, question: ChoiceQuestion, char_name: str) -> Situation:
    """One multiple-choice question as a one-turn situation."""
    return Situation(
        name=probe_name(probe_set, question.id), lang=probe_set.lang,
        text=choice_text(question, char_name, probe_set.lang), num_turns=1,
        tags=["roleinteract", question.dimension],
        data={"kind": CHOICE, "dimension": question.dimension, "question": question.model_dump(mode="json")})


def padding_lines(pool: Sequence[str], key: str, count: int) -> list[str]:
    """``count`` consecutive pool lines (cycling) from a start fixed by ``key``: every player gets the
    same padding for the same probe, and different probes start at different places."""
    if not pool:
        raise ValueError("the padding pool is empty")
    start = int.from_bytes(hashlib.sha256(key.encode()).digest()[:4], "big") % len(pool)
    return [pool[(start + i) % len(pool)] for i in range(count)]


def memory_turns(probe: MemoryProbe) -> int:
    """Turns of a memory probe: the plant, padding / 2 exchanges of small talk, the question again."""
    return probe.padding // 2 + 2


def memory_situation(probe_set: ProbeSet, probe: MemoryProbe, pool: PaddingPool) -> Situation:
    """One memory probe as a situation of memory_turns(probe) turns, its padding lines chosen now."""
    lines = padding_lines(pool.lines, f"{probe_set.character}|{probe_set.lang}|{probe.id}", probe.padding // 2)
    dimension = memory_dimension(probe)
    return Situation(
        name=probe_name(probe_set, probe.id), lang=probe_set.lang, text=probe.plant,
        num_turns=memory_turns(probe), tags=["roleinteract", dimension],
        data={"kind": MEMORY, "dimension": dimension, "probe": probe.model_dump(mode="json"),
              "padding_lines": lines})


def probe_situations(probe_set: ProbeSet, char_name: str, pool: PaddingPool | None) -> list[Situation]:
    """Every question of a probe set, then its memory probes (ValueError when it has some but no pool)."""
    out = [choice_situation(probe_set, q, char_name) for q in probe_set.questions]
    if probe_set.memory:
        if pool is None:
            raise ValueError(f"the memory probes of {probe_set.character} ({probe_set.lang}) need a padding pool")
        out += [memory_situation(probe_set, m, pool) for m in probe_set.memory]
    return out


def _failed(turn: int, metric: str, why: str) -> Score:
    return Score(turn=turn, metric=metric, scale="0-1", status="failed", error=why)


def _letters(found: Sequence[str] | frozenset[str]) -> str:
    return ", ".join(sorted(found))


def score_choice(reply: str, data: dict[str, Any]) -> Score:
    """Acc_single or Acc_multiple (partial credit) of one reply, turn 1; an answer that cannot be
    read scores 0 and its explanation starts with UNPARSEABLE."""
    metric = str(data.get("dimension") or "choice")
    if "question" not in data:
        return _failed(1, metric, "the session's situation is not a RoleInteract question")
    try:
        question = ChoiceQuestion.model_validate(data["question"])
    except ValueError as exc:
        return _failed(1, metric, f"the session's question cannot be read: {exc}")
    value = score_question(question, reply)
    chosen = parse_choice(reply, question.letters, question.multiple)
    correct = _letters(question.answer)
    if chosen is None:
        several = parse_choice(reply, question.letters, multiple=True)
        why = (f"names several options ({_letters(several)}) where one is asked" if several
               else "no option letter could be read from the reply")
        return Score(turn=1, metric=question.dimension, value=0.0, scale="0-1",
                     explanation=f"{UNPARSEABLE}: {why}; scored 0 (correct: {correct})")
    note = f"chose {_letters(chosen)}; correct: {correct}"
    if question.multiple and chosen - question.correct:
        note += "; a wrong pick scores 0"
    return Score(turn=1, metric=question.dimension, value=value, scale="0-1", explanation=note)


def score_memory(reply: str, data: dict[str, Any]) -> Score:
    """Keyword coverage of the reply to the question asked again (its turn is the probe's last)."""
    metric = str(data.get("dimension") or "memory")
    if "probe" not in data:
        return _failed(1, metric, "the session's situation is not a RoleInteract memory probe")
    try:
        probe = MemoryProbe.model_validate(data["probe"])
    except ValueError as exc:
        return _failed(1, metric, f"the session's memory probe cannot be read: {exc}")
    value = keyword_coverage(reply, probe.keywords)
    found = [k for k in probe.keywords if keyword_coverage(reply, [k])]
    missing = [k for k in probe.keywords if k not in found]
    note = f"{len(found)} of {len(probe.keywords)} keywords" + (f"; found: {', '.join(found)}" if found else "")
    if missing:
        note += f"; missing: {', '.join(missing)}"
    return Score(turn=memory_turns(probe), metric=memory_dimension(probe), value=round(value, 6), scale="0-1",
                 explanation=note)
