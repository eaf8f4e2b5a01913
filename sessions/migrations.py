"""Numbered schema migrations, applied in order when a Store opens a database.

Never edit a migration that has shipped: add a new one. Applied names are
recorded in the `_migrations` table.
"""

from __future__ import annotations

from collections.abc import Callable

import sqlite_utils

MIGRATIONS: list[Callable[[sqlite_utils.Database], None]] = []


def migration(fn: Callable[[sqlite_utils.Database], None]):
    MIGRATIONS.append(fn)
    return fn


@migration
def m001_initial(db: sqlite_utils.Database) -> None:
    db["runs"].create(
        {"id": int, "name": str, "created_at": str, "config": str},
        pk="id",
    )
    db["runs"].create_index(["name"], unique=True)
    db["sessions"].create(
        {
            "id": int,
            "run_id": int,
            "status": str,  # running | interrupted | finished | failed
            "version": int,
            "lang": str,
            "character": str,
            "situation": str,
            "player": str,
            "interrogator": str,  # the seat's first occupant; per-message authors say who wrote what
            "judges": str,  # JSON list of judge model names
            "num_turns": int,
            "character_snapshot": str,  # JSON of the card as it was when the session ran
            "situation_snapshot": str,  # JSON of the situation as it was
            "spec": str,  # JSON SessionSpec
            "error": str,
            "pid": int,
            "host": str,
            "created_at": str,
            "updated_at": str,
            "finished_at": str,
        },
        pk="id",
        foreign_keys=[("run_id", "runs", "id")],
    )
    db["sessions"].create_index(["run_id", "player", "character", "situation"])
    db["sessions"].create_index(["status"])
    db["messages"].create(
        {
            "id": int,
            "session_id": int,
            "turn": int,
            "role": str,  # user | assistant
            "author": str,  # model name or 'human'
            "text": str,
            "prompt_tokens": int,
            "completion_tokens": int,
            "tokens_estimated": int,
            "latency_ms": float,
            "attempt": int,
            "created_at": str,
        },
        pk="id",
        foreign_keys=[("session_id", "sessions", "id")],
    )
    db["messages"].create_index(["session_id", "turn", "role"], unique=True)
    db["model_calls"].create(
        {
            "id": int,
            "session_id": int,
            "role": str,  # player | interrogator | judge
            "model": str,
            "turn": int,
            "attempt": int,
            "status": str,  # ok | retry | failed
            "error": str,
            "prompt_tokens": int,
            "completion_tokens": int,
            "tokens_estimated": int,
            "latency_ms": float,
            "created_at": str,
        },
        pk="id",
        foreign_keys=[("session_id", "sessions", "id")],
    )
    db["model_calls"].create_index(["session_id"])
    # One row per (session, judge, player turn): wide, so the leaderboard can
    # aggregate a million turns with one GROUP BY.
    db["turn_scores"].create(
        {
            "id": int,
            "session_id": int,
            "judge": str,
            "turn": int,
            "is_refusal": int,  # 0 | 1 | NULL
            "in_character": int,
            "entertaining": int,
            "fluency": int,
            "overall": float,  # version 1 mode, 10-point
            "explanations": str,  # JSON {metric: text}
            "status": str,  # ok | failed
            "error": str,
            "created_at": str,
        },
        pk="id",
        foreign_keys=[("session_id", "sessions", "id")],
    )
    db["turn_scores"].create_index(["session_id", "judge", "turn"], unique=True)
    # Append-only: a person's score never overwrites a judge's or an earlier person's.
    db["human_scores"].create(
        {
            "id": int,
            "session_id": int,
            "turn": int,
            "metric": str,  # in_character | entertaining | fluency | is_refusal
            "value": float,
            "author": str,
            "reason": str,
            "created_at": str,
        },
        pk="id",
        foreign_keys=[("session_id", "sessions", "id")],
    )
    db["human_scores"].create_index(["session_id", "turn", "metric"])


@migration
def m002_player_lengths(db: sqlite_utils.Database) -> None:
    """Per-session totals of the player's message lengths, kept by triggers.

    The leaderboard's avg_length then reads one row per session instead of the
    text of every message (a million of them in a big benchmark database).
    """
    db["sessions"].add_column("player_chars", int, not_null_default=0)
    db["sessions"].add_column("player_messages", int, not_null_default=0)
    db.execute(
        "UPDATE sessions SET"
        " player_chars = (SELECT IFNULL(SUM(LENGTH(text)), 0) FROM messages m"
        "                 WHERE m.session_id = sessions.id AND m.role = 'assistant'),"
        " player_messages = (SELECT COUNT(*) FROM messages m"
        "                    WHERE m.session_id = sessions.id AND m.role = 'assistant')"
    )
    db.execute(
        "CREATE TRIGGER messages_player_added AFTER INSERT ON messages WHEN NEW.role = 'assistant' BEGIN"
        " UPDATE sessions SET player_chars = player_chars + LENGTH(NEW.text),"
        " player_messages = player_messages + 1 WHERE id = NEW.session_id; END"
    )
    db.execute(
        "CREATE TRIGGER messages_player_removed AFTER DELETE ON messages WHEN OLD.role = 'assistant' BEGIN"
        " UPDATE sessions SET player_chars = player_chars - LENGTH(OLD.text),"
        " player_messages = player_messages - 1 WHERE id = OLD.session_id; END"
    )
