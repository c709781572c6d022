"""What every simulator's scene capture does alike: rates, clocks, camera frames.

A stream recorded at its own rate takes sample ``n`` on the tick nearest
``n / rate_hz`` (:class:`RateSchedule`), so the mean rate is exact even when
``1 / (rate_hz * dt_s)`` is not a whole number of ticks (30 Hz at a 2 ms step
alternates 16- and 17-tick gaps). Every record of one tick carries that tick's
clocks (:class:`Stamp`); a camera frame is its image and the pose it was taken
from (:func:`write_camera_frame`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fsr_core.calibration import CameraPose
from fsr_core.format.writer import FsrWriter

__all__ = ["RateSchedule", "Stamp", "write_camera_frame"]


class RateSchedule:
    """Which ticks a stream recorded at ``rate_hz`` samples."""

    def __init__(self, rate_hz: float, dt_s: float) -> None:
        self._ticks_per_sample = 1.0 / (rate_hz * dt_s)
        self._next = 0

    def restart(self) -> None:
        """Start again from the first sample (a new generation starts at tick 0)."""
        self._next = 0

    def due(self, tick: int) -> bool:
        """Whether ``tick`` takes a sample (call once per tick, in order)."""
        if tick < round(self._next * self._ticks_per_sample):
            return False
        while round(self._next * self._ticks_per_sample) <= tick:
            self._next += 1
        return True


@dataclass(frozen=True)
class Stamp:
    """The clocks of one tick, for every record written at it."""

    tick: int
    sim_time_s: float
    generation: int = 0

    def write(
        self,
        writer: FsrWriter,
        stream: str,
        value: Any,
        metadata: dict[str, Any] | None = None,
    ) -> None:
        """Write one record at this tick."""
        writer.write(
            stream,
            value,
            tick=self.tick,
            sim_time_s=self.sim_time_s,
            generation=self.generation,
            metadata=metadata,
        )


def write_camera_frame(
    writer: FsrWriter, stamp: Stamp, prefix: str, rgb: Any, pose: CameraPose
) -> None:
    """Write a camera's image and the pose it was taken from (its extrinsics).

    ``prefix`` is the camera's stream-name prefix
    (:func:`~fsr_core.simulation.recorded_streams.camera_prefix`).
    """
    stamp.write(writer, f"{prefix}.rgb", rgb)
    stamp.write(writer, f"{prefix}.extrinsics.translation", pose.translation_m)
    stamp.write(writer, f"{prefix}.extrinsics.quaternion_xyzw", pose.quaternion_xyzw)
