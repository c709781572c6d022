"""Reaching tasks: bring the tip to one target, or to a scripted series of them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from fsr_core.arrays import FloatArray
from fsr_core.simulators.planar_arm.model import ArmModel
from fsr_core.simulators.planar_arm.tasks._checks import (
    XY,
    check_index,
    check_number,
    check_positive,
    check_time,
    check_xy,
    check_xy_list,
    fail,
    overlay,
)
from fsr_core.simulators.planar_arm.tasks.base import TaskJson

__all__ = ["MultiTargetTask", "ReachTask"]


@dataclass(frozen=True)
class ReachTask(TaskJson):
    """Bring the tip to one target and keep it there.

    Parameters
    ----------
    target_xy
        Target position, plane coordinates, metres.
    tolerance_m
        Distance from the target within which it counts as reached.
    label
        Name shown next to the target.

    Raises
    ------
    SchemaError
        A value is not finite, the tolerance not positive or the label empty.
    """

    kind: ClassVar[str] = "reach"
    required_keys: ClassVar[tuple[str, ...]] = ("target_xy",)
    optional_keys: ClassVar[tuple[str, ...]] = ("tolerance_m", "label")

    target_xy: XY
    tolerance_m: float = 0.02
    label: str = "target"

    def __post_init__(self) -> None:
        """Check the values and store plain floats."""
        object.__setattr__(self, "target_xy", check_xy(self.target_xy, "target_xy"))
        object.__setattr__(
            self, "tolerance_m", check_positive(self.tolerance_m, "tolerance_m")
        )
        if not isinstance(self.label, str) or not self.label:
            raise fail(f"label must be a non-empty string, found {self.label!r}")

    def tip_reference(self, t_s: float) -> FloatArray:
        """Return the target (the reference at every time), shape ``(2,)``."""
        check_time(t_s)
        return np.array(self.target_xy)

    def active_target(self, t_s: float) -> int | None:
        """Return 0: the single target is always active."""
        check_time(t_s)
        return 0

    def overlay_json(self, model: ArmModel) -> dict[str, Any]:
        """Return the overlay object (see the package docstring)."""
        return overlay(
            self.kind,
            targets=[(self.label, self.target_xy, self.tolerance_m)],
            active_index=0,
        )

    @classmethod
    def _from_fields(cls, fields: Mapping[str, Any]) -> ReachTask:
        return cls(
            target_xy=check_xy(fields["target_xy"], "target_xy"),
            tolerance_m=fields.get("tolerance_m", 0.02),
            label=fields.get("label", "target"),
        )


@dataclass(frozen=True)
class MultiTargetTask(TaskJson):
    """Several candidate targets; a script switches the active one over time.

    Target 0 is active from time 0 until the first switch. Each switch
    ``(time_s, index)`` makes target ``index`` active from ``time_s`` on.

    Parameters
    ----------
    targets
        Candidate target positions, plane coordinates, metres; at least one.
    switches
        ``(time_s, index)`` pairs, times >= 0 and strictly increasing, indices
        into ``targets``. A switch at time 0 replaces the initial target.
    tolerance_m
        Distance within which a target counts as reached (every target).
    labels
        One name per target; empty for ``"target 1"``, ``"target 2"``, ...

    Raises
    ------
    SchemaError
        No targets, a bad switch time or index, or labels of the wrong count.
    """

    kind: ClassVar[str] = "multi_target"
    required_keys: ClassVar[tuple[str, ...]] = ("targets",)
    optional_keys: ClassVar[tuple[str, ...]] = ("switches", "tolerance_m", "labels")

    targets: tuple[XY, ...]
    switches: tuple[tuple[float, int], ...] = ()
    tolerance_m: float = 0.02
    labels: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        """Check the values and store plain tuples."""
        targets = check_xy_list(self.targets, "targets")
        object.__setattr__(self, "targets", targets)
        object.__setattr__(self, "switches", self._checked_switches(len(targets)))
        object.__setattr__(
            self, "tolerance_m", check_positive(self.tolerance_m, "tolerance_m")
        )
        labels = tuple(self.labels)
        if labels and len(labels) != len(targets):
            raise fail(f"expected {len(targets)} labels, found {len(labels)}")
        if not all(isinstance(label, str) and label for label in labels):
            raise fail("labels must be non-empty strings")
        object.__setattr__(self, "labels", labels)

    def _checked_switches(self, count: int) -> tuple[tuple[float, int], ...]:
        switches: list[tuple[float, int]] = []
        for i, item in enumerate(self.switches):
            if not isinstance(item, list | tuple) or len(item) != 2:
                raise fail(f"switches[{i}] must be a pair [time_s, index]")
            time_s = check_number(item[0], f"switches[{i}][0]")
            index = check_index(item[1], f"switches[{i}][1]")
            if time_s < 0 or (switches and time_s <= switches[-1][0]):
                raise fail(f"switch times must be >= 0 and increase, at {i}")
            if index >= count:
                raise fail(f"switches[{i}] names target {index} of {count}")
            switches.append((time_s, index))
        return tuple(switches)

    def label(self, index: int) -> str:
        """Return the name of target ``index``."""
        return self.labels[index] if self.labels else f"target {index + 1}"

    def active_target(self, t_s: float) -> int | None:
        """Return the index of the target active at ``t_s``."""
        when = check_time(t_s)
        active = 0
        for time_s, index in self.switches:
            if time_s > when:
                break
            active = index
        return active

    def tip_reference(self, t_s: float) -> FloatArray:
        """Return the active target's position, shape ``(2,)``."""
        index = self.active_target(t_s)
        return np.array(self.targets[0 if index is None else index])

    def overlay_json(self, model: ArmModel) -> dict[str, Any]:
        """Return the overlay object (see the package docstring)."""
        return overlay(
            self.kind,
            targets=[
                (self.label(i), xy, self.tolerance_m)
                for i, xy in enumerate(self.targets)
            ],
            active_index=self.active_target(0.0),
            switches=self.switches,
        )

    @classmethod
    def _from_fields(cls, fields: Mapping[str, Any]) -> MultiTargetTask:
        switches = fields.get("switches", [])
        labels = fields.get("labels", [])
        if not isinstance(switches, list | tuple):
            raise fail("switches must be a list of [time_s, index] pairs")
        if not isinstance(labels, list | tuple):
            raise fail("labels must be a list of strings")
        return cls(
            targets=check_xy_list(fields["targets"], "targets"),
            switches=tuple(switches),
            tolerance_m=fields.get("tolerance_m", 0.02),
            labels=tuple(labels),
        )
