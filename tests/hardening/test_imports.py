"""`pingpong import` of our JSONL and PingPong results: every line is checked before anything is
written, a bad line is refused in one line naming it (exit 2), and the database keeps every byte."""

from __future__ import annotations

import copy
import json
import sqlite3

import pytest

from .support import (
    cli,
    refused,
    seed_home,
)


@pytest.fixture(scope="module")
def session_doc(seeded, tmp_path_factory) -> dict:
    """The seeded home's one session as our JSONL writes it."""
    out = tmp_path_factory.mktemp("export") / "all.jsonl"
    assert cli("export", "--format", "jsonl", "--out", str(out), "--home", str(seeded.root)).rc == 0
    seeded.assert_unchanged()
    (line,) = out.read_text(encoding="utf-8").splitlines()
    return json.loads(line)


def _fresh(doc: dict, stamp: str) -> dict:
    """A copy that is not the stored session (another creation time), so it would be imported."""
    fresh = copy.deepcopy(doc)
    fresh["created_at"] = stamp
    return fresh


def _import_lines(seeded, tmp_path, *docs: dict) -> str:
    path = tmp_path / "sessions.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in docs), encoding="utf-8")
    line = refused(seeded.root, "import", str(path))
    seeded.assert_unchanged()
    return line.removeprefix(f"pingpong: error: {path}: ")


def _without(doc: dict, turn: int, role: str) -> dict:
    bad = _fresh(doc, "2001-01-01T00:00:00.000+00:00")
    bad["messages"] = [m for m in bad["messages"] if (m["turn"], m["role"]) != (turn, role)]
    return bad


def test_the_exported_session_is_what_the_tests_spoil(session_doc):
    assert [(m["turn"], m["role"]) for m in session_doc["messages"]] == [
        (1, "user"), (1, "assistant"), (2, "user"), (2, "assistant")]


def test_a_duplicated_message_is_refused_and_names_its_line(seeded, tmp_path, session_doc):
    good = _fresh(session_doc, "2000-01-01T00:00:00.000+00:00")
    bad = _fresh(session_doc, "2000-01-02T00:00:00.000+00:00")
    bad["messages"].append(dict(bad["messages"][1]))
    assert _import_lines(seeded, tmp_path, good, bad) == (
        "line 2: messages[4]: turn 1 assistant message appears twice (also messages[1])")


def test_a_duplicated_judge_score_is_refused(seeded, tmp_path, session_doc):
    bad = _fresh(session_doc, "2000-01-03T00:00:00.000+00:00")
    first = next(s for s in bad["scores"] if s["source"] == "judge" and s["turn"] == 1)
    bad["scores"].append({**first, "value": 1 if first["value"] != 1 else 2})
    line = _import_lines(seeded, tmp_path, bad)
    assert line.startswith(f"line 1: scores[{len(bad['scores']) - 1}]: judge 'offline' scored {first['metric']}"
                           " of turn 1 twice (also scores[")


def test_people_may_score_a_turn_twice_a_judge_may_not(seeded, tmp_path, session_doc):
    """People's scores are append-only (the newest counts), so two of them are not a duplicate."""
    doc = _fresh(session_doc, "2000-01-04T00:00:00.000+00:00")
    person = {"source": "human", "by": "ann", "turn": 1, "metric": "fluency", "value": 4, "scale": "1-5",
              "explanation": None, "status": "ok", "error": None, "created_at": "2000-01-05T00:00:00.000+00:00"}
    doc["scores"] += [person, {**person, "value": 2, "created_at": "2000-01-06T00:00:00.000+00:00"}]
    doc["scores"].append({**doc["scores"][0], "by": "x", "turn": None, "metric": "overall", "value": 5,
                          "scale": "1-5"})
    doc["scores"].append({**doc["scores"][-1]})  # the same judge value for the whole session, twice
    assert "scored overall of the whole session twice" in _import_lines(seeded, tmp_path, doc)


@pytest.mark.parametrize("turn,role,problem", [
    (1, "user", "messages: history message 1 is turn 1 assistant; expected turn 1 user"),
    (1, "assistant", "messages: history message 2 is turn 2 user; expected turn 1 assistant"),
], ids=["starts-with-the-player", "a-turn-without-its-reply"])
def test_a_transcript_out_of_order_is_refused(seeded, tmp_path, session_doc, turn, role, problem):
    assert _import_lines(seeded, tmp_path, _without(session_doc, turn, role)) == f"line 1: {problem}"


