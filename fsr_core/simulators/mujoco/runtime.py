"""Finding MuJoCo at run time: the lazy import and the reason it is missing.

MuJoCo chooses its OpenGL backend from ``MUJOCO_GL`` when it is first
imported: :func:`import_mujoco` chooses it first
(:mod:`fsr_core.mujoco_gl`, shared with the robot models' MJCF compiler).
"""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType
from typing import Final

from fsr_core.errors import AdapterUnavailableError
from fsr_core.mujoco_gl import default_gl_backend, select_gl_backend

__all__ = [
    "INSTALL_HINT",
    "SIMULATOR_NAME",
    "default_gl_backend",
    "import_mujoco",
    "mujoco_version",
    "select_gl_backend",
    "unavailable_reason",
]

SIMULATOR_NAME: Final = "mujoco"
INSTALL_HINT: Final = "pip install 'fsr-viewer[mujoco]'"


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
    select_gl_backend()
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
