"""The rules of a group scene without any model: who is named next, the order of lines and
questions, who may sit where, and how an answer is scored."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from pingpong.core.domain import Character, Message, SessionSpec
from pingpong.core.engine import check_group_history
from pingpong.core.methods.roleinteract_scene import (
    default_member_seat,
    in_turn,
    parse_next_speaker,
    scene_cast,
    scene_situation,
    schedule,
    score_answer,
)
from tests.scenes.support import CARDS, scene

RU = {c.name: c for c in [
    Character(name="baba-yaga", char_name="Баба-яга", lang="ru", summary="Хозяйка избушки.", persona="Ведьма."),
    Character(name="koschei", char_name="Кощей Бессмертный", lang="ru", summary="Царь.", persona="Колдун."),
]}


@pytest.mark.parametrize("answer, last, expected", [
    ('{"next_speaker": "Tamsin"}', None, "net-mender"),
    ('```json\n{"next_speaker": "old bram"}\n```', None, "ferryman"),
    ('{"speaker": "harbour-master"}', None, "harbour-master"),
    ("Osric, clearly: he was asked.", None, "harbour-master"),
    ("Let Edda answer, then Tamsin.", None, "lighthouse-keeper"),
    ("Let Edda answer, then Tamsin.", "lighthouse-keeper", "net-mender"),
    ('{"next_speaker": "Tamsin"}', "net-mender", None),
    ("Bram!", None, "ferryman"),
    ("the ghost of the quay", None, None),
    ("", None, None),
    # a reasoning model's thinking names members it decided against: the answer after it counts
    ("<think>Edda spoke last; maybe Osric? No.</think>\nOld Bram", None, "ferryman"),
    ("Edda again? Tamsin? No, it should be the ferryman.</think> Bram", None, "ferryman"),
])
def test_the_narrators_answer_names_a_member(answer, last, expected):
    assert parse_next_speaker(answer, CARDS, last) == expected


def test_names_in_cyrillic_and_words_shared_by_two_members():
    assert parse_next_speaker('{"next_speaker": "кощей"}', RU) == "koschei"
    assert parse_next_speaker("Пусть ответит Баба-яга.", RU, "koschei") == "baba-yaga"
    twins = {"a": CARDS["net-mender"].model_copy(update={"name": "a", "char_name": "Tamsin Reed"}),
             "b": CARDS["net-mender"].model_copy(update={"name": "b", "char_name": "Tamsin Hale"})}
    assert parse_next_speaker("Tamsin", twins) is None, "a word two members share names neither"
    assert parse_next_speaker("Hale", twins) == "b"


def test_round_robin_follows_the_cast_and_wraps():
    cast = ["a", "b", "c"]
    assert [in_turn(cast, last) for last in (None, "a", "b", "c", "stranger")] == ["a", "b", "c", "a", "a"]


def test_marked_questions_come_after_their_line_the_rest_at_the_end():
    steps = schedule(scene(rounds=4))
    assert [s.id if s else "line" for s in steps] == ["line", "line", "q-01", "line", "line", "q-02"]
    assert scene_situation(scene()).num_turns == len(steps) == 6
    with pytest.raises(ValidationError, match="after 5 utterances, but the scene has only 4 rounds"):
        scene(questions=[{**scene().questions[0].model_dump(), "after": 5}])
    with pytest.raises(ValidationError, match="49 rounds and 2 questions make more than 50 turns"):
        scene(rounds=49)  # a scene file like this is a bad file, skipped with a warning, not a failed run


def test_the_cast_seats_the_tested_member_as_the_player():
    s = scene()
    cast = scene_cast(s, ["ferryman", "lighthouse-keeper"], player="p", others="o")
    assert [(c.character, c.seat) for c in cast] == [("lighthouse-keeper", "p"), ("ferryman", "o")]
    cast = scene_cast(s, None, player="p", others="o", seats={"net-mender": "human"})
    assert [c.seat for c in cast] == ["p", "o", "human", "o"]
    with pytest.raises(ValueError, match="tests 'lighthouse-keeper': it must be in the cast"):
        scene_cast(s, ["ferryman", "net-mender"], player="p", others="o")
    with pytest.raises(ValueError, match="'tally' is not a member of scene 'quay-at-dusk'"):
        scene_cast(s, ["lighthouse-keeper", "tally"], player="p", others="o")
    with pytest.raises(ValueError, match="at least 2 members"):
        scene_cast(s, ["lighthouse-keeper"], player="p", others="o")
    with pytest.raises(ValueError, match="seat is given for 'ferryman', who is not in the cast"):
        scene_cast(s, ["lighthouse-keeper", "net-mender"], player="p", others="o", seats={"ferryman": "human"})
    assert default_member_seat("p", "i") == "i"
    assert default_member_seat("p", "human") == "p"
    assert default_member_seat("human", "human") == "offline"


def test_a_spec_with_a_cast_holds_the_tested_member_once():
    base = dict(character="a", situation="s", player="p", interrogator="i", method="roleinteract")
    seats = [{"character": c, "seat": "m"} for c in ("a", "b")]
    spec = SessionSpec(**base, cast=seats)
    assert spec.seat_of("a") == "p" and spec.seat_of("b") == "m" and spec.next_speaker == "narrator"
    for cast, problem in ((seats[1:], "seats 2 to 10 characters, found 1"),
                          (seats + seats[:1], "'a' is seated twice"),
                          ([{"character": c, "seat": "m"} for c in "bc"], "'a' is not in the cast"),
                          ([{"character": f"c{i}", "seat": "m"} for i in range(10)] + seats[:1], "found 11")):
        with pytest.raises(ValidationError, match=problem):
            SessionSpec(**base, cast=cast)
    assert SessionSpec.model_validate_json(spec.model_dump_json()) == spec
    assert SessionSpec(**base).cast == []


def _answer(text: str, turn: int = 3) -> Message:
    return Message(turn=turn, role="assistant", author="m", text=text, speaker="lighthouse-keeper")


@pytest.mark.parametrize("text, value, why", [
    ("A. I row out myself.", 1.0, "chose A; expected A"),
    ("*sighs* I'd pick (B), the bed is warm.", 0.0, "chose B; expected A"),
    ("Вариант А, конечно.", 1.0, "chose A; expected A"),
    ("B and C", 0.0, "unparseable: no single option letter found in the answer; expected A"),
    ("I would row out at once.", 0.0, "unparseable: no single option letter found in the answer; expected A"),
])
def test_an_answer_is_scored_by_rule_and_an_unreadable_one_is_flagged(text, value, why):
    question = scene().questions[0]
    score = score_answer(question, _answer(text))
    assert (score.turn, score.metric, score.scale, score.value, score.explanation) == (
        3, "social_preference_group", "0-1", value, why)


def test_a_stored_scene_must_name_its_speakers_and_keep_its_turns():
    cast = {name: CARDS[name] for name in ("lighthouse-keeper", "ferryman")}
    good = [Message(turn=1, role="user", author="scene", text="o", speaker="narrator"),
            Message(turn=1, role="assistant", author="m", text="l", speaker="ferryman"),
            Message(turn=2, role="assistant", author="m", text="l", speaker="lighthouse-keeper"),
            Message(turn=3, role="user", author="scene", text="q", speaker="narrator"),
            Message(turn=3, role="assistant", author="m", text="a", speaker="lighthouse-keeper")]
    check_group_history(good, cast)
    with pytest.raises(ValueError, match="message 2 .turn 1. has no speaker"):
        check_group_history([good[0], good[1].model_copy(update={"speaker": None})], cast)
    with pytest.raises(ValueError, match="speaker 'tally' is not in the cast"):
        check_group_history([good[0], good[1].model_copy(update={"speaker": "tally"})], cast)
    with pytest.raises(ValueError, match="message 3 is turn 4 assistant after turn 1 assistant"):
        check_group_history([good[0], good[1], good[2].model_copy(update={"turn": 4})], cast)


def test_the_board_counts_a_scenes_unreadable_answers_as_unparseable():
    """A group scene's answer without a letter counts in the board's `unparseable`, as a probe's does,
    also when an older release wrote its explanation as "unreadable: ..."."""
    from pingpong.sessions.aggregation.roleinteract import question_values

    rows = [(1, "judge", 3, "social_preference_group", 0.0, "unparseable: no single option letter found"),
            (1, "judge", 5, "social_preference_group", 0.0, "unreadable: no single option letter found"),
            (1, "judge", 7, "social_preference_group", 1.0, "chose A; expected A")]
    values = question_values(rows)[1]
    assert [flagged for _value, flagged in values.values()] == [True, True, False]