def test_a_skipped_turn_is_refused(seeded, tmp_path, session_doc):
    bad = _fresh(session_doc, "2001-01-02T00:00:00.000+00:00")
    bad["status"] = "interrupted"
    bad["messages"] = [m for m in bad["messages"] if m["turn"] != 1]
    assert _import_lines(seeded, tmp_path, bad) == (
        "line 1: messages: history message 1 is turn 2 user; expected turn 1 user")


@pytest.mark.parametrize("tail,problem", [
    (', "n": ' + "9" * 5000, "a number has more than 4300 digits"),
    (', "n": NaN', "NaN is not a JSON number"),
    (', "n": ' + "[" * 5000 + "]" * 5000, "nested deeper than 65 levels"),
], ids=["long-number", "nan", "deep"])
def test_values_python_or_the_store_cannot_handle_are_one_line(seeded, tmp_path, session_doc, tail, problem):
    text = json.dumps(_fresh(session_doc, "2001-01-03T00:00:00.000+00:00"))
    path = tmp_path / "bad.jsonl"
    path.write_text(text + "\n" + text + "\n" + text[:-1] + tail + "}\n", encoding="utf-8")
    line = refused(seeded.root, "import", str(path))
    assert line == f"pingpong: error: {path}: line 3: {problem}"
    seeded.assert_unchanged()


