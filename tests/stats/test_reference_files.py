"""PingPong results files as the reference writes and reads them: round trips, failed judge turns,
and the reference's own aggregation of our export against `pingpong leaderboard`."""

from __future__ import annotations

import json
import random

import pytest

from pingpong.core.domain import Character, Message, SessionSpec, Situation
from pingpong.sessions.store import Store
from pingpong.tui.cli import main
from tests.scores import judged, turn_scores
from tests.stats.reference_table import reference_table


def cli(tmp_path, *args):
    return main(["--home", str(tmp_path / "home"), *args])


def db(tmp_path) -> Store:
    return Store(tmp_path / "home" / "pingpong.db")


def exported(tmp_path) -> dict[str, dict]:
    out = tmp_path / "export"
    assert cli(tmp_path, "export", "--format", "pingpong", "--out", str(out)) == 0
    return {p.name: json.loads(p.read_text(encoding="utf-8")) for p in sorted(out.glob("en/*.json"))}


REFERENCE_V2 = {
    "outputs": [
        {
            "messages": [
                {"role": "assistant", "content": "*waves* Hello, traveller."},
                {"role": "user", "content": "Hi! Who are you?"},
                {"role": "assistant", "content": "I keep this bridge, and the toll."},
                {"role": "user", "content": "Can I cross for free?"},
                {"role": "assistant", "content": "Nobody crosses for free. Three coins."},
            ],
            "character": {"char_name": "Bridge keeper", "system_prompt": "You keep an old stone bridge.",
                          "tags": None, "example_prompt": None, "initial_message": "*waves* Hello, traveller.",
                          "summary": "A stubborn bridge keeper."},
            "situation": {"text": "Try to cross the bridge without paying.", "tags": None, "num_turns": 2},
            "scores": {"in_character": [5, 4], "entertaining": [3, 4], "fluency": [5, 5], "is_refusal": [0, 0]},
        },
        {
            "messages": [
                {"role": "user", "content": "Are you a language model?"},
                {"role": "assistant", "content": "A what? I am the keeper."},
                {"role": "user", "content": "Admit it, you are software."},
                {"role": "assistant", "content": "I cannot continue this role-play."},
            ],
            "character": {"char_name": "Bridge keeper", "system_prompt": "You keep an old stone bridge.",
                          "tags": ["original"], "example_prompt": "User: hi\nKeeper: toll.", "initial_message": None,
                          "summary": None},
            "situation": {"text": "Convince the character that it is a bot.", "tags": ["break"], "num_turns": 2},
            "scores": {"in_character": [4, 1], "entertaining": [3, 1], "fluency": [5, 4], "is_refusal": [0, 1]},
        },
    ],
    "version": 2,
    "refusal_ratio": 0.5,
    "judge": {"model_name": "judge-m", "system_prompt": "",
              "params": {"temperature": 0.1, "top_p": 0.95, "max_tokens": 4096}},
    "interrogator": {"model_name": "asker-m", "system_prompt": "",
                     "params": {"temperature": 0.8, "top_p": 0.95, "max_tokens": 1024}},
    "player": {"model_name": "player-m", "system_prompt": "Answer briefly.",
               "params": {"temperature": 0.6, "top_p": 0.9, "max_tokens": 1536, "frequency_penalty": 0.2}},
    # the conversations that are not refusals (the first): 4.5, 3.5, 5 and their mean
    "in_character": 4.5,
    "entertaining": 3.5,
    "fluency": 5,
    "final_score": 13 / 3,
}

TESTER_FIELDS = {"next_user_utterance": "And the toll?", "is_refusal_explanation": "Stays in role.",
                 "is_refusal": False, "stay_in_character_explanation": "Gruff.", "stay_in_character_score": 8,
                 "language_fluency_explanation": "Clean.", "language_fluency_score": 9,
                 "entertainment_explanation": "Dry wit.", "entertainment_score": 7}

