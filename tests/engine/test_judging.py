"""Parsing judge and interrogator answers: lenient about form, strict about content."""

from __future__ import annotations

import json

import pytest

from pingpong.core.judging import (
    ParseError, as_bool, as_int, json_candidates, looks_like_refusal, parse_interrogator,
    parse_interrogator_judge, parse_judge,
)


def entry(turn, **kw):
    data = {"turn": turn, "is_refusal_explanation": "\"Hi\" - no refusal", "is_refusal": False,
            "in_character_explanation": "\"Hi\" fits", "in_character_score": 4,
            "entertaining_explanation": "\"Hi\" is flat", "entertaining_score": 2,
            "fluency_explanation": "\"Hi\" fine", "fluency_score": 5}
    data.update(kw)
    return data


def scores(*entries):
    return json.dumps({"scores": list(entries)})


@pytest.mark.parametrize("text", [
    scores(entry(1), entry(2)),
    "```json\n" + scores(entry(1), entry(2)) + "\n```",
    "Here is my assessment.\n" + scores(entry(1), entry(2)) + "\nHope this helps!",
    scores(entry(1), entry(2)).replace("}]}", "},]}").replace("5}", "5,}"),
    json.dumps([entry(1), entry(2)]),
    json.dumps({"results": [entry(1), entry(2)]}),
    "```\n" + json.dumps({"scores": [entry(1), entry(2)]}, indent=2) + "\n```",
])
def test_judge_json_in_many_shapes(text):
    parsed = parse_judge(text, [1, 2])
    assert parsed.missing == [] and parsed.problems == []
    assert parsed.scores[1].in_character == 4 and parsed.scores[2].entertaining == 2
    assert parsed.scores[1].explanations["entertaining"] == "\"Hi\" is flat"


def test_single_object_is_one_turn():
    parsed = parse_judge(json.dumps(entry(1)), [1])
    assert parsed.scores[1].fluency == 5


def test_lenient_values():
    e = entry("1", is_refusal="yes", in_character_score="3", entertaining_score=4.0,
              fluency_score="5/5")
    s = parse_judge(scores(e), [1]).scores[1]
    assert (s.is_refusal, s.in_character, s.entertaining, s.fluency) == (True, 3, 4, 5)
    assert as_bool(0) is False and as_bool("True") is True and as_bool("no") is False
    with pytest.raises(ValueError):
        as_bool("maybe")
    with pytest.raises(ValueError):
        as_int(3.5, 1, 5)
    with pytest.raises(ValueError):
        as_int(True, 1, 5)


def test_bad_entries_are_missing_not_invented():
    parsed = parse_judge(scores(entry(1, in_character_score=7), entry(2, fluency_score=None),
                                {"turn": 3, "is_refusal": False}), [1, 2, 3])
    assert parsed.scores == {} and parsed.missing == [1, 2, 3]
    assert "turn 1: in_character_score: 7 is outside 1-5" in parsed.problem
    assert "turn 3: is_refusal" not in parsed.problem and "turn 3" in parsed.problem


def test_extra_turns_ignored_missing_reported():
    parsed = parse_judge(scores(entry(1), entry(5), entry(9)), [1, 2])
    assert list(parsed.scores) == [1] and parsed.missing == [2] and parsed.ignored == [5, 9]
    assert "2" in parsed.problem


def test_entries_without_turn_numbers_follow_the_order():
    bare = [{k: v for k, v in entry(t).items() if k != "turn"} for t in (1, 2)]
    assert list(parse_judge(json.dumps({"scores": bare}), [3, 4]).scores) == [3, 4]


def test_refusals_and_garbage():
    refused = parse_judge("I'm sorry, but I can't help with that request.", [1, 2])
    assert refused.missing == [1, 2] and "declined" in refused.problem
    assert looks_like_refusal("Я не могу это оценить.")
    garbage = parse_judge("The player did well overall.", [1])
    assert garbage.missing == [1] and "no usable JSON" in garbage.problem
    assert "empty" in parse_judge("", [1]).problem


def test_json_candidates_handles_python_style_and_nesting():
    found = list(json_candidates("Result: {'scores': [{'turn': 1, 'is_refusal': False}]} done"))
    assert found[0] == {"scores": [{"turn": 1, "is_refusal": False}]}
    assert list(json_candidates("no braces here")) == []


def test_interrogator_parsing():
    assert parse_interrogator('{"next_utterance": "Hi there"}') == "Hi there"
    assert parse_interrogator('```json\n{"next_utterance": "*waves* Hi, don\'t go!",}\n```') == "*waves* Hi, don't go!"
    assert parse_interrogator('Sure. {"next_utterance": "Привет"} ') == "Привет"
    for bad in ("Hello, lighthouse keeper!", '{"next_utterance": ""}', '{"utter": 3}', ""):
        with pytest.raises(ParseError):
            parse_interrogator(bad)


def test_interrogator_judge_parsing():
    ok = parse_interrogator_judge('{"score_explanation": "\\"Boots\\" is curt", "score": "8", '
                                  '"next_utterance": "Why boots?"}', need_score=True, need_utterance=True)
    assert (ok.score, ok.utterance, ok.problems) == (8.0, "Why boots?", [])
    first = parse_interrogator_judge('{"next_utterance": "Hello"}', need_score=False, need_utterance=True)
    assert first.problems == [] and first.score is None
    final = parse_interrogator_judge('{"score": 11, "next_utterance": ""}', need_score=True,
                                     need_utterance=False)
    assert final.score is None and "outside 1-10" in final.problem
    none = parse_interrogator_judge("no json", need_score=True, need_utterance=True)
    assert none.problems and none.utterance is None
