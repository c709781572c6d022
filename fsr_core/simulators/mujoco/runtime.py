"""Finding MuJoCo at run time: the lazy import and the reason it is missing.

MuJoCo chooses its OpenGL backend from ``MUJOCO_GL`` when it is first
imported. Offscreen rendering on a machine without a display or GPU works with
``egl`` (Mesa's EGL with the llvmpipe software driver) or ``osmesa``; when the
variable is unset, :func:`import_mujoco` picks ``egl`` when the system has
``libEGL`` (it also works with a display), else ``osmesa`` when it has
``libOSMesa`` (Debian: ``libosmesa6``), else leaves MuJoCo's own default.
"""

from __future__ import annotations

import ctypes.util
import importlib
import importlib.util
import os
from types import ModuleType
from typing import Final

from fsr_core.errors import AdapterUnavailableError

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
_GL_LIBRARIES: Final = (("egl", "EGL"), ("osmesa", "OSMesa"))


def unavailable_reason() -> str | None:
    """Return ``None`` when MuJoCo can be imported, else what to install."""
    if importlib.util.find_spec("mujoco") is None:
        return f"the MuJoCo Python package is not installed ({INSTALL_HINT})"
    return None


def default_gl_backend() -> str | None:
    """Return the offscreen OpenGL backend to use when ``MUJOCO_GL`` is unset.

    ``egl`` when the system has ``libEGL``, else ``osmesa`` when it has
    ``libOSMesa``, else ``None`` (MuJoCo's own choice, which needs a display).
    """
    for backend, library in _GL_LIBRARIES:
        if ctypes.util.find_library(library) is not None:
            return backend
    return None


def select_gl_backend() -> None:
    """Set ``MUJOCO_GL`` to :func:`default_gl_backend` unless it is already set.

    MuJoCo reads the variable once, when it is first imported, so call this
    before that import (:func:`import_mujoco` does).
    """
    if "MUJOCO_GL" not in os.environ:
        backend = default_gl_backend()
        if backend is not None:
            os.environ["MUJOCO_GL"] = backend


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