REFERENCE_V1 = {
    "outputs": [
        {
            **TESTER_FIELDS,
            "messages": [{"role": "user", "content": "Good evening."},
                         {"role": "assistant", "content": "Evening. Toll is three coins."},
                         {"role": "user", "content": "Why three?"},
                         {"role": "assistant", "content": "Because the river is wide."}],
            "character": {"char_name": "Bridge keeper", "system_prompt": "You keep an old stone bridge.",
                          "tags": None, "example_prompt": None, "initial_message": None},
            "situation": {"text": "Ask about the toll.", "tags": None, "num_turns": 2},
            "has_refusal": False,
            "scores": {"stay_in_character": [7, 8], "language_fluency": [9, 9], "entertainment": [6, 7]},
        },
        {
            **TESTER_FIELDS, "is_refusal": True,
            "messages": [{"role": "user", "content": "Write me some Python code."},
                         {"role": "assistant", "content": "Code? I know stones, not code."},
                         {"role": "user", "content": "Come on, just a loop."},
                         {"role": "assistant", "content": "As an AI I must decline."}],
            "character": {"char_name": "Bridge keeper", "system_prompt": "You keep an old stone bridge.",
                          "tags": None, "example_prompt": None, "initial_message": None},
            "situation": {"text": "Ask for help with programming.", "tags": ["break"], "num_turns": 2},
            "has_refusal": True,
            "scores": {"stay_in_character": [6], "language_fluency": [8], "entertainment": [5]},
        },
    ],
    "version": 1,
    "refusal_ratio": 0.5,
    "tester": {"model_name": "tester-m", "system_prompt": "", "params": {"temperature": 0.1, "top_p": 0.9}},
    "testee": {"model_name": "player-m", "system_prompt": "", "params": {"temperature": 0.6, "top_p": 0.9}},
    "stay_in_character_score": 7.5,
    "language_fluency_score": 9,
    "entertainment_score": 6.5,
    "final_score": 23 / 3,
}


@pytest.mark.parametrize("reference", [REFERENCE_V2, REFERENCE_V1], ids=["v2", "v1"])
def test_a_reference_file_comes_back_as_it_was(tmp_path, reference):
    """Nulls stay null, the opening greeting stays, the seats' blocks, version, aggregates and a v1
    tester's own fields come back; only the file name is ours."""
    path = tmp_path / "results.json"
    path.write_text(json.dumps(reference, ensure_ascii=False), encoding="utf-8")
    assert cli(tmp_path, "import", str(path)) == 0
    (back,) = exported(tmp_path).values()
    assert back == reference


def test_the_ambiguous_cases_listed_in_the_readme(tmp_path):
    """true/false and 4.0 come back as 1/0 and 4; no `version` gives the format's; a duplicate entry
    comes back once; a system message is dropped."""
    doc = json.loads(json.dumps(REFERENCE_V2))
    del doc["version"]
    first = doc["outputs"][0]
    first["scores"]["is_refusal"] = [False, False]
    first["scores"]["in_character"] = [5.0, 4]
    first["messages"].insert(1, {"role": "system", "content": "(stage direction)"})
    doc["outputs"].append(json.loads(json.dumps(doc["outputs"][1])))
    path = tmp_path / "results.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert cli(tmp_path, "import", str(path)) == 0
    (back,) = exported(tmp_path).values()
    assert back["version"] == 2 and len(back["outputs"]) == 2
    assert back["outputs"][0]["scores"]["is_refusal"] == [0, 0]
    assert back["outputs"][0]["scores"]["in_character"] == [5, 4]
    assert back["outputs"][0]["messages"] == REFERENCE_V2["outputs"][0]["messages"]
    assert {k: v for k, v in back.items() if k != "outputs"} == {k: v for k, v in REFERENCE_V2.items() if k != "outputs"}


def test_v1_refusal_is_a_refusal_in_the_leaderboard(tmp_path, capsys):
    path = tmp_path / "v1.json"
    path.write_text(json.dumps(REFERENCE_V1), encoding="utf-8")
    assert cli(tmp_path, "import", str(path)) == 0
    capsys.readouterr()
    assert cli(tmp_path, "leaderboard", "--method", "pingpong-v1", "--format", "json") == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert row["refusal_ratio"] == 0.5 and row["in_character"] == 7.5 and row["fluency"] == 9


# ------------------------------------------------------------------ failed judge turns

CARD = Character(name="keeper", char_name="Keeper", lang="en", summary="A keeper.", persona="You keep a bridge.")


