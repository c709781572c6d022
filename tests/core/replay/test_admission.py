"""When a resimulation admits each recorded chunk: the window and the timing."""

from __future__ import annotations

import numpy as np
import pytest

from fsr_core.control import AuthoredChunk, CommandSpace
from fsr_core.simulation.protocol import Execution, Timing
from fsr_core.simulators.planar_arm.admission import ChunkAdmission, PendingChunk

DT_S = 0.002


def _pending(chunk_id: str, start_s: float, recorded_tick: int) -> PendingChunk:
    chunk = AuthoredChunk(
        chunk_id=chunk_id,
        target="arm",
        command_space=CommandSpace.JOINT_POSITION,
        axes=("q0",),
        units=("rad",),
        interpolation="linear",
        terminal_policy="hold",
        start_sim_time_s=start_s,
        times_s=np.array([0.0, 1.0]),
        values=np.zeros((2, 1)),
        controller="pd",
        generation=0,
    )
    return PendingChunk(chunk, recorded_tick, chunk_id)


def _run(admission: ChunkAdmission, ticks: int) -> dict[str, tuple[int, float]]:
    """Return, per chunk, the tick it was admitted at and the start it was given."""
    admitted = {}
    for tick in range(ticks):
        for entry in admission.admit(tick):
            admitted[entry.source_chunk_id] = (tick, entry.chunk.start_sim_time_s)
    return admitted


def _three_chunks_submitted_ahead() -> list[PendingChunk]:
    # Recorded all at tick 0, starting at 0.0, 0.1 and 0.2 s: each preempts the last.
    return [_pending(f"c{n}", n / 10, 0) for n in range(3)]


def _admission(
    chunks: list[PendingChunk],
    timing: Timing,
    execution: Execution,
    max_in_flight: int = 4,
) -> ChunkAdmission:
    return ChunkAdmission(
        chunks,
        dt_s=DT_S,
        timing=timing,
        execution=execution,
        max_in_flight=max_in_flight,
    )


@pytest.mark.parametrize(
    ("max_in_flight", "ticks", "expected"),
    [
        # c0 and c1 fill the window at once; c2 waits for c0's terminal result,
        # which c1 starting at 0.1 s (tick 50) gives. Its recorded start holds.
        (2, 200, {"c0": (0, 0.0), "c1": (0, 0.1), "c2": (50, 0.2)}),
        (3, 5, {"c0": (0, 0.0), "c1": (0, 0.1), "c2": (0, 0.2)}),
    ],
    ids=[
        "full_window_holds_the_next_chunk_until_the_oldest_ends",
        "wide_window_admits_every_chunk_at_once",
    ],
)
def test_the_window_of_chunks_in_flight_paces_admission(
    max_in_flight: int, ticks: int, expected: dict[str, tuple[int, float]]
) -> None:
    admission = _admission(
        _three_chunks_submitted_ahead(),
        Timing.AS_FAST_AS_VALID,
        Execution.RECORDED_PREEMPTION,
        max_in_flight,
    )

    assert _run(admission, ticks) == expected


def test_sequential_admission_retimes_a_chunk_held_past_its_start() -> None:
    chunks = [_pending("c0", 0.0, 0), _pending("c1", 0.1, 50)]
    admission = _admission(chunks, Timing.RECORDED_SIM_TIME, Execution.SEQUENTIAL)

    admitted = _run(admission, 600)

    # c0 runs to 1.0 s (tick 500); c1 is admitted then and starts then.
    assert admitted["c0"] == (0, 0.0)
    assert admitted["c1"] == (500, pytest.approx(1.0))
    assert admission.all_terminal(2.0)


def test_recorded_sim_time_waits_for_the_recorded_tick() -> None:
    chunks = [_pending("c0", 0.0, 0), _pending("c1", 0.3, 150)]
    admission = _admission(
        chunks, Timing.RECORDED_SIM_TIME, Execution.RECORDED_PREEMPTION
    )

    assert _run(admission, 200) == {"c0": (0, 0.0), "c1": (150, 0.3)}


def test_window_below_one_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="max_in_flight must be >= 1"):
        _admission([], Timing.AS_FAST_AS_VALID, Execution.SEQUENTIAL, 0)
