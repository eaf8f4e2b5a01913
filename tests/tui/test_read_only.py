"""The TUI on a database it cannot write: it opens read-only, says so in its title, lists, replays and
shows the leaderboard and the cards, and refuses every change with one message; not a byte is written.

The app runs in a child process under bound_by_permissions() (tests run as root, which ignores file
permissions otherwise), driven by Pilot there (read_only_pilot.py); Home's picture is compared here.
"""

from __future__ import annotations

import json
import stat
import sys

import pytest
from pytest_textual_snapshot import SVGImageExtension

from pingpong.sessions.store import Store
from tests.hardening.support import _child, bound_by_permissions, digest
from tests.tui.conftest import write_session

REFUSAL = "needs to write the database, which cannot be written here ({why}). Nothing was changed."


@pytest.fixture
def written(home):
    """One finished and one interrupted session, every change in the database file itself."""
    with Store(home.db_path) as store:
        write_session(store)
        write_session(store, status="interrupted", turns=1, planned=2)
    yield home.root
    for path in (home.root, *home.root.iterdir()):  # writable again, for the temporary folder's removal
        path.chmod(stat.S_IRWXU | stat.S_IRGRP | stat.S_IXGRP | stat.S_IROTH | stat.S_IXOTH)


def run_read_only(root, bundled) -> dict:
    given = {"home": str(root), "cards": str(bundled[0]), "situations": str(bundled[1])}
    done = _child([*bound_by_permissions(), sys.executable, "-m", "tests.tui.read_only_pilot"],
                  stdin=json.dumps(given), timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


@pytest.mark.parametrize(("what", "why"), [("file", "no permission to write the file"),
                                           ("folder", "no permission to write its folder")], ids=["file", "folder"])
def test_read_only_database_is_browsed_and_never_written(written, bundled, snapshot, what, why):
    (written / "pingpong.db").chmod(0o444) if what == "file" else written.chmod(0o555)
    before = digest(written)
    seen = run_read_only(written, bundled)

    assert snapshot.use_extension(SVGImageExtension) == seen["home_svg"]  # Home, its title saying read-only
    assert seen["title"] == "pingpong (read-only database)"
    assert sorted(seen["rows"]) == [1, 2]
    ((title, message),) = seen["started"]
    assert title == "Read-only database"
    assert message.startswith(f"{written / 'pingpong.db'}: {why}. Sessions, replays")
    assert seen["replay"] and seen["leaderboard"] and seen["characters"]
    doing = {"n": ("HomeScreen", "Starting a session"), "a": ("HomeScreen", "Opening the rating queue"),
             "r": ("HomeScreen", "Resuming a session"), "replay o": ("ReplayScreen", "Rating a turn"),
             "replay f": ("ReplayScreen", "Forking a session"),
             "cards s": ("CharactersScreen", "A spot-check session")}
    assert {key: tuple(value) for key, value in seen["refused"].items()} == {
        key: (where, f"{first} {REFUSAL.format(why=why)}") for key, (where, first) in doing.items()}

    after = digest(written)
    assert after["pingpong.db"] == before["pingpong.db"]
    # where the folder takes files, SQLite's reader leaves an empty -wal and its -shm index, as every reader does
    assert set(after) <= {"pingpong.db", "pingpong.db-wal", "pingpong.db-shm"}
    assert not (written / "pingpong.db-wal").exists() or (written / "pingpong.db-wal").stat().st_size == 0

