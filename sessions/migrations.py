"""Numbered schema migrations, applied in order when a Store opens a database.

Never edit a migration that has shipped: add a new one. Applied names are
recorded in the `_migrations` table.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import sqlite_utils

MIGRATIONS: list[Callable[[sqlite_utils.Database], None]] = []


def migration(fn: Callable[[sqlite_utils.Database], None]):
    MIGRATIONS.append(fn)
    return fn


@migration
def m001_initial(db: sqlite_utils.Database) -> None:
    db.table("runs").create(
        {"id": int, "name": str, "created_at": str, "config": str},
        pk="id",
    )
    db.table("runs").create_index(["name"], unique=True)
    db.table("sessions").create(
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
    db.table("sessions").create_index(["run_id", "player", "character", "situation"])
    db.table("sessions").create_index(["status"])
    db.table("messages").create(
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
    db.table("messages").create_index(["session_id", "turn", "role"], unique=True)
    db.table("model_calls").create(
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
    db.table("model_calls").create_index(["session_id"])
    # One row per (session, judge, player turn): wide, so the leaderboard can
    # aggregate a million turns with one GROUP BY.
    db.table("turn_scores").create(
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
    db.table("turn_scores").create_index(["session_id", "judge", "turn"], unique=True)
    # Append-only: a person's score never overwrites a judge's or an earlier person's.
    db.table("human_scores").create(
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
    db.table("human_scores").create_index(["session_id", "turn", "metric"])


@migration
def m002_player_lengths(db: sqlite_utils.Database) -> None:
    """Per-session totals of the player's message lengths, kept by triggers.

    The leaderboard's avg_length then reads one row per session instead of the
    text of every message (a million of them in a big benchmark database).
    """
    db.table("sessions").add_column("player_chars", int, not_null_default=0)
    db.table("sessions").add_column("player_messages", int, not_null_default=0)
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


@migration
def m003_methods_and_scores(db: sqlite_utils.Database) -> None:
    """Several methods, one score shape, forks and speakers.

    Sessions gain `method` (v1 sessions become `pingpong-v1`), `parent_session` and `fork_turn`.
    Messages gain `speaker` and `seq` (their place in the transcript: group scenes have several
    messages per turn, so (turn, role) is no longer unique). The wide `turn_scores` and
    `human_scores` tables become one long `scores` table: one row per (turn or whole session,
    metric) with its scale, its source (judge or human), who gave it, an explanation and a status.
    Every old value is carried over; a failed judge turn becomes a failed row per metric.
    """
    db.table("sessions").add_column("method", str, not_null_default="pingpong")
    db.table("sessions").add_column("parent_session", int)
    db.table("sessions").add_column("fork_turn", int)
    db.execute("UPDATE sessions SET method = 'pingpong-v1' WHERE version = 1")
    db.execute("CREATE INDEX idx_sessions_method ON sessions (method, status)")

    db.table("messages").add_column("speaker", str)
    db.table("messages").add_column("seq", int)
    db.execute(
        "UPDATE messages SET seq = (turn - 1) * 2 + (role = 'assistant'),"
        " speaker = CASE role WHEN 'user' THEN 'user'"
        " ELSE (SELECT character FROM sessions s WHERE s.id = messages.session_id) END"
    )
    db.execute("DROP INDEX IF EXISTS idx_messages_session_id_turn_role")
    db.execute("CREATE UNIQUE INDEX idx_messages_session_seq ON messages (session_id, seq)")
    db.execute("CREATE UNIQUE INDEX idx_messages_session_turn ON messages (session_id, turn, role, IFNULL(speaker, ''))")

    db.table("scores").create(
        {
            "id": int,
            "session_id": int,
            "turn": int,  # NULL: the whole session
            "metric": str,
            "value": float,  # NULL when failed; good = 1, bad = 0
            "scale": str,  # 1-5 | 1-10 | good-bad | 0-1
            "source": str,  # judge | human
            "by": str,  # judge model name, or the person
            "explanation": str,  # a judge's explanation, a person's reason
            "status": str,  # ok | failed
            "error": str,
            "created_at": str,
        },
        pk="id",
        foreign_keys=[("session_id", "sessions", "id")],
    )
    # A judge gives one value per (turn, metric); people append (their newest counts).
    db.execute(
        "CREATE UNIQUE INDEX idx_scores_judge ON scores (session_id, by, IFNULL(turn, 0), metric)"
        " WHERE source = 'judge'"
    )
    db.execute("CREATE INDEX idx_scores_session ON scores (session_id, source, status, by, metric, value)")

    v1 = "(SELECT version FROM sessions s WHERE s.id = t.session_id) = 1"
    for metric in ("is_refusal", "in_character", "entertaining", "fluency"):
        scale = "'0-1'" if metric == "is_refusal" else f"CASE WHEN {v1} THEN '1-10' ELSE '1-5' END"
        db.execute(
            "INSERT INTO scores (session_id, turn, metric, value, scale, source, by, explanation, status,"
            " error, created_at)"
            f" SELECT session_id, turn, '{metric}', CASE WHEN status = 'failed' THEN NULL ELSE {metric} END,"
            f" {scale}, 'judge', judge, json_extract(explanations, '$.{metric}'), IFNULL(status, 'ok'),"
            " error, created_at FROM turn_scores t"
            f" WHERE status = 'failed' OR {metric} IS NOT NULL ORDER BY id"
        )
    # Version 1's single 10-point score of the first releases.
    db.execute(
        "INSERT INTO scores (session_id, turn, metric, value, scale, source, by, explanation, status, error,"
        " created_at) SELECT session_id, turn, 'overall', overall, '1-10', 'judge', judge,"
        " json_extract(explanations, '$.overall'), 'ok', NULL, created_at FROM turn_scores"
        " WHERE overall IS NOT NULL AND IFNULL(status, 'ok') = 'ok' ORDER BY id"
    )
    db.execute(
        "INSERT INTO scores (session_id, turn, metric, value, scale, source, by, explanation, status, error,"
        " created_at) SELECT session_id, turn, metric, value,"
        " CASE WHEN metric = 'is_refusal' THEN '0-1' ELSE '1-5' END, 'human', author, reason, 'ok', NULL,"
        " created_at FROM human_scores ORDER BY id"
    )
    db.execute("DROP TABLE turn_scores")
    db.execute("DROP TABLE human_scores")


_TOTALS_ADD = (
    # not INSERT OR IGNORE: an outer statement's conflict policy overrides a trigger's
    "INSERT INTO judge_totals (session_id, judge) SELECT NEW.session_id, NEW.by WHERE NOT EXISTS"
    " (SELECT 1 FROM judge_totals WHERE session_id = NEW.session_id AND judge = NEW.by);"
    " UPDATE judge_totals SET"
    " ic_sum = ic_sum + CASE WHEN NEW.metric = 'in_character' THEN NEW.value ELSE 0 END,"
    " ic_n = ic_n + (NEW.metric = 'in_character'),"
    " en_sum = en_sum + CASE WHEN NEW.metric = 'entertaining' THEN NEW.value ELSE 0 END,"
    " en_n = en_n + (NEW.metric = 'entertaining'),"
    " fl_sum = fl_sum + CASE WHEN NEW.metric = 'fluency' THEN NEW.value ELSE 0 END,"
    " fl_n = fl_n + (NEW.metric = 'fluency'),"
    " refusal = MAX(refusal, CASE WHEN NEW.metric = 'is_refusal' THEN NEW.value ELSE 0 END),"
    " ov_sum = ov_sum + CASE WHEN NEW.metric = 'overall' THEN NEW.value ELSE 0 END,"
    " ov_n = ov_n + (NEW.metric = 'overall')"
    " WHERE session_id = NEW.session_id AND judge = NEW.by;"
)


@migration
def m004_judge_totals(db: sqlite_utils.Database) -> None:
    """Per (session, judge) totals of the judges' ok turn scores of the Likert metrics, kept by
    triggers on `scores` (as migration 2 keeps the player's lengths).

    The leaderboard then reads one row per (session, judge) instead of a row per turn and metric
    (four million of them in a big benchmark database). The rows stay the truth: these are sums.
    """
    db.execute(
        "CREATE TABLE judge_totals (session_id INTEGER NOT NULL REFERENCES sessions(id), judge TEXT NOT NULL,"
        " ic_sum REAL NOT NULL DEFAULT 0, ic_n INTEGER NOT NULL DEFAULT 0,"
        " en_sum REAL NOT NULL DEFAULT 0, en_n INTEGER NOT NULL DEFAULT 0,"
        " fl_sum REAL NOT NULL DEFAULT 0, fl_n INTEGER NOT NULL DEFAULT 0,"
        " refusal REAL NOT NULL DEFAULT 0, ov_sum REAL NOT NULL DEFAULT 0, ov_n INTEGER NOT NULL DEFAULT 0,"
        " PRIMARY KEY (session_id, judge))"
    )
    db.execute(
        "INSERT INTO judge_totals SELECT session_id, by,"
        " TOTAL(CASE WHEN metric = 'in_character' THEN value END), COUNT(CASE WHEN metric = 'in_character' THEN 1 END),"
        " TOTAL(CASE WHEN metric = 'entertaining' THEN value END), COUNT(CASE WHEN metric = 'entertaining' THEN 1 END),"
        " TOTAL(CASE WHEN metric = 'fluency' THEN value END), COUNT(CASE WHEN metric = 'fluency' THEN 1 END),"
        " IFNULL(MAX(CASE WHEN metric = 'is_refusal' THEN value END), 0),"
        " TOTAL(CASE WHEN metric = 'overall' THEN value END), COUNT(CASE WHEN metric = 'overall' THEN 1 END)"
        " FROM scores WHERE source = 'judge' AND status = 'ok' AND turn IS NOT NULL GROUP BY session_id, by"
    )
    ok_turn = "NEW.source = 'judge' AND NEW.status = 'ok' AND NEW.turn IS NOT NULL"
    db.execute(f"CREATE TRIGGER scores_judge_added AFTER INSERT ON scores WHEN {ok_turn} BEGIN {_TOTALS_ADD} END")
    db.execute(f"CREATE TRIGGER scores_judge_retried AFTER UPDATE ON scores WHEN {ok_turn}"
               f" AND OLD.status = 'failed' BEGIN {_TOTALS_ADD} END")


@migration
def m005_message_notes(db: sqlite_utils.Database) -> None:
    """Messages gain `notes`: JSON of why a message is what it is (a DMT round's sub-topic,
    sub-intent, quality verdict and stop decision). NULL for messages without notes."""
    db.table("messages").add_column("notes", str)


@migration
def m006_human_score_index(db: sqlite_utils.Database) -> None:
    """People's scores are read on their own (every view merges them in): a small index over them
    spares a scan of every judge's row."""
    db.execute("CREATE INDEX idx_scores_human ON scores (created_at, id) WHERE source = 'human'")


@migration
def m007_pair_scores(db: sqlite_utils.Database) -> None:
    """Pairwise verdicts (METHOD.md "RoleLLM"): a judge's or a person's view of which of two sessions of
    the same card, situation and method was played better, in the score shape of `scores` plus the
    pair. `session_a` < `session_b`; `value` is for session_a (1 better, 0 worse, 0.5 as good; NULL when
    failed); `shown` is the order a judge saw ('ab': session_a first, 'ba': session_b first; NULL for a
    person). A judge gives one value per pair and order; people append, the newest counts."""
    db.execute(
        "CREATE TABLE pair_scores (id INTEGER PRIMARY KEY,"
        " session_a INTEGER NOT NULL REFERENCES sessions(id), session_b INTEGER NOT NULL REFERENCES sessions(id),"
        " shown TEXT CHECK (shown IN ('ab', 'ba')), metric TEXT NOT NULL, value REAL, scale TEXT NOT NULL,"
        " source TEXT NOT NULL CHECK (source IN ('judge', 'human')), \"by\" TEXT NOT NULL, explanation TEXT,"
        " status TEXT NOT NULL, error TEXT, created_at TEXT NOT NULL, CHECK (session_a < session_b))"
    )
    db.execute("CREATE UNIQUE INDEX idx_pair_scores_judge"
               " ON pair_scores (session_a, session_b, \"by\", metric, shown) WHERE source = 'judge'")
    db.execute("CREATE INDEX idx_pair_scores_b ON pair_scores (session_b)")


@migration
def m008_annotation_queues(db: sqlite_utils.Database) -> None:
    """Rating queues (`pingpong annotate`): a person's blind sample of finished sessions, drawn
    once (with a fixed seed) and kept, and how far the person got, so a queue resumes where its
    person left off. A queue is one person's for one set of options (its `spec`, JSON)."""
    db.execute(
        "CREATE TABLE annotation_queues (id INTEGER PRIMARY KEY, author TEXT NOT NULL, spec TEXT NOT NULL,"
        " created_at TEXT NOT NULL)"
    )
    db.execute("CREATE UNIQUE INDEX idx_annotation_queues_author_spec ON annotation_queues (author, spec)")
    db.execute(
        "CREATE TABLE annotation_items (queue_id INTEGER NOT NULL REFERENCES annotation_queues(id),"
        " position INTEGER NOT NULL, session_id INTEGER NOT NULL REFERENCES sessions(id), done_at TEXT,"
        " PRIMARY KEY (queue_id, position))"
    )


@migration
def m009_session_cast(db: sqlite_utils.Database) -> None:
    """Sessions gain `cast_snapshot`: JSON list of the cards of a group scene's members as they were
    when the session ran (the spec's `cast` says who sat as each). NULL for one-character sessions."""
    db.table("sessions").add_column("cast_snapshot", str)


@migration
def m010_current_seats(db: sqlite_utils.Database) -> None:
    """Sessions gain `seats`: JSON {"interrogator": who, "player": who} of who holds each seat now,
    written when a seat changes hands, so a resume goes on with the same people and models. NULL:
    the seats are as the spec says. Who wrote each turn is the author of its message."""
    db.table("sessions").add_column("seats", str)


@migration
def m011_drafts(db: sqlite_utils.Database) -> None:
    """`drafts`: the message a session is streaming now, rewritten about twice a second, so another
    process (the Watch screen) can show it; gone once the message is stored whole."""
    db.table("drafts").create(
        {"session_id": int, "turn": int, "role": str, "author": str, "text": str, "updated_at": str},
        pk="session_id",
        foreign_keys=[("session_id", "sessions", "id")],
    )


@migration
def m012_pair_calls(db: sqlite_utils.Database) -> None:
    """Model calls gain `pair_score_id`: the pairwise verdict (`pingpong compare`) a judge call was made
    for, NULL for a session's own calls. Such a call belongs to the session shown first in its order,
    so what comparing costs counts towards both players' sessions, where every cost figure looks."""
    db.execute("ALTER TABLE model_calls ADD COLUMN pair_score_id INTEGER REFERENCES pair_scores(id)")
    db.execute("CREATE INDEX idx_model_calls_pair ON model_calls (pair_score_id) WHERE pair_score_id IS NOT NULL")


@migration
def m013_session_list_indexes(db: sqlite_utils.Database) -> None:
    """Indexes that keep the Home screen light on a big database (sessions.listing).

    - `idx_sessions_updated`: what changed since the last look (a refresh reads only those rows).
    - `idx_sessions_list`: the listed columns, so filtering and sorting every session scans a small
      index instead of rows that carry the card and situation snapshots (kilobytes each).
    - `idx_messages_user_author`: who wrote the user side, for the interrogator-seat filter.
    """
    db.execute("CREATE INDEX idx_sessions_updated ON sessions (updated_at)")
    db.execute("CREATE INDEX idx_sessions_list ON sessions"
               " (status, method, character, situation, player, interrogator, created_at, judges, seats)")
    db.execute("CREATE INDEX idx_messages_user_author ON messages (author, session_id) WHERE role = 'user'")


_TOTALS_UPSERT = (
    "INSERT INTO judge_totals (session_id, judge, ic_sum, ic_n, en_sum, en_n, fl_sum, fl_n, refusal, ov_sum, ov_n)"
    " VALUES (NEW.session_id, NEW.by,"
    " CASE WHEN NEW.metric = 'in_character' THEN NEW.value ELSE 0 END, NEW.metric = 'in_character',"
    " CASE WHEN NEW.metric = 'entertaining' THEN NEW.value ELSE 0 END, NEW.metric = 'entertaining',"
    " CASE WHEN NEW.metric = 'fluency' THEN NEW.value ELSE 0 END, NEW.metric = 'fluency',"
    " CASE WHEN NEW.metric = 'is_refusal' THEN NEW.value ELSE 0 END,"
    " CASE WHEN NEW.metric = 'overall' THEN NEW.value ELSE 0 END, NEW.metric = 'overall')"
    " ON CONFLICT (session_id, judge) DO UPDATE SET"
    " ic_sum = ic_sum + excluded.ic_sum, ic_n = ic_n + excluded.ic_n,"
    " en_sum = en_sum + excluded.en_sum, en_n = en_n + excluded.en_n,"
    " fl_sum = fl_sum + excluded.fl_sum, fl_n = fl_n + excluded.fl_n,"
    " refusal = MAX(refusal, excluded.refusal),"
    " ov_sum = ov_sum + excluded.ov_sum, ov_n = ov_n + excluded.ov_n;"
)


@migration
def m014_judge_totals_in_one_statement(db: sqlite_utils.Database) -> None:
    """The triggers of migration 4 add a score to its (session, judge) totals in one statement (an
    upsert) instead of two (insert the row if missing, then update it): a judge's verdict of six
    turns writes 24 score rows, and the second statement took a quarter of the time each row costs."""
    ok_turn = "NEW.source = 'judge' AND NEW.status = 'ok' AND NEW.turn IS NOT NULL"
    db.execute("DROP TRIGGER scores_judge_added")
    db.execute("DROP TRIGGER scores_judge_retried")
    db.execute(f"CREATE TRIGGER scores_judge_added AFTER INSERT ON scores WHEN {ok_turn} BEGIN {_TOTALS_UPSERT} END")
    db.execute(f"CREATE TRIGGER scores_judge_retried AFTER UPDATE ON scores WHEN {ok_turn}"
               f" AND OLD.status = 'failed' BEGIN {_TOTALS_UPSERT} END")


@migration
def m015_session_changes(db: sqlite_utils.Database) -> None:
    """A change counter for the sessions, so a screen can ask "what was written since I looked?"
    without trusting the clock: two writes of one session in the same millisecond left the same
    `updated_at`, and an import keeps its old times. A new session, and every write that sets its
    `updated_at` (every write of the store does) or a listed column, gives it the next number in
    `session_changes` (AUTOINCREMENT: a number is never handed out twice); the character total
    that a message's trigger keeps does not, so a message costs one number, not two. The index
    on `updated_at` (migration 13) only served that question, so it goes."""
    db.execute("CREATE TABLE session_changes (seq INTEGER PRIMARY KEY AUTOINCREMENT,"
               " session_id INTEGER NOT NULL UNIQUE)")
    db.execute("INSERT INTO session_changes (session_id) SELECT id FROM sessions ORDER BY updated_at, id")
    bump = "INSERT OR REPLACE INTO session_changes (session_id) VALUES (NEW.id);"
    db.execute(f"CREATE TRIGGER sessions_added AFTER INSERT ON sessions BEGIN {bump} END")
    watched = "updated_at, status, method, character, situation, player, interrogator, created_at, judges, seats"
    db.execute(f"CREATE TRIGGER sessions_changed AFTER UPDATE OF {watched} ON sessions BEGIN {bump} END")
    db.execute("CREATE TRIGGER sessions_removed AFTER DELETE ON sessions"
               " BEGIN DELETE FROM session_changes WHERE session_id = OLD.id; END")
    db.execute("DROP INDEX idx_sessions_updated")


@migration
def m016_judging_leases(db: sqlite_utils.Database) -> None:
    """`judging`: which process is scoring which session with which judge right now, so two
    `pingpong judge` commands (or a rerun beside one) never pay a judge twice for the same turns.
    A row is removed when its judging ends; one whose process died counts as free."""
    db.execute("CREATE TABLE judging (session_id INTEGER NOT NULL REFERENCES sessions(id), judge TEXT NOT NULL,"
               " pid INTEGER NOT NULL, host TEXT, started_at TEXT NOT NULL, PRIMARY KEY (session_id, judge))")


@migration
def m017_v1_testers_judge(db: sqlite_utils.Database) -> None:
    """A PingPong v1 session's judge is its tester, the interrogator, who scored every turn. Earlier
    releases stored whatever `--judge` a run was given there (a model that never scored), so the
    session list and the exports named it while `sessions show` named the tester."""
    tester = "json_array(interrogator)"
    db.execute(f"UPDATE sessions SET judges = {tester}, spec = json_set(spec, '$.judges', {tester})"
               f" WHERE method = 'pingpong-v1' AND interrogator IS NOT NULL AND interrogator <> 'human'"
               f" AND judges IS NOT {tester}")


@migration
def m018_sessions_by_creation(db: sqlite_utils.Database) -> None:
    """What identifies a session across databases (its creation time and seats) is looked up once
    per imported session; without an index each look scanned every session of its method, so an
    import took time in proportion to the database times the file."""
    db.execute("CREATE INDEX idx_sessions_created ON sessions (created_at, player)")
