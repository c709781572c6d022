"""Finding MuJoCo at run time: the lazy import and the reason it is missing.

MuJoCo chooses its OpenGL backend from ``MUJOCO_GL`` when it is first
imported. Offscreen rendering on a machine without a display or GPU works with
``egl`` (Mesa's EGL with the llvmpipe software driver) or ``osmesa``; when the
variable is unset, :func:`import_mujoco` picks ``egl``, which also works with
a display. Set ``MUJOCO_GL=osmesa`` (Debian: ``libosmesa6``) where EGL is not
available.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
from types import ModuleType
from typing import Final

from fsr_core.errors import AdapterUnavailableError

__all__ = [
    "INSTALL_HINT",
    "SIMULATOR_NAME",
    "import_mujoco",
    "mujoco_version",
    "unavailable_reason",
]

SIMULATOR_NAME: Final = "mujoco"
INSTALL_HINT: Final = "pip install 'fsr-viewer[mujoco]'"
_DEFAULT_GL: Final = "egl"


def unavailable_reason() -> str | None:
    """Return ``None`` when MuJoCo can be imported, else what to install."""
    if importlib.util.find_spec("mujoco") is None:
        return f"the MuJoCo Python package is not installed ({INSTALL_HINT})"
    return None


def import_mujoco() -> ModuleType:
    """Import and return the ``mujoco`` module.

    Raises
    ------
    AdapterUnavailableError
        MuJoCo is not installed, or fails to load; the message names the extra.
    """
    reason = unavailable_reason()
    if reason is not None:
        raise AdapterUnavailableError(f"MuJoCo is unavailable: {reason}")
    os.environ.setdefault("MUJOCO_GL", _DEFAULT_GL)
    try:
        return importlib.import_module("mujoco")
    except (ImportError, OSError, AttributeError) as exc:
        raise AdapterUnavailableError(
            f"MuJoCo is installed but does not load ({exc}); reinstall it with "
            f"{INSTALL_HINT}, and for offscreen rendering install Mesa's EGL "
            "(libegl1 libegl-mesa0 libgl1-mesa-dri) or OSMesa (libosmesa6, "
            "with MUJOCO_GL=osmesa)"
        ) from exc


def mujoco_version() -> str:
    """Return the installed MuJoCo version (``"unknown"`` when missing)."""
    if unavailable_reason() is not None:
        return "unknown"
    return str(import_mujoco().__version__)