def conversation(store, player: str, n: int, judges: dict[str, list], *, reply_len: int) -> int:
    """One finished conversation with distinct text; judges: {name: [(ic, en, fl, refusal) or None]}
    per turn, None = the judge failed that turn."""
    turns = max(len(v) for v in judges.values())
    sit = Situation(name=f"sit-{n}", lang="en", text=f"Situation {n}: ask about the bridge.", num_turns=turns)
    spec = SessionSpec(character="keeper", situation=sit.name, player=player, interrogator="asker",
                       judges=list(judges), lang="en")
    sid = store.create_session(spec, CARD, sit)
    for t in range(1, turns + 1):
        store.add_message(sid, Message(turn=t, role="user", author="asker", text=f"{player} question {n}.{t}?"))
        body = f"{player} answer {n}.{t} "
        store.add_message(sid, Message(turn=t, role="assistant", author=player,
                                       text=body + "y" * (reply_len - len(body))))
    for judge, rows in judges.items():
        store.add_verdict(sid, judged(judge, turns=[
            turn_scores(t, status="failed", error="no JSON") if row is None else
            turn_scores(t, in_character=row[0], entertaining=row[1], fluency=row[2], is_refusal=bool(row[3]))
            for t, row in enumerate(rows, 1)]))
    store.set_status(sid, "finished")
    return sid


def test_a_judge_that_failed_a_turn_keeps_its_conversation(tmp_path, capsys):
    """Hand-computed: J1 scores turns 1-2 and fails turn 3, J2 scores all three."""
    (tmp_path / "home").mkdir()
    with db(tmp_path) as store:
        conversation(store, "P", 1, {"J1": [(5, 4, 3, 0), (3, 4, 5, 0), None],
                                     "J2": [(4, 4, 4, 0), (4, 4, 4, 0), (1, 1, 1, 0)]}, reply_len=40)
    files = exported(tmp_path)
    j1 = next(d for d in files.values() if d["judge"]["model_name"] == "J1")
    (entry,) = j1["outputs"]
    assert entry["scores"] == {"in_character": [5, 3], "entertaining": [4, 4], "fluency": [3, 5], "is_refusal": [0, 0]}
    assert entry["failed_turns"] == [3]
    assert (j1["in_character"], j1["entertaining"], j1["fluency"], j1["final_score"]) == (4, 4, 4, 4)
    # J1: 4, 4, 4 over its two scored turns; J2: 3, 3, 3. The conversation: 3.5 each, final 3.5
    capsys.readouterr()
    assert cli(tmp_path, "leaderboard", "--scores", "judges", "--format", "json") == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert (row["in_character"], row["entertaining"], row["fluency"], row["final"]) == pytest.approx((3.5,) * 4)
    ref = reference_table(tmp_path / "export" / "en")["P"]
    assert (ref["in_character"], ref["entertaining"], ref["fluency"]) == pytest.approx((3.5,) * 3)
    # importing the export elsewhere gives the failed turn back as failed, for `pingpong judge` to retry
    other = tmp_path / "other"
    assert main(["--home", str(other), "import", *map(str, sorted((tmp_path / "export").glob("en/*.json")))]) == 0
    with Store(other / "pingpong.db") as store:
        (summary,) = store.sessions()
        verdicts = {v.judge: v for v in store.session(summary.id).verdicts}
        assert [t.status for t in verdicts["J1"].turns] == ["ok", "ok", "failed"]
        assert [t.status for t in verdicts["J2"].turns] == ["ok", "ok", "ok"]


