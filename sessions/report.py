"""What `pingpong report` publishes, as plain data: a leaderboard for every method with stored
sessions, each player's grid of characters x situations, and every conversation with its scores.

The figures come from the functions the other views use (the leaderboards, sessions.scoring,
sessions.curves, sessions.costs); this module only gathers them. Turning them into HTML is the
TUI layer's job (tui/report).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from pingpong.core.domain import METHODS, SCALE_BOUNDS, Message, Price, TurnView
from pingpong.core.errors import UserError
from pingpong.sessions.aggregation.dmt import dmt_leaderboard
from pingpong.sessions.aggregation.rolebench import rolebench_leaderboard
from pingpong.sessions.aggregation.roleinteract import roleinteract_leaderboard
from pingpong.sessions.costs import PlayerSpend, board_spend, session_spend
from pingpong.sessions.curves import lines_by_lang
from pingpong.sessions.leaderboard import TIE_GAP, compute_leaderboard, length_factor, v1_length_shift
from pingpong.sessions.records import SessionSummary, StoredSession
from pingpong.sessions.replay import PersonScore
from pingpong.sessions.scoring import LIKERT_METHODS, PUBLISHED_WEIGHTS, Final
from pingpong.sessions.store import Store

BoardKind = Literal["likert", "dmt", "rolebench", "roleinteract", "sessions"]
Series = dict[str, list[tuple[int, float]]]
"""{line name: [(turn, value), ...]}: what a score-by-turn plot draws."""


@dataclass
class Board:
    """One method's leaderboard: its rows as `pingpong leaderboard --format json` gives them."""

    method: str
    kind: BoardKind
    rows: list[dict[str, Any]]
    costs: list[PlayerSpend] | None = None  # aligned with rows, when prices are configured
    by_turn: Series = field(default_factory=dict)  # Likert: each player's mean final by turn
    script: dict[str, Any] | None = None  # Likert: what the page recomputes other weightings from


@dataclass
class Grid:
    """One player's sessions of one method, by character (rows) and situation (columns)."""

    method: str
    characters: list[str]
    situations: list[str]
    cells: dict[tuple[str, str], list[SessionSummary]]


@dataclass
class PlayerReport:
    player: str
    grids: list[Grid]
    sessions: int


@dataclass
class TurnReport:
    """What happened in one turn: its messages, every judge's scores and every person's."""

    turn: int
    messages: list[Message]
    judges: list[tuple[str, TurnView]]
    people: list[PersonScore]


@dataclass
class ConversationReport:
    stored: StoredSession
    final: Final
    turns: list[TurnReport]
    whole: TurnReport  # scores of the whole conversation (turn None); no messages
    series: Series  # per metric, the judges' mean by turn
    scale: tuple[float, float]  # the plotted metrics' scale
    spend: PlayerSpend | None


@dataclass
class Report:
    run: str | None
    boards: list[Board]
    players: list[PlayerReport]
    sessions: list[SessionSummary]
    priced: bool


# ---------------------------------------------------------------- the whole report


def collect(store: Store, *, run: str | None = None, prices: Mapping[str, Price] | None = None) -> Report:
    """Every board and player grid of the stored sessions (of one run); UserError for an empty run."""
    summaries = store.sessions(run=run)
    if run is not None and not summaries:
        raise UserError(f"--run: no sessions in run '{run}' (see `pingpong sessions list`)")
    prices = dict(prices or {})
    present = {s.method for s in summaries}
    methods = [m for m in METHODS if m in present] + sorted(present - set(METHODS))
    boards = [board(store, method, run=run, prices=prices) for method in methods]
    by_player: dict[str, list[SessionSummary]] = defaultdict(list)
    for s in summaries:
        by_player[s.player].append(s)
    players = [PlayerReport(p, grids(by_player[p], methods), len(by_player[p])) for p in sorted(by_player)]
    return Report(run, boards, players, summaries, bool(prices))


def grids(summaries: list[SessionSummary], methods: list[str]) -> list[Grid]:
    """A player's sessions as one grid per method (methods in report order)."""
    out = []
    for method in methods:
        mine = [s for s in summaries if s.method == method]
        if not mine:
            continue
        cells: dict[tuple[str, str], list[SessionSummary]] = defaultdict(list)
        for s in mine:
            cells[(s.character, s.situation)].append(s)
        out.append(Grid(method, sorted({s.character for s in mine}), sorted({s.situation for s in mine}), dict(cells)))
    return out


# ---------------------------------------------------------------- boards


def board(store: Store, method: str, *, run: str | None, prices: Mapping[str, Price]) -> Board:
    """The leaderboard of one method; methods without one list their players' sessions."""
    conn = store.conn
    if method in LIKERT_METHODS:
        out = likert_board(store, method, run=run)
    elif method == "dmt":
        out = Board(method, "dmt", [r.to_json() for r in dmt_leaderboard(conn, run=run)])
    elif method == "rolebench":
        out = Board(method, "rolebench", rolebench_leaderboard(conn, run=run))
    elif method == "roleinteract":
        out = Board(method, "roleinteract", roleinteract_leaderboard(conn, run=run))
    else:
        out = Board(method, "sessions", session_counts(store.sessions(run=run, method=method)))
    if prices and out.rows:
        out.costs = board_spend(conn, out.rows, prices, method=method, run=run)
    return out


