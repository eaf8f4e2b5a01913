"""`pingpong leaderboard` and `pingpong agreement`: the numbers, as a table, Markdown, CSV or JSON."""

from __future__ import annotations

import json
import sys

from pingpong.core.errors import UserError
from pingpong.tui.commands.output import option_cell

COLUMNS = ("rank", "player", "lang", "length_norm", "length_norm_ci", "final", "final_ci", "in_character",
           "entertaining", "fluency", "refusal_ratio", "avg_length", "conversations")


def _fmt(value, digits: int = 2) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


BY_METHODS: dict[str, tuple[str, ...]] = {"prompting": ("pingpong", "pingpong-v1", "rolebench", "dmt"),
                                           "role_type": ("pingpong", "pingpong-v1", "dmt"),
                                           "intent": ("pingpong", "pingpong-v1", "dmt"),
                                           "prompt_format": ("pingpong", "pingpong-v1", "dmt")}
"""Which leaderboards `--by OPTION` splits so far (the other options arrive with their methods)."""


def check_by(by: str | None, method: str) -> None:
    """UserError when this leaderboard cannot split its rows by ``by`` (yet)."""
    if by is None or method in BY_METHODS.get(by, ()):
        return
    methods = BY_METHODS.get(by)
    works = f"it works with --method {', '.join(methods)}" if methods else "no leaderboard splits by it yet"
    raise UserError(f"--by {by}: not supported for --method {method} yet ({works})")


def check_likert_options(args, method: str) -> None:
    """UserError for an option only the PingPong boards have: the other boards would ignore it."""
    if method in ("pingpong", "pingpong-v1"):
        return
    for flag, given in (("--weights", getattr(args, "weights", None)), ("--curves", getattr(args, "curves", False))):
        if given:
            raise UserError(f"{flag}: only the PingPong boards (--method pingpong, pingpong-v1) have it, "
                            f"not --method {method}")


def _cells(row: dict, by: str | None = None) -> list[str]:
    def pm(key: str) -> str:
        v, ci = row.get(key), row.get(f"{key}_ci")
        return "-" if v is None else (f"{v:.2f} ± {ci:.2f}" if ci is not None else f"{v:.2f}")
    return [
        _fmt(row["rank"]), row["player"], *option_cell(row, by), row["lang"] or "-", pm("length_norm"), pm("final"),
        _fmt(row["in_character"]), _fmt(row["entertaining"]), _fmt(row["fluency"]),
        _fmt(row["refusal_ratio"]), _fmt(row["avg_length"], 0), str(row["conversations"]),
    ]


def _csv_value(value) -> object:
    """None as an empty cell, a list or a mapping (the models without a price, `--curves`' by_turn
    and good_streak) as JSON, which any CSV reader's user can parse back."""
    if value is None:
        return ""
    return json.dumps(value, ensure_ascii=False) if isinstance(value, (list, dict)) else value


Extra = tuple[list[str], list[list[str]]]
"""Columns a view adds to a leaderboard table: (headers, cells per row)."""

HEADERS = ("Rank", "Player", "Lang", "Length-norm", "Final", "In character", "Entertaining", "Fluency",
           "Refusals", "Avg length", "Convs")


