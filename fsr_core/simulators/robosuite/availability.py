"""Where robosuite runs for a replay, and what to install when it runs nowhere.

In this process when ``robosuite`` and ``mujoco`` are installed here (the
``robosuite`` extra); otherwise in the Python that
``FSR_VIEWER_ROBOSUITE_PYTHON`` names, through the worker (:mod:`.worker`).
Neither is imported to find out: this process asks :mod:`importlib` for the
packages, the other Python is asked once (a short ``-c`` probe, remembered
per interpreter file) for the versions it has.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import subprocess
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Final

from fsr_core.robots.robosuite_assets import INSTALL_HINT, PYTHON_VARIABLE

__all__ = [
    "INSTALL_HINT",
    "PYTHON_VARIABLE",
    "Runtime",
    "find_runtime",
    "unavailable_reason",
]

_PROBE: Final = (
    "import importlib.metadata as m, json, sys\n"
    "def v(name):\n"
    "    try:\n"
    "        return m.version(name)\n"
    "    except m.PackageNotFoundError:\n"
    "        return None\n"
    "print(json.dumps({'robosuite': v('robosuite'), 'mujoco': v('mujoco'),\n"
    "    'h5py': v('h5py')}))\n"
)
_PROBE_TIMEOUT_S: Final = 60.0


@dataclass(frozen=True)
class Runtime:
    """Where robosuite runs: this process (``python`` None) or another interpreter."""

    python: str | None
    robosuite_version: str
    mujoco_version: str

    def describe(self) -> str:
        """Say where, for notes: ``robosuite 1.5.2 (mujoco 3.3.7) in this process``."""
        where = "in this process" if self.python is None else f"in {self.python}"
        return (
            f"robosuite {self.robosuite_version} (mujoco {self.mujoco_version}) {where}"
        )


def _version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def _installed_here() -> Runtime | None:
    """Return this process as the runtime when robosuite and mujoco are installed."""
    for module in ("robosuite", "mujoco", "h5py"):
        spec = importlib.util.find_spec(module)
        # A folder of that name on sys.path is a namespace package with no
        # origin: only an installed package counts.
        if spec is None or spec.origin is None:
            return None
    robosuite, mujoco = _version("robosuite"), _version("mujoco")
    if robosuite is None or mujoco is None:
        return None
    return Runtime(None, robosuite, mujoco)


@functools.lru_cache(maxsize=8)
def _probe(python: str, stamp: tuple[int, int]) -> Runtime | str:
    """Return the runtime of interpreter ``python``, or why it is none."""
    del stamp  # part of the cache key: a reinstalled interpreter is asked again
    try:
        done = subprocess.run(
            [python, "-c", _PROBE],
            capture_output=True,
            text=True,
            timeout=_PROBE_TIMEOUT_S,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return f"{PYTHON_VARIABLE}={python} cannot be run ({exc})"
    try:
        found = json.loads(done.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return f"{PYTHON_VARIABLE}={python} did not answer like a Python"
    if not isinstance(found, dict) or not found.get("robosuite"):
        return (
            f"{PYTHON_VARIABLE}={python} has no robosuite: install it there "
            "(pip install 'robosuite==1.5.2' 'mujoco<3.4' h5py)"
        )
    for needed in ("mujoco", "h5py"):
        if not found.get(needed):
            return f"{PYTHON_VARIABLE}={python} has robosuite but no {needed}"
    return Runtime(python, str(found["robosuite"]), str(found["mujoco"]))


def find_runtime() -> Runtime | str:
    """Return where robosuite runs, or why it runs nowhere (naming the extra)."""
    here = _installed_here()
    if here is not None:
        return here
    python = os.environ.get(PYTHON_VARIABLE, "").strip()
    if not python:
        return (
            f"robosuite is not installed: {INSTALL_HINT} (or set "
            f"{PYTHON_VARIABLE} to a Python that has it)"
        )
    path = Path(python)
    try:
        info = path.stat()
    except OSError:
        return f"{PYTHON_VARIABLE}={python} does not exist; {INSTALL_HINT}"
    if not os.access(path, os.X_OK) or path.is_dir():
        return f"{PYTHON_VARIABLE}={python} is not an executable Python"
    return _probe(str(path), (info.st_ino, int(info.st_mtime)))


def unavailable_reason() -> str | None:
    """Return ``None`` when robosuite can run for a replay, else what to do."""
    found = find_runtime()
    return found if isinstance(found, str) else None
