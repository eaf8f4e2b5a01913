"""Storage errors are user errors: a read-only database or folder and a full disk each give one
line saying what and where (exit 2; exit 1 once a run has started), nothing is half-written, and
the commands that only read keep working on a database they cannot write."""

from __future__ import annotations

import json
import shutil
import sqlite3
import stat

import pytest

from .support import (
    SEED_RUN,
    bound_by_permissions,
    can_mount_read_only,
    cli,
    cli_batch,
    digest,
    one_error,
    read_only_mount,
)

READS = [["sessions", "list", "--format", "json"], ["sessions", "show", "1", "--format", "json"],
         ["leaderboard", "--format", "json"], ["agreement", "--format", "json"], ["export", "--format", "jsonl"]]
SCORE = ["sessions", "score", "1", "--turn", "1", "--metric", "fluency", "--value", "3", "--reason", "x" * 20_000]


@pytest.fixture
def home(seeded, tmp_path):
    """A copy of the seeded home (one finished session, no side files) to make read-only or full."""
    root = tmp_path / "home"
    root.mkdir()
    shutil.copy2(seeded.root / "pingpong.db", root / "pingpong.db")
    yield root
    for path in (root, *root.iterdir()):  # writable again, so the temporary folder can be removed
        path.chmod(stat.S_IRWXU | stat.S_IRGRP | stat.S_IXGRP | stat.S_IROTH | stat.S_IXOTH)


@pytest.fixture
def good_jsonl(home, tmp_path):
    """The home's one session as JSONL, with another creation time so importing it would add it."""
    path = tmp_path / "one.jsonl"
    assert cli("export", "--format", "jsonl", "--out", str(path), "--home", str(home)).rc == 0
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["created_at"] = "2001-01-01T00:00:00.000+00:00"
    path.write_text(json.dumps(doc) + "\n", encoding="utf-8")
    return path


def _commands(home, good_jsonl) -> tuple[list[list[str]], list[list[str]]]:
    at = ["--home", str(home)]
    writes = [[*SCORE, *at], ["import", str(good_jsonl), *at], [*SEED_RUN, "--run", "again", *at]]
    return [[*r, *at] for r in READS], writes


def _check_reads_work(results) -> None:
    for result in results:
        assert result.rc == 0 and result.err.strip() in ("", "1 sessions written"), result.err
    sessions, shown, board, _, export = (r.out for r in results)
    assert [s["id"] for s in json.loads(sessions)] == [1] and json.loads(shown)["id"] == 1
    assert json.loads(board)[0]["player"] == "offline"
    assert json.loads(export.splitlines()[0])["player"] == "offline"


def _assert_not_written(home, before: dict[str, str]) -> None:
    """Not a byte of the database written. Where the folder takes files, SQLite's reader leaves an
    empty -wal and its -shm index beside the database, as every SQLite reader does."""
    after = digest(home)
    assert after["pingpong.db"] == before["pingpong.db"]
    assert set(after) <= {"pingpong.db", "pingpong.db-wal", "pingpong.db-shm"}
    assert not (home / "pingpong.db-wal").exists() or (home / "pingpong.db-wal").stat().st_size == 0


def _check_writes_refused(results, ending: str) -> None:
    for result in results:
        assert one_error(result).endswith(ending)


def test_a_read_only_database_file_serves_every_reading_command_and_refuses_writes(home, good_jsonl):
    (home / "pingpong.db").chmod(0o444)
    before = digest(home)
    reads, writes = _commands(home, good_jsonl)
    results = cli_batch(reads + writes, bound_by_permissions())
    _check_reads_work(results[: len(reads)])
    _check_writes_refused(results[len(reads):], "pingpong.db: cannot write the database: no permission to write the file")
    _assert_not_written(home, before)


def test_a_read_only_folder_serves_every_reading_command_and_refuses_writes(home, good_jsonl):
    home.chmod(0o555)
    before = digest(home)
    reads, writes = _commands(home, good_jsonl)
    results = cli_batch(reads + writes, bound_by_permissions())
    _check_reads_work(results[: len(reads)])
    _check_writes_refused(results[len(reads):], "pingpong.db: cannot write the database: no permission to write its folder")
    assert digest(home) == before


def test_no_database_in_a_read_only_folder_is_one_line(tmp_path):
    home = tmp_path / "empty-home"
    home.mkdir(mode=0o555)
    try:
        (result,) = cli_batch([["sessions", "list", "--home", str(home)]], bound_by_permissions())
    finally:
        home.chmod(0o755)
    assert one_error(result) == (f"pingpong: error: {home / 'pingpong.db'}: cannot create the database: "
                                 "no permission to write its folder")


