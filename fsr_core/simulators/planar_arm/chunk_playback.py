"""Chunk playback: what a sequence of authored chunks asks of a controller.

:class:`ChunkDriven` is the base of every planar-arm controller in
:mod:`~fsr_core.simulators.planar_arm.controllers`: it checks submitted chunks
(:func:`check_chunk_fits`), picks the active one at each time, evaluates its
:class:`Reference` and records how each chunk ended (the rules are in the
``controllers`` module docstring). Subclasses add the control law.

Reference derivatives: for a position chunk with linear interpolation the
reference velocity is the current segment's slope (the exact derivative of
the interpolated position) and the reference acceleration is the slope of
the knot velocities (central differences of the points), i.e. the
acceleration of the smooth path the points sample; zero-order-hold position
chunks have zero velocity and acceleration. A velocity chunk's position
reference is its exact integral, starting from the reference in effect when
the chunk starts.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar, Final

import numpy as np

from fsr_core.arrays import FloatArray
from fsr_core.control import (
    AuthoredChunk,
    ChunkResult,
    ChunkStatus,
    CommandSpace,
    Interpolation,
    validate_authored_chunks,
)
from fsr_core.errors import SchemaError
from fsr_core.simulators.planar_arm.kinematics import as_joint_vector
from fsr_core.simulators.planar_arm.model import ArmModel, ArmState

__all__ = [
    "COMPLETED_REASON",
    "PREEMPTED_REASON",
    "REVOLUTE_UNITS",
    "ChunkDriven",
    "Reference",
    "check_chunk_fits",
]


#: Unit of every axis of a chunk for the arm's revolute joints.
REVOLUTE_UNITS: Final[Mapping[CommandSpace, str]] = {
    CommandSpace.JOINT_POSITION: "rad",
    CommandSpace.JOINT_VELOCITY: "rad/s",
    CommandSpace.JOINT_TORQUE: "N*m",
}
#: Reason code of a chunk whose last point has passed.
COMPLETED_REASON: Final = "CHUNK_COMPLETED"
#: Reason code of a chunk a later-starting chunk took over from.
PREEMPTED_REASON: Final = "CHUNK_PREEMPTED"
_TIME_EPS_S: Final = 1e-9  # tick clocks (k * dt) may miss a start by an ulp
_SECTION: Final = "authored chunk"


# ---------------------------------------------------------------------------
# Chunk playback: references and commands from one chunk
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Reference:
    """A joint reference at one time: posture, velocity, acceleration, chunk.

    ``chunk_id`` is None before any chunk starts and under a
    ``controller_default`` terminal policy.
    """

    q: FloatArray
    dq: FloatArray
    qdd: FloatArray
    chunk_id: str | None


def _rest(q: FloatArray, chunk_id: str | None) -> Reference:
    zeros = np.zeros_like(q)
    return Reference(q, zeros, zeros, chunk_id)


class _Playback:
    """Evaluates one submitted chunk (position, velocity or torque space)."""

    def __init__(self, chunk: AuthoredChunk, anchor_q: FloatArray) -> None:
        self.chunk = chunk
        self.at_s: FloatArray = chunk.start_sim_time_s + chunk.times_s
        values = chunk.values
        spans = np.diff(chunk.times_s)
        self.slopes: FloatArray = np.diff(values, axis=0) / spans[:, None]
        linear = chunk.interpolation is Interpolation.LINEAR
        self.accels: FloatArray = np.zeros_like(self.slopes)
        if chunk.command_space is CommandSpace.JOINT_POSITION and linear:
            self.accels = _knot_accelerations(chunk.times_s, values, self.slopes)
        elif linear:
            self.accels = self.slopes
        # Velocity chunks: the position reference at each point (exact integral).
        pieces = 0.5 * (values[1:] + values[:-1]) if linear else values[:-1]
        self.integral: FloatArray = np.empty_like(values)
        self.integral[0] = anchor_q
        self.integral[1:] = anchor_q + np.cumsum(pieces * spans[:, None], axis=0)

    @property
    def end_s(self) -> float:
        return float(self.at_s[-1])

    def _segment(self, t_s: float) -> int | None:
        """Index of the segment ``t_s`` lies in, None at or after the last point."""
        index = int(np.searchsorted(self.at_s, t_s, side="right")) - 1
        return index if index + 1 < len(self.at_s) else None

    def reference(self, t_s: float) -> Reference | None:
        """Return the reference at ``t_s``; None when the default applies."""
        chunk = self.chunk
        when = max(t_s, chunk.start_sim_time_s)
        if chunk.command_space is CommandSpace.JOINT_VELOCITY:
            return self._velocity_reference(when)
        value = chunk.value_at(when)
        if value is None:
            return None
        k = self._segment(when)
        if k is None or chunk.interpolation is Interpolation.ZERO_ORDER_HOLD:
            return _rest(value, chunk.chunk_id)
        return Reference(
            value, self.slopes[k].copy(), self.accels[k].copy(), chunk.chunk_id
        )

    def final_posture(self) -> FloatArray:
        """Return the reference posture at the last point (the default)."""
        source = self.chunk.values
        if self.chunk.command_space is CommandSpace.JOINT_VELOCITY:
            source = self.integral
        posture: FloatArray = np.array(source[-1], dtype=np.float64)
        return posture

    def _velocity_reference(self, when: float) -> Reference | None:
        chunk = self.chunk
        velocity = chunk.value_at(when)  # terminal policy included
        if velocity is None:
            return None
        k = self._segment(when)
        if k is None:  # at or after the last point
            q = self.integral[-1] + velocity * (when - self.end_s)
            return Reference(q, velocity, np.zeros_like(q), chunk.chunk_id)
        tau = when - float(self.at_s[k])
        start_v = chunk.values[k]
        if chunk.interpolation is Interpolation.ZERO_ORDER_HOLD:
            q = self.integral[k] + start_v * tau
            return Reference(q, velocity, np.zeros_like(q), chunk.chunk_id)
        slope = self.slopes[k]
        q = self.integral[k] + start_v * tau + 0.5 * slope * tau * tau
        return Reference(q, velocity, slope.copy(), chunk.chunk_id)


def _knot_accelerations(
    times: FloatArray, values: FloatArray, slopes: FloatArray
) -> FloatArray:
    """Per segment: slope of the knot velocities (central differences)."""
    count = len(times)
    if count < 3:
        return np.zeros_like(slopes)
    knots = np.empty_like(values)
    knots[0], knots[-1] = slopes[0], slopes[-1]
    knots[1:-1] = (values[2:] - values[:-2]) / (times[2:] - times[:-2])[:, None]
    result: FloatArray = np.diff(knots, axis=0) / np.diff(times)[:, None]
    return result


# ---------------------------------------------------------------------------
# Checks
# ---------------------------------------------------------------------------


def _chunk_error(pointer: str, message: str) -> SchemaError:
    return SchemaError(f"{pointer}: {message}", section=_SECTION)


def check_chunk_fits(
    chunk: AuthoredChunk, model: ArmModel, spaces: Sequence[CommandSpace]
) -> None:
    """Check that a chunk can drive ``model`` through a controller.

    Parameters
    ----------
    chunk
        The chunk.
    model
        The arm.
    spaces
        Command spaces the controller accepts.

    Raises
    ------
    SchemaError
        The command space is not accepted, the axes are not the arm's joint
        names in order, or a unit is not the space's revolute unit.
    """
    if chunk.command_space not in spaces:
        options = ", ".join(repr(space.value) for space in spaces)
        raise _chunk_error(
            "/command_space",
            f"this controller takes {options}, found {chunk.command_space.value!r}",
        )
    if chunk.axes != model.joint_names:
        raise _chunk_error(
            "/axes",
            f"expected the arm's joints {list(model.joint_names)}, "
            f"found {list(chunk.axes)}",
        )
    unit = REVOLUTE_UNITS[chunk.command_space]
    for index, found in enumerate(chunk.units):
        if found != unit:
            raise _chunk_error(
                f"/units/{index}",
                f"{chunk.command_space.value} of a revolute joint is in {unit!r}, "
                f"found {found!r}",
            )


# ---------------------------------------------------------------------------
# Chunk bookkeeping shared by every controller
# ---------------------------------------------------------------------------


class ChunkDriven:
    """Submission, selection and results; subclasses add the control law."""

    name: ClassVar[str]
    spaces: ClassVar[tuple[CommandSpace, ...]]

    def __init__(self) -> None:
        self._model: ArmModel | None = None
        self._initial_q = np.zeros(0)
        self._playbacks: list[_Playback] = []
        self._results: list[ChunkResult] = []
        self._ended = 0  # chunks before this index all have a result

    def reset(self, model: ArmModel, state: ArmState) -> None:
        """Start a run: forget chunks and results, hold ``state.q`` until a chunk.

        Parameters
        ----------
        model
            The arm.
        state
            The initial state; its posture is held before any chunk starts.

        Raises
        ------
        SchemaError
            A per-joint gain has the wrong length, or the state does not fit.
        """
        self._initial_q = as_joint_vector(state.q, model.dof, "state.q").copy()
        self._check_gains(model)
        self._model = model
        self._playbacks = []
        self._results = []
        self._ended = 0

    def _check_gains(self, model: ArmModel) -> None:
        """Check per-joint gains against the arm (nothing by default)."""

    def _require_model(self) -> ArmModel:
        if self._model is None:
            raise RuntimeError(f"{type(self).__name__}: call reset() first")
        return self._model

    def _advance(self, t_s: float) -> tuple[ArmModel, float]:
        """Start a command at ``t_s``: record the chunks that ended by then.

        Returns the arm and the time as a float; raises ValueError for a time
        that is not finite and RuntimeError before :meth:`reset`.
        """
        model = self._require_model()
        if not math.isfinite(t_s):
            raise ValueError(f"t_s must be finite, got {t_s}")
        when = float(t_s)
        self._update_results(when)
        return model, when

    def submit(self, chunk: AuthoredChunk) -> None:
        """Accept a chunk for this run.

        Parameters
        ----------
        chunk
            The chunk; it must start no earlier than the chunks submitted
            before it and have a new ID and the same generation.

        Raises
        ------
        SchemaError
            The chunk does not fit the arm or this controller (see
            :func:`check_chunk_fits`), or breaks the sequence rules of
            :func:`~fsr_core.control.validate_authored_chunks`.
        RuntimeError
            :meth:`reset` was not called.
        """
        model = self._require_model()
        check_chunk_fits(chunk, model, self.spaces)
        validate_authored_chunks([*(p.chunk for p in self._playbacks), chunk])
        anchor = self._initial_q
        if self._playbacks:
            anchor = self._posture_of(len(self._playbacks) - 1, chunk.start_sim_time_s)
        self._playbacks.append(_Playback(chunk, anchor))

    def _posture_of(self, index: int, t_s: float) -> FloatArray:
        """Return chunk ``index``'s reference posture at ``t_s``, default included."""
        playback = self._playbacks[index]
        if playback.chunk.command_space is CommandSpace.JOINT_TORQUE:
            return self._initial_q
        reference = playback.reference(t_s)
        return playback.final_posture() if reference is None else reference.q

    def chunk_results(self) -> list[ChunkResult]:
        """Return the results of the chunks that ended so far, in ending order.

        The list only grows during a run (new results are appended).
        """
        return list(self._results)

    def _active(self, t_s: float) -> int | None:
        """Index of the latest-submitted chunk that has started at ``t_s``."""
        for index in range(len(self._playbacks) - 1, -1, -1):
            if self._playbacks[index].chunk.start_sim_time_s <= t_s + _TIME_EPS_S:
                return index
        return None

    def _update_results(self, t_s: float) -> None:
        """Record every chunk that has completed or been preempted by ``t_s``."""
        events: list[tuple[float, int, ChunkResult]] = []
        playbacks = self._playbacks
        index = self._ended
        while index < len(playbacks):
            end_s = playbacks[index].end_s
            following = index + 1 < len(playbacks)
            next_s = playbacks[index + 1].chunk.start_sim_time_s if following else None
            chunk_id = playbacks[index].chunk.chunk_id
            if next_s is not None and next_s < end_s - _TIME_EPS_S:
                if next_s > t_s + _TIME_EPS_S:
                    break
                result = ChunkResult(chunk_id, ChunkStatus.CANCELLED, PREEMPTED_REASON)
                events.append((next_s, index, result))
            elif end_s <= t_s + _TIME_EPS_S:
                result = ChunkResult(chunk_id, ChunkStatus.SUCCEEDED, COMPLETED_REASON)
                events.append((end_s, index, result))
            else:
                break
            index += 1
        self._ended = index
        events.sort(key=lambda event: (event[0], event[1]))
        self._results.extend(result for _, _, result in events)

    def _reference(self, t_s: float) -> Reference:
        """Return the joint reference at ``t_s`` (initial posture before chunks)."""
        index = self._active(t_s)
        if index is None:
            return _rest(self._initial_q.copy(), None)
        playback = self._playbacks[index]
        reference = playback.reference(t_s)
        return _rest(playback.final_posture(), None) if reference is None else reference
