"""MuJoCo's OpenGL backend, chosen before MuJoCo is first imported.

MuJoCo reads ``MUJOCO_GL`` once, when it is first imported, so whichever part
imports it first (a robot model compiled from MJCF, a MuJoCo recording's
cameras) calls :func:`select_gl_backend` before: a process that compiled a
robot first could otherwise never render offscreen afterwards. Offscreen
rendering without a display or GPU works with ``egl`` (Mesa's EGL with the
llvmpipe software driver) or ``osmesa``; when the variable is unset, ``egl``
is picked when the system has ``libEGL`` (it also works with a display),
else ``osmesa`` when it has ``libOSMesa`` (Debian: ``libosmesa6``), else
MuJoCo's own default.
"""

from __future__ import annotations

import ctypes.util
import os
from typing import Final

__all__ = ["default_gl_backend", "select_gl_backend"]

_GL_LIBRARIES: Final = (("egl", "EGL"), ("osmesa", "OSMesa"))


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

    Call it before the first ``import mujoco`` of the process.
    """
    if "MUJOCO_GL" not in os.environ:
        backend = default_gl_backend()
        if backend is not None:
            os.environ["MUJOCO_GL"] = backend
