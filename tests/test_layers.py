"""The import graph points one way, like the data: API and workers above the read model (replays),
above the log and the rules.  A new upward import fails here, naming the file and the line."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# A package may import its own layer's packages or lower ones; service and workers are peers that
# never import each other (they meet in runtime/: settings, connections, the queue).
LAYER = {"engines": 0, "eventlog": 0, "replays": 1, "runtime": 2, "service": 3, "workers": 3, "streams": 3, "cli": 4,
         "bench": 4}
PEERS_APART = {frozenset({"service", "workers"})}


def imports(path: Path) -> list[tuple[int, str]]:
    """Every absolute import in the file, top-level or inside a function, with its line."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
    return found


def violations(package: str) -> list[str]:
    bad = []
    for path in sorted((ROOT / package).rglob("*.py")):
        for line, name in imports(path):
            target = name.split(".")[0]
            if target not in LAYER or target == package:
                continue
            if LAYER[target] > LAYER[package] or frozenset({package, target}) in PEERS_APART:
                bad.append(f"{path.relative_to(ROOT)}:{line} imports {name}")
    return bad


@pytest.mark.parametrize("package", sorted(LAYER))
def test_no_package_imports_a_layer_above_it(package: str) -> None:
    assert violations(package) == []


def test_engines_are_pure_of_the_platform() -> None:
    """Rules know nothing of the log: engines import no other package of ours."""
    assert [f"{p}:{n}" for p in (ROOT / "engines").rglob("*.py") for _, n in imports(p)
            if n.split(".")[0] in LAYER and n.split(".")[0] != "engines"] == []


def test_the_check_catches_an_upward_import(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A planted upward import (replays importing the service) is reported."""
    (tmp_path / "replays").mkdir()
    (tmp_path / "replays" / "planted.py").write_text("def f():\n    from service import api\n")
    monkeypatch.setattr(__import__(__name__, fromlist=["ROOT"]), "ROOT", tmp_path)
    assert violations("replays") == ["replays/planted.py:2 imports service"]
