"""Only a bug in pingpong may print a traceback, and then it says so and where to report it."""

from __future__ import annotations

import pingpong.tui.commands.situations as situations_command

from .support import cli


def test_a_bug_prints_its_traceback_and_where_to_report_it(tmp_path, monkeypatch):
    def broken(args, home):
        raise ZeroDivisionError("a bug planted by this test")

    monkeypatch.setattr(situations_command, "list_situations", broken)
    result = cli("situations", "list", "--home", str(tmp_path))
    assert result.rc == 1
    assert result.err.startswith("Traceback (most recent call last):")
    assert "ZeroDivisionError: a bug planted by this test" in result.err
    last = result.err_lines[-1]
    assert last.startswith("pingpong: internal error (a bug in pingpong ") and "please report it at " in last


def test_a_user_error_has_no_traceback_and_no_report_line(tmp_path):
    result = cli("sessions", "show", "7", "--home", str(tmp_path))
    assert result.rc == 2 and result.err_lines == ["pingpong: error: session 7: no such session"]
