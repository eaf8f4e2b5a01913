"""Turn-level score summaries for display: each judge's scores, their mean, and people's overrides.

Pure functions over domain objects so the live, replay and follow views show scores identically.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from rich.text import Text

from pingpong.core.vocabulary import METRICS

if TYPE_CHECKING:  # annotations only: the Home screen imports this module before any score exists
    from pingpong.core.domain import JudgeVerdict, Score, TurnView

SHORT = {"in_character": "IC", "entertaining": "EN", "fluency": "FL"}
HUMAN_METRICS = (*METRICS, "is_refusal")


def judge_scores(verdicts: Sequence[JudgeVerdict], turn: int) -> list[tuple[str, TurnView]]:
    """Every judge's TurnView for one player turn, in the order the verdicts arrived."""
    out: list[tuple[str, TurnView]] = []
    for verdict in verdicts:
        for score in verdict.turns:
            if score.turn == turn:
                out.append((verdict.judge, score))
    return out


def mean_scores(pairs: Iterable[tuple[str, TurnView]]) -> dict[str, float]:
    """Plain mean over the judges that produced a score (failed judges are left out)."""
    sums: dict[str, list[float]] = {}
    for _, score in pairs:
        if score.status != "ok":
            continue
        for metric in (*METRICS, "overall"):
            value = getattr(score, metric)
            if value is not None:
                sums.setdefault(metric, []).append(float(value))
    return {metric: sum(values) / len(values) for metric, values in sums.items()}


def conversation_means(verdicts: Sequence[JudgeVerdict]) -> dict[str, float]:
    """Per metric, the mean over judges of each judge's mean over the turns it scored."""
    per_judge: dict[str, list[float]] = {}
    for verdict in verdicts:
        values: dict[str, list[float]] = {}
        for view in verdict.turns:
            if view.turn is None or view.status != "ok":
                continue
            for metric in METRICS:
                value = view.value(metric)
                if value is not None:
                    values.setdefault(metric, []).append(float(value))
        for metric, got in values.items():
            per_judge.setdefault(metric, []).append(sum(got) / len(got))
    return {metric: sum(v) / len(v) for metric, v in per_judge.items()}


def _field(obj: Any, name: str) -> Any:
    return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)


def human_latest(human_scores: Iterable[Any], turn: int | None) -> dict[str, Any]:
    """The current person's score per metric for a turn, or (None) for the whole conversation
    (append-only: the last row wins)."""
    latest: dict[str, Any] = {}
    for row in human_scores:
        if _field(row, "turn") == turn:
            latest[_field(row, "metric")] = row
    return latest


def _label(row: Any) -> str:
    """A person's good/bad label as a word."""
    return "good" if float(_field(row, "value")) == 1 else "bad"


def human_history(human_scores: Iterable[Any], turn: int | None) -> list[Any]:
    return [row for row in human_scores if _field(row, "turn") == turn]


def _rule_score(score: Score) -> bool:
    """A share or rule score on 0-1 (not the refusal flag, which is shown on its own)."""
    return score.scale == "0-1" and score.metric != "is_refusal"


def fmt_score(value: float, scale: str | None = None) -> str:
    """A score as every view shows it: a whole number as is, else to one decimal (a Likert mean) or, on
    the 0-1 scale (a rule's share, Rouge-L), to three as `sessions show` prints it (0.657, 0.9)."""
    if value == int(value):
        return f"{int(value)}"
    return f"{round(value, 3):g}" if scale == "0-1" else f"{value:.1f}"


def _person_part(metric: str, row: Any) -> str:
    """A person's current score under a reply: a DMT label as good/bad, the refusal flag in words, a
    PingPong metric by its short name, any other (a corrected rule score) by its own name."""
    value, scale = float(_field(row, "value")), _field(row, "scale")
    if metric == "is_refusal":
        return "refusal" if value else "no refusal"
    if scale == "good-bad":
        return f"{metric} {_label(row)}"
    return f"{SHORT.get(metric, metric)} {fmt_score(value, scale)}"


