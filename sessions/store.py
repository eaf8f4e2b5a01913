"""The SQLite store: one class over an SQLite connection (and sqlite_utils for writers), migrated on open.

Several processes (the TUI, a batch run, an import) may write one database at
once, so the file runs in WAL mode with a long busy timeout and every write
transaction starts with BEGIN IMMEDIATE: a deferred transaction that reads
first cannot be retried by the busy handler and fails with "database is
locked". Nothing here ever stores an API key (no spec we store carries one).

Opening a store and reading from it imports neither sqlite_utils nor the pydantic models until a
method needs them, so a listing or a leaderboard of an empty database starts fast.
"""

from __future__ import annotations

import contextlib
import functools
import json
import math
import os
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from pingpong.core.errors import StorageError, UserError
from pingpong.core.vocabulary import PAIRWISE
from pingpong.sessions import queries
from pingpong.sessions.migrations import MIGRATIONS
from pingpong.sessions.seats import seat_label

if TYPE_CHECKING:
    import sqlite_utils

    from pingpong.core.domain import CallRecord, Character, JudgeVerdict, Message, Score, SessionSpec, Situation
    from pingpong.sessions.records import Draft, HumanScore, SessionSummary, StoredSession

BUSY_TIMEOUT_MS = 30_000


@functools.cache
def _this_host() -> str:
    """The machine's name, as a running session records it (socket is imported on first use)."""
    import socket

    return socket.gethostname()


def now() -> str:
    """UTC timestamp with milliseconds; ISO 8601 so text order is time order."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def pid_alive(pid: int | None) -> bool:
    """Is a process with this id alive on this host? Zombies (killed, not yet reaped) are dead."""
    if not pid or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rsplit(")", 1)[-1].split()[:1] != ["Z"]


_STORAGE_PROBLEMS = {  # SQLite's primary result codes a user's machine causes, not our code
    sqlite3.SQLITE_FULL: "the disk is full",
    sqlite3.SQLITE_IOERR: "a disk I/O error (is the disk full or failing?)",
    sqlite3.SQLITE_READONLY: "it is read-only",
    sqlite3.SQLITE_CANTOPEN: "its files cannot be opened",
    sqlite3.SQLITE_BUSY: f"another process kept it locked for {BUSY_TIMEOUT_MS // 1000} s",
    sqlite3.SQLITE_LOCKED: f"another process kept it locked for {BUSY_TIMEOUT_MS // 1000} s",
    sqlite3.SQLITE_PERM: "no permission to write it",
}


def is_damage(exc: BaseException) -> bool:
    """Whether an error is SQLite finding the database file damaged (malformed pages, not a database)."""
    return isinstance(exc, sqlite3.DatabaseError) and \
        getattr(exc, "sqlite_errorcode", 0) & 0xFF in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB)


class Busy(Exception):
    """Another connection holds the database's write lock right now (Store.transaction(wait=False))."""


def storage_error(exc: sqlite3.Error, path: Path, doing: str = "write") -> StorageError | None:
    """The one-line StorageError for an SQLite failure the machine caused (full disk, read-only,
    I/O, a lock held too long), or None when it is not one (a bug: let it show)."""
    code = getattr(exc, "sqlite_errorcode", None)
    problem = _STORAGE_PROBLEMS.get(code & 0xFF) if isinstance(code, int) else None
    if problem is None:
        return None
    return StorageError(f"{path}: cannot {doing} the database: {problem}; nothing of this change was saved")


