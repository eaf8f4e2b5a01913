"""`pingpong compare`: a judge compares stored sessions pair by pair; win rates and ratings.

Only the judge is called, once per pair and order not judged yet (failed ones again); every verdict is
committed as it arrives, so the same command again resumes. Exit 1 when judgements are still failed.
"""

from __future__ import annotations

import sys
from typing import Any

from pingpong.core.errors import RunFailed, UserError
from pingpong.core.home import Home
from pingpong.tui.commands.output import judge_failures, print_json

HINT = "see each pair side by side: open the TUI (pingpong), select a session and press v"


def compare(args, home: Home) -> int:
    import asyncio

    from pingpong.core.config import check_ready, load_models, resolve
    from pingpong.core.domain import HUMAN
    from pingpong.sessions import queries
    from pingpong.sessions.compare import compare_report, pair_outcomes, plan_pairs
    from pingpong.sessions.store import Store
    from pingpong.tui.commands.stats import check_filters

    if args.judge == HUMAN:
        raise UserError("--judge: a judge must be a model; people record preferences with "
                        "`pingpong sessions score ID --versus OTHER --value 1|0|0.5` or in the TUI")
    if args.concurrency < 1:
        raise UserError(f"--concurrency: must be 1 or more, got {args.concurrency}")
    models = load_models(home)
    spec = resolve(models, args.judge)
    check_ready(spec)
    players = [p for p in dict.fromkeys(args.player or []) if p != args.baseline]
    if args.player and not players:  # an empty list would mean every player
        raise UserError(f"--player: name players to compare with the baseline '{args.baseline}', not the baseline")
    home.ensure()
    check_filters(home, None, args.run_name)
    store = Store(home.db_path)
    try:
        facts = queries.sessions_matching(store.conn, queries.SessionFilter(run=args.run_name))
        plans = plan_pairs(facts, args.baseline, players)
        with asyncio.Runner() as loop:
            tally = loop.run(_judge(store, models, spec, plans, args.concurrency, home))
        report = compare_report(pair_outcomes(store.conn, plans), args.baseline, args.judge)
    finally:
        store.close()
    if args.format == "json":
        print_json(report)
    else:
        render(report, sys.stdout)
        cost = _cost(tally.calls, spec)
        print(f"judged {tally.asked} order(s) of {len(plans)} pair(s) with {args.judge}{cost}; {HINT}",
              file=sys.stderr)
    if tally.failed:
        raise RunFailed(f"{tally.failed} pairwise judgement(s) failed "
                        f"({judge_failures({args.judge: (tally.failed, tally.why)})}); "
                        "run the same command again to retry them")
    return 0


def plan_line(plans, owed: int, judge: str) -> str:
    """What a compare is about to do, before its first call: all pairs of the compared players meet
    (the ratings need them), so the count grows with the square of the players."""
    players = {name for p in plans for name in (p.player_a, p.player_b)}
    conversations = {(p.method, p.character, p.situation) for p in plans}
    asks = f"{owed} judgement(s) to ask {judge} (each pair in both orders)" if owed else f"all judged by {judge}"
    return (f"compare: {len(players)} players over {len(conversations)} conversation(s), {len(plans)} pair(s); "
            f"{asks}" + ("; --player or --run narrows it" if owed else ""))


async def _judge(store, models, spec, plans, concurrency: int, home: Home):
    from pingpong.core.llm import ModelPool
    from pingpong.core.prompts import PromptRenderer
    from pingpong.sessions import queries
    from pingpong.sessions.compare import judge_pairs, owed_orders
    from pingpong.sessions.plan_checks import check_reachable

    owed = len(owed_orders(queries.pair_rows(store.conn, [p.a for p in plans]), plans, spec.name))
    print(plan_line(plans, owed, spec.name), file=sys.stderr, flush=True)
    if owed:
        await check_reachable([spec])
    pool = ModelPool(models)
    try:
        return await judge_pairs(store, pool, spec.name, plans, renderer=PromptRenderer(home.templates_dir),
                                 concurrency=concurrency)
    finally:
        await pool.aclose()


def _cost(calls, spec) -> str:
    """' for $0.0123' when the judge has a price (config `price`) and was called; else nothing."""
    from pingpong.sessions.costs import Spend

    if not calls or spec.price is None:
        return ""
    spend = Spend()
    for call in calls:
        spend.add_call(call, {spec.name: spec.price})
    return f" for {spend.text()}"


def _pm(value: float | None, low: float | None, high: float | None, digits: int) -> str:
    if value is None:
        return "-"
    if low is None or high is None:
        return f"{value:.{digits}f}"
    return f"{value:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]"


def render(report: dict[str, Any], out) -> None:
    """The win rates against the baseline and the ratings, as two tables that fit the terminal."""
    from pingpong.tui.commands.table import Column, print_table

    out.write(f"Win rate against {report['baseline']} (judge {report['judge']})\n")
    print_table([Column("Player", 10), Column("Comparisons", 4, number=True, short="n"),
                 Column("Wins", 5, number=True), Column("Ties", 5, number=True), Column("Losses", 5, number=True),
                 Column("Win rate [95% CI]", 9, number=True, short="Win rate")],
                [[r["player"], str(r["n"]), str(r["wins"]), str(r["ties"]), str(r["losses"]),
                  _pm(r["win_rate"], r["ci_low"], r["ci_high"], 3)] for r in report["win_rates"]],
                out=out, empty="no compared pairs yet")
    out.write("Bradley-Terry ratings (Elo scale): mean 1000; 400 points more = odds of 10 to 1\n")
    print_table([Column("Rank", 9, number=True), Column("Player", 10),
                 Column("Rating [95% CI]", 9, number=True, short="Rating")],
                [[str(r["rank"]), r["player"], _pm(r["rating"], r["ci_low"], r["ci_high"], 0)]
                 for r in report["ratings"]], out=out)
    out.write("win rate = (wins + ties / 2) / comparisons; a pair whose two orders disagree is a tie\n")
    if report["unjudged"]:
        out.write(f"{report['unjudged']} of {report['pairs']} pair(s) have no verdict yet and are left out\n")
