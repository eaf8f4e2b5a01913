"""A real run exported as PingPong results files: the seats' set-up as sent, and the reference's
aggregation of the files equal to the leaderboard."""

from __future__ import annotations

import json

from tests.runner.conftest import model_entry, pingpong, run_args, standard_models, write_config
from tests.stats.reference_table import reference_table


def test_run_export_carries_the_seats_params_and_matches_the_leaderboard(home, fake):
    models = standard_models(fake.base_url)
    models["alpha"] = model_entry(fake.base_url, "alpha-model") + "[models.alpha.params]\ntemperature = 0.3\n"
    write_config(home, models)
    assert pingpong(home, *run_args()).rc == 0
    out = home / "export"
    assert pingpong(home, "export", "--format", "pingpong", "--out", str(out)).rc == 0
    files = {p.name: json.loads(p.read_text(encoding="utf-8")) for p in out.glob("en/*.json")}
    assert len(files) == 4  # 2 players x 2 judges
    doc = files["judge_judge-one_player_alpha_interrogator_asker.json"]
    assert doc["player"] == {"model_name": "alpha", "system_prompt": "",
                             "params": {"temperature": 0.3, "top_p": 0.9, "max_tokens": 1536}}
    assert doc["interrogator"]["params"] == {"temperature": 0.8, "top_p": 0.95, "max_tokens": 1024}
    assert doc["judge"]["params"] == {"temperature": 0.1, "top_p": 0.95, "max_tokens": 4096}
    assert doc["version"] == 2 and {"in_character", "entertaining", "fluency", "final_score"} <= set(doc)
    assert all("not-a-real-key" not in p.read_text(encoding="utf-8") for p in out.glob("*/*.json"))
    board = pingpong(home, "leaderboard", "--scores", "judges", "--format", "json")
    ours = {r["player"]: r for r in json.loads(board.out)}
    theirs = reference_table(out / "en")
    for player, row in ours.items():
        for key in ("refusal_ratio", "in_character", "entertaining", "fluency"):
            assert abs(row[key] - theirs[player][key]) < 1e-12
        assert row["rank"] == theirs[player]["rank"]


def test_a_v1_run_exports_the_testers_sampling(home, fake):
    assert pingpong(home, *run_args("--method", "pingpong-v1", players=("alpha",))).rc == 0
    out = home / "export"
    assert pingpong(home, "export", "--format", "pingpong", "--out", str(out)).rc == 0
    (doc,) = [json.loads(p.read_text(encoding="utf-8")) for p in out.glob("en/v1_*.json")]
    assert doc["version"] == 1 and doc["testee"]["params"]["max_tokens"] == 1536
    assert doc["tester"] == {"model_name": "asker", "system_prompt": "",
                             "params": {"temperature": 0.1, "top_p": 0.9, "max_tokens": 1024}}
    assert {"stay_in_character_score", "language_fluency_score", "entertainment_score", "final_score"} <= set(doc)
