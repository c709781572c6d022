"""Authored chunks driving actuators: preemption, results, the admission window."""

from __future__ import annotations

import numpy as np
import pytest

from fsr_core.control import ChunkStatus, CommandSpace
from fsr_core.errors import SchemaError
from fsr_core.simulators.mujoco.control import ControlPlayback, authored_chunks
from fsr_core.simulators.mujoco.model_session import Actuator
from fsr_core.simulators.mujoco.scenario import ControlSpec

ACTUATORS = tuple(
    Actuator(name, CommandSpace.JOINT_POSITION, "rad") for name in ("a", "b", "c")
)
DT_S = 0.01


def _chunk(axis: str, start_s: float, end_s: float, value: float) -> ControlSpec:
    return ControlSpec(
        start_s=start_s,
        times_s=(0.0, end_s - start_s),
        values=((value,), (value,)),
        actuators=(axis,),
    )


def _run(playback: ControlPlayback, steps: int) -> dict[str, int]:
    """Step the playback; return the step each chunk started at."""
    started: dict[str, int] = {}
    ctrl = np.zeros(len(ACTUATORS))
    for tick in range(steps):
        for chunk in playback.submit_due(tick * DT_S):
            started[chunk.chunk_id] = tick
        playback.apply(tick * DT_S, ctrl)
    return started


def test_a_later_chunk_preempts_an_earlier_one_on_its_axes() -> None:
    specs = [_chunk("a", 0.0, 1.0, 0.5), _chunk("a", 0.2, 0.3, -0.5)]
    playback = ControlPlayback(authored_chunks(specs, ACTUATORS), ACTUATORS)
    ctrl = np.zeros(3)
    for tick in range(25):
        playback.submit_due(tick * DT_S)
        playback.apply(tick * DT_S, ctrl)
    results = {r.chunk_id: r.status for r in playback.results()}
    assert ctrl[0] == -0.5
    assert results == {"chunk-000": ChunkStatus.CANCELLED}


def test_the_admission_window_holds_a_due_chunk_until_one_ends() -> None:
    specs = [
        _chunk("a", 0.0, 0.10, 1.0),
        _chunk("b", 0.0, 0.30, 1.0),
        _chunk("c", 0.0, 0.30, 1.0),
    ]
    chunks = authored_chunks(specs, ACTUATORS)
    free = _run(ControlPlayback(chunks, ACTUATORS), 50)
    windowed = _run(ControlPlayback(chunks, ACTUATORS, max_in_flight=2), 50)
    sequential = _run(ControlPlayback(chunks, ACTUATORS, sequential=True), 80)
    assert free == {"chunk-000": 0, "chunk-001": 0, "chunk-002": 0}
    # chunk-000 ends at step 10 (0.10 s); the third starts at the next step.
    assert windowed == {"chunk-000": 0, "chunk-001": 0, "chunk-002": 11}
    assert sequential == {"chunk-000": 0, "chunk-001": 11, "chunk-002": 42}


def test_a_chunk_naming_an_unknown_actuator_is_refused() -> None:
    with pytest.raises(SchemaError, match="the model has no actuator 'd'"):
        authored_chunks([_chunk("d", 0.0, 1.0, 0.0)], ACTUATORS)
