"""Import and export through the real CLI: PingPong results JSON and our JSONL."""

from __future__ import annotations

import json
import random

import pytest

from pingpong.sessions.leaderboard import compute_leaderboard
from pingpong.sessions.store import Store
from pingpong.tui.cli import main

JUDGES = ("judge-one", "judge-two")


def synthetic_results(judge: str, n: int = 64, seed: int = 0) -> dict:
    """n conversations of one player; the same conversations for every judge, judge-specific scores."""
    rng = random.Random(seed)
    score_rng = random.Random(f"{judge}-{seed}")
    outputs = []
    for i in range(n):
        turns = 1 + i % 4
        messages = []
        for t in range(turns):
            messages.append({"role": "user", "content": f"Question {t} in conversation {i}: {rng.random():.6f}?"})
            messages.append({"role": "assistant", "content": f"Answer {t} of {i} " + "ж" * rng.randint(1, 40)})
        outputs.append({
            "messages": messages,
            "character": {"char_name": f"Character {i % 8}", "system_prompt": f"You are character {i % 8}.",
                          "example_prompt": "User: hi\nChar: hello", "initial_message": "Hello there.",
                          "summary": f"Character number {i % 8}", "tags": ["test"]},
            "situation": {"text": f"Situation {i // 8}: ask about the weather.", "tags": ["weather"],
                          "num_turns": turns},
            "scores": {
                "in_character": [score_rng.randint(1, 5) for _ in range(turns)],
                "entertaining": [score_rng.randint(1, 5) for _ in range(turns)],
                "fluency": [score_rng.randint(1, 5) for _ in range(turns)],
                "is_refusal": [int(score_rng.random() < 0.05) for _ in range(turns)],
            },
        })
    return {"version": 2, "player": {"model_name": "player-x", "params": {}},
            "interrogator": {"model_name": "asker-y", "params": {}},
            "judge": {"model_name": judge, "params": {}}, "refusal_ratio": 0.0, "outputs": outputs}


def write(path, data):
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def cli(tmp_path, *args):
    return main(["--home", str(tmp_path / "home"), *args])


def jsonl_round_trip(tmp_path):
    """Export the home as JSONL, import that into a fresh home, export again: the same bytes. Returns
    the first file and the other home."""
    first = tmp_path / "one.jsonl"
    assert cli(tmp_path, "export", "--format", "jsonl", "--out", str(first)) == 0
    other = tmp_path / "other"
    assert main(["--home", str(other), "import", str(first)]) == 0
    second = tmp_path / "two.jsonl"
    assert main(["--home", str(other), "export", "--format", "jsonl", "--out", str(second)]) == 0
    assert first.read_bytes() == second.read_bytes()
    return first, other


def count(tmp_path, table="sessions"):
    with Store(tmp_path / "home" / "pingpong.db") as s:
        return s.db.conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]


def test_two_judges_merge_and_export_gives_them_back(tmp_path, capsys):
    docs = {j: synthetic_results(j) for j in JUDGES}
    files = [write(tmp_path / f"{j}.json", d) for j, d in docs.items()]
    assert cli(tmp_path, "import", *map(str, files)) == 0
    out = capsys.readouterr().out
    assert "64 new sessions" in out and "64 judge verdicts added" in out
    with Store(tmp_path / "home" / "pingpong.db") as s:
        sessions = s.sessions()
        assert len(sessions) == 64
        assert all(sorted(x.judges) == sorted(JUDGES) for x in sessions)
        assert all(x.status == "finished" for x in sessions)
        assert {x.player for x in sessions} == {"player-x"}
        assert s.session(sessions[0].id).character.lang == "en"
    # importing the same file again adds nothing
    assert cli(tmp_path, "import", str(files[0])) == 0
    assert "64 already stored" in capsys.readouterr().out and count(tmp_path) == 64

    out_dir = tmp_path / "export"
    assert cli(tmp_path, "export", "--format", "pingpong", "--out", str(out_dir)) == 0
    exported = {json.loads(p.read_text())["judge"]["model_name"]: json.loads(p.read_text())
                for p in out_dir.glob("en/*.json")}
    assert set(exported) == set(JUDGES)
    for judge, original in docs.items():
        back = exported[judge]
        assert back["player"]["model_name"] == "player-x"
        assert back["interrogator"]["model_name"] == "asker-y"
        key = lambda o: json.dumps(o["messages"])  # noqa: E731
        assert sorted(original["outputs"], key=key) == sorted(back["outputs"], key=key)


