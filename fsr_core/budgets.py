"""Budgets: how much memory and work one file or one option may ask for.

A file or an option can claim any size; the code checks the claim against a
budget *before* it allocates or loops, and refuses with the numbers:
``needs 16.2 GiB of memory, budget 1 GiB (raise with FSR_VIEWER_MEMORY_BUDGET=17GiB)``.
Every budget has a documented default (docs/robustness.md, Budgets and limits)
and an environment variable that raises (or lowers) it for one run, so a user
with a big machine and a big, trusted file is never stuck.

The budgets are read from the environment each time they are checked, so a
test or a long-lived process can change them without restarting.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from fsr_core.errors import LimitExceededError

__all__ = [
    "BUDGETS",
    "EXPORT_FRAMES",
    "LIVE_DISK",
    "MEMORY",
    "Budget",
    "check_budget",
    "format_amount",
    "parse_amount",
]

_BINARY_UNITS: Final = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
_AMOUNT: Final = re.compile(
    r"^\s*([0-9]+(?:\.[0-9]*)?(?:e[0-9]+)?)\s*([kmgt]?)(i?b)?\s*$"
)


@dataclass(frozen=True)
class Budget:
    """One budget: its name, default, unit and the variable that overrides it."""

    name: str
    """What it bounds, in words: ``memory``, ``frames per export``."""
    variable: str
    """The environment variable that sets it for one run."""
    default: int
    in_bytes: bool
    """Whether amounts are bytes (shown as KiB/MiB/GiB) or plain counts."""
    unit: str
    """What is counted, after a number: ``of memory``, ``frames``."""

    def limit(self) -> int:
        """Return the budget in force: the variable's value, else the default.

        A variable that does not parse is ignored (the default holds), so a
        typo never lifts a budget.
        """
        text = os.environ.get(self.variable)
        if not text:
            return self.default
        try:
            return parse_amount(text)
        except ValueError:
            return self.default


MEMORY: Final = Budget(
    name="memory",
    variable="FSR_VIEWER_MEMORY_BUDGET",
    default=1 << 30,
    in_bytes=True,
    unit="of memory",
)
"""Memory one recording may need once decoded (arrays as the viewer holds them)."""

EXPORT_FRAMES: Final = Budget(
    name="frames per export",
    variable="FSR_VIEWER_EXPORT_FRAMES",
    default=1_000_000,
    in_bytes=False,
    unit="frames",
)
"""Frames one video export may draw (a million frames is 9 h at 30 fps)."""

LIVE_DISK: Final = Budget(
    name="live spill",
    variable="FSR_VIEWER_LIVE_DISK_BUDGET",
    default=16 << 30,
    in_bytes=True,
    unit="of disk",
)
"""Disk one array of a channel followed live may spill to (about 70 hours of a
1 kHz seven-column channel): its older rows live there, not in memory."""

BUDGETS: Final = (MEMORY, EXPORT_FRAMES, LIVE_DISK)
"""Every budget, for documentation and tests."""


def parse_amount(text: str) -> int:
    """Return the whole amount ``text`` gives: ``4GiB``, ``512M``, ``2e6``, ``1000``.

    Raises
    ------
    ValueError
        ``text`` is not a non-negative amount.
    """
    match = _AMOUNT.match(text.lower())
    if match is None:
        raise ValueError(f"not an amount: {text!r}")
    number = float(match.group(1)) * _BINARY_UNITS[match.group(2)]
    if not math.isfinite(number):
        raise ValueError(f"not an amount: {text!r}")
    return int(number)


def format_amount(amount: float, *, in_bytes: bool) -> str:
    """Return ``amount`` for people: ``16.2 GiB`` for bytes, ``1,200,000`` else."""
    if not in_bytes:
        return f"{amount:,.0f}"
    for unit, size in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20)):
        if amount >= size:
            return f"{amount / size:.1f} {unit}".replace(".0 ", " ")
    if amount >= 1 << 10:
        return f"{amount / (1 << 10):.1f} KiB".replace(".0 ", " ")
    return f"{amount:.0f} bytes"


def check_budget(
    budget: Budget,
    needed: float,
    what: str,
    *,
    path: str | os.PathLike[str] | None = None,
) -> None:
    """Refuse ``needed`` (of ``what``) when it exceeds ``budget``, with the numbers.

    Raises
    ------
    LimitExceededError
        ``needed`` is over the budget in force (or not a finite number); the
        message says how much, the budget, and the variable that raises it.
    """
    limit = budget.limit()
    if math.isfinite(needed) and needed <= limit:
        return
    if math.isfinite(needed):
        shown = format_amount(needed, in_bytes=budget.in_bytes)
        raise_to = _round_up(needed, in_bytes=budget.in_bytes)
    else:
        shown, raise_to = "an unbounded number", "a larger amount"
    raise LimitExceededError(
        f"{what} needs {shown} {budget.unit}, budget "
        f"{format_amount(limit, in_bytes=budget.in_bytes)}"
        f" (raise with {budget.variable}={raise_to})",
        path=Path(path) if path is not None else None,
    )


def _round_up(amount: float, *, in_bytes: bool) -> str:
    """Return a round amount at least ``amount``: ``17GiB``, ``40MiB``, ``3000000``."""
    if in_bytes:
        for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20)):
            if amount >= size:
                return f"{math.ceil(amount / size)}{unit}"
        return f"{math.ceil(amount / (1 << 10))}KiB"
    digits = max(len(str(int(amount))) - 2, 0)
    return str(math.ceil(amount / 10**digits) * 10**digits)
