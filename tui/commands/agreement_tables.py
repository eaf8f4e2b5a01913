"""What `pingpong agreement` shows, as titled tables of text: the CLI prints them and the TUI's
Agreement screen puts the same cells in its tables, so both say the same numbers the same way."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from pingpong.tui.commands.table import Column

if TYPE_CHECKING:
    from collections.abc import Sequence

    from pingpong.sessions.agreement import AgreementReport, SpearmanRow


class Section(NamedTuple):
    """One table: its title, columns, rows of text and what it says when it has no rows."""

    title: str
    columns: list[Column]
    body: list[list[str]]
    empty: str = ""


def fmt(value: float | int | None, digits: int = 2) -> str:
    """A number as the tables print it ("-" for none)."""
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def units(level: str) -> str:
    """What one compared unit is at this level, in the plural."""
    return "turns" if level == "turn" else "conversations"


def _correlations(title: str, who: str, rows: Sequence[SpearmanRow], empty: str = "") -> Section:
    return Section(title, [Column(who, 10), Column("Metric", 9), Column("n", 8, number=True),
                           Column("Spearman", 9, number=True), Column("p-value", 7, number=True)],
                   [[r.who, r.metric, str(r.n), fmt(r.spearman, 3), fmt(r.p_value, 4)] for r in rows], empty)


def agreement_sections(report: AgreementReport) -> list[Section]:
    """The report's tables in the CLI's order; the judges-vs-people one always, the others when they have rows."""
    level = units(report.level)
    out = [_correlations(f"Judges vs people (Spearman, {report.level} level)", "Judge", report.spearman,
                         empty=f"no {level} carry both a person's score and a judge's yet")]
    if report.refusals:
        out.append(Section(
            f"Refusal flags: people vs judges ({level})",
            [Column("Judge", 10), *(Column(h, 5, number=True) for h in ("both", "person only", "judge only",
                                                                          "neither", "n"))],
            [[c.judge, str(c.both), str(c.human_only), str(c.judge_only), str(c.neither), str(c.n)]
             for c in report.refusals]))
    if report.raters:
        out.append(Section(
            "Agreement among people",
            [Column("Metric", 10), Column("Raters", 6, number=True), Column("Units", 6, number=True),
             Column("Krippendorff alpha", 8, number=True, short="alpha"),
             Column("Mean pairwise Spearman", 7, number=True, short="rho")],
            [[r.metric, str(r.raters), str(r.units), fmt(r.alpha, 3), fmt(r.mean_spearman, 3)]
             for r in report.raters]))
    if report.annotators:
        out.append(_correlations("Each person against the mean of the others (Spearman)", "Person",
                                 report.annotators))
    if report.rankings:
        out.append(Section(
            "Do rankings depend on the judge or the interrogator? (one seat fixed, Kendall's tau)",
            [Column("Varied", 10), Column("Fixed", 6), Column("Rankings", 3), Column("Pairs", 6, number=True),
             Column("Mean tau", 8, number=True, short="mean"), Column("Min tau", 7, number=True, short="min")],
            [[r.varied, r.fixed, ", ".join(r.names), str(len(r.pairs)), fmt(r.mean_tau, 3), fmt(r.min_tau, 3)]
             for r in report.rankings]))
    return out


def has_people(report: AgreementReport) -> bool:
    """Whether any table compares people's scores with anything (else only the judges' rankings are there)."""
    return bool(report.spearman or report.refusals or report.raters or report.annotators)
