"""Rating queues for people (`pingpong annotate`): a blind, balanced sample of finished sessions.

A queue holds up to `sample` finished sessions of every chosen player in every method a person
rates (core.methods: `people_rate`; methods scored by exact rules are left out), drawn with a fixed
seed and interleaved player by player, so a person who stops half way has still rated every player
about equally. The sample is drawn once and kept in the database with how far the person got:
opening the same queue again (same person, same options) resumes at the first conversation they
have not saved yet. A skipped conversation moves to the end of the queue and comes back after the
others. The screen hides the judges' scores (and who played) until the person has saved their own.
"""

from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import dataclass

from pingpong.core.errors import UserError
from pingpong.core.methods import available, get_method
from pingpong.sessions import queries

SEED = 20240901
"""The fixed seed of every queue's draw (the same database and options give the same sample)."""
DEFAULT_SAMPLE = 8


def rated_methods() -> tuple[str, ...]:
    """The methods whose sessions a person rates in a queue, in DESIGN.md's order."""
    return tuple(m for m in available() if get_method(m).people_rate)


def chosen_methods(methods: list[str] | None) -> list[str]:
    """The queue's methods: those named (each one a person rates), else all of them."""
    rated = rated_methods()
    for name in methods or []:
        if name not in rated:
            get_method(name)  # an unknown name is its own clear error
            raise UserError(f"--method {name}: scored by exact rules, not rated by people; "
                            f"the queue takes {', '.join(rated)}")
    return [m for m in rated if not methods or m in methods]


@dataclass(frozen=True)
class QueueItem:
    position: int
    session_id: int
    done: bool


@dataclass(frozen=True)
class Queue:
    id: int
    author: str
    items: tuple[QueueItem, ...]

    @property
    def next_position(self) -> int | None:
        """Where the person goes on: the first item not saved yet (None when all are)."""
        return next((i.position for i in self.items if not i.done), None)

    @property
    def done(self) -> int:
        return sum(1 for i in self.items if i.done)


def draw_sample(strata: dict[tuple[str, ...], list[int]], sample: int, seed: int = SEED) -> list[int]:
    """Up to `sample` sessions of each stratum (player, method), each stratum's own draw seeded by its
    names, then interleaved: the first pick of every stratum (in name order), then the second, ..."""
    picks = []
    for key in sorted(strata):
        ids = sorted(strata[key])
        picks.append(random.Random(":".join((str(seed), *key))).sample(ids, min(sample, len(ids))))
    depth = max((len(p) for p in picks), default=0)
    return [p[k] for k in range(depth) for p in picks if k < len(p)]


def finished_by_stratum(store, players: list[str] | None, methods: list[str]) -> dict[tuple[str, ...], list[int]]:
    """{(player, method): finished session ids with a player message} (no forks)."""
    found: dict[tuple[str, ...], list[int]] = defaultdict(list)
    for method in methods:
        for facts in queries.sessions_matching(store.conn, queries.SessionFilter(method=method)):
            if facts.player_messages and (not players or facts.player in players):
                found[(facts.player, method)].append(facts.id)
    missing = sorted(set(players or []) - {player for player, _ in found})
    if missing:
        raise UserError(f"--player: no finished sessions of {', '.join(missing)} ({', '.join(methods)})")
    if not found:
        raise UserError(f"no finished sessions to rate yet ({', '.join(methods)}; run some first: pingpong run ...)")
    return dict(found)


def open_queue(store, author: str, *, sample: int | None = None, players: list[str] | None = None,
               methods: list[str] | None = None) -> Queue:
    """This person's queue for these options: drawn the first time, then as they left it. Without
    options, the queue they last worked on that still has conversations to rate (else a new
    default one)."""
    if sample is None and not players and not methods:
        last = store.last_annotation_queue(author)
        if last is not None:
            return load_queue(store, last, author)
    sample = DEFAULT_SAMPLE if sample is None else sample
    if sample < 1:
        raise UserError(f"--sample: expected at least 1 conversation per player, got {sample}")
    chosen = sorted(set(players or []))
    rated = chosen_methods(methods)
    spec = {"methods": rated, "sample": sample, "players": chosen, "seed": SEED}
    qid = store.annotation_queue(author, spec, lambda: draw_sample(finished_by_stratum(store, chosen, rated), sample))
    return load_queue(store, qid, author)


def load_queue(store, queue_id: int, author: str) -> Queue:
    items = tuple(QueueItem(pos, sid, done is not None) for pos, sid, done in store.annotation_items(queue_id))
    return Queue(queue_id, author, items)


def skip(store, queue: Queue, position: int) -> Queue:
    """The item at ``position`` goes to the end of the queue (rated later, never dropped)."""
    store.move_annotation_item_last(queue.id, position)
    return load_queue(store, queue.id, queue.author)