def render_leaderboard(rows: list[dict], fmt: str, out=None, by: str | None = None,
                       extra: Extra | None = None) -> None:
    """Print leaderboard rows (their JSON dicts) in one of the four formats; ``by``: the column of
    `--by OPTION` after the player; `extra` adds columns to the table and Markdown (JSON and CSV
    carry every field of the rows)."""
    out = out or sys.stdout
    label = by.replace("_", " ").capitalize() if by else None
    headers = [*((*HEADERS[:2], label, *HEADERS[2:]) if label else HEADERS), *(extra[0] if extra else [])]
    left = ("Player", "Lang", label)
    body = [_cells(r, by) + (extra[1][i] if extra else []) for i, r in enumerate(rows)]
    if fmt == "json":
        out.write(json.dumps(rows, ensure_ascii=False, indent=2) + "\n")
    elif fmt == "csv":
        import csv

        w = csv.writer(out, lineterminator="\n")
        keys = list(rows[0]) if rows else list(COLUMNS)
        w.writerow(keys)
        for r in rows:
            w.writerow([_csv_value(r.get(k)) for k in keys])
    elif fmt == "markdown":
        out.write("| " + " | ".join(headers) + " |\n")
        out.write("|" + "|".join(":---" if h in left else "---:" for h in headers) + "|\n")
        for cells in body:
            out.write("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |\n")
    else:
        from pingpong.tui.commands.table import Column, print_table

        def ci(key: str) -> Column:
            return Column("±", 2, number=True, name=f"{key}_ci")

        columns = [Column("Rank", 9, number=True), Column("Player", 10), *([Column(label, 6)] if label else []),
                   Column("Lang", 8, least=2),
                   Column("Length-norm", 7, number=True, short="LN"), ci("length_norm"),
                   Column("Final", 9, number=True), ci("final"),
                   Column("In character", 6, number=True, short="Char"),
                   Column("Entertaining", 6, number=True, short="Ent"), Column("Fluency", 6, number=True, short="Flu"),
                   Column("Refusals", 5, number=True, short="Ref"), Column("Avg length", 3, number=True, short="Len"),
                   Column("Convs", 4, number=True, short="N"),
                   *(Column(h, 7, number=True) for h in (extra[0] if extra else []))]
        table_body = [[_fmt(r["rank"]), r["player"], *option_cell(r, by), r["lang"] or "-", _fmt(r["length_norm"]),
                       _fmt(r["length_norm_ci"]), _fmt(r["final"]), _fmt(r["final_ci"]), _fmt(r["in_character"]),
                       _fmt(r["entertaining"]), _fmt(r["fluency"]), _fmt(r["refusal_ratio"]),
                       _fmt(r["avg_length"], 0), str(r["conversations"])] + (extra[1][i] if extra else [])
                      for i, r in enumerate(rows)]
        print_table(columns, table_body, fmt, out, title="Leaderboard", empty="no finished, scored sessions yet")
        if rows and fmt == "table" and out.isatty():
            out.write("± = half width of the 95% bootstrap interval\n")


def leaderboard(args, home) -> int:
    from pingpong.sessions.leaderboard import compute_leaderboard
    from pingpong.sessions.scoring import DEFAULT_WEIGHTS, parse_weights
    from pingpong.sessions.store import Store

    method = getattr(args, "method", "pingpong")
    by = getattr(args, "by", None)
    check_by(by, method)
    check_likert_options(args, method)
    check_filters(home, args.lang, getattr(args, "run_name", None), method)
    if method == "dmt":
        from pingpong.tui.commands.dmt_board import dmt_leaderboard_command

        return dmt_leaderboard_command(args, home)
    if method == "roleinteract":  # scored by rule: a share per dimension
        from pingpong.tui.commands.roleinteract_board import roleinteract_leaderboard_command

        return roleinteract_leaderboard_command(args, home)
    weights = parse_weights(args.weights) if args.weights else DEFAULT_WEIGHTS
    run = getattr(args, "run_name", None)
    if method == "rolebench":  # scored by rule: Rouge-L means, not Likert finals
        return _rolebench_leaderboard(args, home, run, by)
    with Store(home.db_path, reading=True) as store:
        rows = [r.to_json() for r in compute_leaderboard(
            store, method=method, lang=args.lang, weights=weights, scores=args.scores, run=run,
            include_forks=getattr(args, "include_forks", False), by=by)]
        if getattr(args, "curves", False):
            _add_curves(store, rows, method=method, lang=args.lang, run=run, weights=weights, scores=args.scores)
        extra = add_costs(args, home, store, rows, method=method) if getattr(args, "costs", False) else None
    render_leaderboard(rows, args.format, by=by, extra=extra)
    if getattr(args, "curves", False) and args.format in ("table", "markdown"):
        render_curves(rows, args.format)
    return 0


def add_costs(args, home, store, rows: list[dict], *, method: str) -> Extra:
    """`--costs`: each row gains the JSON cost fields; returns the table's cost columns."""
    from pingpong.core.config import load_models, prices
    from pingpong.core.domain import Price
    from pingpong.core.errors import UserError
    from pingpong.sessions.costs import board_spend

    models = load_models(home)
    price_of = prices(models)
    unpriced = sorted({row["player"] for row in rows} - set(price_of)
                      - {name for name, spec in models.items() if spec.kind == "offline"})
    if unpriced and not price_of:
        where = home.config_path if home.config_path.exists() else f"{home.config_path} (not written yet)"
        raise UserError(f"--costs: no model in {where} has a price ({', '.join(unpriced)} played); add "
                        "price = {input = ..., output = ...} (per million tokens) to its [models.NAME] table")
    free = Price(input=0.0, output=0.0)  # the offline models cost nothing
    price_of = {**{name: free for name, spec in models.items() if spec.kind == "offline"}, **price_of}
    spends = board_spend(store.conn, rows, price_of, method=method, lang=args.lang,
                         run=getattr(args, "run_name", None), include_forks=getattr(args, "include_forks", False))
    for row, spend in zip(rows, spends):
        row.update(spend.to_json())
    return ["Cost", "Player's"], [[s.total.text(), s.player.text()] for s in spends]


