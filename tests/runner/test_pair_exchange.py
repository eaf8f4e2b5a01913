"""Pairwise verdicts in our JSONL: `compare`'s verdicts (with their judge calls) and people's picks go
out on the line of the pair's first session and come back through import, into an empty database or
one that already holds the sessions, turned round where the ids there are the other way about."""

from __future__ import annotations

import json

from tests.runner.conftest import pingpong, rows, run_args, standard_models, write_config, write_library
from tests.runner.test_compare_cli import serve_players_and_judge

COMPARE = ("compare", "--baseline", "beta", "--judge", "judge-two", "--format", "json")


def other_home(tmp_path, fake, name: str):
    root = tmp_path / name
    write_config(root, standard_models(fake.base_url))
    write_library(root)
    return root


def compared(home, fake):
    """A run of alpha and beta, both orders of every pair judged, and one person's pick against the judge."""
    serve_players_and_judge(fake)
    assert pingpong(home, *run_args()).rc == 0
    assert pingpong(home, *COMPARE).rc == 0
    a, b = rows(home, "SELECT session_a, session_b FROM pair_scores ORDER BY id LIMIT 1")[0]
    beta = rows(home, "SELECT id FROM sessions WHERE id IN (?, ?) AND player = 'beta'", (a, b))[0][0]
    alpha = a if beta == b else b
    result = pingpong(home, "sessions", "score", str(beta), "--versus", str(alpha), "--value", "1",
                      "--author", "dana", "--reason", "beta keeps the scene")
    assert result.rc == 0, result.err


def figures(report: dict) -> tuple:
    return report["win_rates"], report["ratings"], report["comparisons"]


def test_pairwise_verdicts_round_trip_byte_identical(home, fake, tmp_path):
    compared(home, fake)
    first = tmp_path / "one.jsonl"
    assert pingpong(home, "export", "--format", "jsonl", "--out", str(first)).rc == 0
    docs = [json.loads(line) for line in first.read_text(encoding="utf-8").splitlines()]
    items = [(doc, item) for doc in docs for item in doc["pair_scores"]]
    assert len(items) == 9  # 4 pairs x 2 orders, and dana's pick
    judged = [item for _, item in items if item["source"] == "judge"]
    assert {item["shown"] for item in judged} == {"ab", "ba"} and all(len(item["calls"]) == 1 for item in judged)
    assert all(item["calls"][0]["role"] == "judge" and item["calls"][0]["model"] == "judge-two" for item in judged)
    [(doc, pick)] = [(doc, item) for doc, item in items if item["source"] == "human"]
    assert (pick["by"], pick["shown"], pick["calls"], pick["explanation"]) == ("dana", None, [], "beta keeps the scene")
    assert pick["value"] == (1.0 if doc["player"] == "beta" else 0.0)  # for the line's own session
    assert pick["versus"]["player"] != doc["player"] and set(pick["versus"]) == {"created_at", "player", "interrogator"}
    own = rows(home, "SELECT count(*) FROM model_calls WHERE pair_score_id IS NULL")[0][0]
    assert sum(len(doc["calls"]) for doc in docs) == own  # a session's own calls; the pairwise ones sit above

    other = other_home(tmp_path, fake, "other")
    result = pingpong(other, "import", str(first))
    assert result.rc == 0, result.err
    assert "9 pairwise verdicts" in result.out
    second = tmp_path / "two.jsonl"
    assert pingpong(other, "export", "--format", "jsonl", "--out", str(second)).rc == 0
    assert first.read_bytes() == second.read_bytes()

    sent = len(fake.chat_requests)
    here, there = (json.loads(pingpong(h, *COMPARE).out) for h in (home, other))
    assert len(fake.chat_requests) == sent  # every verdict came along: nothing is asked again
    assert figures(here) == figures(there) and here["details"] == there["details"]
    costs = "SELECT count(*), sum(prompt_tokens), sum(completion_tokens) FROM model_calls WHERE pair_score_id IS NOT NULL"
    assert rows(home, costs) == rows(other, costs)

    again = pingpong(other, "import", str(first))  # everything is stored already
    assert again.rc == 0 and "pairwise verdicts" not in again.out and "8 already stored" in again.out
    assert rows(other, "SELECT count(*) FROM pair_scores") == [(9,)]


