"""Authored control on a MuJoCo model's actuators, and playing it back.

Each ``[[control]]`` table becomes one :class:`~fsr_core.control.AuthoredChunk`
whose axes are actuator names. At every step, :class:`ControlPlayback` sets
``ctrl`` from the chunks that have started, in start order, so a later chunk
preempts an earlier one on the axes they share; a chunk whose terminal policy
is ``controller_default`` stops commanding after its last point and the
actuator keeps its last value. A chunk ends (its result is ``succeeded``) at
the first step at or past its last point, or ``cancelled`` when a later chunk
takes over all its axes before that. A re-simulation may bound how many chunks
are in flight (started, no terminal result yet): a chunk due while the window
is full starts at the first step after the oldest one ends, its points then
counted from that start (``sequential`` is a window of one).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from fsr_core.arrays import FloatArray
from fsr_core.control import (
    AppliedControl,
    AuthoredChunk,
    ChunkResult,
    ChunkStatus,
    CommandSpace,
)
from fsr_core.errors import SchemaError
from fsr_core.simulators.mujoco.model_session import Actuator
from fsr_core.simulators.mujoco.scenario import ControlSpec

__all__ = ["CONTROLLER", "TARGET", "ControlPlayback", "authored_chunks"]

CONTROLLER = "mujoco_actuators"
TARGET = "actuators"
_EPSILON_S = 1e-12


def _chunk(
    index: int, spec: ControlSpec, actuators: Sequence[Actuator]
) -> AuthoredChunk:
    by_name = {actuator.name: actuator for actuator in actuators}
    names = spec.actuators or tuple(by_name)
    missing = [name for name in names if name not in by_name]
    if missing:
        raise SchemaError(
            f"[[control]] {index}: the model has no actuator {missing[0]!r} "
            f"(actuators: {', '.join(by_name) or 'none'})"
        )
    spaces = {by_name[name].command_space for name in names}
    if len(spaces) != 1:
        raise SchemaError(
            f"[[control]] {index}: actuators mix command spaces "
            f"({', '.join(sorted(space.value for space in spaces))}); "
            "split them into one chunk per space"
        )
    values = np.array(spec.values, dtype=np.float64)
    if values.ndim != 2 or values.shape[1] != len(names):
        raise SchemaError(
            f"[[control]] {index}: each row of values needs {len(names)} numbers"
        )
    return AuthoredChunk(
        chunk_id=f"chunk-{index:03d}",
        target=TARGET,
        command_space=spaces.pop(),
        axes=tuple(names),
        units=tuple(by_name[name].unit for name in names),
        interpolation=spec.interpolation,
        terminal_policy=spec.terminal_policy,
        start_sim_time_s=spec.start_s,
        times_s=np.array(spec.times_s, dtype=np.float64),
        values=values,
        controller=CONTROLLER,
        generation=0,
    )


def authored_chunks(
    specs: Sequence[ControlSpec], actuators: Sequence[Actuator]
) -> list[AuthoredChunk]:
    """Turn the scenario's control tables into chunks, in start order.

    Raises
    ------
    SchemaError
        An unknown actuator, mixed command spaces, or rows of the wrong width.
    """
    chunks = [_chunk(index, spec, actuators) for index, spec in enumerate(specs)]
    return sorted(chunks, key=lambda chunk: chunk.start_sim_time_s)


@dataclass
class _Running:
    chunk: AuthoredChunk
    columns: npt.NDArray[np.intp]
    owned: set[int] = field(default_factory=set)


class ControlPlayback:
    """Sets actuator controls from authored chunks, step by step."""

    def __init__(
        self,
        chunks: Sequence[AuthoredChunk],
        actuators: Sequence[Actuator],
        *,
        sequential: bool = False,
        max_in_flight: int | None = None,
    ) -> None:
        self._window = 1 if sequential else max_in_flight
        self._held: set[str] = set()
        self._actuators = tuple(actuators)
        column = {actuator.name: i for i, actuator in enumerate(actuators)}
        self._pending = list(chunks)
        self._running: list[_Running] = []
        self._results: list[ChunkResult] = []
        self._column = column

    def submit_due(self, sim_time_s: float) -> list[AuthoredChunk]:
        """Start the chunks whose start time has come; return them.

        A chunk held back by a full window starts when admitted, with its
        points kept relative to that start.
        """
        started = []
        while (
            self._pending
            and self._pending[0].start_sim_time_s <= sim_time_s + _EPSILON_S
        ):
            if self._window_full():
                self._held.add(self._pending[0].chunk_id)
                break
            chunk = self._pending.pop(0)
            if chunk.chunk_id in self._held:
                chunk = dataclasses.replace(chunk, start_sim_time_s=sim_time_s)
            columns = np.array([self._column[a] for a in chunk.axes], dtype=np.intp)
            running = _Running(chunk, columns, set(columns.tolist()))
            for other in self._running:
                other.owned -= running.owned
                if not other.owned:
                    self._finish(other, ChunkStatus.CANCELLED, "PREEMPTED")
            self._running = [r for r in self._running if r.owned]
            self._running.append(running)
            started.append(chunk)
        return started

    def _in_flight(self) -> int:
        done = {result.chunk_id for result in self._results}
        return sum(r.chunk.chunk_id not in done for r in self._running)

    def _busy(self) -> bool:
        return self._in_flight() > 0

    def _window_full(self) -> bool:
        """Whether the chunks without a terminal result fill the admission window."""
        return self._window is not None and self._in_flight() >= self._window

    @property
    def finished(self) -> bool:
        """Whether every chunk has started and has its terminal result."""
        return not self._pending and not self._busy()

    def apply(self, sim_time_s: float, ctrl: FloatArray) -> str:
        """Write the commanded values into ``ctrl``; return the newest chunk's ID."""
        newest = ""
        for running in self._running:
            value = running.chunk.value_at(sim_time_s)
            if value is not None:
                owned = [i for i, c in enumerate(running.columns) if c in running.owned]
                ctrl[running.columns[owned]] = value[owned]
            newest = running.chunk.chunk_id
        for running in list(self._running):
            if sim_time_s + _EPSILON_S >= running.chunk.end_sim_time_s:
                self._finish(running, ChunkStatus.SUCCEEDED, "COMPLETED")
        return newest

    def _finish(self, running: _Running, status: ChunkStatus, code: str) -> None:
        if any(r.chunk_id == running.chunk.chunk_id for r in self._results):
            return
        self._results.append(ChunkResult(running.chunk.chunk_id, status, code))

    def results(self) -> list[ChunkResult]:
        """Every chunk result so far, in the order they ended."""
        return list(self._results)

    def applied(
        self, tick: int, sim_time_s: float, ctrl: FloatArray, chunk_id: str
    ) -> list[AppliedControl]:
        """Evidence of what the actuators received, one record per command space."""
        groups: dict[CommandSpace, list[int]] = {}
        for index, actuator in enumerate(self._actuators):
            groups.setdefault(actuator.command_space, []).append(index)
        return [
            AppliedControl(
                tick=tick,
                sim_time_s=sim_time_s,
                target=TARGET,
                command_space=space,
                axes=tuple(self._actuators[i].name for i in columns),
                values=np.asarray(ctrl[columns], dtype=np.float64),
                chunk_id=chunk_id or None,
            )
            for space, columns in groups.items()
        ]
