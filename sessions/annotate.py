"""Rating queues for people (`pingpong annotate`): a blind, balanced sample of finished sessions.

A queue holds up to `sample` finished sessions of every chosen player (all players by default),
drawn with a fixed seed and interleaved player by player, so a person who stops half way has
still rated every player about equally. The sample is drawn once and kept in the database with
how far the person got: opening the same queue again (same person, same options) resumes at the
first conversation they have not saved yet. The screen hides the judges' scores (and who played)
until the person has saved their own ratings of the whole conversation.
"""

from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import dataclass

from pingpong.core.errors import UserError
from pingpong.sessions import queries

SEED = 20240901
"""The fixed seed of every queue's draw (the same database and options give the same sample)."""
DEFAULT_SAMPLE = 8
METHODS = ("pingpong",)
"""Methods a queue draws from: people rate in_character, entertaining and fluency on 1-5."""


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


def draw_sample(by_player: dict[str, list[int]], sample: int, seed: int = SEED) -> list[int]:
    """Up to `sample` sessions of each player, each player's own draw seeded by the player's name,
    then interleaved: the first pick of every player (in name order), then the second, ..."""
    picks = []
    for player in sorted(by_player):
        ids = sorted(by_player[player])
        picks.append(random.Random(f"{seed}:{player}").sample(ids, min(sample, len(ids))))
    depth = max((len(p) for p in picks), default=0)
    return [p[k] for k in range(depth) for p in picks if k < len(p)]


def finished_by_player(store, players: list[str] | None) -> dict[str, list[int]]:
    """{player: finished session ids with a player message} of the queue's methods (no forks)."""
    found: dict[str, list[int]] = defaultdict(list)
    for method in METHODS:
        for facts in queries.sessions_matching(store.conn, queries.SessionFilter(method=method)):
            if facts.player_messages and (not players or facts.player in players):
                found[facts.player].append(facts.id)
    missing = sorted(set(players or []) - set(found))
    if missing:
        raise UserError(f"--player: no finished sessions of {', '.join(missing)}")
    if not found:
        raise UserError("no finished pingpong sessions to rate yet (run some first: pingpong run ...)")
    return dict(found)


def open_queue(store, author: str, *, sample: int | None = None, players: list[str] | None = None) -> Queue:
    """This person's queue for these options: drawn the first time, then as they left it. Without
    options, the queue they last worked on that still has conversations to rate (else a new
    default one)."""
    if sample is None and not players:
        last = store.last_annotation_queue(author)
        if last is not None:
            return load_queue(store, last, author)
    sample = DEFAULT_SAMPLE if sample is None else sample
    if sample < 1:
        raise UserError(f"--sample: expected at least 1 conversation per player, got {sample}")
    chosen = sorted(set(players or []))
    spec = {"methods": list(METHODS), "sample": sample, "players": chosen, "seed": SEED}
    qid = store.annotation_queue(author, spec, lambda: draw_sample(finished_by_player(store, chosen), sample))
    return load_queue(store, qid, author)


def load_queue(store, queue_id: int, author: str) -> Queue:
    items = tuple(QueueItem(pos, sid, done is not None) for pos, sid, done in store.annotation_items(queue_id))
    return Queue(queue_id, author, items)