def test_verdicts_join_sessions_stored_before_turned_round_to_their_ids(home, fake, tmp_path):
    """The sessions were imported earlier, betas first (so the pairs' ids are the other way about
    there); a later export with the verdicts adds only the verdicts, value and order turned round."""
    serve_players_and_judge(fake)
    assert pingpong(home, *run_args()).rc == 0
    before = tmp_path / "before.jsonl"
    assert pingpong(home, "export", "--format", "jsonl", "--out", str(before)).rc == 0
    lines = before.read_text(encoding="utf-8").splitlines()
    betas_first = sorted(lines, key=lambda line: json.loads(line)["player"] != "beta")
    reordered = tmp_path / "reordered.jsonl"
    reordered.write_text("\n".join(betas_first) + "\n", encoding="utf-8")
    other = other_home(tmp_path, fake, "other")
    assert pingpong(other, "import", str(reordered)).rc == 0

    compared(home, fake)
    after = tmp_path / "after.jsonl"
    assert pingpong(home, "export", "--format", "jsonl", "--out", str(after)).rc == 0
    result = pingpong(other, "import", str(after))
    assert result.rc == 0, result.err
    assert "0 new sessions" in result.out and "9 pairwise verdicts" in result.out

    here, there = (json.loads(pingpong(h, *COMPARE).out) for h in (home, other))
    assert figures(here) == figures(there)
    pairs_here = {(d["player_a"], d["player_b"]) for d in here["details"]}
    pairs_there = {(d["player_a"], d["player_b"]) for d in there["details"]}
    assert pairs_here != pairs_there  # the ids are the other way about: stored turned round
    flip = {"ab": "ba", "ba": "ab"}
    judged = ("SELECT a.player, b.player, p.shown, p.value, c.session_id = a.id FROM pair_scores p"
              " JOIN sessions a ON a.id = p.session_a JOIN sessions b ON b.id = p.session_b"
              " JOIN model_calls c ON c.pair_score_id = p.id WHERE p.source = 'judge'")
    stored_here = sorted((pa, pb, shown, value, first) for pa, pb, shown, value, first in rows(home, judged))
    stored_there = sorted((pb, pa, flip[shown], 1 - value, not first) for pa, pb, shown, value, first
                          in rows(other, judged))
    assert stored_here == stored_there


def test_a_verdict_naming_a_session_not_in_the_file_is_one_line(home, fake, tmp_path):
    compared(home, fake)
    out = tmp_path / "all.jsonl"
    assert pingpong(home, "export", "--format", "jsonl", "--out", str(out)).rc == 0
    lines = out.read_text(encoding="utf-8").splitlines()
    n, line = next((n, line) for n, line in enumerate(lines, 1) if json.loads(line)["pair_scores"])
    doc = json.loads(line)
    cases = [
        (lambda item: item["versus"].update(player="gamma"), "versus: no session of 'gamma'"),
        (lambda item: item.update(value=0.3, status="ok"), "value 0.3: expected 1"),
        (lambda item: item.update(shown="ba" if item["source"] == "human" else None), "shown:"),
        (lambda item: item.update(versus="beta"), "versus: expected an object"),
        (lambda item: item.update(colour="red"), "unknown field 'colour'"),
    ]
    other = other_home(tmp_path, fake, "other")
    for spoil, problem in cases:
        spoilt = json.loads(line)
        spoil(spoilt["pair_scores"][0])
        path = tmp_path / "bad.jsonl"
        path.write_text("\n".join([*lines[:n - 1], json.dumps(spoilt), *lines[n:]]) + "\n", encoding="utf-8")
        result = pingpong(other, "import", str(path))
        assert result.rc == 2, (problem, result.err)
        assert f"line {n}: pair_scores[0]" in result.err and problem in result.err, result.err
        assert result.err.count("\n") == 1
    twice = dict(doc, pair_scores=[doc["pair_scores"][0]] * 2)
    twice["pair_scores"][0] = dict(twice["pair_scores"][0], source="judge", shown="ab")
    twice["pair_scores"][1] = dict(twice["pair_scores"][0])
    path = tmp_path / "twice.jsonl"
    path.write_text("\n".join([*lines[:n - 1], json.dumps(twice), *lines[n:]]) + "\n", encoding="utf-8")
    result = pingpong(other, "import", str(path))
    assert result.rc == 2 and "pair_scores[1]" in result.err and "twice" in result.err, result.err
    assert rows(other, "SELECT count(*) FROM sessions") == [(0,)]
