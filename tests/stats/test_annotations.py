"""The reference's annotation JSONL: people's ratings of whole conversations, in and out."""

from __future__ import annotations

import json
import random

from scipy.stats import spearmanr

from pingpong.sessions.store import Store
from pingpong.tui.cli import main
from tests.stats.test_exchange import JUDGES, synthetic_results, write

METRICS = ("in_character", "entertaining", "fluency")


def cli(home, *args):
    return main(["--home", str(home), *args])


def annotation_lines(results: dict, seed: int, *, author: str | None = None, n: int | None = None) -> list[dict]:
    """What the reference's annotation tools write: each entry with the player and the person's ratings."""
    rng = random.Random(seed)
    lines = []
    for entry in results["outputs"][:n]:
        line = {**entry, "player": results["player"], "human_scores": {m: rng.randint(1, 5) for m in METRICS}}
        if author:
            line["annotator"] = author
        lines.append(line)
    return lines


def write_lines(path, lines):
    path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), encoding="utf-8")
    return path


def test_annotations_import_as_conversation_ratings_and_feed_agreement(tmp_path, capsys):
    home = tmp_path / "home"
    docs = {j: synthetic_results(j, n=16) for j in JUDGES}
    assert cli(home, "import", *(str(write(tmp_path / f"{j}.json", d)) for j, d in docs.items())) == 0
    ann = write_lines(tmp_path / "5c6a3d3608b0.jsonl", annotation_lines(docs["judge-one"], 1))
    bob = write_lines(tmp_path / "bob.jsonl", annotation_lines(docs["judge-one"], 2, n=10))
    capsys.readouterr()
    assert cli(home, "import", str(ann), str(bob)) == 0
    out = capsys.readouterr().out
    assert "annotations, 16 conversations: 0 new sessions, 16 stored conversations newly rated" in out
    assert cli(home, "import", str(bob)) == 0  # again: nothing to add, and the line says only that
    assert capsys.readouterr().out.strip().endswith("10 conversations: 0 new sessions, 10 already held these ratings, nothing added")
    with Store(home / "pingpong.db") as store:
        rows = store.db.execute("select by, turn, count(*) from scores where source = 'human' group by by, turn").fetchall()
    assert sorted(rows) == [("5c6a3d3608b0", None, 48), ("bob", None, 30)]  # the file names the author

    assert cli(home, "agreement", "--level", "conversation", "--format", "json") == 0
    report = json.loads(capsys.readouterr().out)
    rows = {(r["judge"], r["metric"]): r for r in report["spearman"]}
    assert {j for j, _ in rows} == {*JUDGES, "ensemble"}
    # judge-one's in_character against the people's mean rating, by hand
    lines = {json.dumps(x["messages"]): x for x in annotation_lines(docs["judge-one"], 1)}
    second = {json.dumps(x["messages"]): x for x in annotation_lines(docs["judge-one"], 2, n=10)}
    people, judge = [], []
    for entry in docs["judge-one"]["outputs"]:
        key = json.dumps(entry["messages"])
        ratings = [lines[key]["human_scores"]["in_character"]]
        if key in second:
            ratings.append(second[key]["human_scores"]["in_character"])
        people.append(sum(ratings) / len(ratings))
        judge.append(sum(entry["scores"]["in_character"]) / len(entry["scores"]["in_character"]))
    row = rows[("judge-one", "in_character")]
    assert row["n"] == 16
    assert abs(row["spearman"] - spearmanr(people, judge).statistic) < 1e-12
    assert report["krippendorff_alpha"] and {a["author"] for a in report["annotators"]} == {"5c6a3d3608b0", "bob"}

    # the same file again adds nothing
    assert cli(home, "import", str(ann)) == 0
    assert "16 already held these ratings, nothing added" in capsys.readouterr().out


