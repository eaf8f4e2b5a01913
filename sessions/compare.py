"""Pairwise comparison of stored sessions: which pairs meet, a judge's verdicts in both orders, the figures.

METHOD.md "RoleLLM": a judge reads two sessions of different players that share the method, the
character and the situation (for rolebench: two answers to the same question) and names the better
player. Judges favour what they see first, so every pair is judged in both orders and a disagreement
counts as a tie. Verdicts are stored (`pair_scores`, score shape plus the pair) with the judge's
reason; a person's preference, appended beside them, overrides them. The figures are a win rate
against a baseline and Bradley-Terry ratings (sessions.aggregation.pairwise).
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import TYPE_CHECKING, Any

from pingpong.core.domain import PAIRWISE, CallRecord, Score
from pingpong.core.errors import UserError
from pingpong.core.pairwise import PairJudgement, judge_pair, pair_label
from pingpong.sessions import queries
from pingpong.sessions.aggregation.pairwise import Comparison, bradley_terry_intervals, combine_orders, win_rate

if TYPE_CHECKING:
    from pingpong.core.llm import ModelPool
    from pingpong.core.prompts import PromptRenderer
    from pingpong.sessions.records import StoredSession
    from pingpong.sessions.store import Store

ORDERS = ("ab", "ba")
"""The two orders a pair is shown in: 'ab' shows session_a first, 'ba' session_b first."""
VALUES = {"a": 1.0, "b": 0.0, "tie": 0.5}
LABELS = {value: label for label, value in VALUES.items()}


@dataclass(frozen=True)
class PairPlan:
    """Two sessions of different players with the same method, character and situation (a < b by id)."""

    a: int
    b: int
    player_a: str
    player_b: str
    method: str
    character: str
    situation: str
    lang: str | None = None


def plan_of(a: "StoredSession", b: "StoredSession") -> PairPlan:
    """The pair of two stored sessions (either order), smaller id first."""
    first, second = (a, b) if a.id < b.id else (b, a)
    spec = first.spec
    return PairPlan(first.id, second.id, spec.player, second.spec.player, spec.method, spec.character,
                    spec.situation, spec.lang)


def plan_pairs(facts: Sequence[queries.SessionFacts], baseline: str, players: Sequence[str] = ()) -> list[PairPlan]:
    """The pairs to judge: for each (method, character, situation), the newest session of each compared
    player, and every two compared players that both have one meet there.

    Compared are the baseline and ``players``; without ``players``, every player that shares a
    conversation with the baseline. UserError when the baseline or a named player has no finished
    session, or when no other player shares a conversation with the baseline.
    """
    known = {f.player for f in facts}
    if baseline not in known:
        raise UserError(f"--baseline: no finished sessions of '{baseline}' to compare")
    for player in players:
        if player not in known:
            raise UserError(f"--player: no finished sessions of '{player}' to compare")
    newest: dict[tuple[str, str, str], dict[str, queries.SessionFacts]] = {}
    for f in sorted(facts, key=lambda f: f.id):  # a later session of the same player replaces an earlier one
        newest.setdefault((f.method, f.character, f.situation), {})[f.player] = f
    compared = {baseline, *players} if players else {p for group in newest.values() if baseline in group
                                                     for p in group}
    plans = []
    for (method, character, situation), group in sorted(newest.items()):
        present = sorted(p for p in group if p in compared)
        for x, y in combinations(present, 2):
            first, second = sorted((group[x], group[y]), key=lambda f: f.id)
            plans.append(PairPlan(first.id, second.id, first.player, second.player, method, character,
                                  situation, first.lang))
    if not any(baseline in (p.player_a, p.player_b) for p in plans):
        raise UserError(f"nothing to compare: no other player has a finished session with the same method, "
                        f"character and situation as '{baseline}'")
    return plans


# ------------------------------------------------------------------ judging


def verdict_score(result: PairJudgement, shown: str) -> Score:
    """One order's judgement as a stored score, its value for session_a whichever was shown first."""
    if result.choice is None:
        return Score(metric=PAIRWISE, scale="0-1", status="failed", error=result.error)
    label = pair_label(result.choice, a_first=shown == "ab")
    return Score(metric=PAIRWISE, value=VALUES[label], scale="0-1", explanation=result.reason)