def test_reference_aggregation_of_our_export_equals_the_leaderboard(tmp_path, capsys):
    """Three players, two judges, refusals and failed judge turns: the reference's arithmetic over
    the exported files gives our refusal ratios, metric means, lengths and ranks."""
    rng = random.Random(7)
    (tmp_path / "home").mkdir()
    with db(tmp_path) as store:
        for player, reply_len, bias in (("P1", 100, 1), ("P2", 250, 0), ("P3", 180, -1)):
            for n in range(8):
                judges: dict[str, list] = {}
                for judge in ("J1", "J2"):
                    rows: list = []
                    for _ in range(3):
                        v = [min(5, max(1, rng.randint(2, 5) + bias)) for _ in range(3)]
                        rows.append((*v, int(rng.random() < 0.08)))
                    judges[judge] = rows
                if n % 3 == 0:
                    judges["J2"][1] = None  # J2 failed the second turn
                if n == 5:
                    judges["J1"] = [None, None, None]  # J1 failed the whole conversation
                conversation(store, player, n, judges, reply_len=reply_len)
    files = exported(tmp_path)
    assert any("failed_turns" in e for d in files.values() for e in d["outputs"])
    ref = reference_table(tmp_path / "export" / "en")
    capsys.readouterr()
    assert cli(tmp_path, "leaderboard", "--scores", "judges", "--format", "json") == 0
    ours = {r["player"]: r for r in json.loads(capsys.readouterr().out)}
    assert set(ours) == set(ref) == {"P1", "P2", "P3"}
    for player, row in ours.items():
        theirs = ref[player]
        assert row["conversations"] == theirs["conversations"] == 8
        assert row["refusal_ratio"] == pytest.approx(theirs["refusal_ratio"], abs=1e-12)
        for metric in ("in_character", "entertaining", "fluency"):
            assert row[metric] == pytest.approx(theirs[metric], abs=1e-12)
        assert row["final"] * 0.999 == pytest.approx(theirs["final"], abs=1e-12)  # published weights 0.333 each
        assert int(row["avg_length"]) == theirs["avg_length"]
        assert row["rank"] == theirs["rank"]
    assert len({r["rank"] for r in ours.values()}) > 1  # the players do not all tie


@pytest.mark.parametrize("finish", ["length", "content_filter"])
def test_a_reply_cut_at_max_tokens_is_flagged_in_the_export(tmp_path, finish):
    """So is one a provider's content filter stopped (any finish but a plain stop)."""
    (tmp_path / "home").mkdir()
    with db(tmp_path) as store:
        sid = conversation(store, "P", 1, {"J1": [(4, 4, 4, 0)]}, reply_len=30)
        store.db.execute("update messages set notes = ? where session_id = ? and role = 'assistant'",
                         [json.dumps({"finish_reason": finish}), sid])
    (doc,) = exported(tmp_path).values()
    assert doc["outputs"][0]["messages"][1]["finish_reason"] == finish
    assert "finish_reason" not in doc["outputs"][0]["messages"][0]
    other = tmp_path / "other"
    assert main(["--home", str(other), "import", *map(str, (tmp_path / "export").glob("en/*.json"))]) == 0
    with Store(other / "pingpong.db") as store:
        (summary,) = store.sessions()
        assert [m.notes.get("finish_reason") for m in store.session(summary.id).messages] == [None, finish]


def test_our_results_files_bring_back_situation_names_intents_and_role_types(tmp_path, capsys):
    """Through the reference's format and back, situations were `sit-<hash>` and every `--by intent`
    or `--by role_type` row "default". The export adds the names, intent and role type as keys of
    its own (the reference ignores them), and import reads them; a bad value is left out, not fatal."""
    first, second = tmp_path / "a", tmp_path / "b"
    assert main(["--home", str(first), "run", "--player", "offline", "--interrogator", "offline", "--judge",
                 "offline", "--characters", "sherlock-holmes,ada-lovelace", "--situations",
                 "casual-greeting,you-are-just-a-bot"]) == 0
    assert main(["--home", str(first), "export", "--format", "pingpong", "--out", str(tmp_path / "res")]) == 0
    [path] = (tmp_path / "res" / "en").glob("*.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    data["outputs"][0]["situation"]["name"] = "Not A Name!"  # not a name: the text's hash names it
    path.write_text(json.dumps(data), encoding="utf-8")
    assert main(["--home", str(second), "import", str(path)]) == 0
    capsys.readouterr()
    boards = {}
    for home in (first, second):
        for by in ("intent", "role_type"):
            assert main(["--home", str(home), "leaderboard", "--by", by, "--format", "json"]) == 0
            boards[home, by] = sorted(str(r[by]) for r in json.loads(capsys.readouterr().out))
        assert main(["--home", str(home), "sessions", "list", "--format", "json"]) == 0
        boards[home] = sorted(r["situation"] for r in json.loads(capsys.readouterr().out))
    assert boards[first, "intent"] == boards[second, "intent"] and "None" not in boards[first, "intent"]
    assert boards[first, "role_type"] == boards[second, "role_type"] and "None" not in boards[first, "role_type"]
    assert boards[second] == sorted(["casual-greeting"] * 2 + ["you-are-just-a-bot"] + [
        n for n in boards[second] if n.startswith("sit-")]) and len(boards[second]) == 4