def test_authors_per_line_and_lines_that_cannot_be_taken(tmp_path, capsys):
    home = tmp_path / "home"
    doc = synthetic_results("judge-one", n=5)
    lines = annotation_lines(doc, 3, author="dana")
    lines[1]["annotator"] = "eli"
    lines[2]["human_scores"]["fluency"] = 3.5  # a merged file's mean: not one person's rating
    lines[3]["messages"] = "not a list"
    path = write_lines(tmp_path / "merged.jsonl", lines)
    assert cli(home, "import", str(path)) == 0
    captured = capsys.readouterr()
    warnings = captured.err.strip().splitlines()
    assert len(warnings) == 2 and all(w.startswith("pingpong: warning: ") for w in warnings)
    assert "line 3" in warnings[0] and "human_scores.fluency is 3.5" in warnings[0]
    assert "line 4" in warnings[1] and "messages" in warnings[1]
    assert "3 new sessions" in captured.out  # conversations not stored yet are stored with the ratings
    with Store(home / "pingpong.db") as store:
        by = store.db.execute("select distinct by from scores where source = 'human' order by by").fetchall()
        assert by == [("dana",), ("eli",)]
        assert not store.db.execute("select 1 from scores where source = 'judge'").fetchall()


def test_a_rating_of_no_metric_and_an_author_that_is_no_name_are_warned_about(tmp_path, capsys):
    """They used to vanish without a word: a person's `charm` rating, and `annotator: 7` (the file's name became the author)."""
    home = tmp_path / "home"
    lines = annotation_lines(synthetic_results("judge-one", n=2), 4)
    lines[0]["human_scores"] |= {"charm": 4, "final_score": 3.7}  # a derived final is skipped without a word
    lines[1]["annotator"] = 7
    assert cli(home, "import", str(write_lines(tmp_path / "ann.jsonl", lines))) == 0
    warnings = capsys.readouterr().err.strip().splitlines()
    assert len(warnings) == 2, warnings
    assert "line 1.human_scores.charm: not a metric pingpong stores" in warnings[0] and "ignored" in warnings[0]
    assert "line 2.annotator: 7 is no name; the file's name 'ann' is the author" in warnings[1]


def test_annotations_export_and_import_round_trip(tmp_path, capsys):
    home = tmp_path / "home"
    doc = synthetic_results("judge-one", n=6)
    assert cli(home, "import", str(write(tmp_path / "r.json", doc))) == 0
    with Store(home / "pingpong.db") as store:
        ids = [s.id for s in store.sessions()]
        store.add_human_score(ids[0], None, "in_character", 2, "ann")
        store.add_human_score(ids[0], None, "in_character", 4, "ann")  # the newest counts
        store.add_human_score(ids[0], None, "fluency", 5, "ann")
        store.add_human_score(ids[2], None, "entertaining", 1, "bob")
        store.add_human_score(ids[3], 1, "entertaining", 3, "bob")  # a turn score: not a conversation rating
    first = tmp_path / "one.jsonl"
    assert cli(home, "export", "--format", "annotations", "--out", str(first)) == 0
    rows = [json.loads(x) for x in first.read_text(encoding="utf-8").splitlines()]
    assert [(r["author"], r["human_scores"]) for r in rows] == [
        ("ann", {"in_character": 4, "fluency": 5}), ("bob", {"entertaining": 1})]
    assert rows[0]["messages"] == doc["outputs"][0]["messages"] and rows[0]["player"]["model_name"] == "player-x"
    other = tmp_path / "other"
    assert cli(other, "import", str(first)) == 0
    second = tmp_path / "two.jsonl"
    assert cli(other, "export", "--format", "annotations", "--out", str(second)) == 0
    assert first.read_bytes() == second.read_bytes()
    capsys.readouterr()
    assert cli(home, "export", "--format", "annotations") == 0
    assert capsys.readouterr().out == first.read_text(encoding="utf-8")