def test_jsonl_round_trip_is_byte_identical(tmp_path, capsys):
    files = [write(tmp_path / f"{j}.json", synthetic_results(j, n=12)) for j in JUDGES]
    assert cli(tmp_path, "import", *map(str, files)) == 0
    with Store(tmp_path / "home" / "pingpong.db") as s:
        sid = s.sessions()[3].id
        s.add_human_score(sid, 1, "fluency", 2, "ann", "wrong case ending")
        s.add_human_score(sid, 1, "is_refusal", 0, "bob")
        from pingpong.core.domain import CallRecord
        s.add_call(sid, CallRecord(role="player", model="player-x", turn=1, status="retry", error="429",
                                   latency_ms=12.5))
        s.db.conn.execute("INSERT INTO runs (name, created_at, config) VALUES ('r1', '2025-01-01', '{\"a\": 1}')")
        s.db.conn.execute("UPDATE sessions SET run_id = 1 WHERE id = ?", [sid])
    first, other = jsonl_round_trip(tmp_path)
    lines = first.read_text().splitlines()
    assert len(lines) == 12
    doc = json.loads(lines[3])
    people = [s for s in doc["scores"] if s["source"] == "human"]
    assert doc["run"]["name"] == "r1" and people[0]["by"] == "ann" and people[0]["scale"] == "1-5"
    assert doc["calls"][0]["error"] == "429" and "id" not in doc
    # importing it again is a no-op
    assert main(["--home", str(other), "import", str(first)]) == 0
    assert "12 already stored" in capsys.readouterr().out