def test_changes_left_in_the_wal_of_a_read_only_folder_are_not_silently_skipped(home):
    """A process that crashed left changes in the -wal file; read without them, the listing would lie."""
    writer = sqlite3.connect(home / "pingpong.db")
    writer.execute("PRAGMA wal_autocheckpoint = 0")
    with writer:
        writer.execute("UPDATE sessions SET player = 'renamed'")
    copy = home.parent / "copy"
    copy.mkdir()
    for name in ("pingpong.db", "pingpong.db-wal"):
        shutil.copy2(home / name, copy / name)
    writer.close()
    copy.chmod(0o555)
    try:
        (result,) = cli_batch([["sessions", "list", "--home", str(copy)]], bound_by_permissions())
    finally:
        copy.chmod(0o755)
    assert one_error(result) == (f"pingpong: error: {copy / 'pingpong.db'}: cannot read the database: it is "
                                 "read-only and its -wal file holds changes not yet written into it; open it "
                                 "once where it can be written")


needs_mount = pytest.mark.skipif(not can_mount_read_only(), reason="this machine allows no private mounts")


@needs_mount
@pytest.mark.parametrize("what", ["folder", "file"])
def test_on_a_read_only_file_system_reads_work_and_writes_are_one_line(home, good_jsonl, what):
    """The failure the probe found: `sessions list` died unlinking a -wal file that did not exist."""
    before = digest(home)
    reads, writes = _commands(home, good_jsonl)
    target = home if what == "folder" else home / "pingpong.db"
    results = cli_batch(reads + writes, read_only_mount(target))
    _check_reads_work(results[: len(reads)])
    _check_writes_refused(results[len(reads):], "pingpong.db: cannot write the database: the file system is read-only")
    _assert_not_written(home, before)


# -- a full disk: SQLite's max_page_count makes every write that needs a new page fail with
# SQLITE_FULL, exactly as a full disk does, through pingpong's own code paths -----------------

def room_for(pages: int) -> str:
    """Python code for a child process: every SQLite connection it opens may grow its database by
    at most `pages` pages."""
    return f"""
import sqlite3
_connect = sqlite3.connect
def _limited(*args, **kwargs):
    conn = _connect(*args, **kwargs)
    (count,) = conn.execute("PRAGMA page_count").fetchone()
    conn.execute(f"PRAGMA max_page_count = {{count + {pages}}}")
    return conn
sqlite3.connect = _limited
"""


@pytest.fixture
def packed(home):
    """The home with no free page left inside its database file."""
    conn = sqlite3.connect(home / "pingpong.db")
    conn.execute("VACUUM")
    conn.close()
    return home


FULL = "pingpong.db: cannot write the database: the disk is full; nothing of this change was saved"


def _run_pairs(home, run: str) -> list[tuple]:
    conn = sqlite3.connect(home / "pingpong.db")
    try:
        return conn.execute("SELECT s.character || '/' || s.situation, s.status, count(m.id) FROM sessions s"
                            " JOIN runs r ON r.id = s.run_id LEFT JOIN messages m ON m.session_id = s.id"
                            " WHERE r.name = ? GROUP BY s.id ORDER BY s.id", [run]).fetchall()
    finally:
        conn.close()


def test_a_full_disk_refuses_a_score_and_an_import_in_one_line_and_still_reads(packed, good_jsonl):
    before = digest(packed)
    at = ["--home", str(packed)]
    reads = [[*r, *at] for r in READS]
    results = cli_batch([[*SCORE, *at], ["import", str(good_jsonl), *at], *reads], prelude=room_for(0))
    _check_writes_refused(results[:2], FULL)
    _check_reads_work(results[2:])
    assert digest(packed) == before


def test_a_run_on_a_full_disk_stops_with_one_line_then_goes_on_when_there_is_room(packed):
    args = [*SEED_RUN, "--situations", "casual-greeting,casual-reactions", "--run", "full", "--home", str(packed)]
    (result,) = cli_batch([args], prelude=room_for(0))
    assert result.rc == 1 and "Traceback" not in result.err
    assert result.err_lines == [f"pingpong: error: {packed / FULL}; the run stopped there: run the same "
                                "command again to go on with run 'full'"]
    assert _run_pairs(packed, "full") == []  # nothing half-written
    again = cli(*args)
    assert again.rc == 0, again.err
    assert sorted((pair, status) for pair, status, _ in _run_pairs(packed, "full")) == [
        ("tally/casual-greeting", "finished"), ("tally/casual-reactions", "finished")]


