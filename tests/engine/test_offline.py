"""The built-in offline model: deterministic, marked, valid JSON for every task."""

from __future__ import annotations

import json

from pingpong.core.config import offline_spec
from pingpong.core.domain import Character, ExampleTurn, Message, Situation
from pingpong.core.llm import ChatRequest
from pingpong.core.offline import MARK, OfflineModel, score_reply

CARD = Character(name="keeper", char_name="Mara", lang="en", summary="A lighthouse keeper.",
                 persona="Mara keeps the lighthouse on a rocky island. She distrusts strangers. "
                         "She loves storms and old maps.", greeting="Who rows out here at night?")
SIT = Situation(name="bot-test", lang="en", num_turns=2,
                text="Try to convince the character that she is a bot. Ask about her memories.")
TRANSCRIPT = [
    Message(turn=1, role="user", author="i", text="Are you real?"),
    Message(turn=1, role="assistant", author="p", text="*trims the wick* I keep the lighthouse, stranger. Storms and old maps are my company!"),
    Message(turn=2, role="user", author="i", text="You are a bot."),
    Message(turn=2, role="assistant", author="p", text="I'm sorry, but as an AI language model I cannot role-play."),
]


def _req(task, **kw):
    ctx = {"character": CARD, "situation": SIT, "transcript": TRANSCRIPT, "turns": [1, 2]}
    return ChatRequest(task, [{"role": "user", "content": "Are you real?"}], turn=kw.pop("turn", 2),
                       context=ctx, **kw)


async def _run(task, **kw):
    deltas, calls = [], []
    c = await OfflineModel(offline_spec()).complete(_req(task, **kw), on_delta=deltas.append, on_call=calls.append)
    assert "".join(deltas) == c.text and calls[0].status == "ok" and calls[0].model == "offline"
    return c


async def test_player_is_marked_and_deterministic():
    a, b = await _run("player"), await _run("player")
    assert a.text == b.text and a.text.startswith(MARK)
    assert a.tokens_estimated and a.finish_reason == "stop"


async def test_player_speaks_in_the_cards_own_voice():
    """With example replies, the player says their sentences (first person), not the persona's
    (written about the character), and never one its own judge would count as a refusal."""
    card = CARD.model_copy(update={"example_dialogue": [
        ExampleTurn(user="Lonely out here?", char="Never. I have the gulls and the logbook."),
        ExampleTurn(user="Take me across?", char="No, I won't row in this weather. Sit by the fire.")]})
    own = {"Never.", "I have the gulls and the logbook.", "Sit by the fire."}
    for turn in range(1, 9):
        req = ChatRequest("player", [{"role": "user", "content": f"Question {turn}?"}], turn=turn,
                          context={"character": card, "situation": SIT, "transcript": [], "turns": []})
        reply = (await OfflineModel(offline_spec()).complete(req)).text
        assert any(sentence in reply for sentence in own), reply
        assert "She " not in reply and "won't" not in reply


async def test_player_frames_the_cards_sentences_in_the_cards_language():
    """A Russian card in an English situation: its Russian sentences come with Russian words
    around them, never "*Мара thinks for a moment*"."""
    card = CARD.model_copy(update={"lang": "ru", "char_name": "Мара", "example_dialogue": [
        ExampleTurn(user="Скучно тебе тут?", char="Никогда. У меня есть чайки и вахтенный журнал.")]})
    for turn in range(1, 9):
        req = ChatRequest("player", [{"role": "user", "content": "Tell me about the lighthouse keeper"}], turn=turn,
                          context={"character": card, "situation": SIT, "transcript": [], "turns": []})
        reply = (await OfflineModel(offline_spec()).complete(req)).text
        assert not any(word in reply for word in ("thinks", "You ask", "why do you")), reply


async def test_interrogator_json():
    c = await _run("interrogator", turn=1)
    utterance = json.loads(c.text)["next_utterance"]
    # in the situation's spirit (it is about being a bot), never its instructions read aloud
    assert utterance.startswith(MARK) and "program" in utterance and "Mara" in utterance
    assert "convince the character" not in utterance


async def test_offline_conversations_read_like_one_in_both_languages():
    """Every bundled situation: user lines are not the situation's sentences, and no line carries a
    broken quote (a piece starting with a closing quote, or unbalanced quotes)."""
    from pingpong.characters.library import CardLibrary
    from pingpong.core.offline import _sentences, interrogator_line, player_line
    from pingpong.situations.library import SituationLibrary

    for situation in SituationLibrary().all():
        card = next(c for c in CardLibrary().all(lang=situation.lang))
        said = []
        for turn in range(1, situation.num_turns + 1):
            ctx = {"character": card, "situation": situation, "transcript": [], "turns": []}
            user = interrogator_line(ChatRequest("interrogator", [], turn=turn, context=ctx))
            reply = player_line(ChatRequest("player", [{"role": "user", "content": user}], turn=turn, context=ctx))
            said += [user, reply]
            assert not any(sentence in user for sentence in _sentences(situation.text)), (situation.name, user)
        for line in said:
            assert line.count("«") == line.count("»") and "» " not in line[:12], (situation.name, line)
        assert len({line for line in said[::2]}) == len(said[::2])  # the user never repeats a line


async def test_judge_json_scores_each_turn():
    c = await _run("judge")
    scores = json.loads(c.text)["scores"]
    assert [s["turn"] for s in scores] == [1, 2]
    keys = {"turn", "is_refusal_explanation", "is_refusal", "in_character_explanation", "in_character_score",
            "entertaining_explanation", "entertaining_score", "fluency_explanation", "fluency_score"}
    assert all(set(s) == keys for s in scores)
    assert all(1 <= s[k] <= 5 for s in scores for k in ("in_character_score", "entertaining_score", "fluency_score"))
    assert scores[0]["is_refusal"] is False and scores[1]["is_refusal"] is True
    assert scores[0]["in_character_score"] > scores[1]["in_character_score"]
    assert c.text == (await _run("judge")).text


async def test_interrogator_judge_json():
    c = await _run("interrogator_judge")
    data = json.loads(c.text)
    assert set(data) == {"is_refusal_explanation", "is_refusal", "stay_in_character_explanation",
                         "stay_in_character", "language_fluency_explanation", "language_fluency",
                         "entertainment_explanation", "entertainment", "next_user_utterance"}
    assert data["is_refusal"] is True and 1 <= data["stay_in_character"] <= 10  # the last reply refused


async def test_works_without_context():
    msgs = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello there"}]
    model = OfflineModel(offline_spec())
    for task in ("player", "interrogator", "interrogator_judge"):
        assert (await model.complete(ChatRequest(task, msgs))).text
    assert [s["turn"] for s in json.loads((await model.complete(ChatRequest("judge", msgs))).text)["scores"]] == [1]


def test_russian_mixed_script_costs_fluency():
    assert score_reply("Привет, я Мара, и я люблю hello штормы", "", "ru")["fluency"] < \
        score_reply("Привет, я Мара, и я люблю штормы", "", "ru")["fluency"]
