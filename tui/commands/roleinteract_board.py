"""`pingpong leaderboard --method roleinteract`: each dimension's share with its interval, as a
table, Markdown, CSV or JSON."""

from __future__ import annotations

import json
import sys
from typing import Any

from pingpong.core.methods.roleinteract import METRICS
from pingpong.tui.commands.output import COST_FIELDS, print_board
from pingpong.tui.commands.table import Column

TITLES = {"self_style": "Style", "self_knowledge": "Knowledge", "emotion": "Emotion", "situation": "Situation",
          "social_preference": "Social", "memory_short": "Memory short", "memory_long": "Memory long",
          "social_preference_group": "Group"}


TITLE = "RoleInteract (share of each dimension answered right)"
CAPTION = "± = half width of the 95% bootstrap interval over questions"


def _num(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def dimensions(rows: list[dict[str, Any]]) -> list[str]:
    """The dimensions some row has, in METRICS order: a board leaves out what no set covered."""
    return [m for m in METRICS if any(m in r["dimensions"] for r in rows)]


def board_cells(rows: list[dict[str, Any]]) -> tuple[list[Column], list[list[str]]]:
    """The board's columns and cells as a terminal shows them (the CLI's table, the TUI's board):
    the half widths in columns of their own, the first to go on a narrow screen."""
    dims = dimensions(rows)
    columns = [Column("Rank", 9, number=True), Column("Player", 10), Column("Lang", 8, least=2),
               Column("Mean", 9, number=True),  # what ranks: beside the player, never scrolled away
               *(c for d in dims for c in (Column(TITLES.get(d, d), 6, number=True, short=TITLES.get(d, d)[:5]),
                                            Column("±", 1, number=True, name=f"{d}_ci"))),
               Column("Unparseable", 3, number=True, short="Unp"), Column("Questions", 4, number=True, short="n")]
    body = [[str(r["rank"] or "-"), r["player"], r["lang"] or "-", _num(r["score"], 3),
             *(x for d in dims for x in (_num(r["dimensions"].get(d)), _num(r["dimensions_ci"].get(d)))),
             str(r["unparseable"]), str(sum(r["questions"].values()))] for r in rows]
    return columns, body


def render_roleinteract(rows: list[dict[str, Any]], fmt: str, out=None,
                        extra: tuple[list[str], list[list[str]]] | None = None) -> None:
    """The same numbers in every format; the dimensions no row has are left out. `extra` adds
    columns such as the costs (headers, cells per row; CSV takes the rows' cost fields)."""
    out = out or sys.stdout
    if fmt == "json":
        out.write(json.dumps(rows, ensure_ascii=False, indent=2) + "\n")
        return
    dims = dimensions(rows)
    if fmt == "csv":
        import csv

        w = csv.writer(out, lineterminator="\n")
        costs = list(COST_FIELDS) if extra else []
        w.writerow(["rank", "player", "lang", *(c for d in dims for c in (d, f"{d}_ci")), "score", "unparseable",
                    "conversations", *costs])
        for r in rows:
            w.writerow(["" if v is None else v for v in (
                r["rank"], r["player"], r["lang"],
                *(x for d in dims for x in (r["dimensions"].get(d), r["dimensions_ci"].get(d))),
                r["score"], r["unparseable"], r["conversations"], *(r.get(k) for k in costs))])
        return

    if fmt == "markdown":
        columns = [Column(t) for t in ("Rank", "Player", "Lang", "Mean", *(TITLES.get(d, d) for d in dims),
                                       "Unparseable", "Questions")]
        body = [[str(r["rank"] or "-"), r["player"], r["lang"] or "-", _num(r["score"], 3),
                 *(_num(r["dimensions"].get(d)) + (f" ± {r['dimensions_ci'][d]:.2f}" if r["dimensions"].get(d) is not None
                                                  and r["dimensions_ci"].get(d) is not None else "") for d in dims),
                 str(r["unparseable"]), str(sum(r["questions"].values()))] for r in rows]
    else:
        columns, body = board_cells(rows)
    if extra:
        columns += [Column(h, 7, number=True) for h in extra[0]]
        body = [line + more for line, more in zip(body, extra[1])]
    print_board(columns, body, fmt, out, title=TITLE, caption=CAPTION, empty="no finished roleinteract sessions yet")


def roleinteract_leaderboard_command(args, home) -> int:
    from pingpong.sessions.aggregation.roleinteract import roleinteract_leaderboard
    from pingpong.sessions.store import Store

    with Store(home.db_path, reading=True) as store:
        rows = roleinteract_leaderboard(store.conn, lang=args.lang, run=getattr(args, "run_name", None),
                                        scores=args.scores, include_forks=getattr(args, "include_forks", False))
        extra = None
        if getattr(args, "costs", False):
            from pingpong.tui.commands.stats import add_costs

            extra = add_costs(args, home, store, rows, method="roleinteract")
    render_roleinteract(rows, args.format, extra=extra)
    return 0
