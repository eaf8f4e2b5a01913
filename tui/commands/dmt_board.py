"""`pingpong leaderboard --method dmt`: DMT-Score rows as JSON, CSV, Markdown or a table."""

from __future__ import annotations

import json
import sys

from pingpong.core.methods.dmt_rules import DMT_METRICS
from pingpong.tui.commands.output import print_board
from pingpong.tui.commands.table import Column


def _num(value) -> str:
    return "-" if value is None else f"{value:.3f}"


def render_dmt(rows: list[dict], fmt: str, out=None) -> None:
    """The same numbers in every format: rank, player, lang, DMT-Score, conversations, Score_m."""
    out = out or sys.stdout
    if fmt == "json":
        out.write(json.dumps(rows, ensure_ascii=False, indent=2) + "\n")
        return
    metrics = [m for m in DMT_METRICS if any(m in r["metrics"] for r in rows)]
    headers = ["rank", "player", "lang", "dmt_score", "conversations", *metrics]
    cells = [[str(r["rank"] or "-"), r["player"], r["lang"] or "-", _num(r["dmt_score"]), str(r["conversations"]),
              *(_num(r["metrics"].get(m, {}).get("score")) for m in metrics)] for r in rows]
    if fmt == "csv":
        import csv

        w = csv.writer(out, lineterminator="\n")
        w.writerow(headers)
        w.writerows(cells)
    else:
        columns = [Column("rank", 9, number=True), Column("player", 10), Column("lang", 8, least=2),
                   Column("dmt_score", 9, number=True, short="DMT"), Column("conversations", 4, number=True, short="n"),
                   *(Column(m, 3, number=True, short=m[:6]) for m in metrics)]
        print_board(columns, cells, fmt, out, title="DMT-RoleBench leaderboard",
                    caption="Score_m: mean of the curve Score_1..Score_T", empty="no finished, labelled dmt sessions yet")


def dmt_leaderboard_command(args, home) -> int:
    from pingpong.sessions.aggregation.dmt import dmt_leaderboard
    from pingpong.sessions.store import Store

    with Store(home.db_path) as store:
        rows = [r.to_json() for r in dmt_leaderboard(
            store.conn, lang=args.lang, run=getattr(args, "run_name", None), scores=args.scores,
            include_forks=getattr(args, "include_forks", False))]
    render_dmt(rows, args.format)
    return 0