def owed_orders(rows: Iterable[queries.PairRow], plans: Sequence[PairPlan], judge: str) -> list[tuple[PairPlan, str]]:
    """(pair, order) still without an ok verdict of ``judge``: new pairs and failed judgements."""
    done = {(r[0], r[1], r[2]) for r in rows if r[3] == "judge" and r[4] == judge and r[7] == "ok"}
    return [(p, shown) for p in plans for shown in ORDERS if (p.a, p.b, shown) not in done]


@dataclass
class JudgeTally:
    """What one `judge_pairs` call did: judgements asked for, how many of them failed, the calls made."""

    asked: int = 0
    failed: int = 0
    calls: list[CallRecord] = field(default_factory=list)
    why: str | None = None
    """The newest failed judgement's error, for the line a command ends with."""


async def judge_pairs(store: "Store", pool: "ModelPool", judge: str, plans: Sequence[PairPlan], *,
                      renderer: "PromptRenderer | None" = None, concurrency: int = 8) -> JudgeTally:
    """Ask ``judge`` for every order of every pair it has not judged yet (failed ones again), at most
    ``concurrency`` at once; each verdict is committed as it arrives, with the calls it took (retries
    included) logged under the session shown first, so costs count them."""
    work = owed_orders(queries.pair_rows(store.conn, [p.a for p in plans]), plans, judge)
    tally = JudgeTally(asked=len(work))
    sessions: dict[int, StoredSession] = {}
    gate = asyncio.Semaphore(max(1, concurrency))

    def stored(session_id: int) -> "StoredSession":
        if session_id not in sessions:
            sessions[session_id] = store.session(session_id)
        return sessions[session_id]

    async def one(plan: PairPlan, shown: str) -> None:
        async with gate:
            a, b = stored(plan.a), stored(plan.b)
            first, second = (a, b) if shown == "ab" else (b, a)
            calls: list[CallRecord] = []
            result = await judge_pair(pool, judge, a.character, a.situation, first.messages, second.messages,
                                      renderer=renderer, method=plan.method, user_name=a.spec.user_name,
                                      on_call=calls.append)
            store.add_pair_verdict(plan.a, plan.b, judge, shown, verdict_score(result, shown), calls=calls)
            tally.calls += calls
            if result.choice is None:
                tally.failed += 1
                tally.why = result.error or tally.why

    await asyncio.gather(*(one(plan, shown) for plan, shown in work))
    return tally


# ------------------------------------------------------------------ reading verdicts back


@dataclass(frozen=True)
class StoredVerdict:
    """One stored pairwise verdict: value for session_a (None when failed), who, why, when."""

    value: float | None
    by: str
    explanation: str | None
    status: str
    error: str | None
    created_at: str


@dataclass
class PairOutcome:
    """Everything stored about one pair: each judge's verdict per order, and people's preferences."""

    plan: PairPlan
    judged: dict[str, dict[str, StoredVerdict]] = field(default_factory=dict)
    people: list[StoredVerdict] = field(default_factory=list)

    @property
    def person(self) -> StoredVerdict | None:
        """The preference that counts: the newest person's."""
        return self.people[-1] if self.people else None

    def judge_value(self, judge: str) -> float | None:
        """The judge's result for session_a over both orders (a disagreement is a tie); None when
        neither order has an ok verdict."""
        orders = self.judged.get(judge, {})
        labels = [LABELS[v.value] if v is not None and v.status == "ok" and v.value is not None else None
                  for v in (orders.get("ab"), orders.get("ba"))]
        return combine_orders(labels[0], labels[1])

    def value(self, judge: str) -> float | None:
        """What counts for the figures: a person's preference where there is one, else the judge's."""
        person = self.person
        return person.value if person is not None else self.judge_value(judge)

    def to_json(self, judge: str) -> dict[str, Any]:
        orders = self.judged.get(judge, {})
        person = self.person
        return {
            "session_a": self.plan.a, "session_b": self.plan.b, "player_a": self.plan.player_a,
            "player_b": self.plan.player_b, "method": self.plan.method, "character": self.plan.character,
            "situation": self.plan.situation, "lang": self.plan.lang,
            "judge": {shown: (v.value if v.status == "ok" else None) for shown in ORDERS if (v := orders.get(shown))},
            "explanations": {shown: v.explanation or v.error for shown in ORDERS if (v := orders.get(shown))},
            "human": None if person is None else {"value": person.value, "by": person.by,
                                                  "reason": person.explanation, "created_at": person.created_at},
            "outcome": self.value(judge),
        }


