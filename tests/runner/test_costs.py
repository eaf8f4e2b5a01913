"""Costs: `price = {input, output}` per model, the run summary, `leaderboard --costs`, estimates.

The fake server reports `usage` as the words of the request (prompt) and of the reply (completion),
so the expected figures are counted here from what the server saw and what the player said, not
from our own call log.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from tests.fakeserver import FakeServer, default_responder, reply
from tests.runner.conftest import ROOT, model_entry, pingpong, rows, run_args, standard_models, write_config

PRICES = {"alpha": (2.5, 10.0), "beta": (0.15, 0.6), "asker": (1.0, 3.0), "judge-one": (5.0, 15.0),
          "judge-two": (0.5, 1.5)}


def priced_models(base_url: str, prices=PRICES) -> dict[str, str]:
    models = standard_models(base_url)
    for name, (inp, out) in prices.items():
        models[name] += f"price = {{ input = {inp}, output = {out} }}\n"
    return models


def words(body: dict) -> int:
    return max(1, len("\n".join(m["content"] for m in body["messages"]).split()))


def expected_player_cost(home, fake, player: str) -> float:
    """Prompt tokens: the words of the player's requests the server saw; completion tokens: the words of
    the player's stored replies (each is one answer of the server)."""
    model = f"{player}-model"
    prompt = sum(words(r.body) for r in fake.chat_requests if r.body["model"] == model)
    replies = rows(home, "SELECT m.text FROM messages m JOIN sessions s ON s.id = m.session_id"
                         " WHERE s.player = ? AND m.role = 'assistant'", [player])
    completion = sum(max(1, len(text.split())) for (text,) in replies)
    inp, out = PRICES[player]
    return (prompt * inp + completion * out) / 1e6


def expected_total(home, player: str) -> float:
    total = 0.0
    for model, prompt, completion in rows(
            home, "SELECT c.model, sum(c.prompt_tokens), sum(c.completion_tokens) FROM model_calls c"
                  " JOIN sessions s ON s.id = c.session_id WHERE s.player = ? AND c.status = 'ok'"
                  " GROUP BY c.model", [player]):
        inp, out = PRICES[model]
        total += (prompt * inp + completion * out) / 1e6
    return total


def cost_line(text: str, player: str) -> str:
    return next(x for x in text.splitlines() if re.match(rf"\W*{player}\b", x))


def test_run_with_prices_shows_each_players_cost(tmp_path, monkeypatch, fake):
    from tests.runner.conftest import KEY_ENV, write_library

    monkeypatch.setenv(KEY_ENV, "not-a-real-key")
    home = tmp_path / "home"
    write_config(home, priced_models(fake.base_url))
    write_library(home)
    result = pingpong(home, *run_args("--concurrency", "4"))
    assert result.rc == 0, result.err
    assert rows(home, "SELECT count(*) FROM model_calls WHERE tokens_estimated = 1") == [(0,)]

    board = pingpong(home, "leaderboard", "--costs", "--format", "json")
    assert board.rc == 0, board.err
    by_player = {r["player"]: r for r in json.loads(board.out)}
    assert set(by_player) == {"alpha", "beta"}
    for player, row in by_player.items():
        assert row["player_cost"] == pytest.approx(expected_player_cost(home, fake, player), abs=1e-6)
        assert row["cost"] == pytest.approx(expected_total(home, player), abs=1e-6)
        assert row["cost"] > row["player_cost"] > 0
        assert row["estimated_tokens"] == 0 and row["unpriced"] == [] and row["cost_estimated"] is False

    # after the run summary: the run's total, and a line per player with its cost and the player's own
    run_total = sum(r["cost"] for r in by_player.values())
    costs = result.out.split(f"run costs: ${run_total:.4f} ", 1)[1]
    for player, row in by_player.items():
        line = cost_line(costs, player)
        assert f"${row['cost']:.4f}" in line and f"${row['player_cost']:.4f}" in line, line

    table = pingpong(home, "leaderboard", "--costs", "--format", "markdown")
    assert "| Cost | Player's |" in table.out
    assert f"${by_player['alpha']['cost']:.4f}" in table.out


