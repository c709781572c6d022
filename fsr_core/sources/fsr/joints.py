"""Joint angles of a recording that is not a planar arm, for the side panel.

A simulator that records generalized positions as ``qpos.<joint>`` columns
(MuJoCo) and names its revolute command axes in the simulation contract
(``axes`` with unit ``rad``) gets a ``q`` channel of those joints, so the
panel shows one slider per actuated hinge, as it does for the planar arm.
Free joints, slides and unactuated bodies are left out: their coordinates are
not angles.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from fsr_core.arrays import FloatArray
from fsr_core.recording import Channel

__all__ = ["JOINT_CHANNEL", "contract_joint_channel"]

JOINT_CHANNEL: Final = "q"
_POSITION_PREFIX: Final = "qpos."


def _revolute_axes(metadata: Mapping[str, Any]) -> list[str]:
    contract = metadata.get("simulation_contract")
    if not isinstance(contract, dict):
        return []
    axes, units = contract.get("axes"), contract.get("units")
    if not isinstance(axes, list) or not isinstance(units, dict):
        return []
    return [axis for axis in axes if isinstance(axis, str) and units.get(axis) == "rad"]


def _picked(channel: Channel, picks: list[int], axes: tuple[str, ...]) -> Channel:
    """Return the columns ``picks`` of ``channel``, read whole or by sample."""

    def load() -> tuple[FloatArray, FloatArray]:
        return channel.times_s, channel.values[:, picks]

    def sample(play_time_s: float) -> FloatArray:
        value: FloatArray = channel.value_at(play_time_s)[picks]
        return value

    return Channel.lazy(
        JOINT_CHANNEL,
        load,
        unit="rad",
        label="joint angle",
        columns=axes,
        count=channel.count,
        sample=sample,
    )


def contract_joint_channel(
    channels: dict[str, Channel], metadata: Mapping[str, Any]
) -> str | None:
    """Add the ``q`` channel of the contract's revolute axes; return its name.

    Returns ``None`` (adding nothing) when the recording names no revolute
    axis, or no numeric channel holds a ``qpos.<axis>`` column for each.
    """
    axes = _revolute_axes(metadata)
    if not axes or JOINT_CHANNEL in channels:
        return None
    wanted = [f"{_POSITION_PREFIX}{axis}" for axis in axes]
    for channel in channels.values():
        if all(column in channel.columns for column in wanted):
            picks = [channel.columns.index(column) for column in wanted]
            channels[JOINT_CHANNEL] = _picked(channel, picks, tuple(axes))
            return JOINT_CHANNEL
    return None