@pytest.mark.parametrize("text,problem", [
    ('{"outputs": [], "n": ' + "9" * 5000 + "}", "a number has more than 4300 digits"),
    ('{"outputs": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested deeper than 65 levels"),
    ('{\n "spec": {},\n "messages": []\n}', "one session spread over several lines; pingpong JSONL has one "
                                            "session per line"),
], ids=["long-number", "deep", "pretty-printed-session"])
def test_results_files_python_cannot_read_are_one_line(seeded, tmp_path, text, problem):
    path = tmp_path / "results.json"
    path.write_text(text, encoding="utf-8")
    assert refused(seeded.root, "import", str(path)) == f"pingpong: error: {path}: {problem}"
    seeded.assert_unchanged()


def test_a_symlink_loop_and_binary_files_are_one_line(seeded, tmp_path):
    (tmp_path / "a.jsonl").symlink_to(tmp_path / "b.jsonl")
    (tmp_path / "b.jsonl").symlink_to(tmp_path / "a.jsonl")
    (tmp_path / "c.jsonl").write_bytes(b'{"spec": \x00}\n')
    result = cli("import", str(tmp_path / "a.jsonl"), str(tmp_path / "c.jsonl"), "--home", str(seeded.root))
    assert result.rc == 2 and "Traceback" not in result.err
    assert result.err_lines == [
        f"pingpong: error: {tmp_path / 'a.jsonl'}: cannot read (Too many levels of symbolic links)",
        f"pingpong: error: {tmp_path / 'c.jsonl'}: binary content (expected PingPong results JSON or pingpong JSONL)"]
    seeded.assert_unchanged()


def test_a_stored_session_out_of_order_is_refused_by_resume_and_judge_and_left_alone(tmp_path, session_doc):
    """A database written before these checks (or by hand) may hold such a session: resuming or
    judging it says so in one line and claims nothing."""
    home = tmp_path / "home"
    doc = _fresh(session_doc, "2001-01-04T00:00:00.000+00:00")
    doc["status"] = "interrupted"
    path = tmp_path / "one.jsonl"
    path.write_text(json.dumps(doc) + "\n", encoding="utf-8")
    assert cli("import", str(path), "--home", str(home)).rc == 0
    conn = sqlite3.connect(home / "pingpong.db")
    with conn:
        conn.execute("DELETE FROM messages WHERE turn = 1")
    before = conn.execute("SELECT status, pid, host, judges FROM sessions").fetchall()
    for args in (("sessions", "resume", "1"), ("judge", "--session", "1", "--judge", "offline")):
        line = refused(home, *args)
        assert line == ("pingpong: error: session 1: its stored messages cannot be continued or judged "
                        "(history message 1 is turn 2 user; expected turn 1 user)")
        assert conn.execute("SELECT status, pid, host, judges FROM sessions").fetchall() == before
    conn.close()


@pytest.mark.parametrize("spoil,problem", [
    (lambda d: d["scores"][1].update(value=True), "scores[1]: value: Input should be a valid number"),
    (lambda d: d["messages"][2].update(turn="2"), "messages[2]: turn: Input should be a valid integer"),
    (lambda d: d["calls"][0].update(tokens_estimated="yes"), "calls[0]: tokens_estimated: expected true, false, 0 or 1"),
    (lambda d: d.update(player=7), "player: expected text, got int"),
    (lambda d: d.update(num_turns="2"), "num_turns: expected a whole number, got str"),
    (lambda d: d["scores"][0].update(created_at=0), "scores[0]: created_at: expected text"),
], ids=["true-as-a-score", "text-as-a-turn", "flag", "player", "num-turns", "created-at"])
def test_values_of_the_wrong_type_are_refused_not_stored_as_written(seeded, tmp_path, session_doc, spoil, problem):
    """Rows go into the database as written, so a value must already have the stored type."""
    bad = _fresh(session_doc, "2001-01-05T00:00:00.000+00:00")
    spoil(bad)
    assert _import_lines(seeded, tmp_path, bad).startswith(f"line 1: {problem}")


TOO_LARGE = "too large a number to store (a whole number from -2**63 to 2**63-1)"
TOO_SMALL = "too small a number to store (a whole number from -2**63 to 2**63-1)"


@pytest.mark.parametrize("spoil,problem", [
    (lambda d: d["calls"][0].update(attempt=2**63), f"calls[0]: attempt: {TOO_LARGE}"),
    (lambda d: d["calls"][0].update(prompt_tokens=2**64), f"calls[0]: prompt_tokens: {TOO_LARGE}"),
    (lambda d: d["calls"][1].update(completion_tokens=-(2**63) - 1), f"calls[1]: completion_tokens: {TOO_SMALL}"),
    (lambda d: d["calls"][0].update(latency_ms=2**63), f"calls[0]: latency_ms: {TOO_LARGE}"),
    (lambda d: d["messages"][1].update(prompt_tokens=2**63), f"messages[1]: prompt_tokens: {TOO_LARGE}"),
    (lambda d: d["messages"][2].update(turn=2**63), f"messages[2]: turn: {TOO_LARGE}"),
    (lambda d: d["scores"][0].update(turn=-(2**70)), f"scores[0]: turn: {TOO_SMALL}"),
    (lambda d: d.update(num_turns=2**63), f"num_turns: {TOO_LARGE}"),
    (lambda d: d.update(fork_turn=-(2**63) - 1), f"fork_turn: {TOO_SMALL}"),
    (lambda d: d["run"].update(created_at=2**63), f"run: created_at: {TOO_LARGE}"),
], ids=["attempt", "prompt-tokens", "completion-tokens", "latency", "message-tokens", "message-turn", "score-turn",
        "num-turns", "fork-turn", "run-created-at"])
def test_a_number_beyond_what_sqlite_stores_is_refused(seeded, tmp_path, session_doc, spoil, problem):
    """sqlite3 cannot bind a Python int beyond 64 bits: such a line failed the import with an
    OverflowError traceback."""
    good = _fresh(session_doc, "2001-02-01T00:00:00.000+00:00")
    bad = _spoilt(session_doc, "2001-02-02T00:00:00.000+00:00", spoil)
    assert _import_lines(seeded, tmp_path, good, bad) == f"line 2: {problem}"


@pytest.mark.parametrize("spoil,problem", [
    (lambda d: d["calls"][0].update(prompt_tokens=-1), "calls[0]: prompt_tokens: -1 is below 0"),
    (lambda d: d["calls"][0].update(turn=0), "calls[0]: turn: 0 is below 1"),
    (lambda d: d["calls"][1].update(attempt=0), "calls[1]: attempt: 0 is below 1"),
    (lambda d: d["messages"][1].update(completion_tokens=-3), "messages[1]: completion_tokens: -3 is below 0"),
    (lambda d: d["messages"][1].update(latency_ms=-0.5), "messages[1]: latency_ms: -0.5 is below 0"),
    (lambda d: d["messages"][3].update(attempt=-(2**63)), f"messages[3]: attempt: {-(2**63)} is below 1"),
    (lambda d: d["run"].update(created_at=7), "run: created_at: expected text"),
], ids=["call-tokens", "call-turn", "call-attempt", "message-tokens", "message-latency", "message-attempt",
        "run-created-at"])
def test_a_count_below_its_least_is_refused(seeded, tmp_path, session_doc, spoil, problem):
    """Token counts and times add up in the cost and speed views; an attempt starts at 1."""
    bad = _spoilt(session_doc, "2001-02-03T00:00:00.000+00:00", spoil)
    assert _import_lines(seeded, tmp_path, bad) == f"line 1: {problem}"


def test_the_largest_whole_numbers_sqlite_stores_round_trip(tmp_path, session_doc):
    doc = _fresh(session_doc, "2001-02-04T00:00:00.000+00:00")
    doc["calls"][0].update(prompt_tokens=2**63 - 1, completion_tokens=2**63 - 1)
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps(doc) + "\n", encoding="utf-8")
    home = tmp_path / "home"
    assert cli("import", str(source), "--home", str(home)).rc == 0
    out = tmp_path / "out.jsonl"
    assert cli("export", "--format", "jsonl", "--out", str(out), "--home", str(home)).rc == 0
    assert json.loads(out.read_text(encoding="utf-8"))["calls"][0]["prompt_tokens"] == 2**63 - 1


