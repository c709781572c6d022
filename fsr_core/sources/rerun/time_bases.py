"""A Rerun recording's timelines offered as time bases.

Every timeline of the recording can place its rows on the play axis. The
default is the first timeline the logging code made (sequence or time, in
name order), then rerun's own ``log_tick`` and ``log_time``. A time or
duration timeline counts nanoseconds and plays in seconds; a sequence
timeline (a step counter) plays one step a second.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import numpy as np

from fsr_core.arrays import FloatArray
from fsr_core.errors import SchemaError

__all__ = ["BUILTIN_TIMELINES", "TimeBase", "choose_time_base"]

BUILTIN_TIMELINES: Final = ("log_tick", "log_time")
"""The timelines rerun-sdk adds to every row logged with ``rr.log``."""

_NS_PER_S: Final = 1e9


@dataclass(frozen=True)
class TimeBase:
    """The timeline that places every row, and how its values become seconds."""

    name: str
    kind: str
    """``sequence``, ``duration`` or ``time``."""
    origin: int
    """The smallest value on it: play time 0."""

    @property
    def seconds_per_unit(self) -> float:
        """Play seconds per unit of the timeline."""
        return 1.0 if self.kind == "sequence" else 1.0 / _NS_PER_S

    def play(self, values: np.ndarray) -> FloatArray:
        """Return play seconds of the timeline's ``values``."""
        shifted = values.astype(np.int64) - self.origin
        result: FloatArray = shifted.astype(np.float64) * self.seconds_per_unit
        return result

    def describe(self) -> str:
        """Say what the time base is, for people."""
        unit = "one step a second" if self.kind == "sequence" else "seconds"
        return f"timeline {self.name!r} ({self.kind}, {unit})"


def offered(kinds: dict[str, str]) -> list[str]:
    """Return the timelines in the order they are offered (default first)."""
    own = sorted(name for name in kinds if name not in BUILTIN_TIMELINES)
    return own + [name for name in BUILTIN_TIMELINES if name in kinds]


def choose_time_base(
    kinds: dict[str, str], wanted: str | None, origins: dict[str, int]
) -> TimeBase:
    """Return the time base ``wanted`` (``None``: the default).

    Raises
    ------
    SchemaError
        ``wanted`` is not one of the recording's timelines, or it has none.
    """
    names = offered(kinds)
    if not names:
        raise SchemaError("the recording has no timeline: nothing to play")
    name = names[0] if wanted is None else wanted
    if name not in kinds:
        raise SchemaError(
            f"--time-base {name[:80]!r}: the recording's timelines are "
            f"{', '.join(names)}"
        )
    return TimeBase(name, kinds[name], origins.get(name, 0))
