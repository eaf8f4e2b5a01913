"""What pingpong creates is its owner's alone: the database holds transcripts and ratings."""

from __future__ import annotations

import os
import stat

from pingpong.sessions.store import Store
from tests.hardening.support import cli


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_a_new_home_and_database_are_private_whatever_the_umask(tmp_path):
    old = os.umask(0o022)
    try:
        home = tmp_path / "home"
        result = cli("--home", str(home), "sessions", "list")
    finally:
        os.umask(old)
    assert result.rc == 0, result.err
    assert mode(home) == 0o700
    db = home / "pingpong.db"
    assert mode(db) == 0o600
    for side in (db.with_name("pingpong.db-wal"), db.with_name("pingpong.db-shm")):
        if side.exists():
            assert mode(side) == 0o600


def test_an_existing_database_keeps_its_permissions(tmp_path):
    db = tmp_path / "shared.db"
    Store(db).close()
    os.chmod(db, 0o640)
    store = Store(db)
    store.close()
    assert mode(db) == 0o640
