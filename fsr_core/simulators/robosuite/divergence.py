"""How far a replayed episode's states are from the recorded ones, step by step.

After each replayed step the simulator's flattened state (time, qpos, qvel)
is compared with the recorded ``states`` row of the same index, bit for bit:
the step's error is the largest ``|replayed - recorded|`` of any component
(``inf`` where one side is NaN or the widths differ). :class:`StateDivergence`
keeps the first step that differs (its time, the component with the largest
error there), the largest error of the run and where it was, and says the
verdict in the words ``compare`` uses: ``EXACT`` or ``DIVERGES``.

A render compares too: the state each restore puts back against its row.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["Divergence", "StateDivergence"]


@dataclass(frozen=True)
class Divergence:
    """Where a replay first left its recording, or where it was furthest."""

    step: int
    time_s: float
    component: str
    error: float

    def to_json(self) -> dict[str, Any]:
        """Return it as JSON values (``inf`` as a string)."""
        error: float | str = self.error if math.isfinite(self.error) else "inf"
        return {
            "step": self.step,
            "time_s": self.time_s,
            "component": self.component,
            "max_abs_error": error,
        }


class StateDivergence:
    """The comparison of replayed states with the recorded ones.

    Parameters
    ----------
    mode
        ``resimulate`` or ``render``.
    names
        A name per state component (``time``, ``qpos.cube_joint0.z``...).
    recorded
        The recorded ``states`` rows.
    rate_hz
        Steps per second: step ``i`` is at ``i / rate_hz``.
    """

    def __init__(
        self,
        mode: str,
        names: Sequence[str],
        recorded: npt.NDArray[np.float64],
        rate_hz: float,
    ) -> None:
        self.mode = mode
        self.names = tuple(names)
        self.recorded = recorded
        self.rate_hz = rate_hz
        self.steps = 0
        self.first: Divergence | None = None
        self.worst: Divergence | None = None
        self.differing_steps = 0

    def _component(self, index: int) -> str:
        if 0 <= index < len(self.names):
            return self.names[index]
        return f"state[{index}]"

    def add(self, index: int, state: npt.NDArray[np.float64]) -> float:
        """Compare step ``index``'s ``state`` with its row; return the step's error."""
        self.steps += 1
        recorded = self.recorded[index]
        if state.shape != recorded.shape:
            error, at = math.inf, 0
        elif state.tobytes() == recorded.tobytes():
            return 0.0
        else:
            difference = np.abs(state - recorded)
            difference[np.isnan(difference)] = np.inf
            at = int(np.argmax(difference))
            error = float(difference[at])
            if error == 0.0:  # -0.0 against 0.0: equal values, other bits
                return 0.0
        self.differing_steps += 1
        found = Divergence(index, index / self.rate_hz, self._component(at), error)
        if self.first is None:
            self.first = found
        if self.worst is None or error > self.worst.error:
            self.worst = found
        return error

    @property
    def exact(self) -> bool:
        """Whether every compared step equals its recorded row bit for bit."""
        return self.steps > 0 and self.first is None

    def to_json(self) -> dict[str, Any]:
        """Return the verdict as JSON values (for metadata and provenance)."""
        return {
            "mode": self.mode,
            "verdict": "EXACT" if self.exact else "DIVERGES",
            "steps_compared": self.steps,
            "components": len(self.names),
            "bit_for_bit": self.exact,
            "differing_steps": self.differing_steps,
            "first_divergence": None if self.first is None else self.first.to_json(),
            "largest_error": None if self.worst is None else self.worst.to_json(),
        }

    def sentence(self) -> str:
        """Return the verdict in one line, ``EXACT: ...`` or ``DIVERGES at ...``."""
        what = "re-simulated" if self.mode == "resimulate" else "restored"
        compared = f"{self.steps} step(s), {len(self.names)} state components each"
        if self.steps == 0:
            return f"no step was {what}"
        first, worst = self.first, self.worst
        if first is None or worst is None:
            return (
                f"EXACT: every {what} state equals the recording bit for bit "
                f"({compared})"
            )
        return (
            f"DIVERGES at step {first.step} (t={first.time_s:.6g} s) in "
            f"{first.component}: error {first.error:.3g}; {self.differing_steps} "
            f"step(s) differ, largest error {worst.error:.3g} in {worst.component} "
            f"at step {worst.step} ({compared})"
        )
