"""Authored control chunks, applied-control evidence and chunk results.

An :class:`AuthoredChunk` is a command as a controller producer wrote it: a
short trajectory of set-points for a group of axes, with the interpolation
between points and the policy that applies once the trajectory ends. Replaying
a recording in resimulate mode submits authored chunks again.

An :class:`AppliedControl` is *evidence* of what a backend actually received at
one tick. It documents a run and may be compared with the authored commands,
but it is never turned back into a command.

A :class:`ChunkResult` records how a chunk ended. Every value here validates
itself on construction and raises :class:`~fsr_core.errors.SchemaError` whose
message starts with the JSON pointer of the offending field.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final, TypeVar

import numpy as np
import numpy.typing as npt

from fsr_core.errors import SchemaError

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

__all__ = [
    "UNITS_BY_COMMAND_SPACE",
    "AppliedControl",
    "AuthoredChunk",
    "ChunkResult",
    "ChunkStatus",
    "CommandSpace",
    "Interpolation",
    "TerminalPolicy",
    "validate_authored_chunks",
]

FloatArray = npt.NDArray[np.float64]
_E = TypeVar("_E", bound=StrEnum)


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

_CHUNK: Final = "authored chunk"
_APPLIED: Final = "applied control"
_RESULT: Final = "chunk result"
_SEQUENCE: Final = "authored control"
_REASON_CODE = re.compile(r"[A-Z_]+")


# ---------------------------------------------------------------------------
# Field checks (each names the offending field as a JSON pointer)
# ---------------------------------------------------------------------------


def _describe(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:37]}..."


def _fail(pointer: str, message: str, section: str) -> SchemaError:
    return SchemaError(f"{pointer}: {message}", section=section)


def _text(value: object, pointer: str, section: str) -> str:
    if not isinstance(value, str) or not value:
        raise _fail(
            pointer, f"expected a non-empty string, found {_describe(value)}", section
        )
    return value


def _integer(value: object, pointer: str, section: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise _fail(
            pointer, f"expected an integer >= 0, found {_describe(value)}", section
        )
    return value


def _time(value: object, pointer: str, section: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _fail(pointer, f"expected a number, found {_describe(value)}", section)
    number = float(value)
    if not (math.isfinite(number) and number >= 0.0):
        raise _fail(pointer, f"expected a finite time >= 0, found {number}", section)
    return number + 0.0


def _enum(kind: type[_E], value: object, pointer: str, section: str) -> _E:
    if isinstance(value, kind):
        return value
    if isinstance(value, str):
        try:
            return kind(value)
        except ValueError:
            pass
    options = ", ".join(repr(member.value) for member in kind)
    raise _fail(
        pointer, f"expected one of {options}, found {_describe(value)}", section
    )


def _names(
    value: object, pointer: str, section: str, *, unique: bool
) -> tuple[str, ...]:
    if not isinstance(value, list | tuple) or not value:
        raise _fail(
            pointer, f"expected a non-empty array, found {_describe(value)}", section
        )
    names = tuple(
        _text(item, f"{pointer}/{i}", section) for i, item in enumerate(value)
    )
    if unique:
        for index, name in enumerate(names):
            if name in names[:index]:
                raise _fail(f"{pointer}/{index}", f"duplicate name {name!r}", section)
    return names


def _check_numbers(value: object, ndim: int, pointer: str, section: str) -> None:
    """Check that ``value`` is a nested list of numbers of depth ``ndim``."""
    if not isinstance(value, list | tuple):
        raise _fail(pointer, f"expected an array, found {_describe(value)}", section)
    for index, item in enumerate(value):
        where = f"{pointer}/{index}"
        if ndim > 1:
            _check_numbers(item, ndim - 1, where, section)
        elif isinstance(item, bool) or not isinstance(item, int | float):
            raise _fail(where, f"expected a number, found {_describe(item)}", section)


def _float_array(
    value: object, shape: tuple[int | None, ...], pointer: str, section: str
) -> FloatArray:
    """Return ``value`` as a read-only, finite float64 array of ``shape``.

    ``None`` in ``shape`` accepts any length of at least 1 along that axis.
    """
    if isinstance(value, np.ndarray):
        if value.dtype.kind not in "fiu":
            raise _fail(
                pointer, f"expected a numeric array, found {value.dtype}", section
            )
    else:
        _check_numbers(value, len(shape), pointer, section)
    try:
        array = np.array(value, dtype=np.float64)
    except ValueError as exc:  # ragged nested lists
        raise _fail(pointer, "rows have different lengths", section) from exc
    wanted = "(" + ", ".join("K" if n is None else str(n) for n in shape) + ")"
    if array.ndim != len(shape) or any(
        (size < 1) if n is None else (size != n)
        for size, n in zip(array.shape, shape, strict=False)
    ):
        raise _fail(pointer, f"expected shape {wanted}, found {array.shape}", section)
    bad = np.argwhere(~np.isfinite(array))
    if bad.size:
        where = "".join(f"/{int(i)}" for i in bad[0])
        raise _fail(f"{pointer}{where}", "non-finite number", section)
    array = array + 0.0  # copy, and fold -0.0 into 0.0
    array.setflags(write=False)
    return array


def _json_object(
    obj: object, keys: tuple[str, ...], where: str, section: str
) -> dict[str, Any]:
    if not isinstance(obj, dict):
        raise _fail(
            where or "/", f"expected a JSON object, found {_describe(obj)}", section
        )
    for key in keys:
        if key not in obj:
            raise _fail(f"{where}/{key}", "required key is missing", section)
    for key in sorted(str(key) for key in obj):
        if key not in keys:
            raise _fail(f"{where}/{key}", "unknown key", section)
    return obj


def _with_prefix(exc: SchemaError, where: str) -> SchemaError:
    if not where:
        return exc
    return SchemaError(f"{where}{exc.reason}", section=exc.section)


def _identity(value: DataclassInstance) -> tuple[object, ...]:
    """Hashable field tuple of a dataclass, arrays as (shape, bytes)."""
    items: list[object] = []
    for field in dataclasses.fields(value):
        item = getattr(value, field.name)
        if isinstance(item, np.ndarray):
            item = (item.shape, item.tobytes())
        items.append(item)
    return tuple(items)


# ---------------------------------------------------------------------------
# Authored chunks
# ---------------------------------------------------------------------------

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
class AuthoredChunk:
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

    def __post_init__(self) -> None:
        """Check every field; store enums, tuples and read-only float64 arrays."""
        _text(self.chunk_id, "/chunk_id", _CHUNK)
        _text(self.target, "/target", _CHUNK)
        _text(self.controller, "/controller", _CHUNK)
        _integer(self.generation, "/generation", _CHUNK)
        space = _enum(CommandSpace, self.command_space, "/command_space", _CHUNK)
        normalised: dict[str, object] = {
            "command_space": space,
            "interpolation": _enum(
                Interpolation, self.interpolation, "/interpolation", _CHUNK
            ),
            "terminal_policy": _enum(
                TerminalPolicy, self.terminal_policy, "/terminal_policy", _CHUNK
            ),
            "start_sim_time_s": _time(
                self.start_sim_time_s, "/start_sim_time_s", _CHUNK
            ),
        }
        axes = _names(self.axes, "/axes", _CHUNK, unique=True)
        normalised["axes"] = axes
        normalised["units"] = self._checked_units(space, len(axes))
        times = _float_array(self.times_s, (None,), "/times_s", _CHUNK)
        _check_times(times)
        normalised["times_s"] = times
        normalised["values"] = _float_array(
            self.values, (times.shape[0], len(axes)), "/values", _CHUNK
        )
        for name, value in normalised.items():
            object.__setattr__(self, name, value)

    def _checked_units(self, space: CommandSpace, count: int) -> tuple[str, ...]:
        units = _names(self.units, "/units", _CHUNK, unique=False)
        if len(units) != count:
            raise _fail(
                "/units",
                f"expected {count} units (one per axis), found {len(units)}",
                _CHUNK,
            )
        allowed = UNITS_BY_COMMAND_SPACE[space]
        for index, unit in enumerate(units):
            if unit not in allowed:
                options = ", ".join(repr(item) for item in sorted(allowed))
                raise _fail(
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

    def to_json(self) -> dict[str, Any]:
        """Return the chunk as a JSON object (arrays as nested lists)."""
        return {
            "axes": list(self.axes),
            "chunk_id": self.chunk_id,
            "command_space": self.command_space.value,
            "controller": self.controller,
            "generation": self.generation,
            "interpolation": self.interpolation.value,
            "start_sim_time_s": self.start_sim_time_s,
            "target": self.target,
            "terminal_policy": self.terminal_policy.value,
            "times_s": self.times_s.tolist(),
            "units": list(self.units),
            "values": self.values.tolist(),
        }

    @classmethod
    def from_json(cls, obj: object, *, where: str = "") -> AuthoredChunk:
        """Build a chunk from a parsed JSON object, strictly.

        Parameters
        ----------
        obj
            The value produced by :meth:`to_json` (after a JSON round trip).
        where
            JSON pointer of ``obj`` in a larger document, prefixed to error
            locations.

        Returns
        -------
        AuthoredChunk
            The validated chunk.

        Raises
        ------
        SchemaError
            Not an object, a missing or unknown key, or an invalid field.
        """
        fields = _json_object(obj, _CHUNK_KEYS, where, _CHUNK)
        try:
            return cls(**{key: fields[key] for key in _CHUNK_KEYS})
        except SchemaError as exc:
            raise _with_prefix(exc, where) from exc

    def __eq__(self, other: object) -> bool:
        """Compare every field, arrays element-wise."""
        if not isinstance(other, AuthoredChunk):
            return NotImplemented
        return _identity(self) == _identity(other)

    def __hash__(self) -> int:
        """Hash consistently with ``__eq__``."""
        return hash(_identity(self))


def _check_times(times: FloatArray) -> None:
    if times[0] != 0.0:
        raise _fail("/times_s/0", f"first time must be 0, found {times[0]}", _CHUNK)
    steps = np.diff(times)
    if (steps <= 0.0).any():
        index = int(np.argmax(steps <= 0.0)) + 1
        raise _fail(
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
            raise _fail(
                f"/{index}/chunk_id",
                f"duplicate chunk ID {chunk.chunk_id!r} (first at "
                f"/{first_index[chunk.chunk_id]})",
                _SEQUENCE,
            )
        first_index[chunk.chunk_id] = index
        if chunk.generation != chunks[0].generation:
            raise _fail(
                f"/{index}/generation",
                f"authored control spans generations {chunks[0].generation} and "
                f"{chunk.generation}",
                _SEQUENCE,
            )
        if index and chunk.start_sim_time_s < chunks[index - 1].start_sim_time_s:
            raise _fail(
                f"/{index}/start_sim_time_s",
                f"chunk starts at {chunk.start_sim_time_s}, before the previous "
                f"chunk's start {chunks[index - 1].start_sim_time_s}",
                _SEQUENCE,
            )


# ---------------------------------------------------------------------------
# Applied-control evidence
# ---------------------------------------------------------------------------

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
class AppliedControl:
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

    def __post_init__(self) -> None:
        """Check every field; store enums, tuples and a read-only array."""
        _integer(self.tick, "/tick", _APPLIED)
        _text(self.target, "/target", _APPLIED)
        if self.chunk_id is not None:
            _text(self.chunk_id, "/chunk_id", _APPLIED)
        axes = _names(self.axes, "/axes", _APPLIED, unique=True)
        normalised: dict[str, object] = {
            "sim_time_s": _time(self.sim_time_s, "/sim_time_s", _APPLIED),
            "command_space": _enum(
                CommandSpace, self.command_space, "/command_space", _APPLIED
            ),
            "axes": axes,
            "values": _float_array(self.values, (len(axes),), "/values", _APPLIED),
        }
        for name, value in normalised.items():
            object.__setattr__(self, name, value)

    def to_json(self) -> dict[str, Any]:
        """Return the evidence as a JSON object (``chunk_id`` may be null)."""
        return {
            "axes": list(self.axes),
            "chunk_id": self.chunk_id,
            "command_space": self.command_space.value,
            "sim_time_s": self.sim_time_s,
            "target": self.target,
            "tick": self.tick,
            "values": self.values.tolist(),
        }

    @classmethod
    def from_json(cls, obj: object, *, where: str = "") -> AppliedControl:
        """Build the evidence from a parsed JSON object, strictly.

        Parameters
        ----------
        obj
            The value produced by :meth:`to_json`; every key is required.
        where
            JSON pointer of ``obj`` in a larger document.

        Returns
        -------
        AppliedControl
            The validated evidence.

        Raises
        ------
        SchemaError
            Not an object, a missing or unknown key, or an invalid field.
        """
        fields = _json_object(obj, _APPLIED_KEYS, where, _APPLIED)
        try:
            return cls(**{key: fields[key] for key in _APPLIED_KEYS})
        except SchemaError as exc:
            raise _with_prefix(exc, where) from exc

    def __eq__(self, other: object) -> bool:
        """Compare every field, arrays element-wise."""
        if not isinstance(other, AppliedControl):
            return NotImplemented
        return _identity(self) == _identity(other)

    def __hash__(self) -> int:
        """Hash consistently with ``__eq__``."""
        return hash(_identity(self))


# ---------------------------------------------------------------------------
# Results
# ---------------------------------------------------------------------------

_RESULT_KEYS: Final = ("chunk_id", "reason_code", "status")


@dataclass(frozen=True)
class ChunkResult:
    """How a submitted chunk ended.

    Parameters
    ----------
    chunk_id
        The chunk concerned.
    status
        ``succeeded``, ``failed`` or ``cancelled``.
    reason_code
        Machine-readable reason, upper case letters and underscores
        (``"COMPLETED"``, ``"TIMEOUT"``).

    Raises
    ------
    SchemaError
        A field is invalid; the message starts with its JSON pointer.
    """

    chunk_id: str
    status: ChunkStatus
    reason_code: str

    def __post_init__(self) -> None:
        """Check every field and store ``status`` as a :class:`ChunkStatus`."""
        _text(self.chunk_id, "/chunk_id", _RESULT)
        status = _enum(ChunkStatus, self.status, "/status", _RESULT)
        code: object = self.reason_code
        if not isinstance(code, str) or not _REASON_CODE.fullmatch(code):
            raise _fail(
                "/reason_code",
                f"expected upper case letters and underscores, found {_describe(code)}",
                _RESULT,
            )
        object.__setattr__(self, "status", status)

    def to_json(self) -> dict[str, Any]:
        """Return the result as a JSON object."""
        return {
            "chunk_id": self.chunk_id,
            "reason_code": self.reason_code,
            "status": self.status.value,
        }

    @classmethod
    def from_json(cls, obj: object, *, where: str = "") -> ChunkResult:
        """Build a result from a parsed JSON object, strictly.

        Parameters
        ----------
        obj
            The value produced by :meth:`to_json`.
        where
            JSON pointer of ``obj`` in a larger document.

        Returns
        -------
        ChunkResult
            The validated result.

        Raises
        ------
        SchemaError
            Not an object, a missing or unknown key, or an invalid field.
        """
        fields = _json_object(obj, _RESULT_KEYS, where, _RESULT)
        try:
            return cls(**{key: fields[key] for key in _RESULT_KEYS})
        except SchemaError as exc:
            raise _with_prefix(exc, where) from exc
