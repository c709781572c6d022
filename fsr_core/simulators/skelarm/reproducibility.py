"""How faithfully skelarm can re-run a log, decided from the log alone.

skelarm's own reproducibility tiers (its ``rerun_log`` documentation):

- a headless ``run_scenario`` log re-runs **exactly** (every channel bit for
  bit) for the deterministic controllers;
- an MPC log re-runs **within a small tolerance** (``scipy.optimize``);
- a log recorded in an **interactive** simulator re-runs as the *unperturbed*
  scenario: mouse forces, friction changes and target switches are recorded
  but not replayed, and a run without a recorded duration takes the task's;
- a log **without an embedded configuration** cannot be re-run.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = [
    "NO_CONFIG",
    "RECORDED_INPUTS",
    "Reproducibility",
    "ResimulationPlan",
    "plan_resimulation",
]

NO_CONFIG = "cannot re-simulate: no embedded configuration (extra.source_config)"

RECORDED_INPUTS = (
    "the pushes (ext_force) and friction are added to the controller's torque as "
    "J(q)^T F - c dq and the active-target switches retarget the controller, each "
    "physics step, as skelarm's simulator applies them, over the recorded span "
    "(skelarm's rerun_log has no input for them, so skelarm's simulate_controlled "
    "runs it); q and dq follow the recording closely (exactly but for rounding "
    "when nothing changes within a recorded frame), and tau differs: it is logged "
    "at the start of each step, the simulator's at the end of each frame"
)
"""What a re-run with the recorded inputs replayed is."""

GUI_PRODUCER = "skelarm_simulator"
_INTERACTIVE_CHANNELS = ("ext_force", "friction", "active_target")


class Reproducibility(enum.Enum):
    """What a re-run gives compared with the recording."""

    EXACT = "exact"
    WITHIN_TOLERANCE = "within tolerance"
    UNPERTURBED = "unperturbed scenario"
    IMPOSSIBLE = "cannot re-simulate"


@dataclass(frozen=True)
class ResimulationPlan:
    """What a re-simulation of one log will be, said before it runs."""

    tier: Reproducibility
    refusal: str | None
    """Why it cannot run (``None`` when it can)."""
    notes: tuple[str, ...]
    recorded_force: bool
    """Whether the log has an ``ext_force`` channel: its recorded inputs (force,
    friction, target switches) can be replayed (``with_recorded_force``)."""

    def notes_for(self, with_recorded_force: bool) -> tuple[str, ...]:
        """Return what to tell the user before a run with or without the inputs."""
        if with_recorded_force and self.recorded_force:
            return (f"replaying the recorded inputs: {RECORDED_INPUTS}",)
        return self.notes


def _task_duration(config: Mapping[str, Any]) -> float | None:
    task = config.get("task")
    duration = task.get("duration", 2.0) if isinstance(task, Mapping) else None
    return float(duration) if isinstance(duration, int | float) else None


def _interactive_notes(
    meta: Mapping[str, Any], times: npt.NDArray[np.float64], force: bool
) -> list[str]:
    extra = meta.get("extra", {})
    run = extra.get("run") if isinstance(extra, Mapping) else None
    notes = [
        "recorded interactively in skelarm's simulator: skelarm re-runs it as the "
        "unperturbed scenario (its rerun_log replays no mouse forces, friction "
        "changes or target switches), so the re-run is not this recording"
    ]
    if not (isinstance(run, Mapping) and "duration" in run):
        config = extra.get("source_config", {}) if isinstance(extra, Mapping) else {}
        task_s = _task_duration(config) if isinstance(config, Mapping) else None
        span = float(times[-1] - times[0])
        notes.append(
            f"no recorded duration: the re-run lasts the task's {task_s} s, "
            f"the recording {span:.3f} s"
        )
    if force:
        notes.append(
            "its recorded inputs can be replayed instead (--with-recorded-inputs, "
            "with_recorded_force in the API): " + RECORDED_INPUTS
        )
    return notes


def plan_resimulation(
    meta: Mapping[str, Any], channels: Mapping[str, Any], times: Any
) -> ResimulationPlan:
    """Decide the tier of a log from its TOML metadata and channel names."""
    extra = meta.get("extra")
    config = extra.get("source_config") if isinstance(extra, Mapping) else None
    force = "ext_force" in channels
    if not isinstance(config, Mapping) or not config:
        return ResimulationPlan(
            Reproducibility.IMPOSSIBLE,
            NO_CONFIG + "; the log was recorded without one",
            (),
            force,
        )
    interactive = meta.get("producer") == GUI_PRODUCER or any(
        name in channels for name in _INTERACTIVE_CHANNELS
    )
    if interactive:
        notes = _interactive_notes(meta, np.asarray(times, np.float64), force)
        return ResimulationPlan(Reproducibility.UNPERTURBED, None, tuple(notes), force)
    controller = config.get("controller")
    kind = controller.get("type") if isinstance(controller, Mapping) else None
    if kind == "mpc":
        note = (
            "an MPC controller (scipy.optimize) re-runs within a small tolerance, "
            "not bit for bit"
        )
        return ResimulationPlan(Reproducibility.WITHIN_TOLERANCE, None, (note,), force)
    note = (
        "a headless scenario log: skelarm re-runs it exactly (bit for bit) on the "
        "same platform; another machine's BLAS kernels may change the last bits "
        "(compare shows errors near 1e-13 then)"
    )
    return ResimulationPlan(Reproducibility.EXACT, None, (note,), force)
