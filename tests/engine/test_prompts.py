"""The prompt templates: what each role sees, and that card text is never evaluated."""

from __future__ import annotations

import pytest

from pingpong.core.domain import Message
from pingpong.core.errors import UserError
from pingpong.core.prompts import PromptRenderer
from tests.engine.engine_support import card, situation

NASTY = "Ada {{ 7*7 }} {% for x in y %}{% endfor %} {{ config }} {{ ''.__class__ }}"


def transcript(turns: int, last_user: bool = False) -> list[Message]:
    out = []
    for t in range(1, turns + 1):
        out.append(Message(turn=t, role="user", author="i", text=f"question {t}"))
        out.append(Message(turn=t, role="assistant", author="p", text=f"answer {t}"))
    if last_user:
        out.append(Message(turn=turns + 1, role="user", author="i", text=f"question {turns + 1}"))
    return out


def test_player_gets_persona_examples_greeting_and_chat():
    msgs = PromptRenderer().player(card(lang="ru"), transcript(1, last_user=True))
    system = msgs[0]["content"]
    assert msgs[0]["role"] == "system" and "forty years" in system and "Russian" in system
    assert "Edda" in system and "asterisks" in system
    assert [m["role"] for m in msgs[1:]] == ["user", "assistant", "assistant", "user", "assistant", "user"]
    assert msgs[-1]["content"] == "question 2"


def test_interrogator_sees_summary_and_situation_only():
    msgs = PromptRenderer().interrogator(card(), situation(4, lang="ru"), transcript(2),
                                         turn=3, num_turns=4)
    text = "\n".join(m["content"] for m in msgs)
    assert "windy island" in text and "washed ashore" in text and "forty years" not in text
    assert "turn 3 of 4" in text and '{"next_utterance"' in text and "Russian" in text
    assert "[You]\nquestion 2" in text and "[Edda]\nanswer 2" in text


def test_judge_marks_player_turns_and_lists_them():
    msgs = PromptRenderer().judge(card(), transcript(3), turns=[1, 2, 3])
    system, user = msgs[0]["content"], msgs[1]["content"]
    for field in ("is_refusal_explanation", "in_character_score", "entertaining_score",
                  "fluency_score", '"scores"', '"turn"'):
        assert field in system
    assert "[PLAYER TURN 3]\nanswer 3" in user and "[USER]\nquestion 1" in user
    assert "Score these player turns: 1, 2, 3." in user and "forty years" in user


def test_interrogator_judge_variants():
    r = PromptRenderer()
    first = r.interrogator_judge(card(), situation(2), [], turn=1, score_turn=None, num_turns=2)
    assert "no player reply to score" in first[1]["content"] and "forty years" in first[0]["content"]
    middle = r.interrogator_judge(card(), situation(2), transcript(1), turn=2, score_turn=1, num_turns=2)
    assert "Score player turn 1" in middle[1]["content"] and "turn 2 of 2" in middle[1]["content"]
    last = r.interrogator_judge(card(), situation(2), transcript(2), turn=None, score_turn=2, num_turns=2)
    assert "conversation is over" in last[1]["content"]


def test_reasks_append_the_bad_answer_and_a_correction():
    r = PromptRenderer()
    base = r.judge(card(), transcript(2), turns=[1, 2])
    again = r.judge_reask(base, "nope", "No scores for turn(s) 2", turns=[2])
    assert again[:2] == base and again[2] == {"role": "assistant", "content": "nope"}
    assert "turns: 2," in again[3]["content"]
    inter = r.interrogator_reask(base, "plain", "no JSON", lang="ru")
    assert "Russian" in inter[-1]["content"]


def test_card_text_is_passed_verbatim():
    character = card(persona=NASTY, summary=NASTY, greeting=NASTY)
    r = PromptRenderer()
    sit = situation(1, text=NASTY)
    chat = [Message(turn=1, role="user", author="i", text=NASTY),
            Message(turn=1, role="assistant", author="p", text=NASTY)]
    rendered = [r.player(character, chat), r.interrogator(character, sit, chat, turn=1, num_turns=1),
                r.judge(character, chat, turns=[1]),
                r.interrogator_judge(character, sit, chat, turn=None, score_turn=1, num_turns=1)]
    for msgs in rendered:
        text = "\n".join(m["content"] for m in msgs)
        assert NASTY in text and "49" not in text


def test_user_folder_overrides_by_file_name(tmp_path):
    (tmp_path / "player_system.j2").write_text("Be {{ character.char_name }}. {{ language }}.")
    msgs = PromptRenderer(tmp_path).player(card(), [])
    assert msgs[0]["content"] == "Be Edda. English."
    # the other templates still come from the package
    assert "next_utterance" in PromptRenderer(tmp_path).interrogator(
        card(), situation(1), [], turn=1, num_turns=1)[0]["content"]
    # a missing folder is ignored
    assert PromptRenderer(tmp_path / "nope").player(card(), [])[0]["content"].startswith("You are Edda")


def test_user_template_errors_are_user_errors_and_sandboxed(tmp_path):
    (tmp_path / "player_system.j2").write_text("{{ character.no_such_field }}")
    with pytest.raises(UserError, match="player_system.j2"):
        PromptRenderer(tmp_path).player(card(), [])
    (tmp_path / "player_system.j2").write_text("{{ ''.__class__.__mro__ }}")
    with pytest.raises(UserError, match="player_system.j2"):
        PromptRenderer(tmp_path).player(card(), [])
    # variables are dicts whose keys are read first (core/prompt_env.py): what is not a key
    # still goes through the sandbox
    (tmp_path / "player_system.j2").write_text("{{ character.__class__.__subclasses__() }}")
    with pytest.raises(UserError, match="player_system.j2"):
        PromptRenderer(tmp_path).player(card(), [])
