"""`pingpong leaderboard --method rolebench`: Rouge-L means as a table, Markdown or CSV."""

from __future__ import annotations

from typing import Any

from pingpong.sessions.aggregation.rolebench import METRICS
from pingpong.tui.commands.output import print_board
from pingpong.tui.commands.table import Column


def render_table(rows: list[dict[str, Any]], fmt: str, out) -> None:
    """The rows as a table, Markdown or CSV (JSON is written by the caller)."""
    if fmt == "csv":
        import csv

        headers = ["rank", "player", "lang", *(m for metric in METRICS for m in (metric, f"{metric}_ci")),
                   "score", "conversations"]
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(headers)
        for r in rows:
            writer.writerow(["" if r.get(h) is None else r.get(h) for h in headers])
        return

    def num(value: float | None) -> str:
        return "-" if value is None else f"{value:.3f}"

    if fmt == "markdown":
        columns = [Column(t) for t in ("Rank", "Player", "Lang", "RAW", "CUS", "SPE", "Mean", "Questions")]
        body = [[str(r["rank"] or "-"), r["player"], r["lang"] or "-",
                 *(num(r.get(m)) + (f" ± {r[m + '_ci']:.3f}" if r.get(m) is not None and r.get(m + "_ci") is not None
                                    else "") for m in METRICS),
                 num(r["score"]), str(r["conversations"])] for r in rows]
    else:  # the half widths in columns of their own, the first to go on a narrow screen
        columns = [Column("Rank", 9, number=True), Column("Player", 10), Column("Lang", 8, least=2),
                   *(c for m in METRICS for c in (Column(m.upper(), 7, number=True),
                                                   Column("±", 2, number=True, name=f"{m}_ci"))),
                   Column("Mean", 9, number=True), Column("Questions", 4, number=True, short="n")]
        body = [[str(r["rank"] or "-"), r["player"], r["lang"] or "-",
                 *(x for m in METRICS for x in (num(r.get(m)), num(r.get(f"{m}_ci")))),
                 num(r["score"]), str(r["conversations"])] for r in rows]
    print_board(columns, body, fmt, out, title="RoleBench (Rouge-L F1)",
                caption="± = half width of the 95% bootstrap interval", empty="no finished rolebench sessions yet")
