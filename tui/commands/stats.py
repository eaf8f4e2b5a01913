"""`pingpong leaderboard` and `pingpong agreement`: the numbers, as a table, Markdown, CSV or JSON."""

from __future__ import annotations

import json
import sys

COLUMNS = ("rank", "player", "lang", "length_norm", "length_norm_ci", "final", "final_ci", "in_character",
           "entertaining", "fluency", "refusal_ratio", "avg_length", "conversations")


def _fmt(value, digits: int = 2) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def _cells(row: dict) -> list[str]:
    def pm(key: str) -> str:
        v, ci = row.get(key), row.get(f"{key}_ci")
        return "-" if v is None else (f"{v:.2f} ± {ci:.2f}" if ci is not None else f"{v:.2f}")
    return [
        _fmt(row["rank"]), row["player"], row["lang"] or "-", pm("length_norm"), pm("final"),
        _fmt(row["in_character"]), _fmt(row["entertaining"]), _fmt(row["fluency"]),
        _fmt(row["refusal_ratio"]), _fmt(row["avg_length"], 0), str(row["conversations"]),
    ]


HEADERS = ("Rank", "Player", "Lang", "Length-norm", "Final", "In character", "Entertaining", "Fluency",
           "Refusals", "Avg length", "Convs")


def render_leaderboard(rows: list[dict], fmt: str, out=None) -> None:
    """Print leaderboard rows (their JSON dicts) in one of the four formats."""
    out = out or sys.stdout
    if fmt == "json":
        out.write(json.dumps(rows, ensure_ascii=False, indent=2) + "\n")
    elif fmt == "csv":
        import csv

        w = csv.writer(out, lineterminator="\n")
        keys = list(rows[0]) if rows else list(COLUMNS)
        w.writerow(keys)
        for r in rows:
            w.writerow(["" if r.get(k) is None else r.get(k) for k in keys])
    elif fmt == "markdown":
        out.write("| " + " | ".join(HEADERS) + " |\n")
        out.write("|" + "|".join(":---" if h in ("Player", "Lang") else "---:" for h in HEADERS) + "|\n")
        for r in rows:
            out.write("| " + " | ".join(c.replace("|", "\\|") for c in _cells(r)) + " |\n")
    else:
        from rich.console import Console
        from rich.table import Table

        table = Table(title="Leaderboard", caption="± = half width of the 95% bootstrap interval")
        for h in HEADERS:
            table.add_column(h, justify="left" if h in ("Player", "Lang") else "right",
                             no_wrap=h in ("Player", "Final", "Length-norm"))
        for r in rows:
            table.add_row(*_cells(r))
        Console(file=out, width=None if out.isatty() else 160).print(table)
        if not rows:
            print("no finished, scored sessions yet", file=out)


def leaderboard(args, home) -> int:
    from pingpong.sessions.leaderboard import compute_leaderboard
    from pingpong.sessions.scoring import DEFAULT_WEIGHTS, parse_weights
    from pingpong.sessions.store import Store

    method = getattr(args, "method", "pingpong")
    if method == "dmt":
        from pingpong.tui.commands.dmt_board import dmt_leaderboard_command

        return dmt_leaderboard_command(args, home)
    weights = parse_weights(args.weights) if args.weights else DEFAULT_WEIGHTS
    run = getattr(args, "run_name", None)
    if method == "rolebench":  # scored by rule: Rouge-L means, not Likert finals
        return _rolebench_leaderboard(args, home, run)
    with Store(home.db_path, reading=True) as store:
        rows = [r.to_json() for r in compute_leaderboard(
            store, method=method, lang=args.lang, weights=weights, scores=args.scores, run=run,
            include_forks=getattr(args, "include_forks", False))]
        if getattr(args, "curves", False):
            _add_curves(store, rows, method=method, lang=args.lang, run=run, weights=weights)
    render_leaderboard(rows, args.format)
    if getattr(args, "curves", False) and args.format in ("table", "markdown"):
        render_curves(rows, args.format)
    return 0


def _rolebench_leaderboard(args, home, run) -> int:
    from pingpong.sessions.aggregation.rolebench import rolebench_leaderboard
    from pingpong.sessions.store import Store
    from pingpong.tui.commands.rolebench_board import render_table

    with Store(home.db_path, reading=True) as store:
        rows = rolebench_leaderboard(store.conn, lang=args.lang, run=run,
                                     include_forks=getattr(args, "include_forks", False))
    if args.format == "json":
        sys.stdout.write(json.dumps(rows, ensure_ascii=False, indent=2) + "\n")
    else:
        render_table(rows, args.format, sys.stdout)
    return 0


