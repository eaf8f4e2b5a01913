"""The DESIGN.md command lines parse (each command's arguments are built only when it is named)."""

import subprocess
import sys
from pathlib import Path

import pytest

from pingpong.tui.cli import COMMANDS, build_parser

ROOT = Path(__file__).resolve().parents[1]

LINES = [
    ([], "pingpong.tui.commands.app:open_tui"),
    (["play", "--character", "c", "--situation", "s", "--player", "m", "--interrogator", "human",
      "--judge", "a", "--judge", "b"], "pingpong.tui.commands.app:play"),
    (["--home", "/tmp/x", "run", "--player", "a", "--player", "b", "--interrogator", "i", "--judge", "j",
      "--lang", "ru", "--characters", "x,y", "--situations", "z", "--concurrency", "4", "--every", "2",
      "--run", "r"], "pingpong.tui.commands.run:run"),
    (["leaderboard", "--lang", "en", "--format", "csv", "--weights", "2,1,1", "--scores", "human"],
     "pingpong.tui.commands.stats:leaderboard"),
    (["agreement", "--format", "json", "--level", "conversation"], "pingpong.tui.commands.stats:agreement"),
    (["sessions", "list", "--format", "json"], "pingpong.tui.commands.sessions:list_sessions"),
    (["sessions", "show", "3", "--format", "json"], "pingpong.tui.commands.sessions:show_session"),
    (["sessions", "score", "3", "--turn", "2", "--metric", "fluency", "--value", "4", "--author", "a",
      "--reason", "r"], "pingpong.tui.commands.sessions:score"),
    (["sessions", "score", "3", "--turn", "1", "--refusal", "true"], "pingpong.tui.commands.sessions:score"),
    (["sessions", "resume", "3"], "pingpong.tui.commands.sessions:resume"),
    (["export", "--format", "pingpong", "--out", "dir"], "pingpong.tui.commands.exchange:export"),
    (["import", "a.json", "b.jsonl"], "pingpong.tui.commands.exchange:import_"),
    (["cards", "list", "--format", "json"], "pingpong.tui.commands.cards:list_cards"),
    (["cards", "show", "x"], "pingpong.tui.commands.cards:show_card"),
    (["cards", "validate", "a.png"], "pingpong.tui.commands.cards:validate_cards"),
    (["cards", "import", "a.charx"], "pingpong.tui.commands.cards:import_cards"),
    (["situations", "list", "--format", "json"], "pingpong.tui.commands.situations:list_situations"),
    (["situations", "show", "x", "--format", "json"], "pingpong.tui.commands.situations:show_situation"),
    (["--db=/tmp/p.db", "models", "--format", "json"], "pingpong.tui.commands.models:models"),
    (["serve", "--port", "8001"], "pingpong.tui.commands.serve:serve"),
    (["run", "--player", "a", "--interrogator", "i", "--judge", "j", "--method", "pingpong-v1"],
     "pingpong.tui.commands.run:run"),
    (["play", "--version", "1"], "pingpong.tui.commands.app:play"),
    (["judge", "--run", "r", "--session", "3", "--judge", "a", "--judge", "b"], "pingpong.tui.commands.judge:judge"),
    (["sessions", "fork", "3", "--turn", "2", "--player", "m", "--interrogator", "human"],
     "pingpong.tui.commands.sessions:fork"),
    (["sessions", "score", "3", "--metric", "fluency", "--value", "4"], "pingpong.tui.commands.sessions:score"),
    (["leaderboard", "--method", "pingpong-v1", "--include-forks", "--curves"], "pingpong.tui.commands.stats:leaderboard"),
    (["compare", "--baseline", "m", "--judge", "j", "--player", "a", "--player", "b", "--run", "r",
      "--format", "json"], "pingpong.tui.commands.compare:compare"),
    (["leaderboard", "--by", "prompting"], "pingpong.tui.commands.stats:leaderboard"),
    (["sessions", "score", "3", "--versus", "4", "--value", "0.5"], "pingpong.tui.commands.sessions:score"),
    (["leaderboard", "--costs", "--format", "json"], "pingpong.tui.commands.stats:leaderboard"),
    (["report", "--run", "r", "--out", "site"], "pingpong.tui.commands.report:report"),
    (["annotate", "--sample", "5", "--player", "a", "--player", "b", "--method", "dmt", "--author", "zoe"],
     "pingpong.tui.commands.app:annotate"),
    (["export", "--format", "annotations", "--out", "people.jsonl"], "pingpong.tui.commands.exchange:export"),
]


@pytest.mark.parametrize("argv, handler", LINES, ids=[" ".join(a) or "(none)" for a, _ in LINES])
def test_design_command_lines_parse(argv, handler):
    assert build_parser(argv).parse_args(argv).handler == handler


def test_every_command_is_covered():
    named = {next((t for t in argv if not t.startswith("-") and t != "/tmp/x"), None) for argv, _ in LINES}
    assert set(COMMANDS) <= named


