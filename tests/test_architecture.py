"""The dependency rules of docs/architecture.md, checked from outside the code.

import-linter (configured in pyproject.toml) checks the import statements; the
subprocess tests check what importing really loads, in a fresh interpreter, so a
dynamic import (``importlib.import_module``, a plugin hook) cannot slip past; the
cycle test walks every import the modules make, at the top or inside a function.
"""

import subprocess
import sysconfig
from collections.abc import Iterable, Mapping
from pathlib import Path

from python_probe import probe_json

REPO_ROOT = Path(__file__).resolve().parent.parent

CORE_FORBIDDEN = ("PySide6", "shiboken6", "pyqtgraph", "app")

# Runs in a fresh interpreter: imports fsr_core and every module below it, then
# reports every module it walked and every loaded module of a forbidden package.
_PROBE = """
import json, pkgutil, sys
import fsr_core

def _raise(name):
    raise ImportError(f"could not import {name}")

walked = ["fsr_core"]
for info in pkgutil.walk_packages(fsr_core.__path__, "fsr_core.", onerror=_raise):
    __import__(info.name)
    walked.append(info.name)
forbidden = tuple(sys.argv[1:])
loaded = sorted(
    name for name in sys.modules
    if any(name == top or name.startswith(top + ".") for top in forbidden)
)
print(json.dumps({"walked": walked, "loaded": loaded}))
"""


def test_importing_all_of_fsr_core_loads_no_qt_pyqtgraph_or_app() -> None:
    result = probe_json(_PROBE, *CORE_FORBIDDEN)

    assert "fsr_core.format" in result["walked"]
    assert result["loaded"] == []


def test_lint_imports_keeps_every_contract() -> None:
    lint_imports = Path(sysconfig.get_path("scripts")) / "lint-imports"

    completed = subprocess.run(
        [str(lint_imports), "--no-cache", "--no-logo"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "0 broken" in completed.stdout


def test_every_test_module_has_a_name_of_its_own() -> None:
    # The test folders are not packages: two modules with one basename make
    # pytest refuse to collect the whole suite.
    names: dict[str, list[str]] = {}
    for path in sorted((REPO_ROOT / "tests").rglob("test_*.py")):
        names.setdefault(path.name, []).append(str(path.relative_to(REPO_ROOT)))
    assert {name: paths for name, paths in names.items() if len(paths) > 1} == {}


# The window's models and jobs: QtCore only (views own widgets, QtGui and plots).
_QTCORE_ONLY_PROBE = """
import json, sys
import app.window.state, app.window.workers
print(json.dumps(sorted(
    name for name in sys.modules
    if name.startswith(("PySide6.QtWidgets", "PySide6.QtGui", "pyqtgraph"))
)))
"""


def test_window_state_and_workers_load_qtcore_only() -> None:
    assert probe_json(_QTCORE_ONLY_PROBE) == []


def _reach(edges: Mapping[str, Iterable[str]], start: str) -> set[str]:
    """Return every node a path of one or more edges leads to from ``start``."""
    seen: set[str] = set()
    todo = list(edges[start])
    while todo:
        node = todo.pop()
        if node not in seen:
            seen.add(node)
            todo.extend(edges[node])
    return seen


def _cycles(edges: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """Return each group of two or more nodes that reach one another."""
    reach = {node: _reach(edges, node) for node in edges}
    groups = {
        tuple(sorted(other for other in reach[node] if node in reach[other]))
        for node in edges
    }
    return sorted(list(group) for group in groups if len(group) > 1)


def test_cycle_finder_sees_a_cycle() -> None:
    edges = {"a": ["b"], "b": ["c"], "c": ["a"], "d": ["a"]}

    assert _cycles(edges) == [["a", "b", "c"]]


def test_no_import_cycle_between_modules_or_sibling_packages() -> None:
    import grimp

    graph = grimp.build_graph(
        "fsr_core", "app", "resources", exclude_type_checking_imports=True
    )
    modules = sorted(graph.modules)
    imports = {
        name: sorted(set(graph.find_modules_directly_imported_by(name)) & set(modules))
        for name in modules
    }
    problems = [f"modules: {group}" for group in _cycles(imports)]
    for package in (name for name in modules if graph.find_children(name)):
        prefix = package + "."
        children: dict[str, set[str]] = {
            child: set() for child in graph.find_children(package)
        }

        def child_of(name: str, prefix: str = prefix) -> str:
            return prefix + name[len(prefix) :].split(".")[0]

        for name in modules:
            if name.startswith(prefix):
                children[child_of(name)].update(
                    child_of(target)
                    for target in imports[name]
                    if target.startswith(prefix) and child_of(target) != child_of(name)
                )
        problems += [f"packages in {package}: {group}" for group in _cycles(children)]

    assert problems == []