def test_the_disk_filling_up_midway_through_a_run_loses_nothing_saved(packed):
    """Room for a few pages: the run stops partway, what it saved is kept and resumed, never redone."""
    args = [*SEED_RUN[:-2], "--run", "midway", "--home", str(packed)]
    (result,) = cli_batch([args], prelude=room_for(40))
    assert result.rc == 1 and result.err_lines[-1].startswith(f"pingpong: error: {packed / FULL}")
    saved = _run_pairs(packed, "midway")
    assert any(status == "finished" for _, status, _ in saved)
    assert any(status != "finished" and n for _, status, n in saved)  # stopped mid-conversation
    assert all(status != "failed" for _, status, _ in saved)  # a full disk is not the conversation's fault
    assert cli(*args).rc == 0
    after = _run_pairs(packed, "midway")
    resumed = after[: len(saved)]  # the same sessions, resumed in place with what they had kept
    assert [(pair, status) for pair, status, _ in resumed] == [(pair, "finished") for pair, _, _ in saved]
    assert all(n_after >= n for (_, _, n_after), (_, _, n) in zip(resumed, saved))
    assert sorted(pair for pair, _, _ in after) == sorted({pair for pair, _, _ in after})  # once each
    assert {status for _, status, _ in after} == {"finished"}


def test_resuming_a_session_on_a_full_disk_stops_with_one_line_and_can_go_on_later(packed, good_jsonl):
    doc = json.loads(good_jsonl.read_text(encoding="utf-8"))
    doc["status"] = "interrupted"
    doc["messages"] = doc["messages"][:1]  # the player's first reply is still to come
    doc["scores"] = []
    good_jsonl.write_text(json.dumps(doc) + "\n", encoding="utf-8")
    at = ["--home", str(packed)]
    assert cli("import", str(good_jsonl), *at).rc == 0
    conn = sqlite3.connect(packed / "pingpong.db")  # small pages: the next message needs a new one
    for pragma in ("journal_mode = DELETE", "page_size = 512", "journal_mode = WAL"):
        conn.execute(f"PRAGMA {pragma}")
        if pragma.startswith("page_size"):
            conn.execute("VACUUM")
    conn.close()
    (result,) = cli_batch([["sessions", "resume", "2", *at]], prelude=room_for(0))
    assert result.rc == 1 and "Traceback" not in result.err
    assert result.err_lines == [f"pingpong: error: {packed / FULL}; the session stopped there: run "
                                "`pingpong sessions resume 2` to go on"]
    assert cli("sessions", "resume", "2", *at).rc == 0
    assert _run_pairs(packed, "offline-vs-offline-judged-by-offline-en")[-1][1:] == ("finished", 4)


def test_a_full_disk_still_lists_and_shows_sessions_a_dead_process_left_running(home):
    """`sessions list` and `show` first mark the sessions of dead processes interrupted; on a full disk
    that write failed and they showed nothing at all, when the user most needs to see the sessions."""
    conn = sqlite3.connect(home / "pingpong.db")
    conn.execute("UPDATE sessions SET status = 'running', pid = 999999999, host = ? WHERE id = 1",
                 [__import__("socket").gethostname()])
    conn.commit()
    conn.execute("VACUUM")
    conn.close()
    at = ["--home", str(home)]
    listed, shown = cli_batch([["sessions", "list", "--format", "json", *at], ["sessions", "show", "1", *at]],
                              prelude=room_for(0))
    assert listed.rc == 0 and shown.rc == 0, (listed.err, shown.err)
    assert [row["status"] for row in json.loads(listed.out)] == ["running"]  # shown as stored: it cannot be saved


def test_a_database_damaged_inside_is_one_line_and_an_export_leaves_no_cut_off_file(home, tmp_path):
    """Pages broken past the ones SQLite reads on opening gave a traceback called "a bug in pingpong"
    (exit 1), and `export --out` left an empty file behind."""
    conn = sqlite3.connect(home / "pingpong.db")
    root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'messages'").fetchone()[0]
    page = conn.execute("PRAGMA page_size").fetchone()[0]
    conn.close()
    with open(home / "pingpong.db", "r+b") as fh:  # the messages table's first page, header left intact
        fh.seek((root - 1) * page)
        fh.write(b"\xff" * page)
    out = tmp_path / "all.jsonl"
    result = cli("export", "--format", "jsonl", "--out", str(out), "--home", str(home))
    line = one_error(result)
    assert "pingpong.db: the database file is damaged (database disk image is malformed)" in line and ".recover" in line
    assert not out.exists() and list(tmp_path.glob(".all.jsonl*")) == []