@pytest.mark.parametrize("argv", [["--help", "cards"], ["--he", "leaderboard"], ["-h", "--home", "run", "run"], ["bogus"]])
def test_the_top_level_help_and_unknown_commands_still_list_every_command(argv, capsys):
    """A named command's parser leaves its siblings out, except where a message lists them."""
    with pytest.raises(SystemExit):
        build_parser(argv).parse_args(argv)
    printed = capsys.readouterr()
    listing = printed.out + printed.err
    assert all(name in listing for name in COMMANDS), listing


def test_python_dash_m_pingpong_is_the_command(tmp_path):
    """`python -m pingpong` runs the same command line as the `pingpong` script."""
    done = subprocess.run([sys.executable, "-m", "pingpong", "--home", str(tmp_path), "cards", "list",
                           "--format", "json"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert '"name"' in done.stdout
    bad = subprocess.run([sys.executable, "-m", "pingpong", "--home", str(tmp_path), "cards", "show", "no-such-card"],
                         cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "no-such-card" in bad.stderr and "Traceback" not in bad.stderr


@pytest.mark.parametrize("argv", [["--method", "dmt", "--version", "2"], ["--method", "pingpong", "--version", "1"]])
def test_a_version_that_names_another_method_is_one_line(tmp_path, capsys, argv):
    from pingpong.tui.cli import main

    code = main(["--home", str(tmp_path), "run", "--player", "offline", "--interrogator", "offline",
                 "--judge", "offline", *argv])
    err = capsys.readouterr().err.strip()
    assert code == 2 and err.count("\n") == 0 and f"--version {argv[-1]}" in err and argv[1] in err
    assert not (tmp_path / "pingpong.db").exists()


@pytest.mark.parametrize("argv, message", [
    (["sessions", "list", "--limit", "0"], "--limit: expected 1 or more, got 0"),
    (["run", "--player", "offline", "--interrogator", "offline", "--judge", "offline", "--run", " "],
     "--run: must not be empty"),
    (["run", "--player", "offline", "--interrogator", "offline", "--judge", "offline", "--characters", ""],
     "--characters: expected one or more names"),
    (["sessions", "score", "1", "--metric", "fluency", "--value", "3", "--author", ""], "--author: must not be empty"),
    (["--db", "/no/such/folder/x.db", "sessions", "list"], "--db /no/such/folder/x.db: there is no folder"),
    # seat options that take one model, beside commands whose --player and --judge repeat
    (["compare", "--baseline", "offline", "--judge", "a", "--judge", "b"], "--judge: takes one model; given more"),
    (["run", "--player", "p", "--interrogator", "a", "--interrogator", "b", "--judge", "j"],
     "--interrogator: takes one model"),
    (["play", "--player", "a", "--player", "b"], "--player: takes one model"),
    (["sessions", "fork", "1", "--turn", "1", "--interrogator", "a", "--interrogator", "b"],
     "--interrogator: takes one model"),
    # a strategy the format never uses would be stored and reported as if it were
    (["run", "--player", "offline", "--interrogator", "offline", "--judge", "offline", "--prompting", "fsd",
      "--prompt-format", "minimal"], "--prompting fsd: the minimal prompt format sends the player no examples"),
    (["play", "--prompting", "fsp", "--prompt-format", "overview"], "a prompting strategy goes with the detailed"),
])
def test_empty_or_impossible_values_are_one_line_not_a_quiet_default(tmp_path, capsys, argv, message):
    from pingpong.tui.cli import main

    try:
        code = main(["--home", str(tmp_path), *argv])
    except SystemExit as exc:  # argparse's own errors
        code = exc.code
    err = capsys.readouterr().err.strip()
    assert code == 2 and err.count("\n") == 0 and message in err, err
    assert not Path("/no/such/folder").exists() and not (tmp_path / "pingpong.db").exists()


@pytest.mark.parametrize("args", [
    ["sessions", "show", "9223372036854775808"], ["sessions", "resume", "-9223372036854775809"],
    ["sessions", "fork", "99999999999999999999999", "--turn", "1"], ["judge", "--session", "9" * 40, "--judge", "offline"],
    ["sessions", "score", "1", "--turn", "9223372036854775808", "--metric", "fluency", "--value", "3"],
])
def test_a_number_past_what_sqlite_stores_is_one_parser_line_not_an_overflow(tmp_path, capsys, args):
    from pingpong.tui.cli import main

    with pytest.raises(SystemExit) as stop:
        main(["--home", str(tmp_path), *args])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is too large a number" in err, err


def test_zsp_goes_with_any_prompt_format():
    """zsp sends no examples, as the minimal and overview formats send none: nothing is left unused."""
    from pingpong.core.vocabulary import prompting_problem

    assert prompting_problem("zsp", "minimal") is None and prompting_problem("zsp", "overview") is None
    assert prompting_problem("fsp", "overview") and prompting_problem(None, "minimal") is None
