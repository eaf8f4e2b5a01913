"""Helpers for the statistics tests: a fresh store and a quick way to put scored sessions in it."""

from __future__ import annotations

import pytest

from pingpong.core.domain import Character, Message, SessionSpec, Situation
from pingpong.sessions.store import Store
from tests.scores import judged, turn_scores


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "stats.db")
    yield s
    s.close()


def add_session(store, player, judges, *, text_len=100, lang="en", interrogator="asker", status="finished",
                character="hero", situation="chat", method="pingpong", prompting=None):
    """judges: {judge: [(in_character, entertaining, fluency, is_refusal) per turn]}; returns the id."""
    turns = max(len(v) for v in judges.values()) if judges else 1
    card = Character(name=character, char_name="Hero", lang=lang, summary="a hero", persona="A brave hero.")
    sit = Situation(name=situation, lang=lang, text="Talk to the hero.", num_turns=turns)
    spec = SessionSpec(character=character, situation=situation, player=player, interrogator=interrogator,
                       judges=list(judges), lang=lang, method=method, prompting=prompting)
    sid = store.create_session(spec, card, sit)
    for t in range(1, turns + 1):
        store.add_message(sid, Message(turn=t, role="user", author=interrogator, text=f"question {t}?"))
        store.add_message(sid, Message(turn=t, role="assistant", author=player, text="x" * text_len))
    for judge, rows in judges.items():
        store.add_verdict(sid, judged(judge, turns=[
            turn_scores(i + 1, in_character=ic, entertaining=en, fluency=fl, is_refusal=bool(ref),
                        scale="1-10" if method == "pingpong-v1" else "1-5")
            for i, (ic, en, fl, ref) in enumerate(rows)
        ]))
    store.set_status(sid, status)
    return sid
