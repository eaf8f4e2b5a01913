"""The line under a reply names who gave each person's score that counts."""

from __future__ import annotations

from pingpong.sessions.records import HumanScore
from pingpong.tui.widgets.scoring import score_line


def rated(metric: str, value: float, author: str, scale: str = "1-5") -> HumanScore:
    return HumanScore(turn=1, metric=metric, value=value, scale=scale, author=author)


def test_one_person_is_named_once():
    line = score_line([], [rated("in_character", 4, "ann"), rated("fluency", 5, "ann")], 1).plain
    assert line == "person IC 4  FL 5  by ann"


def test_values_set_by_different_people_each_name_their_own():
    """It said 'by qa' after a value bob had set."""
    rows = [rated("cus", 0.7, "qa", "0-1"), rated("raw", 0.5, "bob", "0-1")]
    assert score_line([], rows, 1).plain == "person cus 0.7 by qa  raw 0.5 by bob"
