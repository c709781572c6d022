"""The optional packages a source reads with: whether they are here, and importing.

A source's ``unavailable_reason`` is :func:`missing_hint` of the modules it
needs, and its reader imports each with :func:`require_module`, so a missing
package is one line naming the extra to install, never an ``ImportError``.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType

from fsr_core.errors import SourceUnavailableError

__all__ = ["missing_hint", "require_module"]


def missing_hint(hint: str, *modules: str) -> str | None:
    """Return ``hint`` (what to install) if one of ``modules`` does not import."""
    try:
        for module in modules:
            importlib.import_module(module)
    except ImportError:
        return hint
    return None


def require_module(module: str, *, hint: str, doing: str, path: Path) -> ModuleType:
    """Return ``module`` imported, for ``doing`` (``"reading HDF5 datasets"``).

    Raises
    ------
    SourceUnavailableError
        It cannot be imported: "``doing`` needs ``hint``", naming ``path``.
    """
    try:
        return importlib.import_module(module)
    except ImportError:
        raise SourceUnavailableError(f"{doing} needs {hint}", path=path) from None
