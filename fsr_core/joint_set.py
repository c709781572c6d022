"""Which recorded channels hold a robot's joints, with the joints' names and units.

A source says where its joint positions are (and velocities and efforts when
recorded): a :class:`JointSet` names the channels and, per joint, the column
of each channel that holds it. Views and robot models read joints through it,
whatever the source; a recording without one has no joints to show.

Values are kept as recorded; :attr:`JointSpec.unit` says what they are in
(``rad`` or ``deg`` for revolute joints, ``m`` for prismatic ones, ``%`` for a
gripper recorded as a percentage of its range). :meth:`JointSpec.to_si`
turns a recorded value into radians or metres.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from fsr_core.errors import SchemaError

__all__ = ["JOINT_UNITS", "JointKind", "JointSet", "JointSpec"]

#: The units a recorded joint value may be in.
JOINT_UNITS: Final = ("rad", "deg", "m", "%")


class JointKind(StrEnum):
    """How a joint moves."""

    REVOLUTE = "revolute"
    """Turns about an axis; its value is an angle."""
    PRISMATIC = "prismatic"
    """Slides along an axis; its value is a length."""


@dataclass(frozen=True)
class JointSpec:
    """One recorded joint: its name, how it moves and the unit of its values."""

    name: str
    kind: JointKind = JointKind.REVOLUTE
    unit: str = "rad"
    """One of :data:`JOINT_UNITS`: what the recorded values are in."""
    lower: float | None = None
    """Lower limit in radians or metres, when the source gives one."""
    upper: float | None = None
    """Upper limit in radians or metres, when the source gives one."""
    group: str = ""
    """The arm (or other part) the joint belongs to, for grouping; '' when one."""

    def __post_init__(self) -> None:  # noqa: D105
        if self.unit not in JOINT_UNITS:
            raise SchemaError(
                f"joint {self.name!r}: unit {self.unit!r} is not one of {JOINT_UNITS}"
            )

    def to_si(self, value: float) -> float:
        """Return recorded ``value`` in radians or metres.

        A percentage maps onto the limits (0 % the lower, 100 % the upper);
        without limits it stays a fraction of one.
        """
        if self.unit == "deg":
            return math.radians(value)
        if self.unit == "%":
            if self.lower is None or self.upper is None:
                return value / 100.0
            return self.lower + (self.upper - self.lower) * value / 100.0
        return value


@dataclass(frozen=True)
class JointSet:
    """Where a recording's joints are: channels, and one column per joint.

    ``position_columns[i]`` is the column of :attr:`positions` that holds
    joint ``joints[i]`` (likewise for velocities and efforts, where
    recorded). Columns are indices into the channel's values per sample.
    """

    joints: tuple[JointSpec, ...]
    positions: str
    """The channel of the joint positions."""
    position_columns: tuple[int, ...]
    velocities: str | None = None
    velocity_columns: tuple[int, ...] = ()
    efforts: str | None = None
    effort_columns: tuple[int, ...] = ()
    base_pose: str | None = None
    """A channel of a floating base's pose (``x y z qw qx qy qz``), when the
    robot has one (a recorded free joint), else ``None``."""

    def __post_init__(self) -> None:  # noqa: D105
        count = len(self.joints)
        for channel, columns in (
            (self.positions, self.position_columns),
            (self.velocities, self.velocity_columns),
            (self.efforts, self.effort_columns),
        ):
            if channel is not None and len(columns) != count:
                raise SchemaError(
                    f"{count} joints but {len(columns)} columns of {channel!r}"
                )

    @property
    def names(self) -> tuple[str, ...]:
        """The joints' names, in order."""
        return tuple(joint.name for joint in self.joints)

    @classmethod
    def of_channel(
        cls,
        positions: str,
        names: tuple[str, ...],
        *,
        unit: str = "rad",
        velocities: str | None = None,
        efforts: str | None = None,
    ) -> JointSet:
        """Make the set of a channel whose columns are the joints, in order.

        Velocity and effort channels, when given, hold the same joints in the
        same columns.
        """
        columns = tuple(range(len(names)))
        kind = JointKind.PRISMATIC if unit == "m" else JointKind.REVOLUTE
        return cls(
            joints=tuple(JointSpec(name, kind, unit) for name in names),
            positions=positions,
            position_columns=columns,
            velocities=velocities,
            velocity_columns=columns if velocities is not None else (),
            efforts=efforts,
            effort_columns=columns if efforts is not None else (),
        )
