"""Import a script of ``tools/`` as a module, for the tests that drive one.

``tests/`` is on ``sys.path`` (pytest puts the folder of ``tests/conftest.py``
there), so any test imports this as ``from tool_scripts import load_tool``.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

__all__ = ["TOOLS", "load_tool"]

#: The repository's ``tools/`` folder.
TOOLS = Path(__file__).resolve().parents[1] / "tools"


def load_tool(name: str, module_name: str | None = None) -> ModuleType:
    """Run ``tools/<name>.py`` as a new module and return it.

    The module is registered in ``sys.modules`` under ``module_name`` (the
    script's name by default) before it runs: dataclasses look their module
    up there.
    """
    spec = importlib.util.spec_from_file_location(
        module_name or name, TOOLS / f"{name}.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
