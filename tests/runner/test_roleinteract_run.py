"""RoleInteract runs through the real CLI: the offline run in both languages and its leaderboard, a
player on the local fake server whose answers are known in advance, people correcting a score."""

from __future__ import annotations

import json

import pytest
import yaml

from pingpong.core.methods.roleinteract import METRICS
from pingpong.core.offline import NO_CHOICE
from tests.runner.conftest import pingpong, rows

OFFLINE = ("--player", "offline", "--interrogator", "offline", "--judge", "offline")


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_offline_run_finishes_and_the_board_has_every_dimension(tmp_path, lang):
    result = pingpong(tmp_path, "run", "--method", "roleinteract", *OFFLINE, "--lang", lang)
    assert result.rc == 0, result.err
    sessions = rows(tmp_path, "select status, num_turns, player_messages from sessions")
    assert {s for s, _, _ in sessions} == {"finished"} and len(sessions) >= 160
    assert all(done == planned for _, planned, done in sessions)
    assert any(planned > 21 for _, planned, _ in sessions)  # long memory probes: more than 40 utterances

    board = pingpong(tmp_path, "leaderboard", "--method", "roleinteract", "--format", "json")
    assert board.rc == 0, board.err
    (row,) = json.loads(board.out)
    assert (row["player"], row["lang"], row["method"], row["rank"]) == ("offline", lang, "roleinteract", 1)
    assert row["conversations"] == len(sessions)
    assert set(row["dimensions"]) == set(METRICS) == set(row["dimensions_ci"])
    assert all(0 < v < 1 for v in row["dimensions"].values())  # some right, some wrong in every dimension
    assert row["score"] == pytest.approx(sum(row["dimensions"].values()) / len(METRICS), abs=1e-3)
    flagged = rows(tmp_path, "select m.text from scores s join messages m on m.session_id = s.session_id"
                             " and m.role = 'assistant' and m.turn = s.turn where s.explanation like 'unparseable:%'")
    assert flagged and {text.split("] ", 1)[1] for text, in flagged} == {NO_CHOICE[lang]}
    assert row["unparseable"] == len(flagged)

    table = pingpong(tmp_path, "leaderboard", "--method", "roleinteract")
    assert f"{row['score']:.3f}" in table.out and "Memory long" in table.out
    csv = pingpong(tmp_path, "leaderboard", "--method", "roleinteract", "--format", "csv").out.splitlines()
    assert csv[0].startswith("rank,player,lang,self_style,self_style_ci,") and len(csv) == 2
    markdown = pingpong(tmp_path, "leaderboard", "--method", "roleinteract", "--format", "markdown").out
    assert markdown.startswith("| Rank | Player |") and f"| {row['score']:.3f} |" in markdown

    again = pingpong(tmp_path, "run", "--method", "roleinteract", *OFFLINE, "--lang", lang)
    assert again.rc == 0 and rows(tmp_path, "select count(*) from sessions") == [(len(sessions),)]


def question(qid: str, dimension: str, answer: list[str], options: int = 4) -> dict:
    return {"id": qid, "dimension": dimension, "question": f"Question {qid}: what now?",
            "options": {letter: f"option {letter.lower()} of {qid}" for letter in "ABCDEFGH"[:options]},
            "answer": answer}


PROBES = {
    "character": "tin-sailor", "lang": "en",
    "questions": [
        question("st1", "self_style", ["B"]), question("st2", "self_style", ["A"]),
        question("kn1", "self_knowledge", ["A"]),
        question("em1", "emotion", ["C"]), question("em2", "emotion", ["D"], options=6),
        question("si1", "situation", ["A", "C"]), question("si2", "situation", ["B", "C", "D"]),
        question("si3", "situation", ["A", "B"]),
        question("so1", "social_preference", ["B"]), question("so2", "social_preference", ["B"], options=2),
    ],
    "memory": [
        {"id": "m1", "plant": "My brother Anselm keeps bees in Cornwall.", "padding": 4,
         "ask": "What does my brother keep?", "keywords": ["Anselm", "bees", "Cornwall"]},
        {"id": "m2", "plant": "The boat is called the Oriel and sails on Tuesday.", "padding": 42,
         "ask": "Which boat, and when?", "keywords": ["Oriel", "Tuesday"]},
    ],
}
ANSWERS = {
    "Question st1": "B", "Question st2": "(C)",                                      # self_style 1/2
    "Question kn1": "I'd pick A, of course.",                                         # self_knowledge 1
    "Question em1": "Hmm, hard to say, the sea is quiet.", "Question em2": "D",       # emotion 1/2, one unreadable
    "Question si1": "A and C", "Question si2": "B, D", "Question si3": "A, C",         # situation (1 + 2/3 + 0) / 3
    "Question so1": "Option A.", "Question so2": "My answer is B.",                   # social 1/2
    "What does my brother keep?": "ANSELM keeps BEES, I recall.",                     # memory_short 2/3
    "Which boat, and when?": "the oriel, on tuesday",                                 # memory_long 1
}
EXPECTED = {"self_style": 0.5, "self_knowledge": 1.0, "emotion": 0.5, "situation": round(5 / 9, 4),
            "social_preference": 0.5, "memory_short": round(2 / 3, 4), "memory_long": 1.0}


