"""`core` must import without Textual (or our upper layers): the engine runs headless."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = r"""
import importlib, importlib.abc, pkgutil, sys

BLOCKED = ("textual", "sessions", "tui", "characters", "situations")

class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ImportError(f"core must not import {name}")
        return None

sys.meta_path.insert(0, Block())
import core
names = [m.name for m in pkgutil.walk_packages(core.__path__, "core.")]
for name in names:
    importlib.import_module(name)
leaked = sorted(n for n in sys.modules if n.split(".")[0] in BLOCKED)
assert not leaked, leaked
print(len(names), "modules:", " ".join(sorted(names)))
"""


def test_core_imports_without_textual_or_upper_layers():
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    listed = done.stdout.split()
    for module in ("core.engine", "core.prompts", "core.judging", "core.control", "core.seats",
                   "core.llm", "core.offline"):
        assert module in listed
