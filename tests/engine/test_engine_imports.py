"""`core` must import without Textual (or our upper layers): the engine runs headless."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = r"""
import importlib, importlib.abc, pkgutil, sys

BLOCKED = ("textual", "sqlite3", "sqlite_utils", "pingpong.sessions", "pingpong.tui",
           "pingpong.characters", "pingpong.situations")

def blocked(name):
    return any(name == b or name.startswith(b + ".") for b in BLOCKED)

class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if blocked(name):
            raise ImportError(f"core must not import {name}")
        return None

sys.meta_path.insert(0, Block())
import pingpong.core
names = [m.name for m in pkgutil.walk_packages(pingpong.core.__path__, "pingpong.core.")]
for name in names:
    importlib.import_module(name)
leaked = sorted(n for n in sys.modules if blocked(n))
assert not leaked, leaked
print(len(names), "modules:", " ".join(sorted(names)))
"""


def test_core_imports_without_textual_or_upper_layers():
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    listed = done.stdout.split()
    for module in ("pingpong.core.engine", "pingpong.core.prompts", "pingpong.core.judging", "pingpong.core.control", "pingpong.core.seats",
                   "pingpong.core.llm", "pingpong.core.offline"):
        assert module in listed
