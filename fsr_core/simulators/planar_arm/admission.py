"""When a resimulation submits each recorded chunk to the fresh control session.

One :class:`ChunkAdmission` per control session (one source generation). It
keeps the chunks in source order and, at each tick, says which to submit:

- ``recorded_sim_time`` waits until the tick a chunk was recorded at; with
  ``as_fast_as_valid`` a chunk is admitted as soon as the execution rule lets
  it (its recorded start still holds: a chunk admitted early starts on time);
- ``sequential`` admits a chunk only when every earlier one has its terminal
  result; ``recorded_preemption`` admits while fewer than ``max_in_flight``
  chunks are without one, so a later chunk may preempt an earlier one.

A chunk admitted after its recorded start (the window or the previous chunk
held it back) starts at the tick it is admitted instead.

The terminal rule is the controllers' (see
:mod:`~fsr_core.simulators.planar_arm.controllers`): a chunk is preempted when
the next admitted chunk starts before its last point, and completes once its
last point has passed.
"""

from __future__ import annotations

import dataclasses
from collections import deque
from dataclasses import dataclass
from typing import Final

from fsr_core.control import AuthoredChunk
from fsr_core.simulation.protocol import Execution, Timing

__all__ = ["Admitted", "ChunkAdmission", "PendingChunk"]

_TIME_EPS_S: Final = 1e-9  # the controllers' tolerance for tick clocks


@dataclass(frozen=True)
class PendingChunk:
    """A fresh chunk waiting for admission, and where the source recorded it."""

    chunk: AuthoredChunk
    recorded_tick: int
    """The tick at which the source recording admitted it; later counts as late."""
    source_chunk_id: str
    """The chunk's id in the source recording, kept in the replay's records."""


@dataclass(frozen=True)
class Admitted:
    """A chunk handed to the controller, and the tick it was admitted at."""

    chunk: AuthoredChunk
    tick: int
    source_chunk_id: str
    retimed: bool


class ChunkAdmission:
    """Admission of one session's chunks (see the module docstring)."""

    def __init__(
        self,
        chunks: list[PendingChunk],
        *,
        dt_s: float,
        timing: Timing,
        execution: Execution,
        max_in_flight: int,
    ) -> None:
        if max_in_flight < 1:
            raise ValueError(f"max_in_flight must be >= 1, got {max_in_flight}")
        self._pending = deque(chunks)
        self._dt_s = dt_s
        self._timing = timing
        self._execution = execution
        self._window = max_in_flight
        self.admitted: list[Admitted] = []
        self._ended = 0  # admitted chunks before this index have ended

    @property
    def pending(self) -> tuple[PendingChunk, ...]:
        """Chunks not admitted yet, in source order."""
        return tuple(self._pending)

    def terminal_at(self, index: int, time_s: float) -> bool:
        """Whether admitted chunk ``index`` has its terminal result at ``time_s``."""
        chunk = self.admitted[index].chunk
        end_s = chunk.end_sim_time_s
        if index + 1 < len(self.admitted):
            next_s = self.admitted[index + 1].chunk.start_sim_time_s
            if next_s < end_s - _TIME_EPS_S:
                return next_s <= time_s + _TIME_EPS_S
        return end_s <= time_s + _TIME_EPS_S

    def in_flight(self, time_s: float) -> range:
        """Return the indices of admitted chunks still without a terminal result.

        Call with non-decreasing times. Terminal results come in admission
        order (a chunk ends before, or when, the next one starts), so the
        chunks in flight are always the latest admitted ones.
        """
        while self._ended < len(self.admitted) and self.terminal_at(
            self._ended, time_s
        ):
            self._ended += 1
        return range(self._ended, len(self.admitted))

    def all_terminal(self, time_s: float) -> bool:
        """Whether every chunk is admitted and has its terminal result."""
        return not self._pending and not self.in_flight(time_s)

    def admit(self, tick: int) -> list[Admitted]:
        """Return the chunks to submit at ``tick``, in order."""
        time_s = tick * self._dt_s
        admitted: list[Admitted] = []
        while self._pending and self._may_admit(self._pending[0], tick, time_s):
            item = self._pending.popleft()
            chunk = item.chunk
            late = tick > item.recorded_tick and time_s > chunk.start_sim_time_s
            if late:
                chunk = dataclasses.replace(chunk, start_sim_time_s=time_s)
            entry = Admitted(chunk, tick, item.source_chunk_id, late)
            self.admitted.append(entry)
            admitted.append(entry)
        return admitted

    def _may_admit(self, item: PendingChunk, tick: int, time_s: float) -> bool:
        if self._timing is Timing.RECORDED_SIM_TIME and tick < item.recorded_tick:
            return False
        busy = len(self.in_flight(time_s))
        if self._execution is Execution.SEQUENTIAL:
            return busy == 0
        return busy < self._window
