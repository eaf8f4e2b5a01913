"""Installed, pingpong adds one import name to site-packages, and its data files come along."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_wheel_holds_only_the_pingpong_package_with_its_bundled_files(tmp_path):
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                            "-w", str(tmp_path), str(ROOT)], capture_output=True, text=True, timeout=300)
    assert build.returncode == 0, build.stderr
    (wheel,) = tmp_path.glob("pingpong-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    top = {n.split("/")[0] for n in names}
    assert {t for t in top if not t.endswith(".dist-info")} == {"pingpong"}
    for needed in ("pingpong/core/templates/judge_system.j2", "pingpong/tui/pingpong.tcss",
                   "pingpong/tui/report/templates/index.html.j2",
                   "pingpong/characters/bundled/tally.yaml", "pingpong/situations/bundled/dmt/tally-timetable.yaml"):
        assert needed in names or any(n.startswith(needed.rsplit("/", 1)[0] + "/") for n in names), needed
    assert "pingpong/characters/bundled/index.json" in names  # `cards list` reads the bundled cards from it
    assert any(n.startswith("pingpong/situations/bundled/probes/") for n in names)
    assert any(n.startswith("pingpong/situations/bundled/rolebench/") for n in names)
