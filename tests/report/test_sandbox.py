"""The report's environment skips the sandbox's checks only where they cannot fail: what the
sandbox refuses, it still refuses."""

from __future__ import annotations

import pytest
from jinja2.exceptions import SecurityError, UndefinedError

from pingpong.sessions.report import Report
from pingpong.tui.report import environment


def render(source: str, **variables: object) -> str:
    return environment().from_string(source).render(**variables)


def test_plain_reads_of_our_objects_and_dicts():
    row = {"metrics": {"a": 1}, "name": "x"}
    assert render("{{ r.name }} {{ r.metrics.a }} {{ r['name'] }}", r=row) == "x 1 x"
    assert render("{% for k, v in r.items() %}{{ k }}{% endfor %}", r={"items": 5, "b": 2}) == "itemsb"
    assert render("{{ r.items is callable }}", r={"items": 5}) == "True"  # the method, as the sandbox reads it


@pytest.mark.parametrize("source", [
    "{{ r.__class__.__mro__ }}",
    "{{ r._fields }}",
    "{{ r.players.append(1) }}",
    "{{ d.clear() }}",
    "{{ d.update(a=1) }}",
    "{{ r.__init__.__globals__ }}",
])
def test_what_the_sandbox_refuses_stays_refused(source):
    report = Report.__new__(Report)
    object.__setattr__(report, "players", [])
    with pytest.raises((SecurityError, UndefinedError)):
        render(source, r=report, d={"a": 1})
