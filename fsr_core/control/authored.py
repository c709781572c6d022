"""Authored control chunks: commands as their producer wrote them."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np

from fsr_core.arrays import FloatArray
from fsr_core.control._fields import (
    ArrayEquality,
    StrictJson,
    enum_field,
    fail,
    float_array_field,
    integer_field,
    names_field,
    text_field,
    time_field,
)
from fsr_core.control.enums import (
    UNITS_BY_COMMAND_SPACE,
    CommandSpace,
    Interpolation,
    TerminalPolicy,
)

__all__ = ["AuthoredChunk", "validate_authored_chunks"]


_CHUNK: Final = "authored chunk"
_SEQUENCE: Final = "authored control"
_CHUNK_KEYS: Final = (
    "axes",
    "chunk_id",
    "command_space",
    "controller",
    "generation",
    "interpolation",
    "start_sim_time_s",
    "target",
    "terminal_policy",
    "times_s",
    "units",
    "values",
)


@dataclass(frozen=True, eq=False)
class AuthoredChunk(StrictJson, ArrayEquality):
    """A command trajectory as its producer authored it.

    Point ``k`` takes effect at ``start_sim_time_s + times_s[k]``.

    Parameters
    ----------
    chunk_id
        Identifier, unique within a recording's authored control.
    target
        Resource or group the command drives (for example ``"arm"``).
    command_space
        What the values set: joint positions, velocities or torques.
    axes
        Names of the commanded axes; non-empty and unique.
    units
        Unit of each axis, one per axis, as allowed by
        :data:`UNITS_BY_COMMAND_SPACE` (``"rad"``, ``"rad/s"``, ``"N*m"`` ...).
    interpolation
        How values are formed between points.
    terminal_policy
        What is commanded after the last point.
    start_sim_time_s
        Simulation time of the first point, seconds; finite and >= 0.
    times_s
        Point times relative to the start, shape (K,), K >= 1, seconds;
        ``times_s[0] == 0`` and strictly increasing.
    values
        Set-points, shape (K, len(axes)), finite.
    controller
        Controller that executes the command (``"pd"``,
        ``"computed_torque"`` ...).
    generation
        Runtime generation the chunk was authored in.

    Raises
    ------
    SchemaError
        A field is invalid; the message starts with its JSON pointer.
    """

    chunk_id: str
    target: str
    command_space: CommandSpace
    axes: tuple[str, ...]
    units: tuple[str, ...]
    interpolation: Interpolation
    terminal_policy: TerminalPolicy
    start_sim_time_s: float
    times_s: FloatArray
    values: FloatArray
    controller: str
    generation: int

    json_keys = _CHUNK_KEYS
    json_section = _CHUNK

    def __post_init__(self) -> None:
        """Check every field; store enums, tuples and read-only float64 arrays."""
        text_field(self.chunk_id, "/chunk_id", _CHUNK)
        text_field(self.target, "/target", _CHUNK)
        text_field(self.controller, "/controller", _CHUNK)
        integer_field(self.generation, "/generation", _CHUNK)
        space = enum_field(CommandSpace, self.command_space, "/command_space", _CHUNK)
        normalised: dict[str, object] = {
            "command_space": space,
            "interpolation": enum_field(
                Interpolation, self.interpolation, "/interpolation", _CHUNK
            ),
            "terminal_policy": enum_field(
                TerminalPolicy, self.terminal_policy, "/terminal_policy", _CHUNK
            ),
            "start_sim_time_s": time_field(
                self.start_sim_time_s, "/start_sim_time_s", _CHUNK
            ),
        }
        axes = names_field(self.axes, "/axes", _CHUNK, unique=True)
        normalised["axes"] = axes
        normalised["units"] = self._checked_units(space, len(axes))
        times = float_array_field(self.times_s, (None,), "/times_s", _CHUNK)
        _check_times(times)
        normalised["times_s"] = times
        normalised["values"] = float_array_field(
            self.values, (times.shape[0], len(axes)), "/values", _CHUNK
        )
        for name, value in normalised.items():
            object.__setattr__(self, name, value)

    def _checked_units(self, space: CommandSpace, count: int) -> tuple[str, ...]:
        units = names_field(self.units, "/units", _CHUNK, unique=False)
        if len(units) != count:
            raise fail(
                "/units",
                f"expected {count} units (one per axis), found {len(units)}",
                _CHUNK,
            )
        allowed = UNITS_BY_COMMAND_SPACE[space]
        for index, unit in enumerate(units):
            if unit not in allowed:
                options = ", ".join(repr(item) for item in sorted(allowed))
                raise fail(
                    f"/units/{index}",
                    f"{space.value} takes {options}, found {unit!r}",
                    _CHUNK,
                )
        return units

    @property
    def duration_s(self) -> float:
        """Time of the last point after the start, seconds (0 for one point)."""
        return float(self.times_s[-1])

    @property
    def end_sim_time_s(self) -> float:
        """Simulation time of the last point, seconds."""
        return self.start_sim_time_s + float(self.times_s[-1])

    def value_at(self, sim_time_s: float) -> FloatArray | None:
        """Return the commanded values at a simulation time.

        Parameters
        ----------
        sim_time_s
            Simulation time, seconds; not before the chunk's start.

        Returns
        -------
        numpy.ndarray or None
            Shape (len(axes),), a new array. Between points: the earlier point
            (zero-order hold) or the linear blend. After the last point: the
            last point (``hold``), zeros (``zero``), or None (``controller_default``:
            the controller's own default applies and the chunk commands nothing).

        Raises
        ------
        ValueError
            ``sim_time_s`` is non-finite or before ``start_sim_time_s``.
        """
        if not math.isfinite(sim_time_s):
            raise ValueError(f"sim_time_s must be finite, got {sim_time_s}")
        if sim_time_s < self.start_sim_time_s:
            raise ValueError(
                f"sim_time_s {sim_time_s} is before chunk {self.chunk_id!r} starts "
                f"at {self.start_sim_time_s}"
            )
        at_s = self.start_sim_time_s + self.times_s  # compare in absolute time
        if sim_time_s > at_s[-1]:
            return self._terminal_value()
        index = int(np.searchsorted(at_s, sim_time_s, side="right")) - 1
        value = self.values[index]
        if self.interpolation is Interpolation.LINEAR and index + 1 < len(at_s):
            fraction = (sim_time_s - at_s[index]) / (at_s[index + 1] - at_s[index])
            value = value + fraction * (self.values[index + 1] - value)
        return np.array(value, dtype=np.float64)

    def _terminal_value(self) -> FloatArray | None:
        if self.terminal_policy is TerminalPolicy.HOLD:
            return np.array(self.values[-1], dtype=np.float64)
        if self.terminal_policy is TerminalPolicy.ZERO:
            return np.zeros(len(self.axes), dtype=np.float64)
        return None


def _check_times(times: FloatArray) -> None:
    if times[0] != 0.0:
        raise fail("/times_s/0", f"first time must be 0, found {times[0]}", _CHUNK)
    steps = np.diff(times)
    if (steps <= 0.0).any():
        index = int(np.argmax(steps <= 0.0)) + 1
        raise fail(
            f"/times_s/{index}",
            f"times must increase strictly, found {times[index]} after "
            f"{times[index - 1]}",
            _CHUNK,
        )


def validate_authored_chunks(chunks: Sequence[AuthoredChunk]) -> None:
    """Check that a recording's authored chunks form one replayable sequence.

    Parameters
    ----------
    chunks
        The chunks in recorded order.

    Raises
    ------
    SchemaError
        Two chunks share an ID, the chunks span more than one generation, or a
        chunk starts before the one recorded before it. The location is the
        index of the offending chunk (``/3/chunk_id``).
    """
    first_index: dict[str, int] = {}
    for index, chunk in enumerate(chunks):
        if chunk.chunk_id in first_index:
            raise fail(
                f"/{index}/chunk_id",
                f"duplicate chunk ID {chunk.chunk_id!r} (first at "
                f"/{first_index[chunk.chunk_id]})",
                _SEQUENCE,
            )
        first_index[chunk.chunk_id] = index
        if chunk.generation != chunks[0].generation:
            raise fail(
                f"/{index}/generation",
                f"authored control spans generations {chunks[0].generation} and "
                f"{chunk.generation}",
                _SEQUENCE,
            )
        if index and chunk.start_sim_time_s < chunks[index - 1].start_sim_time_s:
            raise fail(
                f"/{index}/start_sim_time_s",
                f"chunk starts at {chunk.start_sim_time_s}, before the previous "
                f"chunk's start {chunks[index - 1].start_sim_time_s}",
                _SEQUENCE,
            )
