"""`pingpong leaderboard --method rolebench`: Rouge-L means as a table, Markdown or CSV."""

from __future__ import annotations

from typing import Any

from pingpong.sessions.aggregation.rolebench import METRICS
from pingpong.tui.commands.output import option_cell, print_board


def render_table(rows: list[dict[str, Any]], fmt: str, out, by: str | None = None,
                 extra: tuple[list[str], list[list[str]]] | None = None) -> None:
    """The rows as a table, Markdown or CSV (JSON is written by the caller); ``by``: the column of
    `--by OPTION` after the player; `extra` adds columns (headers, cells per row) to the table and
    Markdown, as the `--costs` fields go into the CSV."""
    if fmt == "csv":
        import csv

        headers = ["rank", "player", *([by] if by else []), "lang", *(m for metric in METRICS for m in (metric, f"{metric}_ci")),
                   "score", "conversations"]
        if extra:
            headers += ["cost", "player_cost", "tokens", "player_tokens", "estimated_tokens"]
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(headers)
        for r in rows:
            writer.writerow(["" if r.get(h) is None else r.get(h) for h in headers])
        return

    def cell(row: dict[str, Any], metric: str) -> str:
        v, ci = row.get(metric), row.get(f"{metric}_ci")
        return "-" if v is None else (f"{v:.3f} ± {ci:.3f}" if ci is not None else f"{v:.3f}")

    label = by.replace("_", " ").capitalize() if by else None
    titles = ["Rank", "Player", *([label] if label else []), "Lang", "RAW", "CUS", "SPE", "Mean", "Questions"]
    body = [[str(r["rank"] or "-"), r["player"], *option_cell(r, by), r["lang"] or "-",
             *(cell(r, m) for m in METRICS), "-" if r["score"] is None else f"{r['score']:.3f}",
             str(r["conversations"])] for r in rows]
    if extra:
        titles += extra[0]
        body = [line + more for line, more in zip(body, extra[1])]
    print_board(titles, body, fmt, out, title="RoleBench (Rouge-L F1)",
                caption="± = half width of the 95% bootstrap interval", empty="no finished rolebench sessions yet",
                left=("player", "lang", *([label.lower()] if label else [])))
