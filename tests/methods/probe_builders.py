"""Small probe sets, questions and a padding pool shared by the roleinteract tests."""

from __future__ import annotations

from pingpong.core.methods.roleinteract_data import ChoiceQuestion, MemoryProbe, PaddingPool, ProbeSet

EMOTION = ChoiceQuestion(id="emo-1", dimension="emotion", question="How does the guest feel?",
                         options={"A": "calm", "B": "afraid", "C": "bored", "D": "amused"}, answer=["B"])
SITUATION = ChoiceQuestion(id="sit-1", dimension="situation", question="What is true here?",
                           options={"A": "w", "B": "x", "C": "y", "D": "z"}, answer=["A", "C", "D"])
POOL = PaddingPool(lang="en", lines=[f"Small talk line {i}?" for i in range(1, 31)])


def probe_set(*memory: MemoryProbe, questions=(EMOTION, SITUATION)) -> ProbeSet:
    return ProbeSet(character="lighthouse-keeper", lang="en", questions=list(questions), memory=list(memory))


def memory_probe(padding: int, **kw) -> MemoryProbe:
    data = dict(id="mem-1", plant="My brother Anselm keeps bees in Cornwall.", padding=padding,
                ask="What does my brother keep, and where?", keywords=["Anselm", "bees", "Cornwall"])
    data.update(kw)
    return MemoryProbe(**data)
