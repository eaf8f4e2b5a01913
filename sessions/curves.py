"""Scores along the conversation, for the Likert methods: the mean score by turn index, and
the "good streak" curve (the share of conversations whose first tau turns all score >= 4).
Both follow the leaderboard's `scores`: the judges', people's, or merged (a person's in place).

The streak curve borrows DMT-Score's prefix idea but is computed from PingPong's 1-5 scores;
it is not DMT-Score, which the `dmt` method computes from its own per-round good/bad labels.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import numpy as np

from pingpong.core.domain import METRICS
from pingpong.core.errors import UserError
from pingpong.sessions import queries
from pingpong.sessions.leaderboard import connection
from pingpong.sessions.scoring import DEFAULT_WEIGHTS, SCORE_SOURCES, current_human, normalise_weights, people_in_place

TurnValues = dict[str, dict[int, dict[int, dict[str, float]]]]
"""{player: {session: {turn: {metric: value}}}}: what both curves are drawn from."""


def turn_values(store: Any, method: str, lang: str | None, run: str | None, scores: str = "merged") -> TurnValues:
    """{player: {session: {turn: {metric: value}}}}, as the leaderboard counts `scores`: "judges", the
    mean over judges; "human", people's current scores; "merged", a person's score in place of the
    judges' where there is one. A person's rating of the whole conversation stands for each turn of its
    metric, and a session a person marked as a refusal is left out (as the board leaves it out)."""
    if scores not in SCORE_SOURCES:
        raise UserError(f"--scores: '{scores}' is not one of {', '.join(SCORE_SOURCES)}")
    conn = connection(store)
    flt = queries.SessionFilter(method=method, lang=lang, run=run)
    out: dict[str, dict[int, dict[int, dict[str, float]]]] = defaultdict(lambda: defaultdict(dict))
    if scores != "human":
        for player, sid, turn, metric, mean in queries.turn_means(conn, flt):
            out[player][sid].setdefault(int(turn), {})[metric] = float(mean)
    human = current_human(queries.human_rows_matching(conn, flt)) if scores != "judges" else {}
    if not human:
        return out
    players = {facts.id: facts.player for facts in queries.sessions_matching(conn, flt)}
    for sid, people in human.items():
        if sid not in players:
            continue
        placed = people_in_place(out[players[sid]].get(sid, {}), people)
        if placed is None:
            out[players[sid]].pop(sid, None)
        else:
            out[players[sid]][sid] = placed
    return out


def score_by_turn(
    store: Any,
    *,
    metric: str = "final",
    method: str = "pingpong",
    lang: str | None = None,
    run: str | None = None,
    weights: Sequence[float] = DEFAULT_WEIGHTS,
    scores: str = "merged",
    values: TurnValues | None = None,
) -> dict[str, list[tuple[int, float]]]:
    """{player: [(turn, mean score), ...]} over finished sessions, scored by `scores` (judges, human
    or merged, as the leaderboard's); `values`: turn_values read already (the streaks read the same).

    metric: one of METRICS or "final" (weighted sum of the three for that turn). As on the
    leaderboard, a judge's scoring that flagged a refusal is left out.
    """
    if metric != "final" and metric not in METRICS:
        raise ValueError(f"unknown metric {metric!r}")
    w = normalise_weights(weights)
    out: dict[str, list[tuple[int, float]]] = {}
    read = turn_values(store, method, lang, run, scores) if values is None else values
    for player, sessions in sorted(read.items()):
        if not any(sessions.values()):
            continue  # no scored turn (a people's board without this player's sessions)
        by_turn: dict[int, list[float]] = defaultdict(list)
        for turns in sessions.values():
            for turn, scored in turns.items():
                if metric != "final" and metric in scored:
                    by_turn[turn].append(scored[metric])
                elif metric == "final" and all(m in scored for m in METRICS):
                    by_turn[turn].append(float(sum(wi * scored[m] for wi, m in zip(w, METRICS))))
        out[player] = [(t, float(np.mean(v))) for t, v in sorted(by_turn.items())]
    return out


def lines_by_lang(
    store: Any,
    *,
    method: str,
    langs: Sequence[str | None],
    run: str | None = None,
    weights: Sequence[float] = DEFAULT_WEIGHTS,
    scores: str = "merged",
) -> dict[str, list[tuple[int, float]]]:
    """score_by_turn's final per (player, lang), as each language is a board of its own: a line is
    named by its player alone when there is one language, else "player (lang)"."""
    return {player if len(langs) == 1 else f"{player} ({lang})": points
            for lang in langs
            for player, points in score_by_turn(store, method=method, lang=lang, run=run, weights=weights,
                                                scores=scores).items()}


def streak_curve(good: Sequence[Sequence[bool]]) -> tuple[list[float], float | None]:
    """Score_tau = share of the conversations that reached tau turns whose first tau turns are all
    good; the score is the mean of the curve. Conversations may differ in length."""
    convs = [list(map(bool, g)) for g in good if len(g)]
    if not convs:
        return [], None
    longest = max(len(g) for g in convs)
    curve = []
    for tau in range(1, longest + 1):
        prefix = [g[:tau] for g in convs if len(g) >= tau]
        curve.append(float(np.mean([float(all(p)) for p in prefix])))
    return curve, float(np.mean(curve))


def good_streaks(store: Any, *, threshold: float = 4, method: str = "pingpong", lang: str | None = None,
                 run: str | None = None, scores: str = "merged", values: TurnValues | None = None
                 ) -> dict[str, dict[str, dict[str, Any]]]:
    """{player: {metric: {"by_turn": [Score_tau...], "score": mean}}}, a turn being good when its
    score (the judges' mean, a person's, or merged: `scores`) is >= threshold."""
    out: dict[str, dict[str, dict[str, Any]]] = {}
    read = turn_values(store, method, lang, run, scores) if values is None else values
    for player, sessions in sorted(read.items()):
        out[player] = {}
        for metric in METRICS:
            flags = [[turns[t][metric] >= threshold for t in sorted(turns) if metric in turns[t]]
                     for turns in sessions.values()]
            curve, score = streak_curve(flags)
            if curve:
                out[player][metric] = {"by_turn": curve, "score": score}
    return out
