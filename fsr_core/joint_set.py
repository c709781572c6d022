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
import re
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any, Final, overload

import numpy as np

from fsr_core.arrays import FloatArray
from fsr_core.errors import SchemaError

__all__ = [
    "JOINT_UNITS",
    "JointGroup",
    "JointKind",
    "JointSet",
    "JointSpec",
    "joint_values",
]

#: The units a recorded joint value may be in.
JOINT_UNITS: Final = ("rad", "deg", "m", "%")
#: Where a joint's name prefix ends: ``left_shoulder``, ``arm1/elbow``, ``r.wrist``.
_PREFIX_END: Final = re.compile(r"[_/.:-]")


def _name_prefixes(names: tuple[str, ...]) -> list[str]:
    """Return each name's prefix when they group the names, else ``""`` each.

    The names group when each has a prefix (the text before its first
    separator) that another name shares, and there are at least two.
    """
    prefixes = []
    for name in names:
        found = _PREFIX_END.search(name)
        prefixes.append(name[: found.start()] if found and found.start() else "")
    if "" in prefixes or len(set(prefixes)) < 2:
        return [""] * len(names)
    if any(prefixes.count(prefix) < 2 for prefix in prefixes):
        return [""] * len(names)
    return prefixes


@dataclass(frozen=True)
class JointGroup:
    """Joints that belong together (one arm of several): a name and indices."""

    name: str
    """The group's name (``left``, ``env0/arm``...), ``""`` for the only group."""
    indices: tuple[int, ...]
    """Indices into :attr:`JointSet.joints`, in order."""


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

    @overload
    def to_si(self, value: float) -> float: ...
    @overload
    def to_si(self, value: FloatArray) -> FloatArray: ...
    def to_si(self, value: float | FloatArray) -> float | FloatArray:
        """Return recorded ``value`` (a number or an array) in radians or metres.

        A percentage maps onto the limits (0 % the lower, 100 % the upper);
        without limits it stays a fraction of one.
        """
        if self.unit == "deg":
            return value * (math.pi / 180.0)
        if self.unit == "%":
            if self.lower is None or self.upper is None:
                return value / 100.0
            return self.lower + (self.upper - self.lower) * value / 100.0
        return value

    def rate_to_si(self, rate: float) -> float:
        """Return a recorded rate of this joint in rad/s or m/s.

        A rate of a percentage is a share of the range per second (of one,
        without limits); a rate in degrees per second turns into radians.
        """
        if self.unit == "deg":
            return math.radians(rate)
        if self.unit == "%":
            if self.lower is None or self.upper is None:
                return rate / 100.0
            return (self.upper - self.lower) * rate / 100.0
        return rate


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
    mujoco_state: str | None = None
    """A channel of MuJoCo's whole state per sample, ``[time, qpos (nq),
    qvel (nv)]`` (robosuite's flattened ``MjSimState``), when recorded: with
    a model MuJoCo compiled whose ``nq`` and ``nv`` it matches, it poses
    every joint of the model (the fingers, a free object), else ``None``."""
    environments: tuple[str, ...] = ()
    """The environments of a batched run, when each has its own channels: the
    channels named here are the first's, ``<environment>/<name>``, and
    :meth:`in_environment` gives another's. Empty when the run is not batched."""

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

    @property
    def channels(self) -> tuple[str, ...]:
        """Every channel the set reads (positions first), each once."""
        named = (
            self.positions,
            self.velocities,
            self.efforts,
            self.base_pose,
            self.mujoco_state,
        )
        return tuple(dict.fromkeys(name for name in named if name is not None))

    def in_environment(self, environment: str) -> JointSet:
        """Return the set reading ``environment``'s channels (itself: not batched).

        An environment the run does not have gives the set unchanged.
        """
        if not self.environments or environment not in self.environments:
            return self
        first = f"{self.environments[0]}/"

        def moved(name: str | None) -> str | None:
            if name is None or not name.startswith(first):
                return name
            return f"{environment}/{name.removeprefix(first)}"

        return replace(
            self,
            positions=moved(self.positions) or self.positions,
            velocities=moved(self.velocities),
            efforts=moved(self.efforts),
            base_pose=moved(self.base_pose),
            mujoco_state=moved(self.mujoco_state),
        )

    def groups(self) -> tuple[JointGroup, ...]:
        """Return the joints by arm (or other part), in order.

        By :attr:`JointSpec.group` when a source gives one; else by a shared
        name prefix (``left_``, ``right_``...) when every joint has one that
        at least one other joint shares and there are two or more; else one
        group, named ``""``, of every joint.
        """
        if any(joint.group for joint in self.joints):
            keys = [joint.group for joint in self.joints]
        else:
            keys = _name_prefixes(self.names)
        found: dict[str, list[int]] = {}
        for index, key in enumerate(keys):
            found.setdefault(key, []).append(index)
        return tuple(JointGroup(key, tuple(indices)) for key, indices in found.items())

    def plain(self) -> dict[str, Any]:
        """Return the set as plain JSON, what :meth:`from_plain` reads back."""
        return {
            "joints": [
                {
                    "name": joint.name,
                    "kind": joint.kind.value,
                    "unit": joint.unit,
                    "lower": joint.lower,
                    "upper": joint.upper,
                    "group": joint.group,
                }
                for joint in self.joints
            ],
            "positions": self.positions,
            "position_columns": list(self.position_columns),
            "velocities": self.velocities,
            "velocity_columns": list(self.velocity_columns),
            "efforts": self.efforts,
            "effort_columns": list(self.effort_columns),
            "base_pose": self.base_pose,
            "mujoco_state": self.mujoco_state,
            "environments": list(self.environments),
        }

    @classmethod
    def from_plain(cls, value: object) -> JointSet:
        """Read a set written by :meth:`plain` (from a file: checked).

        Raises
        ------
        SchemaError
            ``value`` is not such a set: a key missing or of the wrong type,
            a kind or unit not known, columns not matching the joints.
        """
        if not isinstance(value, dict):
            raise SchemaError(f"joints: an object expected, got {type(value).__name__}")
        try:
            joints = tuple(
                JointSpec(
                    name=_text(item["name"]),
                    kind=JointKind(item["kind"]),
                    unit=_text(item["unit"]),
                    lower=_limit(item.get("lower")),
                    upper=_limit(item.get("upper")),
                    group=_text(item.get("group", "")),
                )
                for item in value["joints"]
            )
            return cls(
                joints=joints,
                positions=_text(value["positions"]),
                position_columns=_columns(value["position_columns"]),
                velocities=_optional_text(value.get("velocities")),
                velocity_columns=_columns(value.get("velocity_columns", [])),
                efforts=_optional_text(value.get("efforts")),
                effort_columns=_columns(value.get("effort_columns", [])),
                base_pose=_optional_text(value.get("base_pose")),
                mujoco_state=_optional_text(value.get("mujoco_state")),
                environments=tuple(
                    _text(name) for name in value.get("environments", [])
                ),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise SchemaError(f"joints: not a joint set ({exc!r})") from exc

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


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError(f"a string expected, got {type(value).__name__}")
    return value


def _optional_text(value: object) -> str | None:
    return None if value is None else _text(value)


def _limit(value: object) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"a number expected, got {type(value).__name__}")
    return float(value)


def _columns(value: object) -> tuple[int, ...]:
    if not isinstance(value, list):
        raise TypeError(f"a list of columns expected, got {type(value).__name__}")
    if not all(isinstance(item, int) and not isinstance(item, bool) for item in value):
        raise TypeError("columns must be integers")
    return tuple(value)


def joint_values(
    sample: FloatArray,
    columns: tuple[int, ...],
    joints: tuple[JointSpec, ...],
    *,
    rates: bool = False,
) -> FloatArray:
    """Return the joints' values in ``sample`` (their ``columns``) in SI units.

    A column past the sample's end gives NaN (a channel narrower than its
    set said); each value goes through :meth:`JointSpec.to_si`, or with
    ``rates`` (a sample of the velocities) :meth:`JointSpec.rate_to_si`.
    """
    found = np.full(len(columns), np.nan)
    for index, (column, joint) in enumerate(zip(columns, joints, strict=True)):
        if 0 <= column < len(sample):
            value = float(sample[column])
            found[index] = joint.rate_to_si(value) if rates else joint.to_si(value)
    return found
