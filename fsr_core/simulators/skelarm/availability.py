"""Whether skelarm runs here, and what to install when it does not.

skelarm (PyPI) needs Python >= 3.12. Its package is never imported into this
process: the adapter runs it in a child interpreter (:mod:`.worker`), so
skelarm's PyQt6 never meets the viewer's PySide6. Here we only look for it.
"""

from __future__ import annotations

import importlib.util
import sys

__all__ = ["INSTALL_HINT", "MIN_PYTHON", "unavailable_reason"]

MIN_PYTHON = (3, 12)
"""skelarm's own ``requires-python``."""
INSTALL_HINT = "pip install 'fsr-viewer[skelarm]'"
"""The extra that installs skelarm (on Python >= 3.12 only)."""


def unavailable_reason() -> str | None:
    """Return ``None`` when skelarm can run here, else what to do about it."""
    major, minor = sys.version_info[:2]
    if (major, minor) < MIN_PYTHON:
        here = f"{major}.{minor}"
        return (
            f"skelarm needs Python >= 3.12 and this is Python {here}: in a Python "
            f"3.12+ environment, {INSTALL_HINT}"
        )
    spec = importlib.util.find_spec("skelarm")
    # A folder named skelarm on sys.path (the tests' own, say) is a namespace
    # package with no origin: only an installed package counts.
    if spec is None or spec.origin is None:
        return f"skelarm is not installed: {INSTALL_HINT} (Python >= 3.12)"
    return None
