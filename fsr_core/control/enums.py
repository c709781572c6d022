"""The enumerations of the control values, and the units of each command space."""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from types import MappingProxyType
from typing import Final

__all__ = [
    "UNITS_BY_COMMAND_SPACE",
    "ChunkStatus",
    "CommandSpace",
    "Interpolation",
    "TerminalPolicy",
]


class CommandSpace(StrEnum):
    """The quantity a command sets for each axis."""

    JOINT_POSITION = "joint_position"
    JOINT_VELOCITY = "joint_velocity"
    JOINT_TORQUE = "joint_torque"


class Interpolation(StrEnum):
    """How a chunk's value is formed between two of its points."""

    ZERO_ORDER_HOLD = "zero_order_hold"
    LINEAR = "linear"


class TerminalPolicy(StrEnum):
    """What a chunk commands after its last point."""

    HOLD = "hold"
    ZERO = "zero"
    CONTROLLER_DEFAULT = "controller_default"


class ChunkStatus(StrEnum):
    """How a submitted chunk ended."""

    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELLED = "cancelled"


#: Units accepted per axis for each command space (revolute, prismatic).
UNITS_BY_COMMAND_SPACE: Final[Mapping[CommandSpace, frozenset[str]]] = MappingProxyType(
    {
        CommandSpace.JOINT_POSITION: frozenset({"rad", "m"}),
        CommandSpace.JOINT_VELOCITY: frozenset({"rad/s", "m/s"}),
        CommandSpace.JOINT_TORQUE: frozenset({"N*m", "N"}),
    }
)
