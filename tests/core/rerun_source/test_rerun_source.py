"""Rerun recordings (``.rrd``) as recordings: what rerun-sdk itself reads back.

The files under ``tests/data/rerun`` were written by rerun-sdk
(``tools/make_rerun_data.py``); ``expected.json`` beside them holds what
rerun-sdk's own reader returned for each entity, which these tests hold the
source to.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from data_paths import RERUN_DATA as DATA

from fsr_core.errors import (
    CorruptRecordError,
    FsrError,
    LimitExceededError,
    SchemaError,
)
from fsr_core.recording import MarkerKind, RecordingModel
from fsr_core.sources import (
    OpenOptions,
    expand_recordings,
    open_recording,
    source_for,
)

ARM = DATA / "arm_run.rrd"
TWO = DATA / "two_runs.rrd"
TRUTH: dict[str, Any] = json.loads((DATA / "expected.json").read_text())


def _entity(file: str, entity: str, recording: int = 0) -> dict[str, Any]:
    found: dict[str, Any] = TRUTH["files"][file]["recordings"][recording]["entities"]
    return found[entity]


@pytest.fixture(scope="module")
def arm() -> RecordingModel:
    return open_recording(ARM)


def test_the_registry_finds_the_rerun_source() -> None:
    source = source_for(ARM)
    assert source.name == "rerun"
    assert source.unavailable_reason() is None


def test_scalars_are_channels_with_rerun_s_values_and_times(
    arm: RecordingModel,
) -> None:
    truth = _entity("arm_run.rrd", "/arm/joint_positions")
    channel = arm.channels["/arm/joint_positions"]
    expected = np.asarray(truth["data"]["Scalars:scalars"][0], dtype=np.float64)
    np.testing.assert_allclose(channel.values, expected)
    # The default time base is the first timeline the logging code made.
    assert arm.metadata["time_base"] == "sim_time"
    seconds = np.asarray(truth["times"]["sim_time"], dtype=np.float64) / 1e9
    np.testing.assert_allclose(channel.times_s, seconds - seconds[0])
    assert arm.channels["/arm/gripper"].columns == ("value",)
    # A static SeriesLines names the columns; the entity is the joints.
    names = tuple(f"joint_{j}" for j in range(1, 7))
    assert channel.columns == names
    assert arm.joints is not None
    assert arm.joint_channel == "/arm/joint_positions"
    assert tuple(j.name for j in arm.joints.joints) == names


def test_every_timeline_is_a_time_base() -> None:
    model = open_recording(ARM, options=OpenOptions(time_base="step"))
    assert model.metadata["time_bases"] == ["sim_time", "step", "log_time"]
    steps = np.asarray(_entity("arm_run.rrd", "/arm/gripper")["times"]["step"])
    np.testing.assert_allclose(model.channels["/arm/gripper"].times_s, steps)
    assert model.duration_s == pytest.approx(float(steps.max()))
    with pytest.raises(SchemaError, match="sim_time, step, log_time"):
        open_recording(ARM, options=OpenOptions(time_base="wall"))


def test_cameras_decode_with_their_pinhole_and_pose(arm: RecordingModel) -> None:
    cameras = {track.name: track for track in arm.cameras}
    assert set(cameras) == {
        "/world/camera/image",
        "/world/camera/png",
        "/world/camera/depth",
    }
    truth = _entity("arm_run.rrd", "/world/camera/image")
    k = truth["data"]["Pinhole:image_from_camera"][0][0][0]  # column major
    width, height = truth["data"]["Pinhole:resolution"][0][0][0]
    pose_truth = _entity("arm_run.rrd", "/world/camera")
    for track in cameras.values():
        assert track.count == 4
        frame, calibration = track.fetch(2)
        assert frame.pixels.shape == (height, width, 3)
        assert calibration is not None
        profile = calibration.profile
        assert (profile.fx, profile.fy, profile.cx, profile.cy) == (
            k[0],
            k[4],
            k[6],
            k[7],
        )
        assert calibration.pose is not None
        translation = pose_truth["data"]["Transform3D:translation"][0][2][0]
        np.testing.assert_allclose(calibration.pose.translation_m, translation)
    # The raw image and the PNG hold the same picture, mirrored.
    raw = cameras["/world/camera/image"].fetch(1)[0].pixels
    png = cameras["/world/camera/png"].fetch(1)[0].pixels
    np.testing.assert_array_equal(raw[:, ::-1], png)
    # A depth camera gives metres under the cursor: rows from 0.5 m (+0.1/frame).
    depth = cameras["/world/camera/depth"]
    assert depth.values is not None
    assert depth.value_unit == "m"
    np.testing.assert_allclose(depth.values(1)[[0, -1], 0], [0.6, 2.6], atol=1e-6)


def test_text_logs_are_events_on_the_timeline(arm: RecordingModel) -> None:
    truth = _entity("arm_run.rrd", "/events")
    texts = [row[0] for row in truth["data"]["TextLog:text"][0]]
    events = [m for m in arm.markers if m.kind is MarkerKind.EVENT]
    assert [m.label.rsplit("] ", 1)[1] for m in events] == texts
    seconds = np.asarray(truth["times"]["sim_time"]) / 1e9
    np.testing.assert_allclose([m.play_time_s for m in events], seconds)
    listed = arm.report["events"]
    assert [entry["level"] for entry in listed] == ["INFO"] * 4 + ["WARN"]


def test_shapes_and_transforms_make_the_scene(arm: RecordingModel) -> None:
    geometry = arm.geometry
    assert geometry is not None
    for body in ("/world/points", "/world/crate/box", "/world/lines", "/world/camera"):
        assert body in geometry.bodies
    kinds = {mesh.kind for mesh in geometry.meshes}
    assert {"box", "point", "line", "frame"} <= kinds
    box = next(m for m in geometry.meshes if m.kind == "box")
    half = _entity("arm_run.rrd", "/world/crate/box")["data"]["Boxes3D:half_sizes"]
    np.testing.assert_allclose(np.ptp(box.vertices_m, axis=0) / 2, half[0][0][0])
    # The box sits on /world/crate, which its Transform3D moves along x.
    crate = _entity("arm_run.rrd", "/world/crate")["data"]["Transform3D:translation"]
    xs = [row[0][0] for row in crate[0]]
    body = geometry.bodies.index("/world/crate/box")
    np.testing.assert_allclose(geometry.poses[[0, -1], body, 0], [xs[0], xs[-1]])
    assert arm.channels["tf:/world/crate"].unit == "m, quat"  # not all metres


def test_a_file_of_two_recordings_is_a_playlist() -> None:
    addresses = expand_recordings([TWO])
    assert [path.name for path in addresses] == ["episode_000000", "episode_000001"]
    for index, address in enumerate(addresses):
        model = open_recording(address)
        truth = TRUTH["files"]["two_runs.rrd"]["recordings"][index]
        assert model.metadata["recording_id"] == truth["recording_id"]
        rows = truth["entities"]["/arm/gripper"]["rows"]
        assert model.channels["/arm/gripper"].count == rows
        assert model.path == address
    # A file of one recording stands for itself.
    assert expand_recordings([ARM]) == [ARM]


def test_claimed_sizes_are_checked_before_reading(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("FSR_VIEWER_MEMORY_BUDGET", "8KiB")
    with pytest.raises(LimitExceededError, match="reading the recording"):
        open_recording(ARM)


@pytest.fixture(scope="module")
def damaged(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    data = ARM.read_bytes()
    folder = tmp_path_factory.mktemp("damaged")
    found = []
    for cut in (40, len(data) // 3, len(data) - 200):
        path = folder / f"cut_{cut}.rrd"
        path.write_bytes(data[:cut])
        found.append(path)
    rng = np.random.default_rng(7)
    for bit in rng.integers(0, len(data) * 8, 8):
        flipped = bytearray(data)
        flipped[int(bit) // 8] ^= 1 << (int(bit) % 8)
        path = folder / f"flip_{bit}.rrd"
        path.write_bytes(bytes(flipped))
        found.append(path)
    return found


def test_damaged_copies_fail_closed_or_open(damaged: list[Path]) -> None:
    failures = 0
    for path in damaged:
        try:
            model = open_recording(path)
            for track in model.cameras:
                track.fetch(0)
        except FsrError as exc:
            failures += 1
            text = str(exc)
            assert path.name in text
            assert "\n" not in text
    # A file cut before its footer never opens whole.
    assert failures >= 2


def test_an_abort_while_decoding_is_one_line(tmp_path: Path) -> None:
    # rerun-sdk 0.41 panics on its own decoding threads on this flip, which
    # aborts the process; the guard decodes in a child first, so the abort
    # is one error here, and this process lives on.
    data = bytearray(ARM.read_bytes())
    data[159052 // 8] ^= 1 << (159052 % 8)
    flipped = tmp_path / "flipped.rrd"
    flipped.write_bytes(bytes(data))
    with pytest.raises(CorruptRecordError, match="aborted decoding a chunk") as got:
        open_recording(flipped)
    assert got.value.path == str(flipped)
    assert "\n" not in str(got.value)
    # The guard's child died with the abort; the next read starts another.
    assert open_recording(ARM).channels["/arm/gripper"].times_s.size == 40
