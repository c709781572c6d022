"""The dependency rule (docs/architecture.md), checked from outside the code.

import-linter (configured in pyproject.toml) checks the import statements; the
subprocess test checks what importing really loads, in a fresh interpreter, so a
dynamic import (``importlib.import_module``, a plugin hook) cannot slip past.

TODO(GUI issue): once ``app.window.state`` exists, add a second subprocess case that
imports ``fsr_core`` and ``app.window.state`` (and ``app.window.workers``) and
asserts that ``PySide6.QtWidgets``, ``PySide6.QtGui`` and ``pyqtgraph`` stay out of
``sys.modules``: those packages may use ``PySide6.QtCore`` only, a rule that
import-linter cannot express for submodules of an external package.
"""

import json
import subprocess
import sys
import sysconfig
from pathlib import Path

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


def _run_probe(forbidden: tuple[str, ...]) -> dict[str, list[str]]:
    completed = subprocess.run(
        [sys.executable, "-c", _PROBE, *forbidden],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    result: dict[str, list[str]] = json.loads(completed.stdout)
    return result


def test_importing_all_of_fsr_core_loads_no_qt_pyqtgraph_or_app() -> None:
    result = _run_probe(CORE_FORBIDDEN)

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