def score_line(verdicts: Sequence[JudgeVerdict], human_scores: Iterable[Any], turn: int) -> Text:
    """One or two lines under a player turn: judges' mean (and count), then the person's scores."""
    text = Text()
    pairs = judge_scores(verdicts, turn)
    labels = [sc for _, view in pairs for sc in view.scores.values() if sc.scale == "good-bad" and sc.status == "ok"]
    shares = [sc for _, view in pairs for sc in view.scores.values() if _rule_score(sc)]
    if shares:  # scored by rule on 0-1 (RoleInteract, RoleBench): each value, no judges' mean
        text.append("scored ", style="bold")
        text.append("  ".join(f"{sc.metric} {fmt_score(sc.value, sc.scale)}" if sc.value is not None
                              else f"{sc.metric} failed" for sc in shares))
    elif labels:  # a DMT round: good/bad labels, not Likert means
        bad = sorted({sc.metric for sc in labels if sc.value == 0})
        text.append("judges ", style="bold")
        text.append(f"{len(labels) - sum(1 for sc in labels if sc.value == 0)} good, "
                    f"{sum(1 for sc in labels if sc.value == 0)} bad")
        if bad:
            text.append(f" ({', '.join(bad)})", style="red")
        text.append(f"  ({len(pairs)} judge{'s' if len(pairs) != 1 else ''})", style="dim")
    elif pairs:
        means = mean_scores(pairs)
        ok = [s for _, s in pairs if s.status == "ok"]
        failed = len(pairs) - len(ok)
        text.append("judges ", style="bold")
        tens = any(sc.scale == "1-10" for _, view in pairs for sc in view.scores.values())
        out_of = "/10" if tens else ""  # pingpong-v1's tester scores on ten points
        parts = [f"{SHORT[m]} {fmt_score(means[m])}{out_of}" for m in METRICS if m in means]
        if "overall" in means:
            parts.append(f"overall {fmt_score(means['overall'])}/10")
        text.append("  ".join(parts) or "no scores")
        refusals = sum(1 for s in ok if s.is_refusal)
        if refusals:
            text.append(f"  refusal {refusals}/{len(ok)}", style="bold red")
        text.append(f"  ({len(ok)} judge{'s' if len(ok) != 1 else ''}", style="dim")
        if failed:
            text.append(f", {failed} failed", style="red")
        text.append(")", style="dim")
    human = human_latest(human_scores, turn)
    if human:
        if text:
            text.append("\n")
        text.append("person ", style="bold magenta")
        # PingPong's metrics in their order, the others (DMT labels, rule corrections) as rated, refusal last
        likert = [m for m in METRICS if m in human and _field(human[m], "scale") != "good-bad"]
        rest = [m for m in human if m not in likert and m != "is_refusal"]
        order = likert + rest + (["is_refusal"] if "is_refusal" in human else [])
        authors = [_field(human[m], "author") for m in order]
        if len(set(authors)) <= 1:  # one person: named once, after the values
            text.append("  ".join(_person_part(metric, human[metric]) for metric in order))
            if authors and authors[0]:
                text.append(f"  by {authors[0]}", style="dim")
            return text
        for i, (metric, author) in enumerate(zip(order, authors)):  # several: each value with its own
            text.append(("  " if i else "") + _person_part(metric, human[metric]))
            if author:
                text.append(f" by {author}", style="dim")
    return text


def explanations(verdicts: Sequence[JudgeVerdict], human_scores: Iterable[Any], turn: int,
                 method: str | None = None) -> Text:
    """The side panel for a turn: each judge's scores with explanations, then people's overrides.
    `method`: the session's, when known (a rule-scored method's unscored turns are never scored)."""
    from pingpong.sessions.seats import scored_by_rule

    text = Text()
    pairs = judge_scores(verdicts, turn)
    text.append(f"Turn {turn}\n", style="bold underline")
    if not pairs and method is not None and scored_by_rule(method):
        text.append(f"Not scored: {method}'s rules score only the answers to its questions, not this turn.\n",
                    style="dim")
    elif not pairs:
        text.append("No judge has scored this turn yet.\n", style="dim")
    for judge, score in pairs:
        text.append(f"\n{judge}\n", style="bold cyan")
        if score.status != "ok":
            text.append(f"failed: {score.error or 'no scores'}\n", style="red")
            continue
        if score.is_refusal is not None:
            text.append("refusal: ", style="bold")
            text.append("yes" if score.is_refusal else "no")
            note = score.explanations.get("is_refusal")
            text.append(f" - {note}\n" if note else "\n")
        labelled = [m for m, sc in score.scores.items() if sc.scale == "good-bad"]
        shared = [m for m, sc in score.scores.items() if _rule_score(sc)]
        for metric in labelled or shared or list(METRICS):  # DMT labels, rule scores, or the Likert metrics
            value = score.value(metric)
            if value is None:
                continue
            shown = ("good" if value == 1 else "bad") if metric in labelled else fmt_score(value, score.scores[metric].scale)
            text.append(f"{metric}: {shown}", style="bold")
            note = score.explanations.get(metric)
            text.append(f" - {note}\n" if note else "\n")
        if score.overall is not None:
            text.append(f"overall: {fmt_score(score.overall)}/10", style="bold")
            note = score.explanations.get("overall") or score.explanations.get("score")
            text.append(f" - {note}\n" if note else "\n")
    for title, rows in (("People", human_history(human_scores, turn)),
                        ("People, whole conversation", human_history(human_scores, None))):
        if rows:
            text.append(f"\n{title}\n", style="bold magenta")
            _people(text, rows)
    return text


def _people(text: Text, history: Iterable[Any]) -> None:
    for row in history:
        metric = _field(row, "metric")
        value = float(_field(row, "value"))
        shown = (("yes" if value else "no") if metric == "is_refusal" else
                 _label(row) if _field(row, "scale") == "good-bad" else fmt_score(value, _field(row, "scale")))
        text.append(f"{metric}: {shown}", style="bold")
        text.append(f" by {_field(row, 'author')}", style="dim")
        reason = _field(row, "reason")
        text.append(f" - {reason}\n" if reason else "\n")