def _add_curves(store, rows: list[dict], *, method, lang, run, weights) -> None:
    """Each row gains `by_turn` (mean final score per turn index, judges' scores) and
    `good_streak` (per metric: share of conversations whose first turns all score >= 4,
    averaged over prefix lengths; not DMT-Score, which the dmt method computes from labels)."""
    from pingpong.sessions.curves import good_streaks, score_by_turn

    by_turn = score_by_turn(store, method=method, lang=lang, run=run, weights=weights)
    streaks = good_streaks(store, method=method, lang=lang, run=run)
    for row in rows:
        row["by_turn"] = [round(mean, 4) for _, mean in by_turn.get(row["player"], [])]
        row["good_streak"] = {m: v["score"] for m, v in streaks.get(row["player"], {}).items()}


def render_curves(rows: list[dict], fmt: str, out=None) -> None:
    """Score by turn and DMT-Score per player, after the leaderboard."""
    from pingpong.core.domain import METRICS

    out = out or sys.stdout
    turns = max((len(r["by_turn"]) for r in rows), default=0)
    headers = ["Player", *(f"T{t}" for t in range(1, turns + 1)), *(f"streak {m}" for m in METRICS)]
    body = [[r["player"], *(_fmt(v) for v in r["by_turn"]), *([""] * (turns - len(r["by_turn"]))),
             *(_fmt(r["good_streak"].get(m)) for m in METRICS)] for r in rows]
    if fmt == "markdown":
        out.write("\n| " + " | ".join(headers) + " |\n|" + "|".join(["---:"] * len(headers)) + "|\n")
        for cells in body:
            out.write("| " + " | ".join(cells) + " |\n")
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title="Final score by turn, and good streaks",
                  caption="T1.. = mean final score at that turn; streak = share of conversations whose "
                          "turns stay good (>= 4), averaged over prefix lengths")
    for h in headers:
        table.add_column(h, justify="left" if h == "Player" else "right")
    for cells in body:
        table.add_row(*cells)
    Console(file=out, width=None if out.isatty() else 160).print(table)


def agreement(args, home) -> int:
    from pingpong.sessions.agreement import agreement_report
    from pingpong.sessions.store import Store

    with Store(home.db_path, reading=True) as store:
        report = agreement_report(store, level=args.level, lang=getattr(args, "lang", None))
    if args.format == "json":
        print(json.dumps([r.to_json() for r in report.spearman], ensure_ascii=False, indent=2))
        return 0
    render_agreement(report)
    return 0


def render_agreement(report, out=None) -> None:
    from rich.console import Console
    from rich.table import Table

    out = out or sys.stdout
    console = Console(file=out, width=None if out.isatty() else 160)
    t = Table(title=f"Judges vs people (Spearman, {report.level} level)")
    for h in ("Judge", "Metric", "n", "Spearman", "p-value"):
        t.add_column(h, justify="left" if h in ("Judge", "Metric") else "right")
    for r in report.spearman:
        t.add_row(r.judge, r.metric, str(r.n), _fmt(r.spearman, 3), _fmt(r.p_value, 4))
    console.print(t)
    if not report.spearman:
        console.print("no turns carry both a person's score and a judge's yet")
    if report.refusals:
        t = Table(title="Refusal flags: people vs judges (turns)")
        for h in ("Judge", "both", "person only", "judge only", "neither", "n"):
            t.add_column(h, justify="left" if h == "Judge" else "right")
        for c in report.refusals:
            t.add_row(c.judge, str(c.both), str(c.human_only), str(c.judge_only), str(c.neither), str(c.n))
        console.print(t)
    if report.raters:
        t = Table(title="Agreement among people")
        for h in ("Metric", "Raters", "Units", "Krippendorff alpha", "Mean pairwise Spearman"):
            t.add_column(h, justify="left" if h == "Metric" else "right")
        for r in report.raters:
            t.add_row(r.metric, str(r.raters), str(r.units), _fmt(r.alpha, 3), _fmt(r.mean_spearman, 3))
        console.print(t)
    if report.rankings:
        t = Table(title="Do rankings depend on the judge or the interrogator? (Kendall's tau)")
        for h in ("Varied", "Rankings", "Pairs", "Mean tau", "Min tau"):
            t.add_column(h, justify="left" if h == "Varied" else "right")
        for r in report.rankings:
            t.add_row(r.varied, ", ".join(r.names), str(len(r.pairs)), _fmt(r.mean_tau, 3), _fmt(r.min_tau, 3))
        console.print(t)