def session_counts(summaries: list[SessionSummary]) -> list[dict[str, Any]]:
    """Rows for a method without a leaderboard: per (player, lang) its sessions and finished ones."""
    counts: Counter[tuple[str, str | None]] = Counter()
    finished: Counter[tuple[str, str | None]] = Counter()
    for s in summaries:
        counts[(s.player, s.lang)] += 1
        finished[(s.player, s.lang)] += s.status == "finished"
    return [{"player": p, "lang": lang, "conversations": n, "finished": finished[(p, lang)]}
            for (p, lang), n in sorted(counts.items(), key=lambda kv: (kv[0][0], kv[0][1] or ""))]


def likert_board(store: Store, method: str, *, run: str | None) -> Board:
    """The board at equal weights, and per row what the page needs to rank other weightings: the
    metric means, the length rule's factor (pingpong) or coefficient (pingpong-v1, times the spread
    of finals), and the bootstrap intervals of each published weighting."""
    boards = {name: compute_leaderboard(store, method=method, run=run, weights=weights)
              for name, weights in PUBLISHED_WEIGHTS.items()}
    rows = [r.to_json() for r in boards["equal"]]
    intervals = {name: {(r.player, r.lang): (r.final_ci, r.length_norm_ci) for r in board}
                 for name, board in boards.items()}
    medians = {}  # each language is a board of its own (compute_leaderboard)
    for board_lang in {r["lang"] for r in rows}:
        known = [r["avg_length"] for r in rows if r["lang"] == board_lang and r["avg_length"] is not None]
        medians[board_lang] = float(np.median(known)) if known else None
    script_rows = []
    for i, r in enumerate(rows):
        key = (r["player"], r["lang"])
        median = medians[r["lang"]]
        script_rows.append({
            "id": i, "player": r["player"], "lang": r["lang"] or "",
            "means": [r["in_character"], r["entertaining"], r["fluency"]],
            "factor": length_factor(r["avg_length"], median) if method == "pingpong" else 1.0,
            "coef": v1_length_shift(r["avg_length"], median, 1.0) if method == "pingpong-v1" else 0.0,
            "ci": {name: list(intervals[name].get(key, (None, None))) for name in PUBLISHED_WEIGHTS},
        })
    script = {"method": method, "tie_gap": TIE_GAP, "weightings": {k: list(v) for k, v in PUBLISHED_WEIGHTS.items()},
              "rows": script_rows}
    by_turn = lines_by_lang(store, method=method, langs=list(dict.fromkeys(r["lang"] for r in rows)), run=run)
    return Board(method, "likert", rows, by_turn=by_turn, script=script)


# ---------------------------------------------------------------- conversations


def conversations(store: Store, report: Report, prices: Mapping[str, Price] | None = None
                  ) -> Iterator[ConversationReport]:
    """Every session of the report, one at a time (a big database never sits in memory at once)."""
    for s in report.sessions:
        yield conversation(store.session(s.id), store, prices)


def conversation(stored: StoredSession, store: Store | None = None,
                 prices: Mapping[str, Price] | None = None) -> ConversationReport:
    """One session turn by turn, with the judges' means by turn for its plot and what it cost."""
    current = {s.id for s in stored.current_human_scores().values()}

    def at(turn: int | None) -> TurnReport:
        return TurnReport(
            turn or 0, [m for m in stored.messages if m.turn == turn],
            [(v.judge, view) for v in stored.verdicts for view in v.turns if view.turn == turn],
            [PersonScore(s, s.id in current) for s in stored.human_scores if s.turn == turn])

    judged = {view.turn for v in stored.verdicts for view in v.turns if view.turn is not None}
    turns = [at(t) for t in sorted({m.turn for m in stored.messages} | judged)]
    series, scale = judge_means(stored)
    spend = session_spend(store.conn, stored.id, prices) if store is not None and prices else None
    return ConversationReport(stored, stored.final, turns, at(None), series, scale, spend)


def judge_means(stored: StoredSession) -> tuple[Series, tuple[float, float]]:
    """Per metric the mean of the judges' ok values by turn, for the metrics on the session's most
    used scale (refusal flags left out), and that scale's bounds."""
    values: dict[tuple[str, int], list[float]] = defaultdict(list)
    scales: dict[str, str] = {}
    for verdict in stored.verdicts:
        for score in verdict.scores:
            if score.turn is None or score.status != "ok" or score.value is None or score.metric == "is_refusal":
                continue
            values[(score.metric, score.turn)].append(float(score.value))
            scales.setdefault(score.metric, score.scale)
    if not scales:
        return {}, (0.0, 1.0)
    scale = Counter(scales.values()).most_common(1)[0][0]
    series: Series = {}
    for (metric, turn), vals in sorted(values.items(), key=lambda kv: kv[0][1]):
        if scales[metric] == scale:
            series.setdefault(metric, []).append((turn, sum(vals) / len(vals)))
    lo, hi = SCALE_BOUNDS[scale]
    return series, (float(lo), float(hi))
