"""The rolebench method: one-turn sessions scored by Rouge-L, planned runs and their leaderboard."""

from __future__ import annotations

import json

import pytest

from pingpong.core.config import offline_spec
from pingpong.core.engine import SessionEngine
from pingpong.core.llm import ModelPool
from pingpong.core.methods.rolebench import general_situations, role_situations, score_answer
from pingpong.situations.questions import QuestionLibrary
from pingpong.tui.cli import main
from tests.engine.engine_support import card, collect, messages, spec


def test_a_russian_answer_identical_to_its_reference_scores_one():
    own = QuestionLibrary().role_set("koschei")
    assert own is not None and own.lang == "ru"
    question = role_situations(own)[0]
    reference = question.data["in_role"][0]
    [spe] = score_answer(reference, question.data)
    assert (spe.metric, spe.value, spe.scale) == ("spe", 1.0, "0-1")
    general = QuestionLibrary().general("ru")
    q = general_situations(general, "koschei")[0]
    scores = {s.metric: s.value for s in score_answer(q.data["in_role"][0], q.data)}
    assert scores["cus"] == 1.0 and 0.0 <= scores["raw"] < 1.0


def test_general_questions_score_raw_and_cus_role_questions_spe():
    general = QuestionLibrary().general("en")
    character = general.characters()[0]
    q = general_situations(general, character)[0]
    assert q.num_turns == 1 and q.name == f"general-en-{general.questions[0].id}"
    assert {s.metric for s in score_answer("anything at all", q.data)} == {"raw", "cus"}


async def test_one_turn_session_needs_no_interrogator_or_judge_model():
    library = QuestionLibrary()
    question = role_situations(library.role_set("sherlock-holmes"))[0]
    pool = ModelPool({"offline": offline_spec()})
    try:
        engine = SessionEngine(spec=spec(method="rolebench", player="offline", interrogator="nobody",
                                         judges=["nobody"]),
                               character=card(name="sherlock-holmes"), situation=question, pool=pool)
        events = await collect(engine)
    finally:
        await pool.aclose()
    user, reply = messages(events)
    assert (user.author, user.text, reply.role) == ("rolebench", question.text, "assistant")
    [verdict] = engine.verdicts
    assert verdict.judge == "rouge-l" and [s.metric for s in verdict.scores] == ["spe"]
    assert 0.0 <= verdict.scores[0].value <= 1.0


