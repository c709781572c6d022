"""A recovered file shades the streams whose tail was lost; intact files do not."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from fsr_core.format.catalog import numeric_stream
from fsr_core.format.recovery import recover_file
from fsr_core.format.writer import FsrWriter
from fsr_core.recording import MarkerKind
from fsr_core.sources import open_recording
from fsr_core.sources.fsr import load_fsr


@pytest.fixture
def uneven_recording(tmp_path: Path) -> Path:
    """Write a 100 Hz stream for 1 s and a 10 Hz one that stops at 0.5 s."""
    path = tmp_path / "uneven.fsr"
    specs = [numeric_stream("fast", ["x"]), numeric_stream("slow", ["y"])]
    with FsrWriter(path, specs) as writer:
        for tick in range(100):
            time_s = tick / 100
            writer.write("fast", np.array([time_s]), tick=tick, sim_time_s=time_s)
            if tick % 10 == 0 and time_s <= 0.5:
                writer.write("slow", np.array([-time_s]), tick=tick, sim_time_s=time_s)
    return path


def _unreadable(path: Path, *, recover: bool = True) -> list[tuple[float, float, str]]:
    model = load_fsr(path, recover=recover)
    return [
        (marker.play_time_s, marker.end_play_s or 0.0, marker.label)
        for marker in model.markers
        if marker.kind is MarkerKind.UNREADABLE
    ]


def test_an_intact_file_shades_nothing_even_when_a_stream_stops_early(
    uneven_recording: Path,
) -> None:
    assert _unreadable(uneven_recording) == []


def test_a_crashed_file_shades_the_tail_its_slow_stream_lost(
    uneven_recording: Path, tmp_path: Path
) -> None:
    crashed = tmp_path / "crashed.fsr"
    data = uneven_recording.read_bytes()
    crashed.write_bytes(data[:-40])  # the trailer and part of the footer are gone

    spans = _unreadable(crashed)
    assert [(start, end) for start, end, _ in spans] == [(0.5, 0.99)]
    assert "slow ends at 0.500 s" in spans[0][2]
    model = open_recording(crashed)
    assert model.integrity.value == "recovered"
    assert model.integrity_reason.startswith("recovered: truncated at")


def test_a_recovered_copy_names_what_was_kept_and_shades_the_same_tail(
    uneven_recording: Path, tmp_path: Path
) -> None:
    crashed = tmp_path / "crashed.fsr"
    crashed.write_bytes(uneven_recording.read_bytes()[:-40])
    copy = tmp_path / "copy.fsr"
    recover_file(crashed, copy)

    assert [(s, e) for s, e, _ in _unreadable(copy, recover=False)] == [(0.5, 0.99)]
    reason = open_recording(copy).integrity_reason
    assert reason.startswith("recovered copy, ")
    assert "% of the damaged file kept" in reason
    assert "records" in reason


def test_camera_frames_of_a_crashed_file_still_decode(tmp_path: Path) -> None:
    from fsr_core.simulators.planar_arm.demos import _take_documents
    from fsr_core.simulators.planar_arm.recorder import record_run
    from fsr_core.simulators.planar_arm.scenario import Scenario

    document = _take_documents()["01_reach"]
    front = dict(document["cameras"][0], width=80, height=60, rate_hz=10.0)
    document.update(duration_s=0.3, cameras=[front])
    take = tmp_path / "take.fsr"
    record_run(Scenario.from_json(document), take)
    crashed = tmp_path / "crashed.fsr"
    crashed.write_bytes(take.read_bytes()[:-40])

    model = open_recording(crashed)
    (track,) = model.cameras
    frame, calibration = track.fetch(len(track.times_s) - 1)
    assert (frame.width, frame.height) == (80, 60)
    assert calibration is not None
