"""Parsing judge and interrogator answers: lenient about form, strict about content."""

from __future__ import annotations

import json

import pytest

from pingpong.core.judging import (
    ParseError,
    as_bool,
    as_int,
    json_candidates,
    looks_like_refusal,
    parse_interrogator,
    parse_judge,
    parse_tester,
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
              fluency_score=" 5 ")
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


def as_tester(**kw):
    data = {"is_refusal_explanation": "\"Boots\" is no refusal", "is_refusal": False,
            "stay_in_character_explanation": "\"Boots\" fits", "stay_in_character": "8",
            "language_fluency_explanation": "fine", "language_fluency": 9,
            "entertainment_explanation": "curt", "entertainment": 6, "next_user_utterance": "Why boots?"}
    data.update(kw)
    return json.dumps(data)


def test_tester_parsing_reads_three_ten_point_scores_and_the_next_line():
    ok = parse_tester(as_tester(), score_turn=2, need_utterance=True)
    assert ok.problems == [] and ok.utterance == "Why boots?"
    assert (ok.scores.turn, ok.scores.is_refusal, ok.scores.values) == (
        2, False, {"in_character": 8, "entertaining": 6, "fluency": 9})
    first = parse_tester('{"next_user_utterance": "Hello"}', score_turn=None, need_utterance=True)
    assert first.problems == [] and first.scores is None and first.utterance == "Hello"
    final = parse_tester(as_tester(entertainment=11, next_user_utterance=""), score_turn=3, need_utterance=False)
    assert final.scores is None and "outside 1-10" in final.problem
    fraction = parse_tester(as_tester(language_fluency="7/10"), score_turn=1, need_utterance=True)
    assert fraction.scores is None and "language_fluency" in fraction.problem
    none = parse_tester("no json", score_turn=1, need_utterance=True)
    assert none.problems and none.utterance is None


def test_a_fraction_is_not_a_score_on_another_scale():
    with pytest.raises(ValueError):
        as_int("3/10", 1, 5)
    with pytest.raises(ValueError):
        as_int("4/5", 1, 5)


def test_two_different_entries_for_one_turn_leave_it_missing():
    parsed = parse_judge(scores(entry(1), entry(1, fluency_score=2), entry(2)), [1, 2])
    assert parsed.missing == [1] and "different scores" in parsed.problem
    same = parse_judge(scores(entry(1), entry(1), entry(2)), [1, 2])
    assert same.missing == []


def _all(value: int) -> str:
    return scores(entry(1, in_character_score=value, entertaining_score=value, fluency_score=value))


@pytest.mark.parametrize("text", [
    "<think>\nDraft: {draft}\nToo harsh. Revising.\n</think>\n{final}",
    "Let me draft: {draft}\nHmm, too harsh. Revising.\n</think>\n\n{final}",  # the template opened the tag
    "<thinking>{draft}</thinking>```json\n{final}\n```",
    "First thought: {draft}\nOn reflection, my final answer:\n{final}",  # a revision without tags
])
def test_a_reasoning_judges_draft_is_never_its_score(text):
    """A model served without a reasoning parser writes draft scores before its answer: the answer
    (the last JSON, after any thinking) is the verdict."""
    parsed = parse_judge(text.format(draft=_all(1), final=_all(5)), [1])
    assert not parsed.missing and parsed.scores[1].values == {"in_character": 5, "entertaining": 5, "fluency": 5}


@pytest.mark.parametrize("explanation", [
    '"<think> The user says hello. I am an AI" - the reply opens with its reasoning',
    "the reply leaves a stray </think> tag before the answer",
    "\"<think>I should</think> Good day\" - it thinks aloud, then answers",
], ids=["quotes-the-opening-tag", "mentions-the-closing-tag", "quotes-a-whole-block"])
def test_a_judge_that_quotes_a_reasoning_tag_keeps_its_scores(explanation):
    """The judge is told to quote the player's turn; a player that thinks aloud gets quoted with its
    tags, inside the JSON's strings, and that is not the judge's own thinking."""
    parsed = parse_judge(scores(entry(1, is_refusal_explanation=explanation), entry(2)), [1, 2])
    assert not parsed.missing and parsed.scores[1].explanations["is_refusal"] == explanation
    tagged = parse_judge("Here are the scores:\n" + scores(entry(1, is_refusal_explanation=explanation)), [1])
    assert not tagged.missing


def test_thinking_that_never_ends_holds_no_answer():
    parsed = parse_judge("<think>" + _all(4) + " still thinking", [1])
    assert parsed.missing == [1] and not parsed.scores


def test_pathological_answers_cost_their_length_and_raise_nothing():
    """Ten thousand unclosed braces once took a minute of the event loop; a nesting deeper than
    Python's recursion limit raised RecursionError and failed the whole conversation."""
    import time

    started = time.process_time()
    for text in ("{" * 20_000, "[" * 20_000 + "]" * 20_000, '{"scores": ' + "[" * 3000 + "]" * 3000 + "}",
                 "{" * 5000 + _all(3)):
        parse_judge(text, [1])
        with pytest.raises(ParseError):
            parse_interrogator(text)
    assert time.process_time() - started < 20  # quadratic was minutes; this only guards against a hang
    assert parse_judge("{" * 5000 + _all(3), [1]).scores[1].values["fluency"] == 3


def test_a_refusal_flag_stands_when_its_scores_are_null_zero_or_out_of_scale():
    # judges often write null or 0 for the scores of a turn they call a refusal; the flag must count
    parsed = parse_judge(scores(entry(1), entry(2, is_refusal=True, in_character_score=None,
                                              entertaining_score=0, fluency_score=4)), [1, 2])
    assert parsed.missing == [] and parsed.problems == []
    assert parsed.scores[2].is_refusal is True and parsed.scores[2].values == {"fluency": 4}
    tester = parse_tester(as_tester(is_refusal=True, stay_in_character=None, language_fluency=0,
                                    entertainment=11), score_turn=2, need_utterance=True)
    assert tester.problems == [] and tester.scores.is_refusal is True and tester.scores.values == {}
    # without the flag the same values are still refused
    assert parse_judge(scores(entry(1, entertaining_score=0)), [1]).missing == [1]
