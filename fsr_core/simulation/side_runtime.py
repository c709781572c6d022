"""Where a simulator's own stack runs: this process, or a Python of its own.

Genesis (with torch) and robosuite (with its older MuJoCo) run in this
process when their packages are installed here (their extra), else in the
interpreter an environment variable names, through the simulator's worker
(:mod:`fsr_core.simulation.side_runner`). Each simulator declares its stack
once, as a :class:`SideStack`; this module finds where it runs and says what
to install when it runs nowhere. Nothing is imported to find out: this
process asks :mod:`importlib` for the packages, the other Python is asked
once (a short ``-c`` probe, remembered per interpreter file) for the versions
it has.
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

from fsr_core.python_answer import answer_of

__all__ = ["SideStack", "StackFound", "where"]

_PROBE: Final = (
    "import importlib.metadata as m, json, sys\n"
    "def v(name):\n"
    "    try:\n"
    "        return m.version(name)\n"
    "    except m.PackageNotFoundError:\n"
    "        return None\n"
    "print(json.dumps({name: v(name) for name in sys.argv[1:]}))\n"
)
"""Prints the versions of the distributions named on its command line."""


def where(python: str | None) -> str:
    """Say where a stack runs, for notes: ``in this process`` or ``in PYTHON``."""
    return "in this process" if python is None else f"in {python}"


@dataclass(frozen=True)
class StackFound:
    """Where a stack runs (``python`` None: here) and the versions it reports."""

    python: str | None
    versions: tuple[str, ...]
    """The versions of :attr:`SideStack.versioned`, in that order."""


def _version(distribution: str) -> str | None:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


@dataclass(frozen=True)
class SideStack:
    """A simulator's third-party stack, and how to install it.

    Parameters
    ----------
    variable
        The environment variable naming a Python that has the stack.
    extra
        The project's extra that installs it here.
    modules
        The top-level modules that must import here.
    distributions
        The distributions the other Python must have, the stack's own first.
    versioned
        The distributions whose versions a runtime reports.
    pip_line
        The command that installs the stack in the other Python.
    """

    variable: str
    extra: str
    modules: tuple[str, ...]
    distributions: tuple[str, ...]
    versioned: tuple[str, ...]
    pip_line: str

    @property
    def package(self) -> str:
        """The stack's own distribution: ``genesis-world``."""
        return self.distributions[0]

    @property
    def install_hint(self) -> str:
        """``pip install 'fsr-viewer[EXTRA]'``."""
        return f"pip install 'fsr-viewer[{self.extra}]'"

    def installed_here(self) -> tuple[str, ...] | None:
        """Return the versions of :attr:`versioned` when the stack imports here."""
        for module in self.modules:
            spec = importlib.util.find_spec(module)
            # A folder of that name on sys.path is a namespace package with no
            # origin: only an installed package counts.
            if spec is None or spec.origin is None:
                return None
        versions = tuple(_version(name) for name in self.versioned)
        if any(version is None for version in versions):
            return None
        return tuple(str(version) for version in versions)

    def find(self) -> StackFound | str:
        """Return where the stack runs, or why it runs nowhere (naming the extra)."""
        here = self.installed_here()
        return self.find_other() if here is None else StackFound(None, here)

    def find_other(self) -> StackFound | str:
        """Return the Python :attr:`variable` names, or why it cannot run the stack."""
        python = os.environ.get(self.variable, "").strip()
        if not python:
            return (
                f"{self.package} is not installed: {self.install_hint} (or set "
                f"{self.variable} to a Python that has it)"
            )
        path = Path(python)
        try:
            info = path.stat()
        except OSError:
            return f"{self.variable}={python} does not exist; {self.install_hint}"
        if not os.access(path, os.X_OK) or path.is_dir():
            return f"{self.variable}={python} is not an executable Python"
        return _probe(self, str(path), (info.st_ino, int(info.st_mtime)))


@functools.lru_cache(maxsize=8)
def _probe(stack: SideStack, python: str, stamp: tuple[int, int]) -> StackFound | str:
    """Return where ``stack`` runs in interpreter ``python``, or why it does not."""
    del stamp  # part of the cache key: a reinstalled interpreter is asked again
    named = f"{stack.variable}={python}"
    try:
        answer = answer_of(python, _PROBE, stack.distributions)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"{named} cannot be run ({exc})"
    try:
        found = json.loads(answer)
    except ValueError:
        return f"{named} did not answer like a Python"
    if not isinstance(found, dict) or not found.get(stack.package):
        return f"{named} has no {stack.package}: install it there ({stack.pip_line})"
    for needed in stack.distributions[1:]:
        if not found.get(needed):
            return f"{named} has {stack.package} but no {needed}"
    return StackFound(python, tuple(str(found[name]) for name in stack.versioned))
