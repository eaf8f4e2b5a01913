"""`pingpong leaderboard --method dmt`: DMT-Score rows as JSON, CSV, Markdown or a table."""

from __future__ import annotations

import json
import sys

from pingpong.core.methods.dmt_rules import DMT_METRICS
from pingpong.tui.commands.output import COST_FIELDS, print_board
from pingpong.tui.commands.table import Column


def _num(value) -> str:
    return "-" if value is None else f"{value:.3f}"


def _pm(value, ci) -> str:
    return "-" if value is None else (f"{value:.3f} ± {ci:.3f}" if ci is not None else f"{value:.3f}")


def render_dmt(rows: list[dict], fmt: str, out=None, by: str | None = None,
               extra: tuple[list[str], list[list[str]]] | None = None) -> None:
    """The same numbers in every format: rank, (group,) player, lang, DMT-Score ± its 95% bootstrap
    half width, conversations, Score_m per metric (CSV also carries each metric's half width); with
    `extra`, columns such as the costs (headers, cells per row; CSV takes the rows' cost fields)."""
    out = out or sys.stdout
    if fmt == "json":
        out.write(json.dumps(rows, ensure_ascii=False, indent=2) + "\n")
        return
    metrics = [m for m in DMT_METRICS if any(m in r["metrics"] for r in rows)]
    group = [by] if by else []
    if fmt == "csv":
        import csv

        costs = list(COST_FIELDS) if extra else []
        w = csv.writer(out, lineterminator="\n")
        w.writerow(["rank", *group, "player", "lang", "dmt_score", "dmt_score_ci", "conversations",
                    *(name for m in metrics for name in (m, f"{m}_ci")), *costs])
        for r in rows:
            cells = [r["metrics"].get(m, {}) for m in metrics]
            w.writerow(["" if v is None else v for v in (
                r["rank"], *(r.get(g) for g in group), r["player"], r["lang"], r["dmt_score"], r["dmt_score_ci"],
                r["conversations"], *(v for c in cells for v in (c.get("score"), c.get("score_ci"))),
                *(r.get(k) for k in costs))])
        return
    cells = [[str(r["rank"] or "-"), *(str(r.get(g) or "-") for g in group), r["player"], r["lang"] or "-",
              _pm(r["dmt_score"], r.get("dmt_score_ci")), str(r["conversations"]),
              *(_num(r["metrics"].get(m, {}).get("score")) for m in metrics)] for r in rows]
    columns = [Column("rank", 9, number=True), *(Column(g, 6) for g in group), Column("player", 10),
               Column("lang", 8, least=2), Column("dmt_score", 9, number=True, short="DMT"),
               Column("conversations", 4, number=True, short="n"),
               *(Column(m, 3, number=True, short=m[:6]) for m in metrics)]
    if extra:
        columns += [Column(h.lower(), 7, number=True) for h in extra[0]]
        cells = [line + more for line, more in zip(cells, extra[1])]
    print_board(columns, cells, fmt, out, title="DMT-RoleBench leaderboard",
                caption="Score_m: mean of the curve Score_1..Score_T; ± = half width of the 95% bootstrap "
                        "interval over dialogues", empty="no finished, labelled dmt sessions yet")


def dmt_leaderboard_command(args, home) -> int:
    from pingpong.sessions.aggregation.dmt import dmt_leaderboard
    from pingpong.sessions.store import Store

    by = getattr(args, "by", None)
    with Store(home.db_path, reading=True) as store:
        rows = [r.to_json() for r in dmt_leaderboard(
            store.conn, lang=args.lang, run=getattr(args, "run_name", None), scores=args.scores,
            include_forks=getattr(args, "include_forks", False), by=by)]
        extra = None
        if getattr(args, "costs", False):
            from pingpong.tui.commands.stats import add_costs

            extra = add_costs(args, home, store, rows, method="dmt")
    render_dmt(rows, args.format, by=by, extra=extra)
    return 0
