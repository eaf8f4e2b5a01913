"""The offline dmt run in both languages, its leaderboard, and people overriding a label."""

from __future__ import annotations

import json

import pytest

from tests.runner.conftest import pingpong, rows

OFFLINE = ("--player", "offline", "--interrogator", "offline", "--judge", "offline")


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_offline_dmt_run_finishes_with_dialogues_of_different_lengths(tmp_path, lang):
    result = pingpong(tmp_path, "run", "--method", "dmt", *OFFLINE, "--lang", lang)
    assert result.rc == 0, result.err
    found = rows(tmp_path, "select status, player_messages, num_turns from sessions where method = 'dmt'")
    assert found and {status for status, _, _ in found} == {"finished"}
    assert len({n for _, n, _ in found}) > 1
    assert any(n < limit for _, n, limit in found)

    board = pingpong(tmp_path, "leaderboard", "--method", "dmt", "--format", "json")
    assert board.rc == 0, board.err
    (row,) = json.loads(board.out)
    assert (row["player"], row["lang"], row["method"], row["rank"]) == ("offline", lang, "dmt", 1)
    assert row["conversations"] == len(found)
    assert 0 <= row["dmt_score"] <= 1
    for metric in row["metrics"].values():
        assert metric["curve"] and metric["score"] == pytest.approx(sum(metric["curve"]) / len(metric["curve"]),
                                                                    abs=1e-3)
    table = pingpong(tmp_path, "leaderboard", "--method", "dmt")
    assert f"{row['dmt_score']:.3f}" in table.out


def test_characters_filter_seeds_and_a_person_overrides_a_label(tmp_path):
    result = pingpong(tmp_path, "run", "--method", "dmt", *OFFLINE, "--characters", "ada-lovelace")
    assert result.rc == 0, result.err
    found = rows(tmp_path, "select id, character from sessions")
    assert {c for _, c in found} == {"ada-lovelace"} and len(found) >= 2
    sid = found[0][0]
    bad = rows(tmp_path, "select turn, metric from scores where session_id = ? and value = 0", [sid])
    turn, metric = bad[0]
    before = json.loads(pingpong(tmp_path, "leaderboard", "--method", "dmt", "--format", "json").out)[0]
    done = pingpong(tmp_path, "sessions", "score", str(sid), "--turn", str(turn), "--metric", metric,
                    "--value", "good", "--author", "ann")
    assert done.rc == 0, done.err
    after = json.loads(pingpong(tmp_path, "leaderboard", "--method", "dmt", "--format", "json").out)[0]
    assert after["metrics"][metric]["score"] >= before["metrics"][metric]["score"]
    assert after["metrics"][metric]["curve"] != before["metrics"][metric]["curve"] or turn > 1
    wrong = pingpong(tmp_path, "sessions", "score", str(sid), "--turn", str(turn), "--metric", metric,
                     "--value", "4", "--author", "ann")
    assert wrong.rc == 2


def test_situations_list_method_dmt_lists_the_seeds(tmp_path):
    out = pingpong(tmp_path, "situations", "list", "--method", "dmt", "--lang", "ru", "--format", "json")
    seeds = json.loads(out.out)
    assert seeds and {s["lang"] for s in seeds} == {"ru"} and {s["method"] for s in seeds} == {"dmt"}
    assert all(s["initial_query"] and s["goal"] for s in seeds)