def pair_outcomes(conn: Any, plans: Sequence[PairPlan]) -> list[PairOutcome]:
    """The stored verdicts of ``plans`` (every judge's and every person's), in the plans' order."""
    by_pair = {(p.a, p.b): PairOutcome(p) for p in plans}
    for a, b, shown, source, by, value, explanation, status, error, created_at, _id in queries.pair_rows(
            conn, [p.a for p in plans]):
        outcome = by_pair.get((a, b))
        if outcome is None:
            continue
        verdict = StoredVerdict(value, by, explanation, status, error, created_at)
        if source == "human":
            outcome.people.append(verdict)
        elif shown is not None:
            outcome.judged.setdefault(by, {})[shown] = verdict
    return list(by_pair.values())


def pairs_to_show(conn: Any, session_id: int | None = None) -> list[tuple[int, int]]:
    """(session_a, session_b) for the side-by-side screen, newest first: the pairs with a verdict
    (those holding ``session_id`` when given), then the session's other pairs not judged yet, with the
    newest session of each other player that played the same character, situation and method. Forks are
    never shown: `pingpong compare` pairs unforked sessions only, so a pick on a fork would never count."""
    pairs = queries.judged_pairs(conn, session_id)
    if session_id is not None:
        seen_players: set[str] = set()
        for other, player in queries.sessions_sharing(conn, session_id):
            if player in seen_players:
                continue
            seen_players.add(player)
            pair = (min(session_id, other), max(session_id, other))
            if pair not in pairs:
                pairs.append(pair)
    return pairs


# ------------------------------------------------------------------ figures


def _num(value: float | None, digits: int = 4) -> float | None:
    return None if value is None or not math.isfinite(value) else round(float(value), digits)


def compare_report(outcomes: Sequence[PairOutcome], baseline: str, judge: str, *, n_boot: int = 1000,
                   rating_boot: int = 200, seed: int = 0) -> dict[str, Any]:
    """The `pingpong compare` document: win rates against the baseline with 95% bootstrap intervals,
    Bradley-Terry ratings (Elo scale, mean 1000) with bootstrap intervals, and every pair."""
    comparisons = [Comparison(o.plan.player_a, o.plan.player_b, v) for o in outcomes
                   if (v := o.value(judge)) is not None]
    players = sorted({p for o in outcomes for p in (o.plan.player_a, o.plan.player_b)} - {baseline})
    rates = []
    for player in players:
        r = win_rate(comparisons, player, baseline, n_boot=n_boot, seed=seed)
        rates.append({"player": r.player, "baseline": r.baseline, "n": r.n, "wins": r.wins, "ties": r.ties,
                      "losses": r.losses, "win_rate": _num(r.rate), "ci_low": _num(r.ci_low),
                      "ci_high": _num(r.ci_high)})
    fitted = bradley_terry_intervals(comparisons, n_boot=rating_boot, seed=seed)
    shown = {p: _num(point, 1) or 0.0 for p, (point, _, _) in fitted.items()}
    order = sorted(fitted, key=lambda p: (-shown[p], p))
    ratings = [{"rank": 1 + sum(r > shown[p] for r in shown.values()),  # equal ratings share a rank
                "player": p, "rating": _num(fitted[p][0], 1), "ci_low": _num(fitted[p][1], 1),
                "ci_high": _num(fitted[p][2], 1)} for p in order]
    return {
        "baseline": baseline, "judge": judge, "pairs": len(outcomes), "comparisons": len(comparisons),
        "unjudged": len(outcomes) - len(comparisons), "win_rates": rates, "ratings": ratings,
        "details": [o.to_json(judge) for o in outcomes],
    }