def known_player(body: dict) -> str:
    last = body["messages"][-1]["content"]
    return next((reply for key, reply in ANSWERS.items() if key in last), "Aye, the wind is fair.")


def board(home, *extra: str) -> dict:
    result = pingpong(home, "leaderboard", "--method", "roleinteract", "--format", "json", *extra)
    assert result.rc == 0, result.err
    (row,) = json.loads(result.out)
    return row


def test_a_player_whose_answers_are_known_gets_exactly_the_expected_accuracy(home, fake):
    (home / "situations" / "probes").mkdir(parents=True)
    (home / "situations" / "probes" / "tin-sailor.yaml").write_text(yaml.safe_dump(PROBES), encoding="utf-8")
    fake.responder = known_player
    result = pingpong(home, "run", "--method", "roleinteract", "--player", "alpha", "--interrogator", "asker",
                      "--judge", "judge-one", "--characters", "tin-sailor,clock-maker")
    assert result.rc == 0, result.err
    assert {r.body["model"] for r in fake.chat_requests} == {"alpha-model"}  # no interrogator, no judge
    assert rows(home, "select distinct character from sessions") == [("tin-sailor",)]
    long = rows(home, "select m.role, m.author, m.text from messages m join sessions s on s.id = m.session_id"
                      " where s.situation = 'tin-sailor-m2' order by m.id")
    assert len(long) == 46 and long[-2] == ("user", "roleinteract", "Which boat, and when?")
    assert {author for role, author, _ in long if role == "user"} == {"roleinteract"}

    row = board(home)
    assert row["dimensions"] == EXPECTED
    assert row["questions"] == {"self_style": 2, "self_knowledge": 1, "emotion": 2, "situation": 3,
                                "social_preference": 2, "memory_short": 1, "memory_long": 1}
    assert row["unparseable"] == 1 and row["conversations"] == 12
    assert row["score"] == pytest.approx(sum(EXPECTED.values()) / 7, abs=1e-4)
    assert row["dimensions_ci"]["self_knowledge"] == 0.0 and row["dimensions_ci"]["emotion"] > 0

    [(sid,)] = rows(home, "select id from sessions where situation = 'tin-sailor-em1'")
    fixed = pingpong(home, "sessions", "score", str(sid), "--turn", "1", "--metric", "emotion", "--value", "1",
                     "--author", "ann", "--reason", "the reply means C")
    assert fixed.rc == 0, fixed.err
    merged = board(home)
    assert merged["dimensions"]["emotion"] == 1.0 and merged["unparseable"] == 0
    assert board(home, "--scores", "judges")["dimensions"] == EXPECTED
    assert board(home, "--scores", "human")["dimensions"] == {"emotion": 1.0}
    shown = pingpong(home, "sessions", "show", str(sid)).out
    assert "emotion = 0.000 - unparseable: no option letter" in shown


def test_situations_list_shows_the_probe_sets(tmp_path):
    out = pingpong(tmp_path, "situations", "list", "--method", "roleinteract", "--lang", "ru", "--format", "json")
    assert out.rc == 0, out.err
    sets = [row for row in json.loads(out.out) if row["kind"] == "probe_set"]
    assert len(sets) >= 4 and {s["lang"] for s in sets} == {"ru"} and {s["method"] for s in sets} == {"roleinteract"}
    for s in sets:
        assert min(s["questions"].values()) >= 8 and set(s["memory"]) == {"memory_short", "memory_long"}
        assert s["num_turns"] > 21 and s["source"] == "bundled"
    table = pingpong(tmp_path, "situations", "list", "--method", "roleinteract")
    assert "koschei" in table.out and "sherlock-holmes" in table.out and "Memory long" in table.out
    assert "┃" not in table.out  # piped: plain lines, as every listing
    tsv = pingpong(tmp_path, "situations", "list", "--method", "roleinteract", "--lang", "ru", "--format", "tsv").out
    probe_header, *lines = tsv.splitlines()
    assert probe_header.split("\t")[:3] == ["name", "lang", "self_style"]
    assert lines[0].split("\t")[:3] == [sets[0]["name"], "ru", str(sets[0]["questions"]["self_style"])]
    assert "name\tlang\ttested\tmembers\trounds\tsetting" in lines