def test_line_separators_inside_texts_survive_a_round_trip(tmp_path, session_doc):
    """JSON keeps U+2028 and U+0085 raw inside strings; JSONL lines end only at a newline."""
    doc = _fresh(session_doc, "2001-01-06T00:00:00.000+00:00")
    doc["messages"][1]["text"] = "First line\u2028second\u0085third\x1cfourth"
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps(doc, ensure_ascii=False) + "\n", encoding="utf-8")
    home = tmp_path / "home"
    assert cli("import", str(source), "--home", str(home)).rc == 0
    out = tmp_path / "out.jsonl"
    assert cli("export", "--format", "jsonl", "--out", str(out), "--home", str(home)).rc == 0
    (line,) = out.read_text(encoding="utf-8").split("\n")[:-1]
    assert json.loads(line)["messages"][1]["text"] == "First line\u2028second\u0085third\x1cfourth"


def test_control_characters_from_a_file_are_shown_escaped_in_the_one_line(seeded, tmp_path, session_doc):
    bad = _fresh(session_doc, "2001-01-07T00:00:00.000+00:00")
    bad["status"] = "done\r\n\x1b[2J"
    assert _import_lines(seeded, tmp_path, bad) == (
        "line 1: status 'done\\r\\n\\x1b[2J' is not one of running, interrupted, finished, failed")


@pytest.mark.parametrize("fmt", ["jsonl", "annotations"])
def test_what_an_empty_database_exports_imports_back_as_nothing(tmp_path, fmt):
    """A script that exports one database and imports into another must not fail when the first is empty."""
    out = tmp_path / f"{fmt}.jsonl"
    assert cli("export", "--format", fmt, "--out", str(out), "--home", str(tmp_path / "a")).rc == 0
    assert out.read_text(encoding="utf-8") == ""
    result = cli("import", str(out), "--home", str(tmp_path / "b"))
    assert result.rc == 0, result.err
    assert result.out.strip() == f"{out}: empty file, 0 conversations: 0 new sessions"


def _spoilt(doc: dict, stamp: str, spoil) -> dict:
    bad = _fresh(doc, stamp)
    spoil(bad)
    return bad


def _judge_score(doc: dict) -> dict:
    return next(s for s in doc["scores"] if s["source"] == "judge" and s["turn"] == 1)


@pytest.mark.parametrize("spoil,problem", [
    (lambda d: d.update(created_at="not a date"), "created_at: 'not a date' is not an ISO date and time"),
    (lambda d: d.update(finished_at="2026-13-45T00:00:00"),
     "finished_at: '2026-13-45T00:00:00' is not an ISO date and time"),
    (lambda d: d["messages"][2].update(created_at="yesterday"),
     "messages[2]: created_at: 'yesterday' is not an ISO date and time"),
    (lambda d: d.update(messages=[]), "messages: a finished session has no player message"),
    (lambda d: d["scores"].append({**_judge_score(d), "turn": 99}),
     "scores[{last}]: turn 99 has no player message (player turns: 1, 2)"),
    (lambda d: d["scores"].append({**_judge_score(d), "source": "human", "by": "ann", "turn": 3}),
     "scores[{last}]: turn 3 has no player message (player turns: 1, 2)"),
    (lambda d: d.update(player=""), "player: must not be blank"),
    (lambda d: d.update(player="  "), "player: must not be blank"),
    (lambda d: d.update(character=""), "character: must not be blank"),
    (lambda d: d.update(interrogator=" "), "interrogator: must not be blank"),
    (lambda d: d.update(lang=""), "lang: '' is not a two-letter language code"),
], ids=["created-at", "finished-at", "message-created-at", "finished-without-messages", "judge-turn-99",
        "person-turn-3", "blank-player", "spaces-player", "blank-character", "spaces-interrogator", "blank-lang"])
