"""Applied-control evidence: what a backend actually received at one tick."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from fsr_core.arrays import FloatArray
from fsr_core.control._fields import (
    ArrayEquality,
    StrictJson,
    enum_field,
    float_array_field,
    integer_field,
    names_field,
    text_field,
    time_field,
)
from fsr_core.control.enums import CommandSpace

__all__ = ["AppliedControl"]


_APPLIED: Final = "applied control"
_APPLIED_KEYS: Final = (
    "axes",
    "chunk_id",
    "command_space",
    "sim_time_s",
    "target",
    "tick",
    "values",
)


@dataclass(frozen=True, eq=False)
class AppliedControl(StrictJson, ArrayEquality):
    """Evidence of the command a backend received at one tick.

    This documents what happened; it is never converted into a command (a
    resimulation submits :class:`AuthoredChunk` values only).

    Parameters
    ----------
    tick
        Simulation tick the command was applied at.
    sim_time_s
        Simulation time of that tick, seconds; finite and >= 0.
    target
        Resource or group that received the command.
    command_space
        What the values set.
    axes
        Names of the axes; non-empty and unique.
    values
        Applied values, shape (len(axes),), finite.
    chunk_id
        The authored chunk the command came from, when known.

    Raises
    ------
    SchemaError
        A field is invalid; the message starts with its JSON pointer.
    """

    tick: int
    sim_time_s: float
    target: str
    command_space: CommandSpace
    axes: tuple[str, ...]
    values: FloatArray
    chunk_id: str | None = None

    json_keys = _APPLIED_KEYS
    json_section = _APPLIED

    def __post_init__(self) -> None:
        """Check every field; store enums, tuples and a read-only array."""
        integer_field(self.tick, "/tick", _APPLIED)
        text_field(self.target, "/target", _APPLIED)
        if self.chunk_id is not None:
            text_field(self.chunk_id, "/chunk_id", _APPLIED)
        axes = names_field(self.axes, "/axes", _APPLIED, unique=True)
        normalised: dict[str, object] = {
            "sim_time_s": time_field(self.sim_time_s, "/sim_time_s", _APPLIED),
            "command_space": enum_field(
                CommandSpace, self.command_space, "/command_space", _APPLIED
            ),
            "axes": axes,
            "values": float_array_field(self.values, (len(axes),), "/values", _APPLIED),
        }
        for name, value in normalised.items():
            object.__setattr__(self, name, value)
