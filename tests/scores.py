"""Building judges' scores in tests: one PingPong turn as Score rows."""

from __future__ import annotations

from pingpong.core.domain import JudgeVerdict, Scale, Score
from pingpong.core.judging import TurnScores, failed_scores
from pingpong.core.methods.pingpong import JUDGED


def likert(turn: int, in_character: int, entertaining: int, fluency: int, is_refusal: bool = False,
           scale: Scale = "1-5", explanations: dict[str, str] | None = None) -> list[Score]:
    """A PingPong judge's scores of one turn."""
    return TurnScores(turn, is_refusal, {"in_character": in_character, "entertaining": entertaining,
                                         "fluency": fluency}, explanations or {}).scores(scale)


def failed(turn: int, error: str = "no scores", scale: Scale = "1-5") -> list[Score]:
    return failed_scores([turn], JUDGED, scale, error)


def verdict(judge: str, *turns: list[Score], attempts: int = 1) -> JudgeVerdict:
    """A verdict from several turns' scores, e.g. verdict("J", likert(1, 4, 3, 5), failed(2))."""
    return JudgeVerdict(judge=judge, scores=[s for t in turns for s in t], attempts=attempts)


def turn_scores(turn: int, *, in_character: int | None = None, entertaining: int | None = None,
                fluency: int | None = None, is_refusal: bool | None = None, overall: float | None = None,
                explanations: dict[str, str] | None = None, status: str = "ok", error: str | None = None,
                scale: Scale = "1-5") -> list[Score]:
    """One judge's scores of one turn, given by metric (only the metrics named are stored)."""
    if status == "failed":
        return failed_scores([turn], JUDGED, scale, error or "no scores")
    explanations = explanations or {}
    out = []
    if is_refusal is not None:
        out.append(Score(turn=turn, metric="is_refusal", value=float(is_refusal), scale="0-1",
                         explanation=explanations.get("is_refusal")))
    for metric, value in (("in_character", in_character), ("entertaining", entertaining), ("fluency", fluency)):
        if value is not None:
            out.append(Score(turn=turn, metric=metric, value=float(value), scale=scale,
                             explanation=explanations.get(metric)))
    if overall is not None:
        out.append(Score(turn=turn, metric="overall", value=float(overall), scale="1-10"))
    return out


def judged(judge: str, turns: list[list[Score]], attempts: int = 1) -> JudgeVerdict:
    """A verdict from per-turn score lists (what tests used to build from TurnScore lists)."""
    return verdict(judge, *turns, attempts=attempts)
