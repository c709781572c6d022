"""Where robosuite runs for a replay, and what to install when it runs nowhere.

In this process when ``robosuite`` and ``mujoco`` are installed here (the
``robosuite`` extra); otherwise in the Python that
``FSR_VIEWER_ROBOSUITE_PYTHON`` names, through the worker (:mod:`.worker`).
:data:`STACK` declares what that takes (its variable, extra and pip line;
the variable is :mod:`fsr_core.robots.robosuite_assets`'s, which asks the
same Python for robosuite's files); :mod:`fsr_core.simulation.side_runtime`
looks for it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from fsr_core.robots.robosuite_assets import PYTHON_VARIABLE
from fsr_core.simulation.side_runtime import SideStack, where

__all__ = [
    "STACK",
    "Runtime",
    "find_runtime",
    "unavailable_reason",
]


@dataclass(frozen=True)
class Runtime:
    """Where robosuite runs: this process (``python`` None) or another interpreter."""

    python: str | None
    robosuite_version: str
    mujoco_version: str

    def describe(self) -> str:
        """Say where, for notes: ``robosuite 1.5.2 (mujoco 3.3.7) in this process``."""
        return (
            f"robosuite {self.robosuite_version} (mujoco {self.mujoco_version}) "
            f"{where(self.python)}"
        )


STACK: Final = SideStack(
    variable=PYTHON_VARIABLE,
    extra="robosuite",
    modules=("robosuite", "mujoco", "h5py"),
    distributions=("robosuite", "mujoco", "h5py"),
    versioned=("robosuite", "mujoco"),
    pip_line="pip install 'robosuite==1.5.2' 'mujoco<3.4' h5py",
)
"""robosuite 1.5.2, the MuJoCo it runs on, and h5py for its episodes."""


def find_runtime() -> Runtime | str:
    """Return where robosuite runs, or why it runs nowhere (naming the extra)."""
    found = STACK.find()
    return found if isinstance(found, str) else Runtime(found.python, *found.versions)


def unavailable_reason() -> str | None:
    """Return ``None`` when robosuite can run for a replay, else what to do."""
    found = find_runtime()
    return found if isinstance(found, str) else None
