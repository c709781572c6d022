"""How a planar-arm recording opens: its joint angles, readouts and arm.

On top of the model every FSR file gets, a planar-arm recording shows:

- ``q``: the joint angles ``q0, q1, ...`` of :data:`OBSERVATIONS` (rad), the
  channel the side panel and the arm drawing follow; the model's
  :class:`~fsr_core.joint_set.JointSet` names its joints as the recording
  does (``q0``...), with the limits of ``config.arm`` and the rates
  (``dq<i>``) and torques (``tau<i>``) of :data:`OBSERVATIONS`;
- ``ext_force``: the external force columns ``ext_fx, ext_fy``;
- ``active_target``: the index of the target being reached;
- the friction and tip-speed readouts;
- the arm's kinematics, from the recording's ``config.arm``.

These channels are columns of :data:`OBSERVATIONS` picked without reading it
(:func:`~fsr_core.recording.picked_channel`): opening a take reads none of
its samples, whatever its length, and the panel and the arm read the one
sample they show.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np

from fsr_core.errors import SchemaError
from fsr_core.joint_set import JointSet
from fsr_core.recording import (
    Channel,
    PlanarKinematics,
    RecordingModel,
    picked_channel,
)
from fsr_core.simulation.profile import FsrOpening
from fsr_core.simulators.planar_arm.observations import OBSERVATIONS

__all__ = ["JOINT_CHANNEL", "PlanarArmProfile", "planar_joints", "planar_kinematics"]

JOINT_CHANNEL = "q"
EXTERNAL_FORCE_CHANNEL = "ext_force"
ACTIVE_TARGET_CHANNEL = "active_target"


def _columns_channel(
    channels: dict[str, Channel],
    wanted: Callable[[str], bool],
    name: str,
    *,
    unit: str = "",
    label: str = "",
) -> str | None:
    """Add channel ``name``: the :data:`OBSERVATIONS` columns ``wanted`` picks."""
    source = channels.get(OBSERVATIONS)
    if source is None:
        return None
    picks = [i for i, column in enumerate(source.columns) if wanted(column)]
    if not picks:
        return None
    channels[name] = picked_channel(
        source,
        name,
        picks,
        columns=tuple(source.columns[i] for i in picks),
        unit=unit,
        label=label,
    )
    return name


def _is_joint_angle(column: str) -> bool:
    """Whether ``column`` is a joint angle: ``q<i>`` (not ``q_ref<i>``)."""
    return column.startswith("q") and column[1:].isdigit()


def _joint_channel(channels: dict[str, Channel]) -> str | None:
    """Add ``q``: the ``q<i>`` columns alone (not ``q_ref<i>``), in radians."""
    return _columns_channel(
        channels, _is_joint_angle, JOINT_CHANNEL, unit="rad", label="joint angle"
    )


def _starts_with(prefix: str) -> Callable[[str], bool]:
    """Return whether a column starts with ``prefix``."""

    def wanted(column: str) -> bool:
        return column.startswith(prefix)

    return wanted


def _number(value: Any, what: str, *, optional: bool = False) -> float:
    """Return ``value`` as a finite float (``nan`` for an allowed ``None``)."""
    if value is None and optional:
        return math.nan
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise SchemaError(f"config.arm: {what} is {value!r}, expected a number")
    if not math.isfinite(value):
        raise SchemaError(f"config.arm: {what} is {value!r}, not finite")
    return float(value)


def _link(link: Any, index: int) -> tuple[float, float, float, float]:
    """Return ``(length, com, q_min, q_max)`` of one ``config.arm.links`` entry."""
    what = f"links[{index}]"
    if not isinstance(link, dict):
        raise SchemaError(f"config.arm: {what} is {link!r}, expected an object")
    length = _number(link.get("length_m"), f"{what}.length_m")
    com = link.get("com_m")
    return (
        length,
        length / 2 if com is None else _number(com, f"{what}.com_m"),
        _number(link.get("q_min_rad"), f"{what}.q_min_rad", optional=True),
        _number(link.get("q_max_rad"), f"{what}.q_max_rad", optional=True),
    )


def planar_kinematics(metadata: dict[str, Any]) -> PlanarKinematics | None:
    """Return the arm of the recording's ``config.arm`` (``None`` without one).

    Raises
    ------
    SchemaError
        ``config.arm`` has links but a value of the wrong type (a string for
        a length, a link that is not an object, a base that is not ``[x, y]``).
    """
    config = metadata.get("config")
    arm = config.get("arm") if isinstance(config, dict) else None
    if not isinstance(arm, dict) or not isinstance(arm.get("links"), list):
        return None
    links = [_link(link, index) for index, link in enumerate(arm["links"])]
    base = arm.get("base_m")
    if not isinstance(base, list) or len(base) != 2:
        raise SchemaError(f"config.arm: base_m is {base!r}, expected [x, y]")
    columns = np.array(links, dtype=np.float64).reshape(len(links), 4).T
    return PlanarKinematics(
        lengths_m=columns[0].copy(),
        base_m=(_number(base[0], "base_m[0]"), _number(base[1], "base_m[1]")),
        com_m=columns[1].copy(),
        q_min_rad=columns[2].copy(),
        q_max_rad=columns[3].copy(),
    )


def _columns_of(
    channel: Channel | None, prefix: str, count: int
) -> tuple[str | None, tuple[int, ...]]:
    """Return ``channel``'s name and its ``<prefix><i>`` columns, when it has all."""
    if channel is None:
        return None, ()
    wanted = [f"{prefix}{index}" for index in range(count)]
    if not all(column in channel.columns for column in wanted):
        return None, ()
    return channel.name, tuple(channel.columns.index(column) for column in wanted)


def planar_joints(
    channels: dict[str, Channel], kinematics: PlanarKinematics | None
) -> JointSet | None:
    """Return the arm's joints: ``q`` (rad), limits, rates and torques.

    ``None`` without a ``q`` channel. Each joint is named as its ``q``
    column (``q0``...); a limit ``config.arm`` does not give stays unknown.
    """
    positions = channels.get(JOINT_CHANNEL)
    if positions is None:
        return None
    names = positions.columns
    joints = (
        JointSet.of_channel(JOINT_CHANNEL, names).joints
        if kinematics is None
        else kinematics.joint_specs(names)
    )
    count = len(joints)
    source = channels.get(OBSERVATIONS)
    velocities, velocity_columns = _columns_of(source, "dq", count)
    efforts, effort_columns = _columns_of(source, "tau", count)
    return JointSet(
        joints=joints,
        positions=JOINT_CHANNEL,
        position_columns=tuple(range(count)),
        velocities=velocities,
        velocity_columns=velocity_columns,
        efforts=efforts,
        effort_columns=effort_columns,
    )


class PlanarArmProfile:
    """The recording profile of the planar arm."""

    def build(self, opening: FsrOpening) -> RecordingModel:
        """Return the generic model with the arm's channels, readouts and kinematics."""
        model = opening.generic_model()
        channels = dict(model.channels)
        _joint_channel(channels)
        force = _columns_channel(
            channels, _starts_with("ext_f"), EXTERNAL_FORCE_CHANNEL
        )
        active = _columns_channel(
            channels, _starts_with("active_target"), ACTIVE_TARGET_CHANNEL
        )
        kinematics = planar_kinematics(model.metadata)
        return replace(
            model,
            channels=channels,
            joints=planar_joints(channels, kinematics),
            external_force_channel=force,
            active_target_channel=active,
            readouts={
                "friction": f"{OBSERVATIONS}:friction",
                "tip speed": f"{OBSERVATIONS}:tip_speed",
            },
            kinematics=kinematics,
        )