def test_estimated_tokens_and_missing_prices_are_marked(tmp_path, monkeypatch):
    """Without `usage` in the answers the tokens are our estimates (~); a judge without a price makes
    the figure a lower bound (≥) that names it."""
    from tests.runner.conftest import KEY_ENV, write_library

    monkeypatch.setenv(KEY_ENV, "not-a-real-key")
    counter = iter(range(10_000))
    with FakeServer(responder=lambda body: reply(default_responder(body, next(counter)), usage=False)) as srv:
        home = tmp_path / "home"
        prices = {k: v for k, v in PRICES.items() if k != "judge-two"}
        write_config(home, priced_models(srv.base_url, prices))
        write_library(home)
        result = pingpong(home, *run_args("--concurrency", "4", "--every", "4"))
        assert result.rc == 0, result.err
    assert rows(home, "SELECT count(*) FROM model_calls WHERE tokens_estimated = 0 AND status = 'ok'") == [(0,)]
    board = json.loads(pingpong(home, "leaderboard", "--costs", "--format", "json").out)
    assert board and all(r["unpriced"] == ["judge-two"] and r["estimated_tokens"] == r["tokens"] > 0
                         and r["cost_estimated"] for r in board)
    line = cost_line(result.out.split("run costs: ≥~$", 1)[1].split("\n", 1)[1], "alpha")
    assert "≥~$" in line and "~$" in line.split("≥~$", 1)[1]  # all seats: lower bound; player's: priced


def test_spend_marks():
    from pingpong.core.domain import Price
    from pingpong.sessions.costs import Spend

    prices = {"paid": Price(input=1.0, output=2.0)}
    free = Spend()
    free.add("offline", 1000, 500, 1500, prices)  # estimated tokens of a free model change nothing
    assert free.text() == "$0.0000" and free.known
    paid = Spend()
    paid.add("paid", 300_000, 400_000, 0, prices)
    assert paid.cost == pytest.approx(1.1) and paid.text() == "$1.10"
    paid.add("paid", 1000, 0, 1000, prices)
    assert paid.text() == "~$1.10"
    paid.add("nameless", 5, 5, 0, prices)
    assert paid.text() == "≥~$1.10" and paid.unpriced == {"nameless"}
    nothing = Spend()
    nothing.add("nameless", 5, 5, 0, prices)
    assert nothing.text() == "-" and nothing.to_json()["cost"] is None


def test_costs_without_any_price_is_one_line(home):
    assert pingpong(home, *run_args("--every", "8")).rc == 0
    result = pingpong(home, "leaderboard", "--costs")
    assert result.rc == 2
    assert result.err.count("\n") == 1 and "--costs: no model in" in result.err and "has a price" in result.err


def test_an_offline_board_costs_nothing_and_needs_no_config(tmp_path):
    """`offline` costs nothing (README): a board of it needs no price, and no config.toml at all."""
    home = tmp_path / "home"
    assert pingpong(home, "run", "--player", "offline", "--interrogator", "offline", "--judge", "offline",
                    "--every", "20").rc == 0
    assert not (home / "config.toml").exists()
    result = pingpong(home, "leaderboard", "--costs", "--format", "json")
    assert result.rc == 0, result.err
    [row] = json.loads(result.out)
    assert row["cost"] == 0.0


