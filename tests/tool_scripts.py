"""Import a script of ``tools/`` as a module, and run its ``main``, for the tests.

``tests/`` is on ``sys.path`` (pytest puts the folder of ``tests/conftest.py``
there), so any test imports this as ``from tool_scripts import load_tool``.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import shutil
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    import pytest

__all__ = [
    "TOOLS",
    "ToolRun",
    "fake_free_disk",
    "import_tool",
    "load_tool",
    "run_main",
]

#: The repository's ``tools/`` folder.
TOOLS = Path(__file__).resolve().parents[1] / "tools"


def _tools_on_path() -> None:
    if str(TOOLS) not in sys.path:
        sys.path.append(str(TOOLS))


def import_tool(name: str) -> ModuleType:
    """Import the module ``tools/<name>.py`` by name, as the scripts import it.

    Unlike :func:`load_tool`, the module is run once per process: every
    importer (a script loaded by :func:`load_tool`, a test helper) shares it.
    """
    _tools_on_path()
    return importlib.import_module(name)


def load_tool(name: str, module_name: str | None = None) -> ModuleType:
    """Run ``tools/<name>.py`` as a new module and return it.

    The module is registered in ``sys.modules`` under ``module_name`` (the
    script's name by default) before it runs: dataclasses look their module
    up there. ``tools/`` goes on ``sys.path`` (last), as it is for a script
    run from there, so a script imports its sibling modules
    (``bench_common``, ``case_watchdog``) by name.
    """
    _tools_on_path()
    spec = importlib.util.spec_from_file_location(
        module_name or name, TOOLS / f"{name}.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


class ToolRun(NamedTuple):
    """What a script's ``main`` returned and printed."""

    code: int
    stdout: str

    @property
    def result(self) -> Any:
        """The printed output as JSON (a ``--json`` run)."""
        return json.loads(self.stdout)


def run_main(main: Callable[[Sequence[str]], int], argv: Sequence[str]) -> ToolRun:
    """Call ``main(argv)`` with stdout captured."""
    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout):
        code = main(argv)
    return ToolRun(code, stdout.getvalue())


class _DiskUsage(NamedTuple):
    total: int
    used: int
    free: int


def fake_free_disk(monkeypatch: pytest.MonkeyPatch, free_bytes: int) -> None:
    """Make ``shutil.disk_usage`` report ``free_bytes`` free for the test."""
    monkeypatch.setattr(shutil, "disk_usage", lambda _: _DiskUsage(1, 1, free_bytes))
