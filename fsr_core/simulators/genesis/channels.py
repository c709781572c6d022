"""The channels a Genesis replay writes, named as the Genesis source names them.

A trajectory opens in the viewer through the Genesis source, which makes a
channel of every non-empty field of the frames and INFO records (but the
SCRATCH ones), one per environment when ``n_envs`` > 1. A replay writes the
fields of the scene it rebuilt under the same channel names, columns and
play times, so that ``fsr-viewer compare RUN.gstraj REPLAY.fsr`` and the
window's comparison after a replay pair them channel by channel. The naming
rules are the source's own, shared through
:mod:`fsr_core.logs.genesis.naming` (neither package may import the other);
``tests/core/test_genesis_adapter.py`` checks, on every test trajectory,
that both give the same names and columns.

* Environment axis (:func:`batch_axis`): the second axis of rigid-solver
  arrays, the first of ``(B,)`` arrays and of gravity; none for the model
  parameters of ``dyn_info`` shared by all environments (equalities aside).
* Columns: link, joint, dof or position names along the first axis when the
  scene description gives as many; ``x y z`` and quaternion ``w x y z`` along
  the last; indices otherwise, joined with dots; ``value`` for one number.
* Play time: the largest step count of a frame times ``dt`` from the first
  frame; where the counts go back (a full reset) play time goes on.

``timings/...`` fields are wall-clock measurements, not simulation state: the
replay leaves them out. Only numpy and the standard library are used (the
Genesis side imports :func:`batch_axis`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

from fsr_core.logs.genesis.naming import batch_axis, field_columns
from fsr_core.simulators.genesis.trajectory_file import (
    FieldRow,
    TrajectoryHeader,
)

__all__ = [
    "MAX_STREAMS",
    "TIME_CHANNEL",
    "TIMINGS_PREFIX",
    "ChannelSpec",
    "batch_axis",
    "channel_specs",
    "channel_values",
    "is_recorded_field",
    "play_times",
    "stream_name",
]

TIME_CHANNEL: Final = "Simulator.time"
TIMINGS_PREFIX: Final = "timings/"
MAX_STREAMS: Final = 4000
"""Channels a replay writes at most (an FSR file holds 4096 streams)."""
_STREAM_PREFIX: Final = "observations."
_NOT_IN_NAME: Final = re.compile(r"[^A-Za-z0-9_.\-]")


def is_recorded_field(row: FieldRow) -> bool:
    """Whether the source makes channels of ``row`` and a replay writes them."""
    return (
        row.size > 0
        and row.kind != "SCRATCH"
        and not row.name.startswith(TIMINGS_PREFIX)
    )


@dataclass(frozen=True)
class ChannelSpec:
    """One channel: the field it reads, the environment, its name and columns."""

    field: str
    env: int | None
    """The index along :attr:`axis` (None: the whole field is one channel)."""
    axis: int | None
    name: str
    columns: tuple[str, ...]

    def row(self, value: npt.NDArray[np.generic]) -> npt.NDArray[np.float64]:
        """Return this channel's columns of ``value`` (the field, canonical shape)."""
        data = np.asarray(value).astype(np.float64)
        if self.axis is not None and self.env is not None:
            data = np.take(data, self.env, axis=self.axis)
        return data.reshape(-1)


def channel_specs(header: TrajectoryHeader) -> list[ChannelSpec]:
    """Return the channels of every field a replay writes, in the source's order."""
    batch = header.batch
    specs: list[ChannelSpec] = []
    for row in header.fields + header.info_fields:
        if not is_recorded_field(row):
            continue
        axis = batch_axis(row.name, row.shape, batch) if batch > 1 else None
        value_shape = list(row.shape)
        if axis is not None:
            value_shape.pop(axis)
        elif batch == 1 and len(row.shape) >= 2 and row.shape[1] == 1:
            value_shape.pop(1)
        columns = field_columns(row.name, tuple(value_shape), header.names)
        if axis is None:
            specs.append(ChannelSpec(row.name, None, None, row.name, columns))
            continue
        for env in range(batch):
            specs.append(
                ChannelSpec(row.name, env, axis, f"env{env}/{row.name}", columns)
            )
    return specs


def time_columns(header: TrajectoryHeader) -> tuple[str, ...]:
    """Return the columns of :data:`TIME_CHANNEL`: one per environment."""
    if header.batch > 1:
        return tuple(f"env{e}" for e in range(header.batch))
    return ("value",)


def sim_time(header: TrajectoryHeader, steps: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Return Genesis's time per environment: ``steps * dt`` in the simulation type."""
    float_type = np.dtype(header.precision).type
    counts = np.asarray(steps).astype(float_type)
    times: npt.NDArray[np.float64] = (
        (counts * float_type(header.dt)).astype(np.float64).reshape(-1)
    )
    return times


def play_times(steps_max: Sequence[int], dt: float) -> npt.NDArray[np.float64]:
    """Return the play time of frames whose largest step counts are ``steps_max``.

    Within a run of increasing counts, ``(count - first count) * dt`` from the
    run's start; a count that does not increase starts a new run one step
    after the previous run's end, as the Genesis source lays them out.
    """
    reference = np.asarray(steps_max, dtype=np.int64)
    count = len(reference)
    play = np.zeros(count, dtype=np.float64)
    first, start, step = 0, 0.0, 1
    for i in range(1, count + 1):
        if i < count and reference[i] > reference[i - 1]:
            step = int(reference[i] - reference[i - 1])
            continue
        rows = slice(first, i)
        play[rows] = start + (reference[rows] - reference[first]) * dt
        start = float(play[i - 1]) + step * dt
        first = i
    return play


def stream_name(channel: str, taken: set[str]) -> str:
    """Return a free FSR stream name for ``channel`` (``observations.<name>``)."""
    base = _STREAM_PREFIX + _NOT_IN_NAME.sub("_", channel.replace("/", "."))
    name, number = base, 1
    while name in taken:
        number += 1
        name = f"{base}-{number}"
    taken.add(name)
    return name


def channel_values(
    spec: ChannelSpec, arrays: dict[str, npt.NDArray[np.generic]]
) -> npt.NDArray[np.float64] | None:
    """Return ``spec``'s row from a frame's ``arrays`` (None: the field is absent)."""
    value = arrays.get(spec.field)
    if value is None:
        return None
    return spec.row(value)
