"""The RoleBench leaderboard: per (player, lang), mean Rouge-L of RAW, CUS and SPE with 95% bootstrap
half widths (METHOD.md "RoleLLM"). Rank by the mean of the metrics a player has."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from pingpong.core.methods.rolebench import METRICS, SCORER


def _round(value: float) -> float | None:
    return None if value is None or not math.isfinite(value) else round(float(value), 4)


def summarise(values: dict[str, list[float]], rng: np.random.Generator) -> dict[str, float | None]:
    """Each metric's mean and ``<metric>_ci`` (half width of the 2.5-97.5 percentile interval)."""
    from pingpong.sessions.leaderboard import bootstrap_means, half_width

    out: dict[str, float | None] = {}
    for metric in METRICS:
        x = np.asarray(values.get(metric, []), dtype=float)
        out[metric] = _round(float(x.mean())) if x.size else None
        out[f"{metric}_ci"] = _round(half_width(bootstrap_means(x, rng))) if x.size else None
    return out


def rolebench_leaderboard(conn, *, lang: str | None = None, run: str | None = None,
                          include_forks: bool = False, seed: int = 0) -> list[dict[str, Any]]:
    """Rows (JSON-ready dicts) for the finished rolebench sessions, best first."""
    from pingpong.sessions import queries
    from pingpong.sessions.leaderboard import player_rng

    facts = queries.sessions_matching(conn, queries.SessionFilter(
        method="rolebench", lang=lang, run=run, include_forks=include_forks))
    by_id = {f.id: f for f in facts}
    groups: dict[tuple[str, str | None], dict[str, list[float]]] = {}
    sessions: dict[tuple[str, str | None], set[int]] = {}
    for f in facts:
        sessions.setdefault((f.player, f.lang), set()).add(f.id)
    for sid, metric, value in queries.rule_scores(conn, list(by_id), SCORER, METRICS):
        f = by_id[sid]
        groups.setdefault((f.player, f.lang), {}).setdefault(metric, []).append(float(value))
    rows: list[dict[str, Any]] = []
    for (player, row_lang), ids in sessions.items():
        stats = summarise(groups.get((player, row_lang), {}), player_rng(seed, f"{player}|{row_lang}"))
        present = [v for m in METRICS if (v := stats[m]) is not None]
        rows.append({"player": player, "lang": row_lang, "method": "rolebench", "conversations": len(ids),
                     "rank": None, "score": _round(sum(present) / len(present)) if present else None,
                     **stats})
    rows.sort(key=lambda r: (r["score"] is None, -(r["score"] or 0.0), r["player"], r["lang"] or ""))
    previous, rank = None, 0
    for i, row in enumerate(rows):
        if row["score"] is None:
            continue
        if row["score"] != previous:
            rank, previous = i + 1, row["score"]
        row["rank"] = rank
    return rows


def render_table(rows: list[dict[str, Any]], fmt: str, out) -> None:
    """The rows as a table, Markdown or CSV (JSON is written by the caller)."""
    headers = ["rank", "player", "lang", *(m for metric in METRICS for m in (metric, f"{metric}_ci")),
               "score", "conversations"]
    if fmt == "csv":
        import csv

        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(headers)
        for r in rows:
            writer.writerow(["" if r.get(h) is None else r.get(h) for h in headers])
        return

    def cell(row: dict[str, Any], metric: str) -> str:
        v, ci = row.get(metric), row.get(f"{metric}_ci")
        return "-" if v is None else (f"{v:.3f} ± {ci:.3f}" if ci is not None else f"{v:.3f}")

    titles = ["Rank", "Player", "Lang", "RAW", "CUS", "SPE", "Mean", "Questions"]
    body = [[str(r["rank"] or "-"), r["player"], r["lang"] or "-", *(cell(r, m) for m in METRICS),
             "-" if r["score"] is None else f"{r['score']:.3f}", str(r["conversations"])] for r in rows]
    if fmt == "markdown":
        out.write("| " + " | ".join(titles) + " |\n|" + "|".join("---" for _ in titles) + "|\n")
        for line in body:
            out.write("| " + " | ".join(c.replace("|", "\\|") for c in line) + " |\n")
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title="RoleBench (Rouge-L F1)", caption="± = half width of the 95% bootstrap interval")
    for t in titles:
        table.add_column(t, justify="left" if t in ("Player", "Lang") else "right")
    for line in body:
        table.add_row(*line)
    Console(file=out, width=None if out.isatty() else 160).print(table)
    if not rows:
        print("no finished rolebench sessions yet", file=out)