def test_run_and_leaderboard(tmp_path, capsys):
    home = str(tmp_path / "home")
    for lang in ("en", "ru"):
        code = main(["run", "--home", home, "--method", "rolebench", "--player", "offline",
                     "--interrogator", "offline", "--judge", "offline", "--lang", lang])
        assert code == 0
    capsys.readouterr()
    assert main(["leaderboard", "--home", home, "--method", "rolebench", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {(r["player"], r["lang"]) for r in rows} == {("offline", "en"), ("offline", "ru")}
    for row in rows:
        assert row["method"] == "rolebench" and row["conversations"] >= 40 and row["rank"] in (1, 2)
        for metric in ("raw", "cus", "spe"):
            assert 0.0 <= row[metric] <= 1.0 and row[f"{metric}_ci"] >= 0.0


def test_a_persons_score_replaces_the_rouge_l_on_the_board(tmp_path, capsys):
    """`sessions score` on a RoleBench answer counts on the board as every view's current score does:
    merged by default, ignored with --scores judges, alone with --scores human."""
    import sqlite3

    home = tmp_path / "home"
    assert main(["run", "--home", str(home), "--method", "rolebench", "--player", "offline",
                 "--interrogator", "offline", "--judge", "offline", "--lang", "en"]) == 0

    def board(*extra: str) -> dict:
        capsys.readouterr()
        assert main(["leaderboard", "--home", str(home), "--method", "rolebench", "--format", "json", *extra]) == 0
        (row,) = json.loads(capsys.readouterr().out)
        return row

    with sqlite3.connect(home / "pingpong.db") as conn:
        spe = conn.execute("select session_id, turn, value from scores where metric = 'spe' and by = 'rouge-l'"
                           " order by value desc, session_id").fetchall()
    before = board()
    sid, turn, value = spe[0]
    assert value > 0
    assert main(["sessions", "score", "--home", str(home), str(sid), "--turn", str(turn), "--metric", "spe",
                 "--value", "0", "--author", "ann"]) == 0
    merged = board()
    assert merged["spe"] == round((before["spe"] * len(spe) - value) / len(spe), 4)
    assert (merged["raw"], merged["cus"]) == (before["raw"], before["cus"])
    assert board("--scores", "judges")["spe"] == before["spe"]
    human = board("--scores", "human")
    assert human["spe"] == 0.0 and human["raw"] is None and human["conversations"] == 1  # the one people scored


def test_a_person_corrects_only_what_the_rule_scored(tmp_path, capsys):
    """A role-specific question is scored on spe alone: a raw score for it is one line and exit 2."""
    import sqlite3

    home = tmp_path / "home"
    assert main(["run", "--home", str(home), "--method", "rolebench", "--player", "offline",
                 "--interrogator", "offline", "--judge", "offline", "--lang", "en", "--every", "10"]) == 0
    with sqlite3.connect(home / "pingpong.db") as conn:
        sid, turn = conn.execute("select session_id, turn from scores where metric = 'spe' limit 1").fetchone()
    capsys.readouterr()
    assert main(["sessions", "score", "--home", str(home), str(sid), "--turn", str(turn), "--metric", "raw",
                 "--value", "0.5", "--author", "ann"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "'raw'" in err and "scored on spe" in err
    with sqlite3.connect(home / "pingpong.db") as conn:
        assert conn.execute("select count(*) from scores where source = 'human'").fetchone() == (0,)


def test_situations_list_and_show_the_question_sets(tmp_path, capsys):
    home = str(tmp_path / "home")
    assert main(["situations", "list", "--home", home, "--method", "rolebench", "--lang", "en", "--format", "json"]) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["general-en"]["kind"] == "general" and "tally" in rows["general-en"]["characters"]
    assert rows["tally"] == {**rows["tally"], "kind": "role_specific", "characters": ["tally"], "method": "rolebench",
                             "tags": ["spe"]}
    assert rows["general-en"]["tags"] == ["raw", "cus"]  # DESIGN: situations carry tags, question sets too
    assert main(["situations", "show", "--home", home, "tally", "--format", "json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["questions"][0]["id"] == "s01" and shown["lang"] == "en"
    with pytest.raises(SystemExit) as stop:  # the parser's one line
        main(["situations", "list", "--home", home, "--method", "bogus"])
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "argument --method: expected one of pingpong" in err and "'bogus'" in err


def test_the_board_does_not_depend_on_the_order_the_answers_were_scored_in(tmp_path, capsys):
    """Sessions finish in any order (several at once, --workers); an export imports them in session
    order. The same scores must give the same intervals, whichever was written first."""
    import shutil
    import sqlite3

    home = tmp_path / "home"
    assert main(["run", "--home", str(home), "--method", "rolebench", "--player", "offline", "--interrogator", "offline",
                 "--judge", "offline", "--lang", "en", "--every", "4"]) == 0
    other = tmp_path / "other"
    other.mkdir()
    shutil.copy(home / "pingpong.db", other / "pingpong.db")
    with sqlite3.connect(other / "pingpong.db") as conn:  # the same scores, written latest session first
        columns = [c[1] for c in conn.execute("pragma table_info(scores)") if c[1] != "id"]
        rows = conn.execute(f"select {', '.join(columns)} from scores order by session_id desc, id").fetchall()
        conn.execute("delete from scores")
        conn.executemany(f"insert into scores ({', '.join(columns)}) values ({', '.join('?' * len(columns))})", rows)
    capsys.readouterr()
    boards = []
    for root in (home, other):
        assert main(["leaderboard", "--home", str(root), "--method", "rolebench", "--format", "json"]) == 0
        boards.append(json.loads(capsys.readouterr().out))
    assert boards[0] == boards[1] and boards[0][0]["raw_ci"]


def test_sessions_show_says_no_model_asks_or_judges_a_rolebench_question(tmp_path, capsys):
    home = str(tmp_path)
    assert main(["run", "--home", home, "--method", "rolebench", "--player", "offline", "--interrogator", "offline",
                 "--judge", "offline", "--every", "40"]) == 0
    capsys.readouterr()
    assert main(["sessions", "show", "1", "--home", home]) == 0
    out = capsys.readouterr().out
    assert "interrogator none (the question as written), judges none (scored by rule)" in out
    assert main(["sessions", "list", "--home", home]) == 0
    listed = capsys.readouterr().out
    assert "none (the question as written)" in listed and "none (scored by rule)" in listed