def test_prompt_formats_are_stored_and_the_board_breaks_down_with_intervals(tmp_path):
    cards = "ada-lovelace,juniper"
    assert pingpong(tmp_path, "run", "--method", "dmt", *OFFLINE, "--characters", cards).rc == 0
    minimal = pingpong(tmp_path, "run", "--method", "dmt", *OFFLINE, "--characters", cards,
                       "--prompt-format", "minimal")
    assert minimal.rc == 0, minimal.err
    specs = [json.loads(s) for (s,) in rows(tmp_path, "select spec from sessions")]
    assert sorted({s["prompt_format"] for s in specs}) == ["detailed", "minimal"]
    runs = {name for (name,) in rows(tmp_path, "select name from runs")}
    assert len(runs) == 2 and any(name.endswith("-minimal") for name in runs)

    def board(*extra: str) -> list[dict]:
        out = pingpong(tmp_path, "leaderboard", "--method", "dmt", "--format", "json", *extra)
        assert out.rc == 0, out.err
        return json.loads(out.out)

    (whole,) = board()
    assert whole["dmt_score_ci"] is not None and whole["dmt_score_ci"] >= 0
    assert all(m["score_ci"] is not None for m in whole["metrics"].values())
    by_format = board("--by", "prompt_format")
    assert [(r["prompt_format"], r["rank"], r["conversations"]) for r in by_format] == [
        ("detailed", 1, whole["conversations"] // 2), ("minimal", 1, whole["conversations"] // 2)]
    by_role = {r["role_type"]: r for r in board("--by", "role_type")}
    assert set(by_role) == {"historical", "companion"}
    assert "empathy" in by_role["companion"]["metrics"] and "empathy" not in by_role["historical"]["metrics"]
    by_intent = board("--by", "intent")
    assert len(by_intent) >= 2 and all(r["intent"] and "dmt_score_ci" in r for r in by_intent)
    table = pingpong(tmp_path, "leaderboard", "--method", "dmt", "--by", "role_type")
    assert "companion" in table.out and "±" in table.out
    csv_out = pingpong(tmp_path, "leaderboard", "--method", "dmt", "--format", "csv").out
    assert csv_out.splitlines()[0].startswith("rank,player,lang,dmt_score,dmt_score_ci,conversations,")
    other = pingpong(tmp_path, "leaderboard", "--method", "roleinteract", "--by", "role_type")
    assert other.rc == 2 and "--method pingpong, pingpong-v1, dmt" in other.err


def test_the_pingpong_boards_split_by_prompt_format_role_type_and_intent(tmp_path):
    """DESIGN's --by options on the PingPong board: a row per player and value, counting only its sessions."""
    for fmt in ("detailed", "minimal"):
        done = pingpong(tmp_path, "run", *OFFLINE, "--every", "6", "--prompt-format", fmt)
        assert done.rc == 0, done.err
    whole = json.loads(pingpong(tmp_path, "leaderboard", "--format", "json").out)
    for option in ("prompt_format", "role_type", "intent"):
        split = json.loads(pingpong(tmp_path, "leaderboard", "--by", option, "--format", "json").out)
        assert len(split) >= 2 and all(r[option] for r in split), option
        assert sum(r["conversations"] for r in split) == sum(r["conversations"] for r in whole), option
    by_format = json.loads(pingpong(tmp_path, "leaderboard", "--by", "prompt_format", "--format", "json").out)
    assert sorted(r["prompt_format"] for r in by_format) == ["detailed", "minimal"]


def test_a_label_of_a_metric_the_role_type_does_not_call_for_is_refused(tmp_path):
    """A game NPC is labelled on game completion only (METHOD.md): an empathy label for one is one
    clear line and exit 2, and the board stays as it was."""
    result = pingpong(tmp_path, "run", "--method", "dmt", *OFFLINE, "--characters", "mirela-the-merchant",
                      "--lang", "en")
    assert result.rc == 0, result.err
    sid, turn = rows(tmp_path, "select session_id, min(turn) from scores where source = 'judge' group by session_id")[0]
    before = pingpong(tmp_path, "leaderboard", "--method", "dmt", "--format", "json").out
    refused = pingpong(tmp_path, "sessions", "score", str(sid), "--turn", str(turn), "--metric", "empathy",
                       "--value", "bad", "--author", "ann")
    assert refused.rc == 2 and "Traceback" not in refused.err
    assert refused.err.strip().count("\n") == 0 and "'empathy'" in refused.err and "game_completion" in refused.err
    assert pingpong(tmp_path, "leaderboard", "--method", "dmt", "--format", "json").out == before
    assert not rows(tmp_path, "select 1 from scores where source = 'human'")


def test_sessions_show_and_fork_print_every_label_as_good_or_bad(tmp_path):
    """A DMT round carries one good/bad label per metric: `sessions show` prints each (a bad one too,
    not a dash), and a fork's run names the bad ones per round."""
    assert pingpong(tmp_path, "run", "--method", "dmt", *OFFLINE, "--characters", "ada-lovelace", "--lang", "en",
                    "--every", "4").rc == 0
    sid, turns = rows(tmp_path, "select id, player_messages from sessions order by player_messages desc")[0]
    labels = rows(tmp_path, "select turn, metric, value from scores where session_id = ? and source = 'judge'"
                            " order by turn, id", [sid])
    shown = pingpong(tmp_path, "sessions", "show", str(sid))
    assert shown.rc == 0, shown.err
    printed = [line.strip() for line in shown.out.splitlines() if line.strip().startswith("offline: ")]
    assert [(line.split(" = ")[0].removeprefix("offline: "), line.split(" = ")[1].split(" ")[0]) for line in printed] \
        == [(metric, "good" if value else "bad") for _, metric, value in labels]
    assert "in_character" not in shown.out
    forked = pingpong(tmp_path, "sessions", "fork", str(sid), "--turn", "1")
    assert forked.rc == 0, forked.err
    (line,) = [x for x in forked.out.splitlines() if x.startswith("judge offline")]
    assert "None" not in line and ("bad " in line or "all good" in line)


def test_a_dmt_label_needs_its_round_and_a_persons_label_shows_as_good_or_bad(tmp_path):
    assert pingpong(tmp_path, "run", "--method", "dmt", *OFFLINE, "--characters", "ada-lovelace", "--lang", "en",
                    "--every", "4").rc == 0
    sid = rows(tmp_path, "select id from sessions")[0][0]
    whole = pingpong(tmp_path, "sessions", "score", str(sid), "--metric", "fluency", "--value", "bad")
    assert whole.rc == 2 and "round by round" in whole.err and whole.err.count("\n") == 1
    assert pingpong(tmp_path, "sessions", "score", str(sid), "--turn", "1", "--metric", "fluency", "--value", "bad",
                    "--author", "ann").rc == 0
    assert "person ann: fluency = bad current" in pingpong(tmp_path, "sessions", "show", str(sid)).out
    (people,) = json.loads(pingpong(tmp_path, "leaderboard", "--method", "dmt", "--scores", "human",
                                    "--format", "json").out)
    assert people["conversations"] == 1 and list(people["metrics"]) == ["fluency"]  # the dialogue people labelled


GHOST_SEED = """name: ghost-seed
lang: en
character: nobody-here
topic: anything
intent: game_interaction
initial_query: Hello?
goal: Say hello.
"""


def test_a_user_seed_for_a_card_that_is_not_there_is_skipped_with_a_warning_naming_its_file(tmp_path):
    """A bad file in the home never stops a run: the bundled seeds play; named alone, it is the error."""
    path = tmp_path / "situations" / "dmt" / "ghost-seed.yaml"
    path.parent.mkdir(parents=True)
    path.write_text(GHOST_SEED, encoding="utf-8")
    result = pingpong(tmp_path, "run", "--method", "dmt", *OFFLINE, "--every", "2")
    assert result.rc == 0, result.err
    assert f"pingpong: warning: {path}: no character card 'nobody-here' for lang en; skipped" in result.err
    assert rows(tmp_path, "select count(*) from sessions where status = 'finished'")[0][0] > 1
    named = pingpong(tmp_path, "run", "--method", "dmt", *OFFLINE, "--situations", "ghost-seed", "--run", "g")
    assert named.rc == 2 and named.err.strip() == f"pingpong: error: {path}: no character card 'nobody-here' for lang en"


def test_a_fork_at_the_round_a_dialogue_ended_is_refused(tmp_path):
    """A dialogue whose stop check ended it (its goal reached) before its round limit: a fork at that
    round copied every round and played none, crediting the new player with another's replies."""
    assert pingpong(tmp_path, "run", "--method", "dmt", *OFFLINE, "--lang", "en").rc == 0
    ended = rows(tmp_path, "select s.id, m.turn, json_extract(m.notes, '$.stop') from sessions s join messages m"
                           " on m.session_id = s.id where m.role = 'assistant' and json_extract(m.notes, '$.stop')"
                           " not in ('continue', 'max_rounds') and m.turn > 1 order by s.id limit 1")
    assert ended, "no offline dialogue ended before its round limit"
    sid, turn, stop = ended[0]
    before = rows(tmp_path, "select count(*) from sessions")
    refused = pingpong(tmp_path, "sessions", "fork", str(sid), "--turn", str(turn))
    assert refused.rc == 2 and refused.err.count("\n") == 1
    assert f"its dialogue ended at turn {turn} ({stop}); fork at turn {turn - 1} or before" in refused.err
    assert rows(tmp_path, "select count(*) from sessions") == before
    assert pingpong(tmp_path, "sessions", "fork", str(sid), "--turn", str(turn - 1)).rc == 0
