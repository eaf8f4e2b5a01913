"""Dependencies point down only: core imports none of our other packages, nothing imports tui."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
OURS = {"core", "characters", "situations", "sessions", "tui"}
ALLOWED = {
    "core": set(),
    "characters": {"core"},
    "situations": {"core", "characters"},
    "sessions": {"core", "characters", "situations"},
    "tui": {"core", "characters", "situations", "sessions"},
}


def _layer(module: str) -> str:
    """'pingpong.core.engine' -> 'core'; a bare 'core' (not through the package) stays 'core!'."""
    parts = module.split(".")
    if parts[0] == "pingpong" and len(parts) > 1:
        return parts[1]
    return parts[0] + "!" if parts[0] in OURS else parts[0]


def _imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(_layer(a.name) for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(_layer(node.module))
    return found


@pytest.mark.parametrize("package", sorted(OURS))
def test_package_imports_point_down(package):
    bad = []
    for path in (ROOT / package).rglob("*.py"):
        for name in _imports(path) & OURS - {package} - ALLOWED[package]:
            bad.append(f"{path.relative_to(ROOT)} imports {name}")
    assert not bad, bad


def test_code_imports_our_layers_through_the_package():
    bare = [f"{p.relative_to(ROOT)}: {name}" for folder in (*OURS, "tests", "benchmarks")
            for p in (ROOT / folder).rglob("*.py") for name in _imports(p) if name.endswith("!")]
    assert not bare, bare


def test_core_never_imports_textual():
    offenders = [p for p in (ROOT / "core").rglob("*.py") if "textual" in _imports(p)]
    assert not offenders
