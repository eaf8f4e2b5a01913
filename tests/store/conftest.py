"""Fixtures for the store tests: a fresh database, a small card, situation and spec."""

from __future__ import annotations

import pytest

from pingpong.core.domain import Character, ExampleTurn, SessionSpec, Situation
from pingpong.sessions.store import Store


def make_character() -> Character:
    return Character(
        name="ferry-captain", char_name="Captain Ilse", lang="en",
        summary="A gruff ferry captain who has crossed the same strait for thirty years.",
        persona="Ilse runs the night ferry. She is short with words, fond of weather lore and "
                "suspicious of anyone who asks about the cargo hold.",
        example_dialogue=[ExampleTurn(user="Is it going to be rough tonight?",
                                      char="Gulls sat on the water at noon. Hold on to your tea.")],
        greeting="Tickets in hand, please. We leave when the bell goes.",
    )


def make_situation(num_turns: int = 3) -> Situation:
    return Situation(name="cargo-question", lang="en", num_turns=num_turns,
                     text="You are a passenger who keeps asking what is in the locked cargo hold.")


def make_spec(**kw) -> SessionSpec:
    base = dict(character="ferry-captain", situation="cargo-question", player="offline",
                interrogator="offline", judges=["offline"])
    base.update(kw)
    return SessionSpec(**base)


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "pingpong.db")
    yield s
    s.close()


@pytest.fixture
def character():
    return make_character()


@pytest.fixture
def situation():
    return make_situation()
