"""What a Python source file imports, read from its syntax tree without running it.

``tests/`` is on ``sys.path`` (pytest puts the folder of ``tests/conftest.py``
there), so any test imports this as ``from source_imports import imported_modules``.
"""

from __future__ import annotations

import ast
from pathlib import Path

__all__ = ["imported_modules"]


def imported_modules(path: Path) -> set[str]:
    """Return every dotted name the file at ``path`` imports.

    ``import a.b`` gives ``a.b``; ``from a.b import c`` gives both ``a.b`` and
    ``a.b.c``, since ``c`` may be a module (``from fsr_core import simulators``).
    """
    modules: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module is not None:
            modules.add(node.module)
            modules.update(f"{node.module}.{alias.name}" for alias in node.names)
    return modules
