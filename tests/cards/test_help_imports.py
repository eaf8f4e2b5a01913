"""`pingpong --help` must stay light: it may not import the heavy libraries (checked, not timed)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from .builders import REPO

HEAVY = ("textual", "openai", "numpy", "scipy", "rich", "pydantic", "yaml", "jinja2", "sqlite_utils", "tiktoken")

PROBE = """
import json, sys
from pingpong.tui.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""


@pytest.mark.parametrize("argv", [["--help"], ["cards", "--help"], ["situations", "list", "--help"], ["run", "--help"]])
def test_help_imports_nothing_heavy(argv):
    done = subprocess.run([sys.executable, "-c", PROBE, *argv], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "usage: pingpong" in done.stdout
    loaded = {name.split(".")[0] for name in json.loads(done.stderr.splitlines()[-1])}
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))