def test_a_line_that_breaks_a_session_rule_is_refused(seeded, tmp_path, session_doc, spoil, problem):
    """What would otherwise be stored as 'finished, 0/6 turns' with a final, a score of a turn that
    never happened, a blank leaderboard row or a date no view can read."""
    good = _fresh(session_doc, "2002-01-01T00:00:00.000+00:00")
    bad = _spoilt(session_doc, "2002-01-02T00:00:00.000+00:00", spoil)
    problem = problem.format(last=len(bad["scores"]) - 1)
    assert _import_lines(seeded, tmp_path, good, bad) == f"line 2: {problem}"


@pytest.mark.parametrize("field", ["character", "situation", "interrogator", "player", "method", "lang", "status",
                                   "created_at"])
@pytest.mark.parametrize("absent", [False, True], ids=["null", "missing"])
def test_a_line_without_a_column_the_views_read_is_refused(seeded, tmp_path, session_doc, field, absent):
    """The session list, the exports and the report read a session's card, situation, seats and
    method from its columns: a line without one was stored, and every one of them then failed with
    a traceback until the row was deleted (a missing method failed the import itself)."""
    good = _fresh(session_doc, "2002-03-01T00:00:00.000+00:00")
    bad = _fresh(session_doc, "2002-03-02T00:00:00.000+00:00")
    if absent:
        del bad[field]
    else:
        bad[field] = None
    assert _import_lines(seeded, tmp_path, good, bad) == f"line 2: '{field}' is missing"


def test_an_unfinished_session_may_have_no_messages_yet(seeded, tmp_path, session_doc):
    doc = _spoilt(session_doc, "2002-02-01T00:00:00.000+00:00",
                  lambda d: d.update(status="interrupted", messages=[], scores=[], finished_at=None))
    path = tmp_path / "one.jsonl"
    path.write_text(json.dumps(doc) + "\n", encoding="utf-8")
    done = cli("import", str(path), "--home", str(tmp_path / "fresh"))
    assert done.rc == 0, done.err


@pytest.fixture(scope="module")
def fork_docs(tmp_path_factory) -> tuple[dict, dict]:
    """A session and a fork of its first turn (run on), as our JSONL writes them."""
    home = tmp_path_factory.mktemp("forked-home")
    seed_home(home)
    done = cli("sessions", "fork", "1", "--turn", "1", "--player", "offline", "--home", str(home))
    assert done.rc == 0, done.err
    out = home / "all.jsonl"
    assert cli("export", "--format", "jsonl", "--out", str(out), "--home", str(home)).rc == 0
    parent, fork = (json.loads(line) for line in out.read_text(encoding="utf-8").splitlines())
    assert fork["parent"]["created_at"] == parent["created_at"] and fork["fork_turn"] == 1
    return parent, fork


def test_a_fork_and_its_parent_import_as_a_fork(tmp_path, fork_docs):
    path = tmp_path / "forks.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in fork_docs), encoding="utf-8")
    home = tmp_path / "home"
    assert cli("import", str(path), "--home", str(home)).rc == 0
    with sqlite3.connect(home / "pingpong.db") as conn:
        assert conn.execute("SELECT id, parent_session, fork_turn FROM sessions ORDER BY id").fetchall() == [
            (1, None, None), (2, 1, 1)]


def _own(doc: dict) -> dict:
    return {"created_at": doc["created_at"], "player": doc["player"], "interrogator": doc["interrogator"]}


def _parent_of_its_fork(parent: dict, fork: dict) -> None:
    parent.update(parent=_own(fork), fork_turn=1)