def _rolebench_leaderboard(args, home, run, by: str | None) -> int:
    from pingpong.sessions.aggregation.rolebench import rolebench_leaderboard
    from pingpong.sessions.store import Store
    from pingpong.tui.commands.rolebench_board import render_table

    with Store(home.db_path, reading=True) as store:
        rows = rolebench_leaderboard(store.conn, lang=args.lang, run=run, scores=args.scores,
                                     include_forks=getattr(args, "include_forks", False), by=by)
        extra = add_costs(args, home, store, rows, method="rolebench") \
            if getattr(args, "costs", False) else None
    if args.format == "json":
        sys.stdout.write(json.dumps(rows, ensure_ascii=False, indent=2) + "\n")
    else:
        render_table(rows, args.format, sys.stdout, by=by, extra=extra)
    return 0


def _add_curves(store, rows: list[dict], *, method, lang, run, weights, scores: str = "merged") -> None:
    """Each row gains `by_turn` (mean final score per turn index, of the board's `scores`) and
    `good_streak` (per metric: share of conversations whose first turns all score >= 4,
    averaged over prefix lengths: an approximation from Likert scores, not a DMT-Score, which
    only `--method dmt` gives, from its per-round good/bad labels)."""
    from pingpong.sessions.curves import good_streaks, score_by_turn, turn_values

    for row_lang in dict.fromkeys(r["lang"] for r in rows):  # a row is a (player, lang): its own curves
        values = turn_values(store, method, row_lang or lang, run, scores)
        by_turn = score_by_turn(store, method=method, weights=weights, scores=scores, values=values)
        streaks = good_streaks(store, method=method, scores=scores, values=values)
        for row in (r for r in rows if r["lang"] == row_lang):
            row["by_turn"] = [round(mean, 4) for _, mean in by_turn.get(row["player"], [])]
            row["good_streak"] = {m: v["score"] for m, v in streaks.get(row["player"], {}).items()}


def render_curves(rows: list[dict], fmt: str, out=None) -> None:
    """Score by turn and the good-streak approximation per player, after the leaderboard."""
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
    from pingpong.tui.commands.table import Column, print_table

    columns = [Column("Player", 10), *(Column(h, 5, number=True) for h in headers[1:turns + 1]),
               *(Column(h, 4, number=True, short=h.split()[1][:4]) for h in headers[turns + 1:])]
    out.write("\n")
    print_table(columns, body, fmt, out, title="Final score by turn, and good streaks")
    if fmt == "table" and out.isatty():
        out.write("T1.. = mean final score at that turn; streak = share of conversations whose "
                  "turns stay good (>= 4), averaged over prefix lengths\n")


def check_filters(home, lang: str | None, run: str | None = None, method: str | None = None) -> None:
    """A `--lang` that no stored session (of the method) is in, or a `--run` that no stored run is
    named: a typo far more often than a question, so one line (naming the languages there are)
    instead of an empty board."""
    if lang is None and run is None:
        return
    from pingpong.sessions.queries import languages
    from pingpong.sessions.store import Store

    with Store(home.db_path, reading=True) as store:
        if run is not None and not store.sessions(run=run, limit=1):
            raise UserError(f"--run: no run named '{run}'")
        stored = languages(store.conn, method) if lang is not None else []
    if stored and lang not in stored:
        sessions = f"{method} session" if method else "session"
        raise UserError(f"--lang {lang}: no stored {sessions} is in this language; they are in {', '.join(stored)}")


def agreement(args, home) -> int:
    from pingpong.sessions.agreement import agreement_report
    from pingpong.sessions.store import Store

    check_filters(home, getattr(args, "lang", None))
    with Store(home.db_path, reading=True) as store:
        report = agreement_report(store, level=args.level, lang=getattr(args, "lang", None))
    if args.format == "json":
        print(json.dumps(report.to_json(), ensure_ascii=False, indent=2))
        return 0
    render_agreement(report)
    return 0


def render_agreement(report, out=None) -> None:
    from pingpong.tui.commands.agreement_tables import agreement_sections
    from pingpong.tui.commands.table import print_table

    out = out or sys.stdout
    for section in agreement_sections(report):
        out.write(section.title + "\n")
        print_table(section.columns, section.body, out=out, empty=section.empty)