@pytest.mark.parametrize("price, where", [
    ("{ input = -1, output = 1 }", "models.alpha.price.input"),
    ("{ input = inf, output = 1 }", "models.alpha.price.input"),
    ("{ input = nan, output = 1 }", "models.alpha.price.input"),
    ("{ input = 1 }", "models.alpha.price.output"),
    ('{ input = "1", output = 1 }', "models.alpha.price.input"),
    ("{ input = 1, output = 2, cached = 0.5 }", "models.alpha.price.cached"),
    ("3", "models.alpha.price"),
])
def test_bad_price_is_one_line_exit_2(tmp_path, price, where):
    home = tmp_path / "home"
    write_config(home, {"alpha": model_entry("http://127.0.0.1:9/v1", "a") + f"price = {price}\n"})
    result = subprocess.run([sys.executable, "-m", "pingpong.tui.cli", "--home", str(home), "models", "--no-check"],
                            cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and where in result.stderr and "config.toml" in result.stderr
    assert "Traceback" not in result.stderr


def test_pairwise_judging_is_logged_and_costs_count_it_where_costs_show(tmp_path, monkeypatch, fake):
    """`compare`'s judge calls go into the call log, each order's under the session shown first: the
    leaderboard, a session's spend and the run summary then include what comparing cost, as the
    server counted it."""
    from pingpong.core.config import load_models, prices
    from pingpong.core.home import Home
    from pingpong.sessions.costs import session_spend
    from pingpong.sessions.store import Store
    from tests.runner.conftest import KEY_ENV, write_library
    from tests.runner.test_compare_cli import judge_pairs_reply, serve_players_and_judge

    monkeypatch.setenv(KEY_ENV, "not-a-real-key")
    home = tmp_path / "home"
    write_config(home, priced_models(fake.base_url))
    write_library(home)
    serve_players_and_judge(fake)
    assert pingpong(home, *run_args("--run", "night")).rc == 0
    before = {r["player"]: r["cost"] for r in json.loads(pingpong(home, "leaderboard", "--costs", "--format",
                                                                  "json").out)}
    sent = len(fake.chat_requests)
    result = pingpong(home, "compare", "--baseline", "beta", "--judge", "judge-two")
    assert result.rc == 0, result.err

    pairwise = fake.chat_requests[sent:]
    assert len(pairwise) == 8
    inp, out = PRICES["judge-two"]
    extra = {"alpha": 0.0, "beta": 0.0}
    for request in pairwise:
        first = request.body["messages"][-1]["content"].split("# Conversation 2")[0]
        shown_first = "alpha" if "from alpha-model" in first else "beta"
        completion = max(1, len(judge_pairs_reply(request.body).split()))
        extra[shown_first] += (words(request.body) * inp + completion * out) / 1e6
    assert extra["alpha"] > 0 and extra["beta"] > 0
    assert f"with judge-two for ${sum(extra.values()):.4f};" in result.err

    logged = rows(home, "SELECT c.role, c.model, c.status, c.turn, s.player, p.shown, p.session_a = s.id"
                        " FROM model_calls c JOIN pair_scores p ON p.id = c.pair_score_id"
                        " JOIN sessions s ON s.id = c.session_id")
    assert len(logged) == 8
    assert {r[:4] for r in logged} == {("judge", "judge-two", "ok", None)}
    assert all(is_a == (shown == "ab") for *_, shown, is_a in logged)  # the session shown first

    after = {r["player"]: r["cost"] for r in json.loads(pingpong(home, "leaderboard", "--costs", "--format",
                                                                 "json").out)}
    for player in ("alpha", "beta"):
        assert after[player] == pytest.approx(before[player] + extra[player], abs=1e-6)

    store = Store(Home(home).db_path)
    try:
        price_of = prices(load_models(Home(home)))
        (sid,) = rows(home, "SELECT session_a FROM pair_scores LIMIT 1")[0]
        own = rows(home, "SELECT count(*) FROM model_calls WHERE session_id = ? AND pair_score_id IS NULL", [sid])
        assert own[0][0] > 0
        spend = session_spend(store.conn, sid, price_of)
        per_call = rows(home, "SELECT sum(prompt_tokens) + sum(completion_tokens) FROM model_calls"
                              " WHERE session_id = ? AND status = 'ok'", [sid])[0][0]
        assert spend.total.tokens == per_call  # the session's own calls and its pairwise ones
    finally:
        store.close()

    again = pingpong(home, *run_args("--run", "night"))  # nothing left to run: the summary of the run
    assert again.rc == 0, again.err
    assert f"run costs: ${sum(after.values()):.4f} " in again.out


def test_every_methods_board_carries_costs(tmp_path):
    """`leaderboard --costs` adds the cost fields on each method's board (RoleInteract's dropped them)."""
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text('[models.priced]\nkind = "offline"\nprice = { input = 1.0, output = 2.0 }\n',
                                      encoding="utf-8")
    seats = ("--player", "priced", "--interrogator", "offline", "--judge", "offline", "--characters", "sherlock-holmes")
    assert pingpong(home, "run", "--method", "roleinteract", *seats, "--every", "8").rc == 0
    board = json.loads(pingpong(home, "leaderboard", "--method", "roleinteract", "--costs", "--format", "json").out)
    assert board and all(r["cost"] > 0 and r["player_cost"] > 0 for r in board)
    csv_head = pingpong(home, "leaderboard", "--method", "roleinteract", "--costs", "--format", "csv").out.split("\n")[0]
    assert csv_head.endswith("cost,player_cost,tokens,player_tokens,estimated_tokens")
    assert "Cost" in pingpong(home, "leaderboard", "--method", "roleinteract", "--costs").out
