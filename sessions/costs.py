"""What sessions cost: the stored calls' tokens times each model's price (config `price`).

Tokens are what the API reported in `usage`; where it reported none the engine stored its own
estimate (core.tokens), and a figure that rests on estimates says so. The built-in offline model
costs nothing. A model without a price makes the figure a lower bound that names the model.
Every view (run summary, leaderboard, session screens, the HTML report) reads costs from here.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pingpong.core.domain import OFFLINE, CallRecord, Price
from pingpong.sessions import queries

FREE = Price(input=0.0, output=0.0)


@dataclass
class Spend:
    """Tokens and their cost, summed over calls."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    estimated_tokens: int = 0  # of the tokens above, those the API did not report (our estimate)
    cost: float = 0.0  # of the priced calls
    rough: bool = False  # some of the cost was priced from estimated tokens
    priced: bool = False  # some call had a price
    unpriced: set[str] = field(default_factory=set)  # models whose calls had none

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    @property
    def known(self) -> bool:
        """False when no call could be priced (only unpriced models): there is no figure to show."""
        return self.priced or not self.unpriced

    def add(self, model: str, prompt: int, completion: int, estimated: int, prices: Mapping[str, Price]) -> None:
        """Count one call (or a sum of calls) of `model`; `estimated` of its tokens are our estimate."""
        self.prompt_tokens += prompt
        self.completion_tokens += completion
        self.estimated_tokens += estimated
        price = FREE if model == OFFLINE else prices.get(model)
        if price is None:
            self.unpriced.add(model)
            return
        self.priced = True
        self.cost += price.cost(prompt, completion)
        self.rough = self.rough or (estimated > 0 and price != FREE)

    def add_call(self, call: CallRecord, prices: Mapping[str, Price]) -> None:
        """Count one call as the engine reports it (retries and failures carry no answer, no cost)."""
        if call.status != "ok":
            return
        prompt, completion = call.prompt_tokens or 0, call.completion_tokens or 0
        self.add(call.model, prompt, completion, prompt + completion if call.tokens_estimated else 0, prices)

    def merge(self, other: "Spend") -> None:
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.estimated_tokens += other.estimated_tokens
        self.cost += other.cost
        self.priced = self.priced or other.priced
        self.rough = self.rough or other.rough
        self.unpriced |= other.unpriced

    def text(self) -> str:
        """'$0.0123', '~$0.0123' (priced partly from estimated tokens), '≥$0.0123' (some model has no
        price), '-' (none has)."""
        if not self.known:
            return "-"
        return ("≥" if self.unpriced else "") + ("~" if self.rough else "") + money(self.cost)

    def to_json(self) -> dict[str, Any]:
        return {"cost": round(self.cost, 6) if self.known else None, "tokens": self.tokens,
                "prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
                "estimated_tokens": self.estimated_tokens, "estimated": self.rough, "unpriced": sorted(self.unpriced)}


def money(amount: float) -> str:
    """Four decimals below 1 (a few turns cost fractions of a cent), two above."""
    return f"${amount:.4f}" if amount < 1 else f"${amount:,.2f}"


@dataclass
class PlayerSpend:
    """What one player's conversations cost: every seat's calls, and the player's own replies."""

    total: Spend = field(default_factory=Spend)
    player: Spend = field(default_factory=Spend)

    def add(self, role: str, model: str, prompt: int, completion: int, estimated: int,
            prices: Mapping[str, Price]) -> None:
        self.total.add(model, prompt, completion, estimated, prices)
        if role == "player":
            self.player.add(model, prompt, completion, estimated, prices)

    def add_call(self, call: CallRecord, prices: Mapping[str, Price]) -> None:
        self.total.add_call(call, prices)
        if call.role == "player":
            self.player.add_call(call, prices)

    def text(self) -> str:
        """'$0.0200 (player $0.0050)': what a header or footer line shows."""
        return f"{self.total.text()} (player {self.player.text()})"

    def to_json(self) -> dict[str, Any]:
        """The leaderboard's JSON fields: `cost` (all seats), `player_cost` (the player's replies)."""
        total, player = self.total.to_json(), self.player.to_json()
        return {"cost": total["cost"], "player_cost": player["cost"], "tokens": total["tokens"],
                "player_tokens": player["tokens"], "estimated_tokens": total["estimated_tokens"],
                "cost_estimated": total["estimated"], "unpriced": total["unpriced"]}


def by_player(rows: Iterable[queries.CallTokens], prices: Mapping[str, Price]) -> dict[str, PlayerSpend]:
    """{player: spend} from call token rows."""
    out: dict[str, PlayerSpend] = {}
    for _sid, player, role, model, prompt, completion, estimated in rows:
        out.setdefault(player, PlayerSpend()).add(role, model, prompt, completion, estimated, prices)
    return out


def player_spend(conn: sqlite3.Connection, flt: queries.SessionFilter,
                 prices: Mapping[str, Price]) -> dict[str, PlayerSpend]:
    """{player: spend} over the sessions a filter selects (whatever their status: failed ones cost too)."""
    return by_player(queries.call_tokens(conn, flt), prices)


def run_spend(conn: sqlite3.Connection, run: str, prices: Mapping[str, Price]) -> dict[str, PlayerSpend]:
    """{player: spend} of every session of a run, forks included."""
    flt = queries.SessionFilter(run=run, status=None, include_forks=True)
    return player_spend(conn, flt, prices)


def total(spends: Iterable[PlayerSpend]) -> Spend:
    """All players' spend together (a run's)."""
    out = Spend()
    for spend in spends:
        out.merge(spend.total)
    return out


def session_spend(conn: sqlite3.Connection, session_id: int, prices: Mapping[str, Price]) -> PlayerSpend:
    """What one session cost so far."""
    out = PlayerSpend()
    for _sid, _player, role, model, prompt, completion, estimated in queries.session_call_tokens(conn, session_id):
        out.add(role, model, prompt, completion, estimated, prices)
    return out


def board_spend(conn: sqlite3.Connection, rows: Iterable[Mapping[str, Any]], prices: Mapping[str, Price], *,
                method: str, lang: str | None = None, run: str | None = None,
                include_forks: bool = False) -> list[PlayerSpend]:
    """The spend of each leaderboard row's conversations (all statuses), aligned with the rows: every
    board has a row per (player, language)."""
    cache: dict[str | None, dict[str, PlayerSpend]] = {}
    out = []
    for row in rows:
        key = lang or row.get("lang")
        if key not in cache:
            flt = queries.SessionFilter(method=method, lang=key, run=run, status=None, include_forks=include_forks)
            cache[key] = player_spend(conn, flt, prices)
        out.append(cache[key].get(str(row["player"]), PlayerSpend()))
    return out
