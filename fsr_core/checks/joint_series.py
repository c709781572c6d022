"""A recording's joint positions (state) and commanded ones (action), in SI units.

The state is :attr:`RecordingModel.joints`' positions channel, each joint's
column turned into radians or metres. The action is the first channel named in
:data:`ACTION_CHANNELS` that holds a column per joint (LeRobot's ``action``),
read through the same columns and units, and put on the state's times when
its own differ.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

import numpy as np

from fsr_core.arrays import FloatArray
from fsr_core.joint_set import JointSet
from fsr_core.recording import RecordingModel

__all__ = [
    "ACTION_CHANNELS",
    "JointSeries",
    "action_channel",
    "action_series",
    "joint_columns",
    "joint_limits",
    "joint_series",
]

ACTION_CHANNELS: Final = ("action", "actions", "joint_commands", "q_target", "q_cmd")
"""Channels that hold the commanded joint positions, first match wins."""


@dataclass(frozen=True)
class JointSeries:
    """Joint positions over time: ``values[i, j]`` is joint ``j`` at ``times_s[i]``."""

    channel: str
    times_s: FloatArray
    values: FloatArray
    """Radians or metres; NaN where the sample lacks the column."""
    names: tuple[str, ...]
    lower: FloatArray
    """Each joint's lower limit (NaN where none is known)."""
    upper: FloatArray


def joint_columns(
    raw: FloatArray, joints: JointSet, columns: tuple[int, ...]
) -> FloatArray:
    """Return the joints' columns of ``raw`` (rows x width) in SI units."""
    rows = raw.shape[0]
    out = np.full((rows, len(joints.joints)), np.nan)
    width = raw.shape[1] if raw.ndim == 2 else 1
    flat = raw.reshape(rows, width)
    for index, (spec, column) in enumerate(zip(joints.joints, columns, strict=True)):
        if 0 <= column < width:
            out[:, index] = spec.to_si(flat[:, column].astype(np.float64))
    return out


def joint_series(model: RecordingModel) -> JointSeries | None:
    """Return the state of ``model``'s joints (``None`` without joints)."""
    joints = model.joints
    if joints is None or joints.positions not in model.channels:
        return None
    channel = model.channels[joints.positions]
    values = joint_columns(channel.values, joints, joints.position_columns)
    return JointSeries(
        joints.positions,
        np.asarray(channel.times_s, dtype=np.float64),
        values,
        tuple(spec.name for spec in joints.joints),
        *joint_limits(joints),
    )


def joint_limits(joints: JointSet) -> tuple[FloatArray, FloatArray]:
    """Return each joint's lower and upper limit (NaN where none is known)."""
    nan = float("nan")
    return (
        np.array([nan if s.lower is None else s.lower for s in joints.joints]),
        np.array([nan if s.upper is None else s.upper for s in joints.joints]),
    )


def action_series(model: RecordingModel, state: JointSeries) -> JointSeries | None:
    """Return the action on the state's times (``None`` when there is none)."""
    joints = model.joints
    if joints is None:
        return None
    channels = model.channels
    widths: dict[str, int] = {
        key: channels[key].width for key in ACTION_CHANNELS if key in channels
    }
    name = action_channel(widths, joints, state.channel)
    if name is not None:
        channel = model.channels[name]
        times = np.asarray(channel.times_s, dtype=np.float64)
        values = joint_columns(channel.values, joints, joints.position_columns)
        if times.shape != state.times_s.shape or not np.array_equal(
            times, state.times_s
        ):
            values = _resampled(times, values, state.times_s)
        return JointSeries(
            name, state.times_s, values, state.names, state.lower, state.upper
        )
    return None


def action_channel(
    widths: Mapping[str, int], joints: JointSet, state: str
) -> str | None:
    """Return the channel of :data:`ACTION_CHANNELS` the action is read from.

    ``widths`` are the recording's channels and their widths: the first
    named channel other than the ``state`` one wide enough for every joint's
    column.
    """
    wanted = max(joints.position_columns, default=0) + 1
    for name in ACTION_CHANNELS:
        if name != state and widths.get(name, 0) >= wanted:
            return name
    return None


def _resampled(times: FloatArray, values: FloatArray, onto: FloatArray) -> FloatArray:
    """Return ``values`` (at ``times``) at the times ``onto``, the sample in force."""
    if times.size == 0:
        return np.full((onto.size, values.shape[1]), np.nan)
    order = np.argsort(times, kind="stable")
    rows = np.searchsorted(times[order], onto, side="right") - 1
    picked: FloatArray = values[order][rows.clip(0, None)]
    picked[rows < 0] = np.nan
    return picked