def _unwritable(path: Path) -> str | None:
    """Why this process cannot write the database file and the side files SQLite keeps beside it
    (-wal, -shm), or None. Checked up front: SQLite opens an unwritable file read-only without a
    word and fails only at the first write."""
    targets = [path] if path.exists() else []
    for side in (path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        targets.append(side if side.exists() else path.parent)
    for target in dict.fromkeys(targets):
        if not os.access(target, os.W_OK):
            try:
                if os.statvfs(target).f_flag & os.ST_RDONLY:
                    return "the file system is read-only"
            except OSError:
                pass
            what = "its folder" if target == path.parent else "the file" if target == path else target.name
            return f"no permission to write {what}"
    return None


def _create_private(path: Path) -> None:
    """A new database file readable by its owner only: it holds transcripts and people's ratings,
    and the default umask would let every user of the machine read them. SQLite gives its -wal
    and -shm files the database's own permissions. An existing file keeps the ones it has."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        pass
    except OSError as exc:
        raise UserError(f"{path}: cannot create the database ({exc.strerror})") from None


def _connect_read_only(path: Path) -> sqlite3.Connection:
    """A read-only connection that never writes a byte. A WAL database needs its -shm file, which
    a read-only file or folder may not let SQLite create; then the file is read as immutable,
    which is safe only when no -wal file holds changes not yet in the database."""
    uri = f"file:{quote(str(path.resolve()))}?mode=ro"
    conn = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False)
    try:
        conn.execute("select count(*) from sqlite_master").fetchone()
        return conn
    except sqlite3.OperationalError as exc:
        conn.close()
        wal = path.with_name(path.name + "-wal")
        if getattr(exc, "sqlite_errorcode", 0) & 0xFF not in (sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN):
            raise
        if wal.exists() and wal.stat().st_size > 0:
            raise StorageError(f"{path}: cannot read the database: it is read-only and its -wal file holds changes "
                               "not yet written into it; open it once where it can be written") from None
    return sqlite3.connect(uri + "&immutable=1", uri=True, check_same_thread=False)


PID_REUSE_MARGIN = 2.0
"""Seconds a process may seem to have started after a session's last write and still own it (the
kernel gives a start time to the hundredth of a second after a boot known to the second)."""


def _started_at(pid: int) -> float | None:
    """When process `pid` started (seconds since the epoch), from /proc; None where unknown."""
    try:
        ticks = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19])
        boot = next(int(line.split()[1]) for line in Path("/proc/stat").read_text().splitlines()
                    if line.startswith("btime "))
        return boot + ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, StopIteration):
        return None


ELSEWHERE_SILENCE = 3600.0
"""Seconds without a write after which a session marked running by another host counts as left
behind (a live run writes at least once per call deadline, ten minutes by default; a container's
host name changes with every container, so its crashed runs would otherwise wait for ever)."""


def _age(stamp: str) -> float:
    return datetime.now(timezone.utc).timestamp() - datetime.fromisoformat(stamp).timestamp()


def owner_alive(pid: int | None, host: str | None, written: str | None = None) -> bool:
    """Is the process that marked a session running still there? One on another host is taken to
    be (its pid means nothing here) until ELSEWHERE_SILENCE has passed since the session's last
    write (`written`, its updated_at); one on this host while its pid lives, unless the process with
    that pid started after that write: the owner died and its pid went to another process (this
    one, as PID 1 of a new container, or one after a reboot)."""
    if host and host != _this_host():
        return written is None or _age(written) < ELSEWHERE_SILENCE
    if not pid or not pid_alive(pid):
        return False
    started = _started_at(pid) if written else None
    return written is None or started is None or \
        started <= datetime.fromisoformat(written).timestamp() + PID_REUSE_MARGIN


def check_database_file(path: Path) -> None:
    """Refuse, without writing a byte, a file that is not SQLite, not ours, or from a newer version."""
    if not path.exists():
        return
    if path.is_dir():
        raise UserError(f"{path}: is a folder, not a database file")
    if path.stat().st_size == 0:
        return
    # Never open() the file from Python: closing any descriptor of it drops the POSIX
    # locks of every SQLite connection this process holds on it (then another process
    # may checkpoint and delete the WAL under them). SQLite itself tells a non-database.
    sidecars = [path.with_name(path.name + suffix) for suffix in ("-wal", "-shm")]
    existed = [p.exists() for p in sidecars]
    try:
        _check_schema(path)
    except UserError:
        _remove_new_sidecars(sidecars, existed)
        raise


def _remove_new_sidecars(sidecars: list[Path], existed: list[bool]) -> None:
    """A read-only look at a WAL database leaves empty -wal/-shm files; leave no trace when refusing
    (where the folder cannot be written, there is none to leave)."""
    wal, shm = sidecars
    if not any(existed) and (not wal.exists() or wal.stat().st_size == 0):
        for p in sidecars:
            if p.exists():
                with contextlib.suppress(OSError):
                    p.unlink()


def _check_schema(path: Path) -> None:
    try:
        conn = _connect_read_only(path)
        try:
            tables = {r[0] for r in conn.execute("select name from sqlite_master where type = 'table'")}
            applied = [r[0] for r in conn.execute("select name from _migrations")] if "_migrations" in tables else None
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        if "not a database" in str(exc):
            raise UserError(f"{path}: file is not a database (not SQLite); refusing to touch it") from None
        raise UserError(f"{path}: cannot be read as a database ({exc})") from None
    if applied is None:
        if tables:
            raise UserError(f"{path}: is an SQLite database but not a pingpong one; refusing to change it")
        return
    known = {fn.__name__ for fn in MIGRATIONS}
    unknown = [name for name in applied if name not in known]
    if unknown:
        raise UserError(
            f"{path}: written by a newer version of pingpong (unknown migrations: {', '.join(unknown)}); "
            "upgrade pingpong to open it"
        )


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _bool(value: Any) -> bool | None:
    return None if value is None else bool(value)


class Store:
    """pingpong's database. Open it, use it, close it (also a context manager)."""

    def __init__(self, path: Path | str, *, reading: bool = False):
        """reading: the caller only reads (listings, leaderboards, exports), so a database this
        process cannot write is opened read-only rather than refused; `read_only` then says so."""
        self.path = Path(path).expanduser()
        check_database_file(self.path)
        try:
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)  # a new folder: its owner's alone
        except OSError as exc:
            raise UserError(f"{self.path.parent}: cannot create the folder for the database ({exc.strerror})") from None
        unwritable = _unwritable(self.path)
        self.read_only = bool(unwritable) and reading and self.path.exists()
        if unwritable and not self.read_only:
            doing = "write" if self.path.exists() else "create"
            raise StorageError(f"{self.path}: cannot {doing} the database: {unwritable}")
        self._unwritable = unwritable
        try:
            if self.read_only:
                conn = _connect_read_only(self.path)
                conn.isolation_level = None
            else:
                _create_private(self.path)
                conn = sqlite3.connect(
                    str(self.path), isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False
                )
        except sqlite3.Error as exc:
            raise UserError(f"{self.path}: cannot open the database ({exc})") from None
        self._lock = threading.RLock()
        self._depth = 0
        try:
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            if not self.read_only:
                conn.execute("PRAGMA journal_mode = WAL")
                conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute("PRAGMA foreign_keys = ON")
            conn.execute("PRAGMA recursive_triggers = ON")  # as sqlite_utils sets it, whoever writes first
            self._conn = conn
            self._db: sqlite_utils.Database | None = None
            self._migrate()
        except sqlite3.DatabaseError as exc:
            conn.close()
            raise storage_error(exc, self.path, "open") or UserError(
                f"{self.path}: cannot use the database ({exc})") from None
        except UserError:
            conn.close()
            raise

    # -- plumbing -------------------------------------------------------------------------

    @property
    def unwritable(self) -> str | None:
        """Why this process cannot write the database, e.g. "no permission to write the file" (None: it can)."""
        return self._unwritable

    @property
    def db(self) -> sqlite_utils.Database:
        """sqlite_utils over the store's connection, made on first use (importing it costs start-up time)."""
        with self._lock:
            if self._db is None:
                import sqlite_utils

                self._db = sqlite_utils.Database(self._conn)
            return self._db

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @contextmanager
    def transaction(self, *, wait: bool = True) -> Iterator[sqlite_utils.Database]:
        """One write transaction (BEGIN IMMEDIATE ... COMMIT); nested uses join the outer one.

        sqlite_utils writes made inside it (insert, upsert, ...) become part of it. A full disk,
        a read-only file or an I/O error rolls the whole transaction back and raises StorageError.
        wait=False: raise Busy at once, instead of waiting, while another process writes.
        """
        with self.writing(wait=wait):
            yield self.db

    @contextmanager
    def writing(self, *, wait: bool = True) -> Iterator[sqlite3.Connection]:
        """transaction() on the bare connection, for writes through the store's own methods,
        which need no sqlite_utils: importing it (with numpy) on a run's first commit stalled
        every conversation for about 0.2 s."""
        with self._lock:
            if self._depth:
                self._depth += 1
                try:
                    yield self._conn
                finally:
                    self._depth -= 1
                return
            if self.read_only:
                raise StorageError(f"{self.path}: cannot write the database: {self._unwritable}")
            try:
                if wait:
                    self._conn.execute("BEGIN IMMEDIATE")
                else:
                    self._begin_now()
            except sqlite3.OperationalError as exc:
                raise storage_error(exc, self.path) or exc from None
            self._depth = 1
            try:
                yield self._conn
            except BaseException as exc:
                self._depth = 0
                self._rollback()
                if isinstance(exc, sqlite3.OperationalError):
                    raise storage_error(exc, self.path) or exc from None
                raise
            self._depth = 0
            try:
                self._conn.execute("COMMIT")
            except BaseException as exc:
                self._rollback()
                if isinstance(exc, sqlite3.OperationalError):
                    raise storage_error(exc, self.path) or exc from None
                raise

    def _begin_now(self) -> None:
        """BEGIN IMMEDIATE without SQLite's busy handler, which sleeps the whole thread (an
        event loop, in a run) between its tries: Busy if another connection holds the lock."""
        conn = self._conn
        conn.execute("PRAGMA busy_timeout = 0")
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            if exc.sqlite_errorcode == sqlite3.SQLITE_BUSY:
                raise Busy(str(self.path)) from None
            raise
        finally:
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")

    @contextmanager
    def savepoint(self) -> Iterator[None]:
        """Inside transaction(): what the block writes is undone alone if it raises, and the
        transaction goes on (several sessions' writes share one commit, see sessions/commits.py)."""
        assert self._depth, "savepoint() belongs inside transaction()"
        conn = self._conn
        conn.execute("SAVEPOINT part")
        try:
            yield
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK TO part")
                conn.execute("RELEASE part")
            raise
        conn.execute("RELEASE part")

    def _rollback(self) -> None:
        """Undo the open transaction, if SQLite has not already (it does after some I/O errors)."""
        if self._conn.in_transaction:
            with contextlib.suppress(sqlite3.OperationalError):
                self._conn.execute("ROLLBACK")

    def _rows(self, sql: str, params: Iterable[Any] | dict = ()) -> list[dict[str, Any]]:
        with self._lock:
            cur = self._conn.execute(sql, params if isinstance(params, dict) else tuple(params))
            cols = [d[0] for d in cur.description]
            return [dict(zip(cols, row)) for row in cur.fetchall()]

    def _pending_migrations(self) -> list[str]:
        """Migrations not yet recorded, read without a write lock (most opens find none)."""
        names = [fn.__name__ for fn in MIGRATIONS]
        has_table = self._conn.execute(
            "select 1 from sqlite_master where type = 'table' and name = '_migrations'").fetchone()
        if not has_table:
            return names
        done = {r[0] for r in self._conn.execute("select name from _migrations")}
        return [n for n in names if n not in done]

    def _migrate(self) -> None:
        """Apply every migration not yet recorded in _migrations, each in its own transaction.

        Opening an up-to-date database takes no write lock: a reader never waits for a writer."""
        pending = self._pending_migrations()
        if not pending:
            return
        if self.read_only:
            raise StorageError(f"{self.path}: cannot read the database: it needs {len(pending)} upgrade step(s) "
                               f"from this version of pingpong, and {self._unwritable}")
        with self.transaction() as db:
            db.execute(
                "create table if not exists _migrations (name text primary key, applied_at text not null)"
            )
        for fn in MIGRATIONS:
            with self.transaction() as db:
                done = db.execute("select 1 from _migrations where name = ?", [fn.__name__]).fetchone()
                if done:
                    continue
                fn(db)
                db.execute("insert into _migrations (name, applied_at) values (?, ?)", [fn.__name__, now()])

    def applied_migrations(self) -> list[str]:
        return [r["name"] for r in self._rows("select name from _migrations order by rowid")]

    # -- runs and sessions ----------------------------------------------------------------

    def run_id(self, name: str, config: dict | None = None) -> int:
        """The id of the run with this name, created (with its config) if it does not exist."""
        with self.writing() as db:
            row = db.execute("select id from runs where name = ?", [name]).fetchone()
            if row:
                return row[0]
            cur = db.execute(
                "insert into runs (name, created_at, config) values (?, ?, ?)",
                [name, now(), _json(config or {})],
            )
            return int(cur.lastrowid or 0)

    def set_run_config(self, run_id: int, config: dict) -> None:
        with self.writing() as db:
            db.execute("update runs set config = ? where id = ?", [_json(config), run_id])

    def create_session(
        self, spec: SessionSpec, character: Character, situation: Situation, run_id: int | None = None,
        *, status: str = "running", created_at: str | None = None,
        parent_session: int | None = None, fork_turn: int | None = None, cast: Sequence[Character] = (),
    ) -> int:
        """A new session row with snapshots of the card and situation (and of a group scene's member
        cards, ``cast``); status running, owned by us."""
        if spec.cast:
            have = {card.name for card in cast} | {character.name}
            missing = [c.character for c in spec.cast if c.character not in have]
            if missing:
                raise UserError(f"cast: no card for {', '.join(missing)}")
        from pingpong.sessions.records import STATUSES

        if status not in STATUSES:
            raise ValueError(f"unknown status {status!r}")
        stamp = created_at or now()
        row = {
            "run_id": run_id,
            "status": status,
            "method": spec.method,
            "version": 1 if spec.method == "pingpong-v1" else 2,
            "parent_session": parent_session,
            "fork_turn": fork_turn,
            "lang": spec.lang or character.lang,
            "character": spec.character,
            "situation": spec.situation,
            "player": spec.player,
            "interrogator": spec.interrogator,
            "judges": _json(list(spec.judges)),
            "num_turns": spec.num_turns or situation.num_turns,
            "character_snapshot": _json(character.model_dump(mode="json")),
            "situation_snapshot": _json(situation.model_dump(mode="json")),
            "cast_snapshot": _json([card.model_dump(mode="json") for card in cast]) if spec.cast else None,
            "spec": _json(spec.model_dump(mode="json")),
            "error": None,
            "pid": os.getpid() if status == "running" else None,
            "host": _this_host() if status == "running" else None,
            "created_at": stamp,
            "updated_at": stamp,
            "finished_at": stamp if status == "finished" else None,
        }
        cols = ", ".join(row)
        marks = ", ".join("?" for _ in row)
        with self.writing() as db:
            return int(db.execute(f"insert into sessions ({cols}) values ({marks})",
                                  list(row.values())).lastrowid or 0)

    def _require(self, db: sqlite3.Connection, session_id: int) -> tuple:
        row = db.execute("select status, pid, host from sessions where id = ?", [session_id]).fetchone()
        if row is None:
            raise UserError(f"session {session_id}: no such session")
        return row

    @staticmethod
    def _touch(db: sqlite3.Connection, session_id: int, stamp: str) -> None:
        """Mark the session written at `stamp`, before the rows that say what was written: one
        statement instead of a read that checks the session exists and an update after."""
        if db.execute("update sessions set updated_at = ? where id = ?", [stamp, session_id]).rowcount == 0:
            raise UserError(f"session {session_id}: no such session")

    def set_status(self, session_id: int, status: str, error: str | None = None) -> None:
        from pingpong.sessions.records import STATUSES

        if status not in STATUSES:
            raise ValueError(f"unknown status {status!r}")
        stamp = now()
        with self.writing() as db:
            self._require(db, session_id)
            db.execute(
                "update sessions set status = ?, error = ?, updated_at = ?,"
                " finished_at = case when ? = 'finished' then ? else finished_at end where id = ?",
                [status, error, stamp, status, stamp, session_id],
            )
            if status != "running":
                db.execute("delete from drafts where session_id = ?", [session_id])

    def claim(self, session_id: int) -> None:
        """This process now runs the session. UserError if finished or alive elsewhere."""
        with self.writing() as db:
            status, pid, host = self._require(db, session_id)
            if status == "finished":
                raise UserError(f"session {session_id}: already finished")
            if status == "running" and pid and pid != os.getpid():
                written = db.execute("select updated_at from sessions where id = ?", [session_id]).fetchone()[0]
                if owner_alive(pid, host, written):
                    where = f"on host {host}" if host and host != _this_host() else "in another process"
                    raise UserError(f"session {session_id}: running {where} (pid {pid})")
            db.execute(
                "update sessions set status = 'running', error = null, pid = ?, host = ?, updated_at = ?"
                " where id = ?",
                [os.getpid(), _this_host(), now(), session_id],
            )

    def lease_judges(self, session_id: int, judges: Sequence[str]) -> list[str]:
        """The judges this process may score the session with now, each held here until
        release_judges: those no other live process is scoring it with (`owner_alive`: another host's
        lease holds for ELSEWHERE_SILENCE, its process cannot be seen from here)."""
        me, host, stamp = os.getpid(), _this_host(), now()
        taken: list[str] = []
        with self.writing() as db:
            for judge in dict.fromkeys(judges):
                row = db.execute("select pid, host, started_at from judging where session_id = ? and judge = ?",
                                 [session_id, judge]).fetchone()
                if row is not None and (row[0], row[1]) != (me, host) and owner_alive(*row):
                    continue
                db.execute("insert or replace into judging (session_id, judge, pid, host, started_at)"
                           " values (?, ?, ?, ?, ?)", [session_id, judge, me, host, stamp])
                taken.append(judge)
        return taken

    def release_judges(self, session_id: int, judges: Sequence[str]) -> None:
        """End this process's leases of lease_judges."""
        if not judges:
            return
        with self.writing() as db:
            db.execute(f"delete from judging where session_id = ? and pid = ? and host = ?"
                       f" and judge in ({', '.join('?' * len(judges))})",
                       [session_id, os.getpid(), _this_host(), *judges])

    def mark_orphans_interrupted(self) -> int:
        """Sessions marked running whose process on this host is gone become interrupted
        (a read-only database is left as it is)."""
        if self.read_only:
            return 0
        with self.writing() as db:
            rows = db.execute("select id, pid, host, updated_at from sessions where status = 'running'").fetchall()
            orphans = [sid for sid, pid, host, written in rows if not owner_alive(pid, host, written)]
            stamp = now()
            for sid in orphans:
                db.execute(
                    "update sessions set status = 'interrupted', updated_at = ? where id = ?", [stamp, sid]
                )
            return len(orphans)

    # -- what happened --------------------------------------------------------------------

    def add_message(self, session_id: int, message: Message, *, created_at: str | None = None) -> None:
        """Store one completed message after the session's last (unique per turn, role and speaker)."""
        stamp = created_at or now()
        with self.writing() as db:
            self._touch(db, session_id, stamp)
            db.execute(
                "insert into messages (session_id, seq, turn, role, speaker, author, text, prompt_tokens,"
                " completion_tokens, tokens_estimated, latency_ms, attempt, created_at, notes)"
                " values (?, (select ifnull(max(seq), -1) + 1 from messages where session_id = ?),"
                " ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [session_id, session_id, message.turn, message.role, message.speaker, message.author,
                 message.text, message.prompt_tokens, message.completion_tokens, int(message.tokens_estimated),
                 message.latency_ms, message.attempt, stamp, _json(message.notes) if message.notes else None],
            )
            db.execute("delete from drafts where session_id = ?", [session_id])

    def save_draft(self, session_id: int, draft: Draft) -> None:
        """The message being streamed, so far (one row per session, replaced each time)."""
        with self.writing() as db:
            db.execute("insert or replace into drafts (session_id, turn, role, author, text, updated_at)"
                       " values (?, ?, ?, ?, ?, ?)",
                       [session_id, draft.turn, draft.role, draft.author, draft.text, now()])

    def draft(self, session_id: int) -> Draft | None:
        """What the session is streaming now, as last saved (None: nothing is being written)."""
        from pingpong.sessions.records import Draft

        rows = self._rows("select turn, role, author, text from drafts where session_id = ?", [session_id])
        return Draft(**rows[0]) if rows else None

    def set_message_notes(self, session_id: int, message: Message) -> None:
        """Replace the notes of a stored message (found by turn, role and speaker) with message's."""
        with self.writing() as db:
            self._touch(db, session_id, now())
            db.execute("update messages set notes = ? where session_id = ? and turn = ? and role = ?"
                       " and speaker is ?", [_json(message.notes) if message.notes else None, session_id,
                                             message.turn, message.role, message.speaker])

    def add_call(self, session_id: int, call: CallRecord) -> None:
        self.add_calls(session_id, [call])

    def add_calls(self, session_id: int, calls: Sequence[CallRecord], *, pair_score_id: int | None = None) -> None:
        """Log model calls made for a session (pair_score_id: for that pairwise verdict of it)."""
        stamp = now()
        with self.writing() as db:
            db.executemany(
                "insert into model_calls (session_id, role, model, turn, attempt, status, error,"
                " prompt_tokens, completion_tokens, tokens_estimated, latency_ms, created_at, pair_score_id)"
                " values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(session_id, call.role, call.model, call.turn, call.attempt, call.status, call.error,
                  call.prompt_tokens, call.completion_tokens, int(call.tokens_estimated),
                  call.latency_ms, stamp, pair_score_id) for call in calls],
            )

    def add_verdict(self, session_id: int, verdict: JudgeVerdict, *, created_at: str | None = None) -> None:
        """One row per scored (turn, metric). A judge's ok value is never rewritten; a failed one
        is replaced by the retry's result."""
        stamp = created_at or now()
        with self.writing() as db:
            self._touch(db, session_id, stamp)
            db.executemany(
                "insert into scores (session_id, turn, metric, value, scale, source, by, explanation,"
                " status, error, created_at) values (?, ?, ?, ?, ?, 'judge', ?, ?, ?, ?, ?)"
                " on conflict (session_id, by, ifnull(turn, 0), metric) where source = 'judge'"
                " do update set value = excluded.value, scale = excluded.scale,"
                " explanation = excluded.explanation, status = excluded.status, error = excluded.error,"
                " created_at = excluded.created_at where scores.status = 'failed'",
                [(session_id, s.turn, s.metric, s.value, s.scale, verdict.judge, s.explanation, s.status,
                  s.error, stamp) for s in verdict.scores],
            )

    def add_human_score(
        self, session_id: int, turn: int | None, metric: str, value: float | bool | str, author: str,
        reason: str | None = None, *, created_at: str | None = None,
    ) -> int:
        """Append a person's score for one player turn (or, turn None, the whole session); returns
        its id. The metric and scale come from the session's method; UserError on bad input."""
        from pingpong.core.domain import Character
        from pingpong.core.methods import get_method

        if not author or not str(author).strip():
            raise UserError("author: must not be empty")
        with self.writing() as db:
            self._require(db, session_id)
            method_name, snapshot = db.execute("select method, character_snapshot from sessions where id = ?",
                                               [session_id]).fetchone()
            method = get_method(method_name)
            scale = method.scale_of(metric)
            if scale is None:
                names = ", ".join(method.metrics)
                raise UserError(f"metric {metric!r}: {method_name} sessions are scored on {names}")
            card = Character.model_validate_json(snapshot)
            rated = method.rated_metrics(card)
            if metric not in rated:  # DMT: the card's role type decides which metrics apply
                raise UserError(f"metric {metric!r}: session {session_id} ({card.name}) is scored on {', '.join(rated)}")
            number = _on_scale(metric, value, scale)
            if turn is None and not db.execute(
                    "select 1 from messages where session_id = ? and role = 'assistant' limit 1", [session_id]).fetchone():
                raise UserError(f"session {session_id}: the player has not said anything yet to rate")
            if turn is None and method.people_rate == "rounds":  # no view reads a label of the whole dialogue
                raise UserError(f"session {session_id}: {method_name} sessions are labelled round by round; "
                                "give the round (--turn N)")
            if turn is not None:
                found = db.execute(
                    "select 1 from messages where session_id = ? and turn = ? and role = 'assistant'",
                    [session_id, turn],
                ).fetchone()
                if not found:
                    done = db.execute(
                        "select group_concat(turn, ', ') from (select distinct turn from messages"
                        " where session_id = ? and role = 'assistant' order by turn)", [session_id],
                    ).fetchone()[0]
                    raise UserError(
                        f"session {session_id}: turn {turn} has no player message"
                        f" (player turns: {done or 'none'})"
                    )
            if method.people_rate is None:  # scored by exact rules: a person corrects what the rule scored
                ruled = [m for (m,) in db.execute(
                    "select distinct metric from scores where session_id = ? and source = 'judge' and turn is ?"
                    " order by metric", [session_id, turn])]
                if metric not in ruled:
                    where = f"session {session_id}" + ("" if turn is None else f", turn {turn},")
                    raise UserError(f"metric {metric!r}: {where} was scored on {', '.join(ruled) or 'nothing'} "
                                    "by its rule; a person corrects one of those")
            cur = db.execute(
                "insert into scores (session_id, turn, metric, value, scale, source, by, explanation, status,"
                " created_at) values (?, ?, ?, ?, ?, 'human', ?, ?, 'ok', ?)",
                [session_id, turn, metric, number, scale, str(author).strip(), reason, created_at or now()],
            )
            return int(cur.lastrowid or 0)

    def add_pair_verdict(self, session_a: int, session_b: int, judge: str, shown: str, score: Score, *,
                         calls: Sequence[CallRecord] = (), created_at: str | None = None) -> None:
        """A judge's pairwise verdict for one order (``shown`` 'ab': session_a was shown first, 'ba': second);
        ``score.value`` is for session_a (1 better, 0 worse, 0.5 as good). An ok verdict is never
        rewritten; a failed one is replaced by the retry's result. ``calls`` (the judge's requests for it)
        are logged with the verdict, under the session shown first."""
        if not session_a < session_b:
            raise ValueError(f"a pair is stored smaller id first, got {session_a}, {session_b}")
        if shown not in ("ab", "ba"):
            raise ValueError(f"shown must be 'ab' or 'ba', got {shown!r}")
        stamp = created_at or now()
        with self.writing() as db:
            self._require(db, session_a)
            self._require(db, session_b)
            db.execute(
                "insert into pair_scores (session_a, session_b, shown, metric, value, scale, source, by, explanation,"
                " status, error, created_at) values (?, ?, ?, ?, ?, ?, 'judge', ?, ?, ?, ?, ?)"
                " on conflict (session_a, session_b, by, metric, shown) where source = 'judge'"
                " do update set value = excluded.value, scale = excluded.scale, explanation = excluded.explanation,"
                " status = excluded.status, error = excluded.error, created_at = excluded.created_at"
                " where pair_scores.status = 'failed'",
                [session_a, session_b, shown, score.metric, score.value, score.scale, judge, score.explanation,
                 score.status, score.error, stamp],
            )
            if calls:
                (verdict_id,) = db.execute(
                    "select id from pair_scores where session_a = ? and session_b = ? and by = ? and metric = ?"
                    " and shown = ? and source = 'judge'", [session_a, session_b, judge, score.metric, shown]).fetchone()
                self.add_calls(session_a if shown == "ab" else session_b, calls, pair_score_id=verdict_id)

    def add_pair_preference(self, session_id: int, other_id: int, value: float | str, author: str,
                            reason: str | None = None, *, created_at: str | None = None) -> int:
        """Append a person's preference between two sessions of the same character, situation and method;
        ``value`` is for ``session_id``: 1 better, 0 worse, 0.5 as good. Returns its id; UserError on bad input."""
        if not author or not str(author).strip():
            raise UserError("author: must not be empty")
        try:
            number = float(value)
        except (TypeError, ValueError):
            number = math.nan
        if number not in (0.0, 0.5, 1.0):
            raise UserError(f"{PAIRWISE}: value must be 1 (session {session_id} better), 0 (session {other_id} "
                            f"better) or 0.5 (as good), got {value!r}")
        if session_id == other_id:
            raise UserError(f"session {session_id}: a session is not compared with itself")
        with self.writing() as db:
            found = {row[0]: row[1:] for row in db.execute(
                "select id, method, character, situation, player from sessions where id in (?, ?)",
                [session_id, other_id])}
            for sid in (session_id, other_id):
                if sid not in found:
                    raise UserError(f"session {sid}: no such session")
            if found[session_id][:3] != found[other_id][:3]:
                raise UserError(f"sessions {session_id} and {other_id}: only sessions of the same method, "
                                "character and situation are compared")
            if found[session_id][3] == found[other_id][3]:  # no view compares a player with itself
                raise UserError(f"sessions {session_id} and {other_id}: both were played by "
                                f"'{found[session_id][3]}'; a preference is between two players")
            a, b = sorted((session_id, other_id))
            cur = db.execute(
                "insert into pair_scores (session_a, session_b, shown, metric, value, scale, source, by, explanation,"
                " status, created_at) values (?, ?, NULL, ?, ?, '0-1', 'human', ?, ?, 'ok', ?)",
                [a, b, PAIRWISE, number if a == session_id else 1.0 - number, str(author).strip(), reason,
                 created_at or now()],
            )
            return int(cur.lastrowid or 0)

    def set_seat(self, session_id: int, role: str, who: str) -> None:
        """Record who holds the "interrogator" or "player" seat from now on (a resume keeps it)."""
        if role not in ("interrogator", "player"):
            raise ValueError(f"seat must be 'interrogator' or 'player', not {role!r}")
        with self.writing() as db:
            db.execute("update sessions set seats = json_set(ifnull(seats, '{}'), ?, ?), updated_at = ?"
                       " where id = ?", [f"$.{role}", who, now(), session_id])

    def fork(self, session_id: int, turn: int, *, player: str | None = None,
             interrogator: str | None = None) -> int:
        """A new session holding the first ``turn`` turns of another (same text, same authors),
        ready to run on with the given seats; its scores start empty."""
        parent = self.session(session_id)
        done, planned = parent.turns_done, parent.num_turns
        if planned <= 1:
            raise UserError(f"session {session_id}: a session of one turn leaves nothing to fork; "
                            "run the new seats on its situation instead")
        if done >= planned and turn >= planned:  # the new seats would play nothing
            raise UserError(f"session {session_id}: a fork at turn {turn} of its {planned} would leave no turn to "
                            f"play; fork at turn {planned - 1} or before")
        if not 1 <= turn <= done:
            raise UserError(f"session {session_id}: --turn must be between 1 and {done} (its completed turns)")
        ended = next((m for m in parent.messages if m.turn <= turn and m.notes.get("stop") not in (None, "continue")),
                     None)
        if ended is not None:  # a DMT dialogue that ended there (its goal reached): nothing would be played
            raise UserError(f"session {session_id}: its dialogue ended at turn {ended.turn} ({ended.notes['stop']}); "
                            f"fork at turn {ended.turn - 1} or before" if ended.turn > 1 else
                            f"session {session_id}: its dialogue ended at turn 1; there is nothing to fork")
        changed = {k: v for k, v in (("player", player), ("interrogator", interrogator)) if v}
        seats = {k: v for k, v in parent.spec.seats.items() if k not in changed}
        # a fork is a new conversation: nothing of an imported file's entry describes it
        spec = type(parent.spec).model_validate(  # validated again: v1's judge follows a new tester
            {**parent.spec.model_dump(), **changed, "seats": seats, "origin": {}})
        with self.writing():
            new = self.create_session(spec, parent.character, parent.situation, parent.run_id,
                                      status="interrupted", parent_session=session_id, fork_turn=turn,
                                      cast=parent.cast)
            for m in parent.messages:
                if m.turn <= turn:
                    self.add_message(new, m)
        return new

    # -- reading back ---------------------------------------------------------------------

    def messages(self, session_id: int) -> list[Message]:
        from pingpong.core.domain import Message

        rows = self._rows(
            "select turn, role, speaker, author, text, prompt_tokens, completion_tokens, tokens_estimated,"
            " latency_ms, attempt, notes from messages where session_id = ? order by seq",
            [session_id],
        )
        for r in rows:
            r["tokens_estimated"] = bool(r["tokens_estimated"])
            r["attempt"] = r["attempt"] or 1
            r["notes"] = json.loads(r["notes"]) if r["notes"] else {}
        return [Message(**r) for r in rows]

    def verdicts(self, session_id: int) -> list[JudgeVerdict]:
        """One JudgeVerdict per judge (scores by turn, then as given), judges in the order they first scored."""
        from pingpong.core.domain import JudgeVerdict, Score

        rows = self._rows(
            "select by, turn, metric, value, scale, explanation, status, error from scores"
            " where session_id = ? and source = 'judge' order by id",
            [session_id],
        )
        by_judge: dict[str, list[Score]] = {}
        for r in rows:
            by_judge.setdefault(r.pop("by"), []).append(Score(**r))
        return [JudgeVerdict(judge=j, scores=sorted(s, key=lambda x: x.turn or 0)) for j, s in by_judge.items()]

    def human_scores(self, session_id: int) -> list[HumanScore]:
        from pingpong.sessions.records import HumanScore

        rows = self._rows(
            "select id, turn, metric, value, scale, by as author, explanation as reason, created_at from scores"
            " where session_id = ? and source = 'human' order by id",
            [session_id],
        )
        return [HumanScore(**r) for r in rows]

    def calls(self, session_id: int) -> list[CallRecord]:
        from pingpong.core.domain import CallRecord

        rows = self._rows(
            "select role, model, turn, attempt, status, error, prompt_tokens, completion_tokens,"
            " tokens_estimated, latency_ms from model_calls where session_id = ? order by id",
            [session_id],
        )
        for r in rows:
            r["tokens_estimated"] = bool(r["tokens_estimated"])
            r["attempt"] = r["attempt"] or 1
        return [CallRecord(**r) for r in rows]

    def session(self, session_id: int) -> StoredSession:
        from pingpong.core.domain import Character, SessionSpec, Situation
        from pingpong.sessions.records import StoredSession

        rows = self._rows(
            "select s.*, r.name as run_name from sessions s left join runs r on r.id = s.run_id"
            " where s.id = ?",
            [session_id],
        )
        if not rows:
            raise UserError(f"session {session_id}: no such session")
        r = rows[0]
        return StoredSession(
            id=r["id"], run=r["run_name"], run_id=r["run_id"], status=r["status"],
            spec=SessionSpec.model_validate_json(r["spec"]),
            character=Character.model_validate_json(r["character_snapshot"]),
            situation=Situation.model_validate_json(r["situation_snapshot"]),
            cast=[Character.model_validate(card) for card in json.loads(r["cast_snapshot"] or "[]")],
            messages=self.messages(session_id), verdicts=self.verdicts(session_id),
            human_scores=self.human_scores(session_id), seats=json.loads(r["seats"] or "{}"),
            parent_session=r["parent_session"],
            fork_turn=r["fork_turn"], error=r["error"], pid=r["pid"], host=r["host"],
            created_at=r["created_at"], updated_at=r["updated_at"], finished_at=r["finished_at"],
        )

    def stored_sessions(self, ids: Sequence[int], *, judges: Sequence[str] | None = None) -> list[StoredSession]:
        """These sessions as session() reads each (ids it does not hold are left out), in id order, in
        four reads however many: the exports load thousands. judges: only these judges' verdicts."""
        if not ids:
            return []
        from pingpong.core.domain import Character, JudgeVerdict, Message, Score, SessionSpec, Situation
        from pingpong.sessions.records import HumanScore, StoredSession

        within = "session_id IN (SELECT value FROM json_each(:ids))"
        params: dict[str, Any] = {"ids": json.dumps(sorted(set(ids))), "judges": json.dumps(list(judges or []))}
        messages: dict[int, list[Message]] = {}
        for r in self._rows(
                "select session_id, turn, role, speaker, author, text, prompt_tokens, completion_tokens,"
                f" tokens_estimated, latency_ms, attempt, notes from messages where {within}"
                " order by session_id, seq", params):
            r["tokens_estimated"] = bool(r["tokens_estimated"])
            r["attempt"] = r["attempt"] or 1
            r["notes"] = json.loads(r["notes"]) if r["notes"] else {}
            messages.setdefault(r.pop("session_id"), []).append(Message(**r))
        scored: dict[int, dict[str, list[Score]]] = {}  # judges in the order they first scored
        only = " and by IN (SELECT value FROM json_each(:judges))" if judges is not None else ""
        for r in self._rows("select session_id, by, turn, metric, value, scale, explanation, status, error"
                            f" from scores where {within} and source = 'judge'{only} order by session_id, id",
                            params):
            scored.setdefault(r.pop("session_id"), {}).setdefault(r.pop("by"), []).append(Score(**r))
        human: dict[int, list[HumanScore]] = {}
        for r in self._rows("select session_id, id, turn, metric, value, scale, by as author, explanation as reason,"
                            f" created_at from scores where {within} and source = 'human' order by session_id, id",
                            params):
            human.setdefault(r.pop("session_id"), []).append(HumanScore(**r))
        out = []
        for r in self._rows("select s.*, r.name as run_name from sessions s left join runs r on r.id = s.run_id"
                            " where s.id IN (SELECT value FROM json_each(:ids)) order by s.id", params):
            sid = r["id"]
            out.append(StoredSession(
                id=sid, run=r["run_name"], run_id=r["run_id"], status=r["status"],
                spec=SessionSpec.model_validate_json(r["spec"]),
                character=Character.model_validate_json(r["character_snapshot"]),
                situation=Situation.model_validate_json(r["situation_snapshot"]),
                cast=[Character.model_validate(card) for card in json.loads(r["cast_snapshot"] or "[]")],
                messages=messages.get(sid, []),
                verdicts=[JudgeVerdict(judge=j, scores=sorted(s, key=lambda x: x.turn or 0))
                          for j, s in scored.get(sid, {}).items()],
                human_scores=human.get(sid, []), seats=json.loads(r["seats"] or "{}"),
                parent_session=r["parent_session"],
                fork_turn=r["fork_turn"], error=r["error"], pid=r["pid"], host=r["host"],
                created_at=r["created_at"], updated_at=r["updated_at"], finished_at=r["finished_at"],
            ))
        return out

    def sessions(self, **filters: Any) -> list[SessionSummary]:
        """Sessions matching the filters of session_rows(), as SessionSummary models."""
        rows = self.session_rows(**filters)
        if not rows:  # an empty database: the models stay unimported
            return []
        from pingpong.sessions.records import SessionSummary

        return [SessionSummary(**r) for r in rows]

    def session_rows(
        self, *, status: str | None = None, run: str | int | None = None, limit: int | None = None,
        offset: int = 0, player: str | None = None, character: str | None = None,
        situation: str | None = None, method: str | None = None, newest_first: bool = False,
        ids: Sequence[int] | None = None,
    ) -> list[dict[str, Any]]:
        """Sessions matching the filters (run: a run name or id; ids: only these), oldest first unless
        newest_first, as plain dicts of SessionSummary's fields: the list screens' rows need no
        pydantic model."""
        where: list[str] = []
        params: list[object] = []
        for column, value in (("s.status", status), ("s.player", player), ("s.method", method),
                              ("s.character", character), ("s.situation", situation)):
            if value is not None:
                where.append(f"{column} = ?")
                params.append(value)
        if run is not None:
            where.append("s.run_id = ?" if isinstance(run, int) else "r.name = ?")
            params.append(run)
        if ids is not None:
            where.append("s.id IN (SELECT value FROM json_each(?))")
            params.append(json.dumps(sorted(ids)))
        sql = (
            "select s.id, s.status, s.character, s.situation, s.player, s.interrogator, s.judges,"
            " s.num_turns, s.lang, s.method, s.parent_session, s.fork_turn, s.created_at, s.updated_at,"
            " s.seats, r.name as run,"
            " (select count(*) from messages m where m.session_id = s.id and m.role = 'assistant') as turns,"
            " (select count(distinct ifnull(h.turn, 0)) from scores h where h.session_id = s.id"
            "  and h.source = 'human') as human_turns"
            " from sessions s left join runs r on r.id = s.run_id"
        )
        if where:
            sql += " where " + " and ".join(where)
        sql += " order by s.id desc" if newest_first else " order by s.id"
        if limit is not None or offset:
            sql += " limit ? offset ?"
            params += [-1 if limit is None else limit, offset]
        rows = self._rows(sql, params)
        if not rows:  # an empty database: numpy stays unimported
            return []
        from pingpong.core.vocabulary import SCRIPTED_AUTHORS
        from pingpong.sessions.scoring import session_finals

        with self._lock:
            finals = session_finals(self.conn, {r["id"]: r["method"] for r in rows})
            writers = queries.seat_writers(self.conn, [r["id"] for r in rows])
        for r in rows:
            now_seated = json.loads(r.pop("seats") or "{}").get("interrogator") or r["interrogator"]
            scripted = SCRIPTED_AUTHORS.get(r["method"], frozenset())   # a seed's or probe's own lines: no seat's
            r["interrogator_seat"] = seat_label([w for w in writers.get(r["id"], []) if w[0] not in scripted],
                                                now_seated, r["status"] != "finished")
            r["judges"] = json.loads(r["judges"] or "[]")
            final = finals.get(r["id"])
            r["final"] = final.to_json() if final else None
            r["final_text"] = final.text() if final else ""
        return rows

    def add_judge(self, session_id: int, judge: str) -> None:
        """Record one more judge in the session's judges list and spec (an import that merges files)."""
        with self.writing() as db:
            judges_json, spec_json = db.execute("select judges, spec from sessions where id = ?",
                                                [session_id]).fetchone()
            judges = json.loads(judges_json or "[]")
            if judge in judges:
                return
            judges.append(judge)
            spec = json.loads(spec_json)
            spec["judges"] = judges
            db.execute("update sessions set judges = ?, spec = ? where id = ?", [_json(judges), _json(spec), session_id])

    def add_setup(self, session_id: int, *, seats: dict[str, dict[str, Any]] | None = None,
                  entries: dict[str, dict[str, Any]] | None = None) -> None:
        """Add seats' set-ups (spec.seats) and judges' extra entry keys (spec.origin['entries']) the
        session does not hold yet; what is recorded first stays (a resume never rewrites it)."""
        seats = {k: v for k, v in (seats or {}).items() if v is not None}
        entries = {k: v for k, v in (entries or {}).items() if v}
        if not seats and not entries:
            return
        with self.writing() as db:
            row = db.execute("select spec from sessions where id = ?", [session_id]).fetchone()
            if row is None:
                raise UserError(f"session {session_id}: no such session")
            spec = json.loads(row[0])
            have = spec.setdefault("seats", {})
            known = spec.setdefault("origin", {}).setdefault("entries", {}) if entries else {}
            new_seats = {k: v for k, v in seats.items() if k not in have}
            new_entries = {k: v for k, v in entries.items() if k not in known}
            if not new_seats and not new_entries:
                return
            have.update(new_seats)
            known.update(new_entries)
            db.execute("update sessions set spec = ? where id = ?", [_json(spec), session_id])

    # -- rating queues ----------------------------------------------------------------------

    def annotation_queue(self, author: str, spec: dict[str, Any], draw: Callable[[], list[int]]) -> int:
        """The id of this person's queue for these options, drawn (with `draw`) and kept the first time."""
        key = _json(spec)
        with self.writing() as db:
            row = db.execute("select id from annotation_queues where author = ? and spec = ?", [author, key]).fetchone()
            if row:
                return int(row[0])
            qid = int(db.execute("insert into annotation_queues (author, spec, created_at) values (?, ?, ?)",
                                 [author, key, now()]).lastrowid or 0)
            db.executemany("insert into annotation_items (queue_id, position, session_id) values (?, ?, ?)",
                                [(qid, i, sid) for i, sid in enumerate(draw())])
            return qid

    def last_annotation_queue(self, author: str) -> int | None:
        """The person's queue rated most recently (else created most recently) that has items left."""
        with self._lock:
            row = self._conn.execute(
                "select q.id from annotation_queues q join annotation_items i on i.queue_id = q.id"
                " where q.author = ? group by q.id having sum(i.done_at is null) > 0"
                " order by max(ifnull(i.done_at, '')) desc, q.created_at desc, q.id desc limit 1", [author]).fetchone()
        return int(row[0]) if row else None

    def annotation_items(self, queue_id: int) -> list[tuple[int, int, str | None]]:
        """(position, session id, when the person saved it or None) of a queue, in order."""
        with self._lock:
            return [(r[0], r[1], r[2]) for r in self._conn.execute(
                "select position, session_id, done_at from annotation_items where queue_id = ? order by position",
                [queue_id])]

    def move_annotation_item_last(self, queue_id: int, position: int) -> None:
        """Put one item of a queue after all the others (a person skipped it for now)."""
        with self.writing() as db:
            db.execute("update annotation_items set position = (select max(position) + 1 from annotation_items"
                       " where queue_id = ?) where queue_id = ? and position = ? and position <"
                       " (select max(position) from annotation_items where queue_id = ?)",
                       [queue_id, queue_id, position, queue_id])

    def mark_annotated(self, queue_id: int, position: int) -> None:
        """The person saved their ratings of this item: the queue resumes after it."""
        with self.writing() as db:
            db.execute("update annotation_items set done_at = coalesce(done_at, ?) where queue_id = ? and position = ?",
                       [now(), queue_id, position])

    def insert_session_rows(self, session: dict[str, Any], run: dict[str, Any] | None,
                            children: dict[str, list[dict[str, Any]]]) -> int | None:
        """Insert an imported session with its messages, calls and scores as given (one transaction);
        None when a session with the same creation time, seats, card, situation, method and language exists."""
        with self.writing() as db:
            if self.find_session(session["created_at"], session["player"], session.get("interrogator"),
                                 session.get("character"), session.get("situation"), session.get("method"),
                                 session.get("lang")) is not None:
                return None
            run_id = None
            if run is not None:
                found = db.execute("select id from runs where name = ?", [run["name"]]).fetchone()
                run_id = found[0] if found else db.execute(
                    "insert into runs (name, created_at, config) values (?, ?, ?)",
                    [run["name"], run.get("created_at") or now(), _json(run.get("config") or {})]).lastrowid
            session = {**session, "run_id": run_id,
                       "version": 1 if session.get("method") == "pingpong-v1" else 2}
            sid = db.execute(f"insert into sessions ({', '.join(session)}) values ({', '.join('?' * len(session))})",
                             list(session.values())).lastrowid
            for table, rows in children.items():
                for seq, row in enumerate(rows):
                    row = {"session_id": sid, **row, **({"seq": seq} if table == "messages" else {})}
                    db.execute(f"insert into {table} ({', '.join(row)}) values ({', '.join('?' * len(row))})",
                               list(row.values()))
            return int(sid or 0)

    def set_parent(self, session_id: int, parent_id: int) -> None:
        """Link an imported fork to the session it came from (which may have come later in the file)."""
        with self.writing() as db:
            db.execute("update sessions set parent_session = ? where id = ?", [parent_id, session_id])

    def find_session(self, created_at: str, player: str, interrogator: str | None, character: str | None,
                     situation: str | None, method: str | None, lang: str | None) -> int | None:
        """The id of the session of that method and language created at that time with those seats,
        card and situation (what identifies a session across databases: ids change on import), None
        when there is none."""
        with self._lock:
            row = self._conn.execute(
                "select min(id) from sessions where created_at = ? and player = ? and interrogator is ?"
                " and character is ? and situation is ? and method is ? and lang is ?",
                [created_at, player, interrogator, character, situation, method, lang],
            ).fetchone()
        return None if row is None or row[0] is None else int(row[0])

    def insert_pair_row(self, session_a: int, session_b: int, row: dict[str, Any],
                        calls: Sequence[dict[str, Any]]) -> bool:
        """Insert an imported pairwise verdict as given (``row``: the pair_scores columns but the pair, value
        for session_a) with its judge's calls (model_calls columns but the session); False when it is
        stored already: a judge's ok verdict is never replaced (a failed one is, by an ok one), and a
        person's pick with the same author, value and time is not added twice."""
        if not session_a < session_b:
            raise ValueError(f"a pair is stored smaller id first, got {session_a}, {session_b}")
        cols = ("session_a", "session_b", *row)
        values = [session_a, session_b, *row.values()]
        with self.writing() as db:
            if row["source"] == "human":
                if db.execute("select 1 from pair_scores where session_a = ? and session_b = ? and source = 'human'"
                              " and by = ? and value is ? and created_at = ?",
                              [session_a, session_b, row["by"], row["value"], row["created_at"]]).fetchone():
                    return False
                found = db.execute(f"insert into pair_scores ({', '.join(cols)}) values ({', '.join('?' * len(cols))})"
                                   " returning id", values).fetchone()
            else:
                updates = ", ".join(f"{c} = excluded.{c}" for c in row if c not in ("source", "by", "metric", "shown"))
                found = db.execute(
                    f"insert into pair_scores ({', '.join(cols)}) values ({', '.join('?' * len(cols))})"
                    " on conflict (session_a, session_b, by, metric, shown) where source = 'judge'"
                    f" do update set {updates} where pair_scores.status = 'failed' and excluded.status = 'ok'"
                    " returning id", values).fetchone()
            if found is None:
                return False
            shown_first = session_b if row.get("shown") == "ba" else session_a
            for call in calls:
                call = {"session_id": shown_first, **call, "pair_score_id": found[0]}
                db.execute(f"insert into model_calls ({', '.join(call)}) values ({', '.join('?' * len(call))})",
                           list(call.values()))
            return True

    @property
    def conn(self) -> sqlite3.Connection:
        """The connection the typed queries (sessions.queries) read through."""
        return self._conn


