"""`pingpong leaderboard --method rolebench`: Rouge-L means as a table, Markdown or CSV."""

from __future__ import annotations

from typing import Any

from pingpong.sessions.aggregation.rolebench import METRICS
from pingpong.tui.commands.output import COST_FIELDS, option_cell, print_board
from pingpong.tui.commands.table import Column

TITLE = "RoleBench (Rouge-L F1)"
CAPTION = "± = half width of the 95% bootstrap interval"


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def board_cells(rows: list[dict[str, Any]], by: str | None = None) -> tuple[list[Column], list[list[str]]]:
    """The board's columns and cells as a terminal shows them (the CLI's table, the TUI's board):
    the half widths in columns of their own, the first to go on a narrow screen."""
    label = by.replace("_", " ").capitalize() if by else None
    columns = [Column("Rank", 9, number=True), Column("Player", 10), *([Column(label, 6)] if label else []),
               Column("Lang", 8, least=2), Column("Mean", 9, number=True),  # what ranks, beside the player
               *(c for m in METRICS for c in (Column(m.upper(), 7, number=True),
                                               Column("±", 2, number=True, name=f"{m}_ci"))),
               Column("Questions", 4, number=True, short="n")]
    body = [[str(r["rank"] or "-"), r["player"], *option_cell(r, by), r["lang"] or "-", _num(r["score"]),
             *(x for m in METRICS for x in (_num(r.get(m)), _num(r.get(f"{m}_ci")))),
             str(r["conversations"])] for r in rows]
    return columns, body


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
            headers += COST_FIELDS
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(headers)
        for r in rows:
            writer.writerow(["" if r.get(h) is None else r.get(h) for h in headers])
        return

    label = by.replace("_", " ").capitalize() if by else None
    if fmt == "markdown":
        columns = [Column(t) for t in ("Rank", "Player", *([label] if label else []), "Lang", "Mean", "RAW", "CUS",
                                       "SPE", "Questions")]
        body = [[str(r["rank"] or "-"), r["player"], *option_cell(r, by), r["lang"] or "-", _num(r["score"]),
                 *(_num(r.get(m)) + (f" ± {r[m + '_ci']:.3f}" if r.get(m) is not None and r.get(m + "_ci") is not None
                                    else "") for m in METRICS),
                 str(r["conversations"])] for r in rows]
    else:
        columns, body = board_cells(rows, by)
    if extra:
        columns += [Column(h, 7, number=True) for h in extra[0]]
        body = [line + more for line, more in zip(body, extra[1])]
    print_board(columns, body, fmt, out, title=TITLE, caption=CAPTION, empty="no finished rolebench sessions yet")
