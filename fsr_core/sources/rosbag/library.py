"""The ``rosbags`` library: whether it is here, and its version.

Every module of the ROS bag sources that needs ``rosbags`` calls
:func:`require_rosbags` first, so a missing package is one line that names
the extra to install, never an ``ImportError``.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Final

from fsr_core.errors import SourceUnavailableError
from fsr_core.sources.toolkit.optional_packages import missing_hint

__all__ = ["INSTALL_HINT", "require_rosbags", "rosbags_missing", "rosbags_version"]

INSTALL_HINT: Final = "the 'rosbags' package (pip install 'fsr-viewer[rosbag]')"


def rosbags_missing() -> str | None:
    """Return what to install when ``rosbags`` cannot be imported, else ``None``."""
    return missing_hint(
        INSTALL_HINT, "rosbags.rosbag1", "rosbags.rosbag2", "rosbags.typesys"
    )


def require_rosbags(path: Path) -> None:
    """Raise when ``rosbags`` is missing.

    Raises
    ------
    SourceUnavailableError
        The package is not installed; the message names the extra.
    """
    missing = rosbags_missing()
    if missing is not None:
        raise SourceUnavailableError(f"reading ROS bags needs {missing}", path=path)


@functools.cache
def rosbags_version() -> str:
    """Return the installed ``rosbags`` version (``""`` when unknown)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("rosbags")
    except PackageNotFoundError:
        return ""