def _bad_inputs(tmp_path):
    good = synthetic_results("judge-one", n=4)
    text = json.dumps(good)
    nameless = json.loads(text)
    del nameless["player"]
    return {
        "truncated": (text[: len(text) // 2], "truncated or invalid JSON"),
        "other": (json.dumps({"name": "a card", "data": {"description": "x"}}), "not PingPong results JSON"),
        "nameless": (json.dumps(nameless), "'player.model_name' is missing"),
        "jsonl-truncated": ('{"spec": {"character": "a"}, "messages": []}\n{"spec', "line 1"),
        "text": ("hello world", "not JSON"),
    }


@pytest.mark.parametrize("case", ["truncated", "other", "nameless", "jsonl-truncated", "text"])
def test_bad_files_exit_2_and_import_nothing(tmp_path, capsys, case):
    text, message = _bad_inputs(tmp_path)[case]
    bad = tmp_path / "results.json"
    bad.write_text(text, encoding="utf-8")
    assert cli(tmp_path, "import", str(bad)) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "Traceback" not in err
    assert err.startswith("pingpong: error: ") and str(bad) in err and message in err
    assert count(tmp_path) == 0 and count(tmp_path, "messages") == 0


def _malformed(mutate) -> dict:
    doc = synthetic_results("judge-one", n=6)
    mutate(doc["outputs"])
    return doc


@pytest.mark.parametrize("mutate,message", [
    (lambda o: o[2]["scores"]["entertaining"].__setitem__(0, 7),
     "outputs[2].scores.entertaining[0] is 7, expected a score from 1 to 5"),
    (lambda o: o[3]["scores"]["fluency"].__setitem__(0, 0), "outputs[3].scores.fluency[0] is 0"),
    (lambda o: o[3]["scores"]["fluency"].pop(), "outputs[3].scores: the lists differ in length"),
    (lambda o: [o[5]["scores"][k].append(1) for k in o[5]["scores"]],
     "outputs[5].scores.in_character has 3 entries for 2 scored player turns"),
    (lambda o: o[1].__setitem__("messages", [{"role": "user", "content": "hi"}] * 2),
     "outputs[1].messages[1]: expected a 'assistant' message"),
])
def test_one_malformed_conversation_is_skipped_with_one_warning(tmp_path, capsys, mutate, message):
    """The reference skips an entry it cannot use; so does import: the rest is stored."""
    path = write(tmp_path / "results.json", _malformed(mutate))
    assert cli(tmp_path, "import", str(path)) == 0
    captured = capsys.readouterr()
    warnings = captured.err.strip().splitlines()
    assert len(warnings) == 1 and warnings[0].startswith("pingpong: warning: ")
    assert str(path) in warnings[0] and message in warnings[0] and "entry skipped" in warnings[0]
    assert "5 new sessions" in captured.out and "1 could not be taken" in captured.out
    assert count(tmp_path) == 5


def test_bad_file_beside_good_file(tmp_path, capsys):
    good = write(tmp_path / "good.json", synthetic_results("judge-one", n=5))
    bad = tmp_path / "bad.json"
    bad.write_text("{", encoding="utf-8")
    assert cli(tmp_path, "import", str(good), str(bad)) == 2
    captured = capsys.readouterr()
    assert "5 new sessions" in captured.out and "bad.json" in captured.err
    assert count(tmp_path) == 5


def test_a_path_that_does_not_exist_stops_the_import_before_anything_is_stored(tmp_path, capsys):
    """A glob that matched nothing (`annotations/*.jsonl`) came last: the files before it were imported,
    then exit 2, and a script took the whole import as failed."""
    good = write(tmp_path / "good.json", synthetic_results("judge-one", n=5))
    missing = tmp_path / "annotations" / "*.jsonl"
    assert cli(tmp_path, "import", str(good), str(missing)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{missing}: no such file; nothing was imported" in err
    assert not (tmp_path / "home" / "pingpong.db").exists() or count(tmp_path) == 0


def test_merged_leaderboard_changes_after_a_human_score(tmp_path, capsys):
    files = [write(tmp_path / f"{j}.json", synthetic_results(j, n=8)) for j in JUDGES]
    assert cli(tmp_path, "import", *map(str, files)) == 0
    capsys.readouterr()
    assert cli(tmp_path, "leaderboard", "--format", "json") == 0
    before = json.loads(capsys.readouterr().out)
    assert before[0]["player"] == "player-x" and before[0]["conversations"] == 8
    with Store(tmp_path / "home" / "pingpong.db") as s:
        rows = compute_leaderboard(s)
        sid = next(x.id for x in s.sessions() if x.final is not None)
        for metric in ("in_character", "entertaining", "fluency"):
            s.add_human_score(sid, 1, metric, 1, "ann")
    assert cli(tmp_path, "leaderboard", "--format", "json", "--scores", "merged") == 0
    after = json.loads(capsys.readouterr().out)
    assert after[0]["final"] < before[0]["final"] == pytest.approx(rows[0].final)
    assert cli(tmp_path, "leaderboard", "--format", "json", "--scores", "judges") == 0
    assert json.loads(capsys.readouterr().out)[0]["final"] == pytest.approx(before[0]["final"])
    for fmt in ("table", "markdown", "csv"):
        assert cli(tmp_path, "leaderboard", "--format", fmt, "--weights", "2,1,1") == 0
        assert "player-x" in capsys.readouterr().out
    assert cli(tmp_path, "leaderboard", "--weights", "1,x,1") == 2
    assert "--weights" in capsys.readouterr().err


@pytest.mark.parametrize("fmt", ["jsonl", "pingpong"])
def test_export_to_an_unwritable_place_is_one_line(tmp_path, capsys, fmt):
    files = [write(tmp_path / "r.json", synthetic_results("judge-one", n=2))]
    assert cli(tmp_path, "import", *map(str, files)) == 0
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder", encoding="utf-8")
    capsys.readouterr()
    assert cli(tmp_path, "export", "--format", fmt, "--out", str(blocker / "sub" / "out")) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("pingpong: error: ") and "a-file" in err and "cannot write" in err
    assert "\n" not in err and "Traceback" not in err


def test_truncated_json_message_reads_well(tmp_path, capsys):
    bad = tmp_path / "cut.json"
    bad.write_text('{"version": 2, "outputs": [{"messages": "unterminated', encoding="utf-8")
    assert cli(tmp_path, "import", str(bad)) == 2
    err = capsys.readouterr().err
    assert "truncated or invalid JSON" in err and " at at " not in err


def test_a_version_1_and_a_version_2_file_of_the_same_words_stay_apart(tmp_path, capsys):
    """The offline models say the same words in both versions: importing both results files must
    give both methods their sessions, not skip one file or mix 1-10 and 1-5 scores in one session."""
    offline = ("--player", "offline", "--interrogator", "offline", "--judge", "offline", "--every", "20")
    assert cli(tmp_path, "run", *offline) == 0
    assert cli(tmp_path, "run", "--method", "pingpong-v1", *offline) == 0
    out_dir = tmp_path / "res"
    assert cli(tmp_path, "export", "--format", "pingpong", "--out", str(out_dir)) == 0
    files = sorted(map(str, out_dir.glob("en/*.json")))
    assert len(files) == 2
    for order in (files, files[::-1]):
        other = tmp_path / f"other-{order is files}"
        capsys.readouterr()
        assert main(["--home", str(other), "import", *order]) == 0
        assert "already stored" not in capsys.readouterr().out
        boards = {}
        for method in ("pingpong", "pingpong-v1"):
            assert main(["--home", str(other), "leaderboard", "--method", method, "--format", "json"]) == 0
            (boards[method],) = json.loads(capsys.readouterr().out)
        with Store(tmp_path / "home" / "pingpong.db") as s:
            for method, row in boards.items():
                (mine,) = compute_leaderboard(s, method=method)
                assert row["conversations"] == mine.conversations and row["final"] == pytest.approx(mine.final)


def test_a_fork_keeps_its_parent_through_jsonl(tmp_path, capsys):
    """A fork's line names the session it came from, so a round trip keeps it out of the leaderboard
    (forks count only with --include-forks) and gives the same bytes back."""
    assert cli(tmp_path, "run", "--player", "offline", "--interrogator", "offline", "--judge", "offline",
               "--every", "20") == 0
    with Store(tmp_path / "home" / "pingpong.db") as s:
        parent = next(x.id for x in reversed(s.sessions()) if s.session(x.id).num_turns > 1)  # one turn: no fork
    assert cli(tmp_path, "sessions", "fork", str(parent), "--turn", "1") == 0
    first, other = jsonl_round_trip(tmp_path)
    (fork_line,) = [json.loads(line) for line in first.read_text().splitlines() if '"parent"' in line]
    assert fork_line["fork_turn"] == 1 and fork_line["parent"]["player"] == "offline"
    with Store(tmp_path / "home" / "pingpong.db") as mine, Store(other / "pingpong.db") as theirs:
        for forks in (False, True):
            a, b = (compute_leaderboard(x, include_forks=forks)[0] for x in (mine, theirs))
            assert (a.conversations, a.final) == (b.conversations, b.final)
        assert compute_leaderboard(theirs)[0].conversations == compute_leaderboard(theirs, include_forks=True)[0].conversations - 1


@pytest.mark.parametrize("change,message", [
    (lambda d: d.update(method="bogus"), "method 'bogus' is not the spec's 'pingpong'"),
    (lambda d: (d.update(method="bogus"), d["spec"].update(method="bogus")), "spec: method 'bogus' is not one of"),
    (lambda d: d.update(fork_turn=1, parent={"created_at": "2020-01-01T00:00:00", "player": "p", "interrogator": None}),
     "parent: no session of 'p' created at 2020-01-01T00:00:00"),
])
def test_a_bad_method_or_a_missing_parent_is_one_line(tmp_path, capsys, change, message):
    files = [write(tmp_path / f"{j}.json", synthetic_results(j, n=2)) for j in JUDGES[:1]]
    assert cli(tmp_path, "import", *map(str, files)) == 0
    line = tmp_path / "one.jsonl"
    assert cli(tmp_path, "export", "--format", "jsonl", "--out", str(line)) == 0
    doc = json.loads(line.read_text().splitlines()[0])
    change(doc)
    line.write_text(json.dumps(doc) + "\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["--home", str(tmp_path / "fresh"), "import", str(line)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "line 1" in err and message in err


def test_a_first_release_line_whose_spec_says_version_1_still_imports(tmp_path, capsys):
    assert cli(tmp_path, "run", "--method", "pingpong-v1", "--player", "offline", "--interrogator", "offline",
               "--judge", "offline", "--every", "20") == 0
    line = tmp_path / "one.jsonl"
    assert cli(tmp_path, "export", "--format", "jsonl", "--out", str(line)) == 0
    doc = json.loads(line.read_text().splitlines()[0])
    del doc["spec"]["method"]
    doc["spec"]["version"] = 1
    line.write_text(json.dumps(doc) + "\n", encoding="utf-8")
    assert main(["--home", str(tmp_path / "fresh"), "import", str(line)]) == 0
    with Store(tmp_path / "fresh" / "pingpong.db") as s:
        assert [x.method for x in s.sessions()] == ["pingpong-v1"]


# ------------------------------------------------------------------ the PingPong export of a whole database

NAMES = ("meta/llama-3", "meta:llama-3", "мой-бот", "наш-бот")
"""Players whose names a file name cannot hold as they are: two pairs that once became one file each."""


def board(home, *args) -> list[tuple]:
    """(player, lang, conversations, final, rank) of `pingpong leaderboard --scores judges --format json`."""
    from tests.runner.conftest import pingpong as run_cli

    done = run_cli(home, "leaderboard", "--scores", "judges", "--format", "json", *args)
    assert done.rc == 0, done.err
    return [(r["player"], r["lang"], r["conversations"], round(r["final"], 9), r["rank"]) for r in json.loads(done.out)]


@pytest.fixture(scope="module")
def two_languages(tmp_path_factory):
    """A home where four players whose names clash as file names played in English and in Russian,
    and its PingPong export."""
    from tests.runner.conftest import pingpong as run_cli

    home = tmp_path_factory.mktemp("langs") / "home"
    home.mkdir()
    (home / "config.toml").write_text("".join(f'[models."{n}"]\nkind = "offline"\n' for n in NAMES), encoding="utf-8")
    players = [arg for n in NAMES for arg in ("--player", n)]
    for lang in ("en", "ru"):
        done = run_cli(home, "run", *players, "--interrogator", "offline", "--judge", "offline", "--lang", lang,
                       "--every", "24")
        assert done.rc == 0, done.err
    out = home.parent / "results"
    done = run_cli(home, "export", "--format", "pingpong", "--out", str(out))
    assert done.rc == 0, done.err
    return home, out, done.out


def test_each_language_player_interrogator_and_judge_gets_a_file_of_its_own(two_languages):
    home, out, line = two_languages
    files = sorted(out.rglob("*.json"))
    assert line == f"{out}: {len(files)} results files written (one per language, player, interrogator and judge, " \
                   "in a folder per language)\n"
    assert {p.parent.name for p in files} == {"en", "ru"} and all(p.parent.parent == out for p in files)
    seen = set()
    for path in files:
        doc = json.loads(path.read_text(encoding="utf-8"))
        seen.add((path.parent.name, doc["player"]["model_name"], doc["interrogator"]["model_name"],
                  doc["judge"]["model_name"]))
    assert seen == {(lang, n, "offline", "offline") for lang in ("en", "ru") for n in NAMES}
    assert len(files) == len(seen)
    assert any("мой-бот" in p.name for p in files) and any("наш-бот" in p.name for p in files)


def test_importing_the_language_folders_gives_the_same_leaderboard(two_languages, tmp_path):
    from tests.runner.conftest import pingpong as run_cli

    home, out, _ = two_languages
    other = tmp_path / "other"
    done = run_cli(other, "import", *map(str, sorted(out.glob("*/*.json"))))
    assert done.rc == 0, done.err
    assert board(other) == board(home)
    assert {lang for _, lang, *_ in board(home)} == {"en", "ru"}


def test_forks_stay_out_of_the_pingpong_export(tmp_path):
    """The reference counts every entry it finds; the leaderboard counts a fork only with --include-forks."""
    from tests.runner.conftest import pingpong as run_cli
    from tests.stats.reference_table import reference_table

    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text('[models.offline2]\nkind = "offline"\n', encoding="utf-8")
    assert run_cli(home, "run", "--player", "offline", "--interrogator", "offline", "--judge", "offline",
                   "--lang", "en", "--every", "20").rc == 0
    with Store(home / "pingpong.db") as s:
        parent = next(x for x in s.sessions() if x.turns >= 2)
    done = run_cli(home, "sessions", "fork", str(parent.id), "--turn", "1", "--player", "offline2")
    assert done.rc == 0, done.err
    assert run_cli(home, "export", "--format", "pingpong", "--out", str(tmp_path / "results")).rc == 0
    mine = board(home)
    assert [p for p, *_ in mine] == ["offline"]
    theirs = reference_table(tmp_path / "results" / "en")
    assert {p: (r["conversations"], r["rank"]) for p, r in theirs.items()} == {p: (c, rank) for p, _, c, _, rank in mine}
    other = tmp_path / "other"
    assert run_cli(other, "import", *map(str, (tmp_path / "results").glob("*/*.json"))).rc == 0
    assert board(other) == mine == board(other, "--include-forks")


def test_a_results_file_in_a_language_folder_is_in_that_language(tmp_path):
    """Text alone says only Cyrillic or not: a German conversation exported into de/ comes back German."""
    from pingpong.core.domain import Character, Message, SessionSpec, Situation
    from tests.runner.conftest import pingpong as run_cli
    from tests.scores import judged, turn_scores

    home = tmp_path / "home"
    home.mkdir()
    card = Character(name="faehrmann", char_name="Fährmann", lang="de", summary="Ein Fährmann.",
                     persona="Du bist ein alter Fährmann am Rhein.")
    sit = Situation(name="ueberfahrt", lang="de", num_turns=1, text="Bitte den Fährmann um eine Überfahrt.")
    with Store(home / "pingpong.db") as s:
        sid = s.create_session(SessionSpec(character=card.name, situation=sit.name, player="p", interrogator="q",
                                           judges=["j"], lang="de"), card, sit)
        s.add_message(sid, Message(turn=1, role="user", author="q", text="Bringst du mich hinüber?"))
        s.add_message(sid, Message(turn=1, role="assistant", author="p", text="Für zwei Münzen, gern."))
        s.add_verdict(sid, judged("j", [turn_scores(1, is_refusal=False, in_character=4, entertaining=3, fluency=5)]))
        s.set_status(sid, "finished")
    assert run_cli(home, "export", "--format", "pingpong", "--out", str(tmp_path / "results")).rc == 0
    (path,) = (tmp_path / "results").glob("*/*.json")
    assert path.parent.name == "de"
    other = tmp_path / "other"
    assert run_cli(other, "import", str(path)).rc == 0
    assert board(other) == board(home) == [("p", "de", 1, 4.0, 1)]
    elsewhere = tmp_path / "flat.json"  # outside a language's folder, the text decides
    elsewhere.write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    assert run_cli(tmp_path / "third", "import", str(elsewhere)).rc == 0
    assert board(tmp_path / "third")[0][1] == "en"
    odd = tmp_path / "gp" / "run.json"  # two letters that are no language's code are just a folder
    odd.parent.mkdir()
    odd.write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    assert run_cli(tmp_path / "fourth", "import", str(odd)).rc == 0
    assert board(tmp_path / "fourth")[0][1] == "en"


def test_a_newer_jsonl_adds_peoples_new_scores_to_sessions_already_stored(tmp_path, capsys):
    """People rate on after an export: importing the newer file merges their scores (each once),
    as annotations and pairwise picks do; the judges' scores of a stored session stay as they are."""
    assert cli(tmp_path, "run", "--player", "offline", "--interrogator", "offline", "--judge", "offline",
               "--every", "20") == 0
    older, newer = tmp_path / "older.jsonl", tmp_path / "newer.jsonl"
    assert cli(tmp_path, "export", "--format", "jsonl", "--out", str(older)) == 0
    other = tmp_path / "other"
    assert main(["--home", str(other), "import", str(older)]) == 0
    with Store(tmp_path / "home" / "pingpong.db") as s:
        first, second = (x.id for x in s.sessions()[:2])
    for args in ((str(first), "--turn", "1", "--metric", "fluency", "--value", "2"),
                 (str(first), "--metric", "in_character", "--value", "4", "--reason", "kept in role"),
                 (str(second), "--turn", "1", "--refusal", "true")):
        assert cli(tmp_path, "sessions", "score", *args, "--author", "ann") == 0
    assert cli(tmp_path, "export", "--format", "jsonl", "--out", str(newer)) == 0
    sessions = len(older.read_text(encoding="utf-8").splitlines())
    capsys.readouterr()
    assert main(["--home", str(other), "import", str(newer)]) == 0
    assert capsys.readouterr().out == (f"{newer}: jsonl, {sessions} conversations: 0 new sessions, 3 people's scores "
                                       f"added to stored sessions, {sessions} already stored, skipped\n")
    assert main(["--home", str(other), "import", str(newer)]) == 0  # a second time adds nothing
    assert capsys.readouterr().out == f"{newer}: jsonl, {sessions} conversations: 0 new sessions, " \
                                      f"{sessions} already stored, skipped\n"
    again = tmp_path / "again.jsonl"
    assert main(["--home", str(other), "export", "--format", "jsonl", "--out", str(again)]) == 0
    assert again.read_bytes() == newer.read_bytes()


def test_a_folder_among_the_paths_stops_the_import_before_anything_is_stored(tmp_path, capsys):
    good = write(tmp_path / "good.json", synthetic_results("judge-one", n=5))
    (tmp_path / "results").mkdir()
    assert cli(tmp_path, "import", str(good), str(tmp_path / "results")) == 2
    assert "results: is a folder (import takes files" in capsys.readouterr().err
    assert not (tmp_path / "home" / "pingpong.db").exists() or count(tmp_path) == 0