def _on_scale(metric: str, value: float | bool | str, scale: str) -> float:
    """A person's value as stored, or UserError saying what the scale takes."""
    if scale == "good-bad":
        labels = {"good": 1.0, "bad": 0.0, "1": 1.0, "0": 0.0}
        key = str(value).strip().lower() if not isinstance(value, bool) else str(int(value))
        if key not in labels:
            raise UserError(f"{metric}: value must be good or bad, got {value!r}")
        return labels[key]
    if metric == "is_refusal":
        if isinstance(value, str):
            value = {"true": 1, "false": 0, "1": 1, "0": 0}.get(value.strip().lower(), value)
        if value not in (0, 1):  # True/False compare equal to 1/0
            raise UserError(f"is_refusal: value must be true or false (0 or 1), got {value!r}")
        return float(value)
    if scale == "0-1":
        try:
            number = float(value)
        except (TypeError, ValueError):
            number = math.nan
        if not 0 <= number <= 1:
            raise UserError(f"{metric}: value must be a number from 0 to 1, got {value!r}")
        return number
    lo, hi = (1, 5) if scale == "1-5" else (1, 10)
    try:
        number = float(value) if not isinstance(value, bool) else math.nan
    except (TypeError, ValueError):
        number = math.nan
    if not (number.is_integer() and lo <= number <= hi):
        raise UserError(f"{metric}: value must be an integer from {lo} to {hi}, got {value!r}")
    return number


__all__ = ["Store", "check_database_file", "pid_alive", "now"]