def test_a_broken_padding_pool_is_one_line_naming_the_file(tmp_path):
    probes = tmp_path / "situations" / "probes"
    probes.mkdir(parents=True)
    (probes / "padding-en.yaml").write_text("lang: en\nlines: []\n", encoding="utf-8")
    result = pingpong(tmp_path, "run", "--method", "roleinteract", *OFFLINE, "--characters", "tally")
    assert result.rc == 2 and "padding-en.yaml" in result.err and "lines" in result.err
    assert len(result.err.strip().splitlines()) == 1 and "Traceback" not in result.err
    only_questions = pingpong(tmp_path, "run", "--method", "roleinteract", *OFFLINE, "--characters", "tally",
                              "--situations", "emotion")
    assert only_questions.rc == 0, only_questions.err
    assert rows(tmp_path, "select count(*), min(situation) from sessions") == [(8, "tally-emotion-01")]


def test_a_user_scene_with_a_member_who_has_no_card_is_skipped_with_a_warning(tmp_path):
    """As any bad file in the home: the run plays the rest, one warning line names the file."""
    from pingpong.situations.probes import BUNDLED_SCENES_DIR

    scene = yaml.safe_load((BUNDLED_SCENES_DIR / "hollowmere-missing-courier.yaml").read_text(encoding="utf-8"))
    scene["name"] = "my-scene"
    scene["members"][1]["character"] = "harbour-master"
    path = tmp_path / "situations" / "scenes" / "my-scene.yaml"
    path.parent.mkdir(parents=True)
    path.write_text(yaml.safe_dump(scene, allow_unicode=True), encoding="utf-8")
    (tmp_path / "situations" / "scenes" / "broken.yaml").write_text("name: [", encoding="utf-8")
    result = pingpong(tmp_path, "run", "--method", "roleinteract", *OFFLINE, "--characters", "mirela-the-merchant")
    assert result.rc == 0, result.err
    assert f"pingpong: warning: {path}: no character card 'harbour-master' for lang en; skipped" in result.err
    assert f"pingpong: warning: {path.with_name('broken.yaml')}: invalid YAML" in result.err
    assert rows(tmp_path, "select count(*) from sessions where situation = 'hollowmere-missing-courier'")[0][0] == 1
    named = pingpong(tmp_path, "run", "--method", "roleinteract", *OFFLINE, "--situations", "my-scene", "--run", "s")
    assert named.rc == 2 and f"{path}: no character card 'harbour-master'" in named.err


def test_user_probe_and_scene_files_too_long_for_a_session_are_warned_about_and_skipped(tmp_path):
    """padding 100 (52 turns) or 60 rounds: a bad file like any other, not a traceback that stops the run."""
    from pingpong.situations.probes import BUNDLED_PROBES_DIR, BUNDLED_SCENES_DIR

    probes = yaml.safe_load((BUNDLED_PROBES_DIR / "tally.yaml").read_text(encoding="utf-8"))
    probes["memory"][0]["padding"] = 100
    scene = yaml.safe_load((BUNDLED_SCENES_DIR / "hollowmere-missing-courier.yaml").read_text(encoding="utf-8"))
    scene |= {"name": "long-night", "rounds": 60}
    for folder, name, doc in (("probes", "tally.yaml", probes), ("scenes", "long-night.yaml", scene)):
        (tmp_path / "situations" / folder).mkdir(parents=True)
        (tmp_path / "situations" / folder / name).write_text(yaml.safe_dump(doc, allow_unicode=True), encoding="utf-8")
    result = pingpong(tmp_path, "run", "--method", "roleinteract", *OFFLINE, "--characters", "tally,mirela-the-merchant",
                      "--every", "10")
    assert result.rc == 0, result.err
    assert "Traceback" not in result.err and "internal error" not in result.err
    assert f"{tmp_path / 'situations' / 'probes' / 'tally.yaml'}: memory.0.padding" in result.err
    assert f"{tmp_path / 'situations' / 'scenes' / 'long-night.yaml'}: group scene: Value error, 60 rounds" in result.err
