"""Where Genesis runs for a replay, and what to install when it runs nowhere.

In this process when ``genesis`` and ``torch`` are installed here (the
``genesis`` extra); otherwise in the Python that ``FSR_VIEWER_GENESIS_PYTHON``
names, through the worker (:mod:`.worker`), like skelarm's child interpreter.
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

__all__ = [
    "INSTALL_HINT",
    "PYTHON_VARIABLE",
    "Runtime",
    "find_runtime",
    "unavailable_reason",
]

PYTHON_VARIABLE: Final = "FSR_VIEWER_GENESIS_PYTHON"
INSTALL_HINT: Final = "pip install 'fsr-viewer[genesis]'"
"""The extra that installs genesis-world (and the torch it needs)."""
_PROBE: Final = (
    "import importlib.metadata as m, importlib.util as u, json, sys\n"
    "def v(name):\n"
    "    try:\n"
    "        return m.version(name)\n"
    "    except m.PackageNotFoundError:\n"
    "        return None\n"
    "print(json.dumps({'genesis': v('genesis-world'), 'torch': v('torch'),\n"
    "    'python': '.'.join(map(str, sys.version_info[:3]))}))\n"
)
_PROBE_TIMEOUT_S: Final = 60.0


@dataclass(frozen=True)
class Runtime:
    """Where Genesis runs: this process (``python`` None) or another interpreter."""

    python: str | None
    genesis_version: str

    @property
    def in_process(self) -> bool:
        """Whether Genesis runs in this process."""
        return self.python is None

    def describe(self) -> str:
        """Say where, for notes: ``genesis-world 1.4.5 in this process``."""
        where = "in this process" if self.python is None else f"in {self.python}"
        return f"genesis-world {self.genesis_version} {where}"


def _installed_here() -> str | None:
    """Return genesis-world's version when it and torch are installed here."""
    for module in ("genesis", "torch"):
        spec = importlib.util.find_spec(module)
        # A folder of that name on sys.path is a namespace package with no
        # origin: only an installed package counts.
        if spec is None or spec.origin is None:
            return None
    try:
        return metadata.version("genesis-world")
    except metadata.PackageNotFoundError:
        return None


@functools.lru_cache(maxsize=8)
def _probe(python: str, stamp: tuple[int, int]) -> tuple[str | None, str]:
    """Return (genesis-world version or None, problem) of interpreter ``python``."""
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
        return None, f"{PYTHON_VARIABLE}={python} cannot be run ({exc})"
    try:
        found = json.loads(done.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return None, f"{PYTHON_VARIABLE}={python} did not answer like a Python"
    if not isinstance(found, dict) or not found.get("genesis"):
        return None, (
            f"{PYTHON_VARIABLE}={python} has no genesis-world: install it there "
            f"(pip install 'genesis-world>=1.4,<1.5' torch)"
        )
    if not found.get("torch"):
        return None, f"{PYTHON_VARIABLE}={python} has genesis-world but no torch"
    return str(found["genesis"]), ""


def find_runtime() -> Runtime | str:
    """Return where Genesis runs, or why it runs nowhere (naming the extra)."""
    here = _installed_here()
    if here is not None:
        return Runtime(None, here)
    python = os.environ.get(PYTHON_VARIABLE, "").strip()
    if not python:
        return (
            f"genesis-world is not installed: {INSTALL_HINT} (or set "
            f"{PYTHON_VARIABLE} to a Python that has it)"
        )
    path = Path(python)
    try:
        info = path.stat()
    except OSError:
        return f"{PYTHON_VARIABLE}={python} does not exist; {INSTALL_HINT}"
    if not os.access(path, os.X_OK) or path.is_dir():
        return f"{PYTHON_VARIABLE}={python} is not an executable Python"
    version, problem = _probe(str(path), (info.st_ino, int(info.st_mtime)))
    if version is None:
        return problem
    return Runtime(str(path), version)


def unavailable_reason() -> str | None:
    """Return ``None`` when Genesis can run for a replay, else what to do."""
    found = find_runtime()
    return found if isinstance(found, str) else None
