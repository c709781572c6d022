"""Where Genesis runs for a replay, and what to install when it runs nowhere.

In this process when ``genesis`` and ``torch`` are installed here (the
``genesis`` extra); otherwise in the Python that ``FSR_VIEWER_GENESIS_PYTHON``
names, through the worker (:mod:`.worker`), like skelarm's child interpreter.
What Genesis needs is declared once, in :data:`STACK`; where it is, is
found by :mod:`fsr_core.simulation.side_runtime`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from fsr_core.simulation.side_runtime import SideStack, StackFound, where

__all__ = [
    "PYTHON_VARIABLE",
    "STACK",
    "Runtime",
    "find_runtime",
    "unavailable_reason",
]


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
        return f"genesis-world {self.genesis_version} {where(self.python)}"


STACK: Final = SideStack(
    variable="FSR_VIEWER_GENESIS_PYTHON",
    extra="genesis",
    modules=("genesis", "torch"),
    distributions=("genesis-world", "torch"),
    versioned=("genesis-world",),
    pip_line="pip install 'genesis-world>=1.4,<1.5' torch",
)
"""genesis-world and the torch it needs at run time without declaring it."""
PYTHON_VARIABLE: Final = STACK.variable


def _installed_here() -> str | None:
    """Return genesis-world's version when it and torch are installed here."""
    versions = STACK.installed_here()
    return versions[0] if versions else None


def find_runtime() -> Runtime | str:
    """Return where Genesis runs, or why it runs nowhere (naming the extra)."""
    here = _installed_here()
    found = STACK.find_other() if here is None else StackFound(None, (here,))
    return found if isinstance(found, str) else Runtime(found.python, *found.versions)


def unavailable_reason() -> str | None:
    """Return ``None`` when Genesis can run for a replay, else what to do."""
    found = find_runtime()
    return found if isinstance(found, str) else None