@pytest.mark.parametrize("spoil,problem", [
    (lambda p, f: f.update(parent=_own(f)),
     "line 2: parent: names this line's own session (a session is not forked from itself)"),
    (lambda p, f: f.update(fork_turn=-1), "line 2: fork_turn: expected a turn from 1, got -1"),
    (lambda p, f: f.update(fork_turn=0), "line 2: fork_turn: expected a turn from 1, got 0"),
    (lambda p, f: f.update(fork_turn=3),
     "line 2: fork_turn: 3 is beyond the 2 turns its parent completed (a fork starts from the first 1 to 2)"),
    (lambda p, f: f.update(fork_turn=99),
     "line 2: fork_turn: 99 is beyond the 2 turns its parent completed (a fork starts from the first 1 to 2)"),
    (lambda p, f: f.update(num_turns=2**62), f"line 2: num_turns: expected 1 to 50 (as a situation plans), got {2**62}"),
    (lambda p, f: f.update(num_turns=51), "line 2: num_turns: expected 1 to 50 (as a situation plans), got 51"),
    (lambda p, f: p.update(num_turns=0), "line 1: num_turns: expected 1 to 50 (as a situation plans), got 0"),
    (lambda p, f: p.update(fork_turn=1), "line 1: fork_turn: only a fork has one (this line names no parent)"),
    (_parent_of_its_fork,
     "line 1: parent: through its parents this session is a fork of its own fork (the forks form a loop)"),
], ids=["its-own-parent", "fork-turn-minus-1", "fork-turn-0", "fork-turn-3", "fork-turn-99", "num-turns-2**62",
        "num-turns-51", "num-turns-0", "fork-turn-without-parent", "loop"])
def test_a_fork_that_makes_no_sense_is_refused(seeded, tmp_path, fork_docs, spoil, problem):
    """Such lines were stored as they were: a session forked from itself, from turn -1 or 99 of a
    two-turn session, planning 2**62 turns."""
    parent, fork = copy.deepcopy(fork_docs)
    spoil(parent, fork)
    assert _import_lines(seeded, tmp_path, parent, fork) == problem


def test_an_empty_json_file_is_no_results_file(tmp_path):
    """Empty JSONL is an empty export; an empty .json is a results file that lost its content."""
    empty = tmp_path / "e.json"
    empty.write_bytes(b"\n")
    result = cli("import", str(empty), "--home", str(tmp_path / "b"))
    assert result.rc == 2 and result.err.strip() == f"pingpong: error: {empty}: empty file, not PingPong results JSON"


def test_sessions_that_differ_only_in_language_are_two_sessions(session_doc, tmp_path):
    """Same time, seats, card and situation in another language (or method, checked alike): not one
    session met twice, whose second line was skipped as stored."""
    other_lang = copy.deepcopy(session_doc) | {"lang": "ru"}
    path = tmp_path / "two.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in (session_doc, other_lang)), encoding="utf-8")
    done = cli("import", str(path), "--home", str(tmp_path / "fresh"))
    assert done.rc == 0, done.err
    assert "2 new sessions" in done.out, done.out
    again = cli("import", str(path), "--home", str(tmp_path / "fresh"))
    assert "0 new sessions" in again.out and "2 already stored" in again.out, again.out


def test_a_jsonl_file_may_be_bigger_than_a_file_read_whole(session_doc, tmp_path, monkeypatch):
    """Our JSONL is parsed a line at a time, so it may pass the limit of the formats parsed whole
    (a database of 60,000 sessions exported more than that); a results file past it is one line."""
    from pingpong.sessions import exchange

    monkeypatch.setattr(exchange, "MAX_WHOLE_BYTES", 2000)
    lines = tmp_path / "big.jsonl"
    lines.write_text("".join(json.dumps(_fresh(session_doc, f"2030-01-0{i}T00:00:00")) + "\n" for i in range(1, 4)),
                     encoding="utf-8")
    assert lines.stat().st_size > 2000
    home = tmp_path / "home"
    assert cli("import", str(lines), "--home", str(home)).rc == 0
    results = tmp_path / "results.json"
    results.write_text(json.dumps({"outputs": [], "padding": "x" * 3000}), encoding="utf-8")
    line = refused(home, "import", str(results))
    assert line.endswith("too large (0.0 MB; the limit is 0.0 MB for PingPong results and annotations, "
                         "4 GB for pingpong JSONL)"), line
