"""The player's system-prompt formats (minimal, overview, detailed): what reaches the model, all
built from the same card."""

from __future__ import annotations

import pytest

from pingpong.core.domain import Message
from pingpong.core.engine import SessionEngine
from pingpong.core.prompts import PromptRenderer
from tests.engine.engine_support import card, collect, requests_for, situation, spec

CHAT = [Message(turn=1, role="user", author="interrogator", text="Is the light ever off?")]


def test_minimal_is_the_name_only():
    msgs = PromptRenderer().player(card(), CHAT, prompt_format="minimal")
    assert msgs == [{"role": "system", "content": "You are Edda. Reply as Edda, in English."},
                    {"role": "user", "content": "Is the light ever off?"}]


def test_overview_is_the_name_and_summary():
    msgs = PromptRenderer().player(card(), CHAT, prompt_format="overview")
    system = msgs[0]["content"]
    assert system.startswith("You are Edda. An old lighthouse keeper on a windy island.")
    assert "forty years" not in system  # the persona stays out
    assert msgs[1:] == [{"role": "user", "content": "Is the light ever off?"}]  # no greeting, no examples


def test_detailed_is_the_full_card_with_role_play_instructions():
    msgs = PromptRenderer().player(card(), CHAT, prompt_format="detailed")
    assert msgs == PromptRenderer().player(card(), CHAT)  # the default
    system = msgs[0]["content"]
    assert "forty years" in system and "Stay in character" in system
    assert {"role": "assistant", "content": "*squints at you* Another visitor. Wipe your boots."} in msgs
    assert {"role": "user", "content": "Is the light ever off?"} in msgs[1:-1]  # the example as a prior turn


@pytest.mark.parametrize("fmt, persona", [("minimal", False), ("overview", False), ("detailed", True)])
async def test_the_session_format_reaches_the_player_model(fake_server, fake_pool, fmt, persona):
    engine = SessionEngine(spec=spec(num_turns=1, judges=[], prompt_format=fmt), character=card(),
                           situation=situation(1), pool=fake_pool)
    await collect(engine)
    (request,) = requests_for(fake_server, "player")
    system = request["messages"][0]["content"]
    assert system.startswith("You are Edda.")
    assert ("forty years" in system) is persona