def test_v1_ratings_and_two_players_with_the_same_words_survive_the_round_trip(tmp_path, capsys):
    """A v1 rating is on ten points and its line says so; a line's player decides which of two sessions
    with the same words gets the rating (the offline models say the same words for every player)."""
    home = tmp_path / "home"
    (home).mkdir()
    (home / "config.toml").write_text('[models.offline-b]\nkind = "offline"\n', encoding="utf-8")
    offline = ("--interrogator", "offline", "--judge", "offline", "--every", "20")
    assert cli(home, "run", "--player", "offline", "--player", "offline-b", *offline) == 0
    assert cli(home, "run", "--method", "pingpong-v1", "--player", "offline", *offline) == 0
    with Store(home / "pingpong.db") as store:
        v2 = {s.player: s.id for s in store.sessions(method="pingpong")}
        v1 = store.sessions(method="pingpong-v1")[0].id
        store.add_human_score(v2["offline-b"], None, "fluency", 2, "ann")
        store.add_human_score(v1, None, "in_character", 9, "ann")
    first = tmp_path / "one.jsonl"
    assert cli(home, "export", "--format", "annotations", "--out", str(first)) == 0
    rows = [json.loads(x) for x in first.read_text(encoding="utf-8").splitlines()]
    assert sorted((r.get("version", 2), r["player"]["model_name"]) for r in rows) == [(1, "offline"), (2, "offline-b")]
    for target in (home, tmp_path / "other"):  # back into the same home (nothing new) and into a fresh one
        capsys.readouterr()
        assert cli(target, "import", str(first)) == 0
        assert "could not be taken" not in capsys.readouterr().out
        second = tmp_path / "two.jsonl"
        assert cli(target, "export", "--format", "annotations", "--out", str(second)) == 0
        assert [json.loads(x) for x in second.read_text(encoding="utf-8").splitlines()] == rows
    with Store(home / "pingpong.db") as store:
        assert [h.value for h in store.session(v2["offline"]).human_scores] == []


def test_an_annotation_file_reads_only_the_sessions_that_may_be_its_conversations(tmp_path, capsys, monkeypatch):
    """A one-line file on a big database read every session whole (a minute at 50,000): only the
    sessions with one of its messages are read, and the rating still finds its conversation."""
    home = tmp_path / "home"
    docs = {j: synthetic_results(j, n=16) for j in JUDGES}
    assert cli(home, "import", *(str(write(tmp_path / f"{j}.json", d)) for j, d in docs.items())) == 0
    one = write_lines(tmp_path / "carol.jsonl", annotation_lines(docs["judge-one"], 3, n=1))
    capsys.readouterr()
    read: list[str] = []
    import sqlite3

    real_connect = sqlite3.connect

    def traced(*args, **kwargs):  # every statement the command runs, as SQLite ran it
        conn = real_connect(*args, **kwargs)
        conn.set_trace_callback(read.append)
        return conn

    monkeypatch.setattr(sqlite3, "connect", traced)
    assert cli(home, "import", str(one)) == 0
    monkeypatch.undo()
    assert "1 conversations: 0 new sessions, 1 stored conversations newly rated" in capsys.readouterr().out
    messages_read = {s for s in read if "from messages" in s.lower() and "session_id" in s.lower()
                     and "select" in s.lower() and "join" not in s.lower()}
    assert 1 <= len(messages_read) <= 2, messages_read  # its own session (and the one it is checked against)


def test_whose_rating_counts_is_the_same_after_a_round_trip(tmp_path):
    """Ratings go out oldest first, a line per run of one person's: imported in that order, the newest
    rating of each metric is stored last and counts, as before the export (by name, bob's older won)."""
    home = tmp_path / "home"
    assert cli(home, "import", str(write(tmp_path / "r.json", synthetic_results("judge-one", n=2)))) == 0
    with Store(home / "pingpong.db") as store:
        sid = store.sessions()[0].id
        for metric in METRICS:
            store.add_human_score(sid, None, metric, 2, "bob")
        for metric in METRICS:
            store.add_human_score(sid, None, metric, 4, "ann")
        store.add_human_score(sid, None, "fluency", 3, "bob")  # bob has the last word on fluency alone

    def current(root) -> dict[str, float]:
        with Store(root / "pingpong.db") as store:
            stored = next(s for s in store.stored_sessions([s.id for s in store.sessions()], judges=())
                          if s.human_scores)
            newest: dict[str, float] = {}
            for h in sorted(stored.human_scores, key=lambda h: (h.created_at or "", h.id or 0)):
                newest[h.metric] = h.value
            return newest

    assert current(home) == {"in_character": 4, "entertaining": 4, "fluency": 3}
    out = tmp_path / "a.jsonl"
    assert cli(home, "export", "--format", "annotations", "--out", str(out)) == 0
    lines = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    assert [(x["author"], x["human_scores"]) for x in lines] == [
        ("bob", {"in_character": 2, "entertaining": 2}), ("ann", {"in_character": 4, "entertaining": 4, "fluency": 4}),
        ("bob", {"fluency": 3})]
    other = tmp_path / "other"
    assert cli(other, "import", str(write(tmp_path / "r.json", synthetic_results("judge-one", n=2))), str(out)) == 0
    assert current(other) == {"in_character": 4, "entertaining": 4, "fluency": 3}
