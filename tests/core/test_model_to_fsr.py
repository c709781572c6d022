"""The generic converter: any recording model written as FSR opens as it was."""

from __future__ import annotations

import dataclasses
import datetime
import hashlib
from pathlib import Path

import numpy as np
import pytest
from calibrated_files import calibration_epoch

from fsr_core.calibration import Calibration, CalibrationProfile, CameraPose
from fsr_core.errors import SchemaError, TargetExistsError
from fsr_core.format.reader import FsrReader
from fsr_core.joint_set import JointKind, JointSet, JointSpec
from fsr_core.media import RGBFrame
from fsr_core.output_paths import OutputIsInputError
from fsr_core.recording import (
    CameraTrack,
    Channel,
    GeometryMesh,
    Marker,
    MarkerKind,
    RecordingModel,
    SceneGeometry,
    SceneTarget,
    Segment,
    Timeline,
)
from fsr_core.sources import open_recording
from fsr_core.sources.toolkit.model_to_fsr import write_model_as_fsr
from fsr_core.sources.toolkit.stream_names import NameTable, readable_name

SKELARM_DATA = Path(__file__).resolve().parents[1] / "data" / "skelarm"
REAL_LOGS = sorted(path.name for path in SKELARM_DATA.glob("*.sklog.npz"))

WIDTH, HEIGHT = 8, 6  # of every FakeCamera frame


def _plumb_bob(
    fx: float,
    fy: float,
    cx: float,
    cy: float,
    *,
    distortion: tuple[float, ...],
    skew: float = 0.0,
) -> CalibrationProfile:
    """Return WIDTH x HEIGHT ``plumb_bob`` intrinsics."""
    return CalibrationProfile(
        WIDTH, HEIGHT, fx, fy, cx, cy, skew, "plumb_bob", distortion
    )


PROFILE_A = _plumb_bob(
    9.5, 9.25, 3.5, 2.5, skew=0.125, distortion=(-0.2, 0.05, 0.001, -0.002, 0.01)
)
PROFILE_B = _plumb_bob(12.0, 12.0, 4.0, 3.0, distortion=(0.1, -0.01, 0.0, 0.003, 0.0))
POSE_1 = CameraPose.normalized([1.0, -2.0, 0.5], [0.1, 0.2, 0.3, 0.9])
POSE_2 = CameraPose.normalized([1.5, -2.0, 0.75], [0.0, 0.0, 0.0, 1.0])


class StopRequestedError(Exception):
    """What the test's cancel callable raises."""


class FakeCamera:
    """A camera whose frames are made on demand; counts every fetch."""

    def __init__(
        self,
        name: str,
        times_s: list[float],
        calibrations: list[tuple[CalibrationProfile, CameraPose | None] | None],
    ) -> None:
        rng = np.random.default_rng(7)
        shape = (HEIGHT, WIDTH, 3)
        self.pixels = [rng.integers(0, 256, shape, dtype=np.uint8) for _ in times_s]
        self.calibrations = calibrations
        self.fetched: list[int] = []
        self.track = CameraTrack(name, np.array(times_s), self.fetch)
        self.name = name

    def calibration(self, index: int) -> Calibration | None:
        entry = self.calibrations[index]
        if entry is None:
            return None
        profiles = [item[0] if item else None for item in self.calibrations]
        epoch = sum(1 for j in range(1, index + 1) if profiles[j] != profiles[j - 1])
        profile, pose = entry
        return calibration_epoch(
            self.name,
            profile,
            pose,
            epoch=epoch,
            first_tick=index,
            first_sim_time_s=float(self.track.times_s[index]),
        )

    def fetch(self, index: int) -> tuple[RGBFrame, Calibration | None]:
        self.fetched.append(index)
        return RGBFrame(self.pixels[index]), self.calibration(index)


def sample_geometry() -> SceneGeometry:
    vertices = np.array([[0.0, 0.0, 0.0], [0.1, 0.0, 0.0], [0.0, 0.2, 0.05]])
    faces = np.array([[0, 1, 2]], dtype=np.int64)
    poses = np.zeros((2, 2, 7))
    poses[:, :, 6] = 1.0
    poses[1, 1, :3] = [0.3, 0.2, 0.1]
    return SceneGeometry(
        bodies=("world", "link/1"),
        meshes=(
            GeometryMesh("floor", 0, "plane", vertices, faces),
            GeometryMesh("arm", 1, "box", vertices * 2, faces, (1.0, 0.0, 0.0, 1.0)),
        ),
        times_s=np.array([0.0, 0.25]),
        poses=poses,
        targets=(SceneTarget("goal", (0.5, 0.0, 0.25), 0.05),),
    )


def sample_model(
    source: Path, camera: FakeCamera | None = None, *, geometry: bool = True
) -> RecordingModel:
    joints = np.array(
        [[0.0, 1.0, np.nan], [0.1, np.nan, 2.0], [0.2, 1.2, np.inf], [0.3, 1.3, -1.0]]
    )
    channels = {
        "/joint_states": Channel(
            "/joint_states",
            np.array([0.0, 0.1, 0.2, 0.4]),
            joints,
            "rad",
            "joint states (sensor_msgs/JointState)",
            ("position.joint 1", "position.joint_2", "velocity[0]"),
        ),
        "/tf:base_link": Channel(
            "/tf:base_link",
            np.array([0.05, 0.15]),
            np.array([[1.0, 2, 3, 0, 0, 0, 1], [1.5, 2, 3, 0, 0, 0.6, 0.8]]),
            "m",
            "pose of base_link in its parent",
            ("x", "y", "z", "qx", "qy", "qz", "qw"),
        ),
        "joint_states": Channel(
            "joint_states",
            np.array([0.0, 0.2, 0.2, 0.5]),
            np.array([1.0, np.nan, -np.inf, 4.0]),
            "N*m",
            "collides with /joint_states once mapped",
            ("torque",),
        ),
    }
    markers = (
        Marker(MarkerKind.EVENT, 0.15, "push"),
        Marker(MarkerKind.GENERATION_RESET, 0.25, "generation 1"),
        Marker(MarkerKind.TERMINAL_CUT, 0.45, "terminal cut"),
        Marker(MarkerKind.GAP, 0.12, "dropped", end_play_s=0.13),
    )
    return RecordingModel(
        path=source,
        source="test",
        title="hand-made run",
        timeline=Timeline((Segment(0, 0.0, 0.5, 0.0, 0, 50),)),
        channels=channels,
        cameras=() if camera is None else (camera.track,),
        geometry=sample_geometry() if geometry else None,
        markers=markers,
        metadata={
            "recorded": datetime.date(2026, 1, 2),
            "rate": np.float64(np.nan),
            "topics": ["/joint_states", "/tf"],
        },
        provenance={"recorder": "hand"},
    )


def epochs_camera() -> FakeCamera:
    """Three frames, two epochs of plumb_bob intrinsics, two poses."""
    return FakeCamera(
        "/camera/image_raw",
        [0.1, 0.2, 0.3],
        [(PROFILE_A, POSE_1), (PROFILE_A, POSE_1), (PROFILE_B, POSE_2)],
    )


def assert_same_channels(back: RecordingModel, model: RecordingModel) -> None:
    """Check ``back`` has ``model``'s channels, in order, with their samples.

    A channel's values come back as a table (one column for a scalar channel).
    """
    assert list(back.channels) == list(model.channels)
    for name, channel in model.channels.items():
        other = back.channels[name]
        values = channel.values.reshape(len(channel.values), -1)
        assert np.array_equal(other.values, values, equal_nan=True), name
        assert np.array_equal(other.times_s, channel.times_s), name
        assert other.unit == channel.unit, name


@pytest.fixture
def source(tmp_path: Path) -> Path:
    path = tmp_path / "run.bag"
    path.write_bytes(b"not really a bag, but bytes to hash\n" * 10)
    return path


def test_a_model_round_trips_through_fsr(source: Path, tmp_path: Path) -> None:
    camera = epochs_camera()
    model = sample_model(source, camera)
    output = tmp_path / "run.fsr"

    result = write_model_as_fsr(
        model,
        output,
        source_path=source,
        source_kind="mcap",
        provenance={"tool": "recorder 1.2"},
    )
    back = open_recording(output)

    assert result.output == output
    assert output.is_file()
    assert result.size_bytes == output.stat().st_size
    assert "3 channels" in result.summary
    assert_same_channels(back, model)
    assert back.channels["/tf:base_link"].columns == (
        "x",
        "y",
        "z",
        "qx",
        "qy",
        "qz",
        "qw",
    )
    assert back.channels["joint_states"].columns == ("torque",)
    # The source's own column names come back as written, not as the FSR
    # channel names they were stored under (kept in the stream's attributes).
    assert back.channels["/joint_states"].columns == (
        "position.joint 1",
        "position.joint_2",
        "velocity[0]",
    )
    assert back.title == model.title
    assert back.duration_s == model.duration_s


def test_camera_frames_and_calibration_round_trip(source: Path, tmp_path: Path) -> None:
    camera = epochs_camera()
    output = tmp_path / "run.fsr"

    write_model_as_fsr(
        sample_model(source, camera), output, source_path=source, source_kind="mcap"
    )
    back = open_recording(output)

    assert camera.fetched == [0, 1, 2]  # one fetch per frame, in order
    (track,) = back.cameras
    assert track.name == "camera.image_raw"
    assert np.array_equal(track.times_s, camera.track.times_s)
    digests = set()
    for index in range(3):
        frame, calibration = track.fetch(index)
        expected = camera.calibration(index)
        assert expected is not None
        assert expected.pose is not None
        assert np.array_equal(frame.pixels, camera.pixels[index])
        assert calibration is not None
        assert calibration.profile == expected.profile
        assert calibration.profile.distortion_model == "plumb_bob"
        assert calibration.digest == expected.digest
        assert calibration.epoch == expected.epoch
        assert calibration.pose is not None
        assert np.array_equal(
            calibration.pose.translation_m, expected.pose.translation_m
        )
        assert np.array_equal(
            calibration.pose.quaternion_xyzw, expected.pose.quaternion_xyzw
        )
        digests.add(calibration.digest)
    assert len(digests) == 2
    calibration_markers = [m for m in back.markers if m.kind is MarkerKind.CALIBRATION]
    assert [(m.play_time_s, m.label) for m in calibration_markers] == [
        (0.3, "camera.image_raw epoch 1")
    ]


def test_provenance_metadata_and_stream_attributes_are_stored(
    source: Path, tmp_path: Path
) -> None:
    output = tmp_path / "run.fsr"
    digest = hashlib.sha256(source.read_bytes()).hexdigest()

    write_model_as_fsr(
        sample_model(source, epochs_camera()),
        output,
        source_path=source,
        source_kind="mcap",
        provenance={"tool": "recorder 1.2", "source_sha256": "forged"},
    )
    back = open_recording(output)
    with FsrReader.open(output) as reader:
        specs = {name: info.spec for name, info in reader.streams.items()}

    assert back.provenance["source"] == "run.bag"
    assert back.provenance["source_sha256"] == digest
    assert back.provenance["source_kind"] == "mcap"
    assert back.provenance["tool"] == "recorder 1.2"
    assert back.provenance["mode"] == "convert"
    converted = back.metadata["converted_from"]
    assert converted["sha256"] == digest
    assert converted["metadata"] == {
        "recorded": "2026-01-02",
        "rate": None,
        "topics": ["/joint_states", "/tf"],
    }
    assert converted["provenance"] == {"recorder": "hand"}
    assert back.metadata["run"] == {"name": "hand-made run", "source_kind": "mcap"}
    joints = specs["observations.joint_states"]
    assert joints.attributes["channel_name"] == "/joint_states"
    assert joints.attributes["label"] == "joint states (sensor_msgs/JointState)"
    assert joints.attributes["columns"] == [
        "position.joint 1",
        "position.joint_2",
        "velocity[0]",
    ]
    assert joints.units == "rad"
    assert specs["observations.joint_states-2"].attributes["channel_name"] == (
        "joint_states"
    )
    assert specs["observations.joint_states-2"].attributes["scalar"] is True
    assert specs["observations.tf.base_link"].attributes["channel_name"] == (
        "/tf:base_link"
    )
    assert "columns" not in specs["observations.tf.base_link"].attributes
    rgb = specs["sensors.camera.image_raw.camera.rgb"]
    assert (rgb.codec, rgb.attributes["camera_name"]) == ("png", "/camera/image_raw")


def test_markers_geometry_and_targets_round_trip(source: Path, tmp_path: Path) -> None:
    model = sample_model(source)
    output = tmp_path / "run.fsr"

    write_model_as_fsr(model, output, source_path=source, source_kind="mcap")
    back = open_recording(output)

    assert [(m.kind, m.play_time_s, m.label) for m in back.markers] == [
        (MarkerKind.EVENT, 0.12, "dropped"),
        (MarkerKind.EVENT, 0.15, "push"),
        (MarkerKind.EVENT, 0.25, "generation 1"),
        (MarkerKind.TERMINAL_CUT, 0.45, "terminal cut"),
    ]
    geometry, expected = back.geometry, model.geometry
    assert geometry is not None
    assert expected is not None
    assert geometry.bodies == expected.bodies
    assert np.array_equal(geometry.times_s, expected.times_s)
    assert np.array_equal(geometry.poses, expected.poses)
    for mesh, original in zip(geometry.meshes, expected.meshes, strict=True):
        assert (mesh.name, mesh.body, mesh.kind, mesh.rgba) == (
            original.name,
            original.body,
            original.kind,
            original.rgba,
        )
        assert np.array_equal(mesh.vertices_m, original.vertices_m)
        assert np.array_equal(mesh.faces, original.faces)
    assert geometry.targets == expected.targets


def test_a_calibration_that_comes_back_is_a_third_epoch(
    source: Path, tmp_path: Path
) -> None:
    camera = FakeCamera(
        "cam",
        [0.0, 0.1, 0.2],
        [(PROFILE_A, None), (PROFILE_B, None), (PROFILE_A, None)],
    )
    output = tmp_path / "run.fsr"

    write_model_as_fsr(
        sample_model(source, camera), output, source_path=source, source_kind="mcap"
    )
    (track,) = open_recording(output).cameras

    calibrations = [track.fetch(i)[1] for i in range(3)]
    assert [c.profile if c else None for c in calibrations] == [
        PROFILE_A,
        PROFILE_B,
        PROFILE_A,
    ]
    assert [c.epoch if c else None for c in calibrations] == [0, 1, 2]
    assert all(c is not None and c.pose is None for c in calibrations)


def test_a_frame_without_calibration_gets_nominal_intrinsics(
    source: Path, tmp_path: Path
) -> None:
    camera = FakeCamera("cam", [0.0, 0.1], [None, (PROFILE_B, POSE_2)])
    output = tmp_path / "run.fsr"

    write_model_as_fsr(
        sample_model(source, camera), output, source_path=source, source_kind="mcap"
    )
    back = open_recording(output)
    (track,) = back.cameras

    first, second = track.fetch(0)[1], track.fetch(1)[1]
    assert first is not None
    assert second is not None
    assert (first.profile.width, first.profile.height) == (8, 6)
    assert first.profile.distortion_model == "none"
    assert first.pose is None
    assert second.profile == PROFILE_B
    assert "nominal" in back.provenance["notes"][0]


def test_jpeg_frames_are_close(source: Path, tmp_path: Path) -> None:
    camera = FakeCamera("cam", [0.0], [(PROFILE_A, None)])
    camera.pixels[0][:] = np.linspace(0, 250, 8, dtype=np.uint8)[None, :, None]
    output = tmp_path / "run.fsr"

    write_model_as_fsr(
        sample_model(source, camera),
        output,
        source_path=source,
        source_kind="mcap",
        image_codec="jpeg",
    )
    (track,) = open_recording(output).cameras
    frame, _ = track.fetch(0)

    difference = np.abs(frame.pixels.astype(int) - camera.pixels[0].astype(int))
    assert difference.max() <= 12


def test_an_existing_output_is_refused_and_left_as_it_was(
    source: Path, tmp_path: Path
) -> None:
    output = tmp_path / "run.fsr"
    output.write_bytes(b"keep me")

    with pytest.raises(TargetExistsError) as caught:
        write_model_as_fsr(
            sample_model(source), output, source_path=source, source_kind="mcap"
        )

    assert caught.value.path == str(output)
    assert output.read_bytes() == b"keep me"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.bag", "run.fsr"]


def test_overwrite_replaces_an_existing_output(source: Path, tmp_path: Path) -> None:
    output = tmp_path / "run.fsr"
    output.write_bytes(b"old")

    write_model_as_fsr(
        sample_model(source),
        output,
        source_path=source,
        source_kind="mcap",
        overwrite=True,
    )

    assert list(open_recording(output).channels) == list(sample_model(source).channels)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.bag", "run.fsr"]


@pytest.mark.parametrize("overwrite", [False, True])
def test_the_input_is_never_the_output(
    source: Path, tmp_path: Path, overwrite: bool
) -> None:
    before = source.read_bytes()
    link = tmp_path / "link.fsr"
    link.symlink_to(source)

    for output in (source, link):
        with pytest.raises(OutputIsInputError):
            write_model_as_fsr(
                sample_model(source),
                output,
                source_path=source,
                source_kind="mcap",
                overwrite=overwrite,
            )

    assert source.read_bytes() == before


@pytest.mark.parametrize("overwrite", [False, True])
def test_a_cancel_leaves_no_file(source: Path, tmp_path: Path, overwrite: bool) -> None:
    output = tmp_path / "run.fsr"
    if overwrite:
        output.write_bytes(b"old")
    calls: list[int] = []
    reports: list[tuple[int, int]] = []

    def cancel() -> None:
        calls.append(1)
        if len(calls) > 6:
            raise StopRequestedError

    with pytest.raises(StopRequestedError):
        write_model_as_fsr(
            sample_model(source, epochs_camera()),
            output,
            source_path=source,
            source_kind="mcap",
            overwrite=overwrite,
            cancel=cancel,
            progress=lambda done, total: reports.append((done, total)),
        )

    expected = ["run.bag", "run.fsr"] if overwrite else ["run.bag"]
    assert sorted(p.name for p in tmp_path.iterdir()) == expected
    if overwrite:
        assert output.read_bytes() == b"old"
    assert reports
    assert all(done < total for done, total in reports)


def test_progress_counts_every_item_up_to_the_total(
    source: Path, tmp_path: Path
) -> None:
    reports: list[tuple[int, int]] = []

    write_model_as_fsr(
        sample_model(source, epochs_camera()),
        tmp_path / "run.fsr",
        source_path=source,
        source_kind="mcap",
        progress=lambda done, total: reports.append((done, total)),
    )

    # 10 samples, 3 frames, 2 poses, 2 meshes, 1 target record, 4 markers,
    # lifecycle start and completion
    total = 10 + 3 + 2 + 2 + 1 + 4 + 2
    assert reports[-1] == (total, total)
    assert [done for done, _ in reports] == list(range(1, total + 1))


def test_times_going_back_are_refused_before_anything_is_written(
    source: Path, tmp_path: Path
) -> None:
    model = sample_model(source)
    model.channels["bad"] = Channel("bad", np.array([0.0, 0.2, 0.1]), np.zeros(3))
    output = tmp_path / "run.fsr"

    with pytest.raises(SchemaError, match="time goes backwards at sample 2") as caught:
        write_model_as_fsr(model, output, source_path=source, source_kind="mcap")

    assert caught.value.path == str(source)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.bag"]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("/joint_states", "joint_states"),
        ("/tf:base_link", "tf.base_link"),
        ("q_ref[0]", "q_ref.0"),
        ("position.joint 1", "position.joint_1"),
        ("/camera/image_raw/compressed", "camera.image_raw.compressed"),
        ("tip.x", "tip.x"),
        ("café/état", "cafe.etat"),
        ("//", "fallback"),
    ],
)
def test_foreign_names_map_to_readable_fsr_names(name: str, expected: str) -> None:
    assert readable_name(name, "fallback") == expected


def test_a_name_table_keeps_names_unique_and_short() -> None:
    table = NameTable("observations.", max_bytes=20)

    names = [table.add(name, "x") for name in ("/a", "a", "a/", "b" * 40)]

    assert names == [
        "observations.a",
        "observations.a-2",
        "observations.a-3",
        "observations.bbbbbbb",
    ]


@pytest.mark.parametrize("name", REAL_LOGS)
def test_a_skelarm_log_model_round_trips_its_channels(
    name: str, tmp_path: Path
) -> None:
    source = SKELARM_DATA / name
    model = open_recording(source)
    output = tmp_path / "log.fsr"

    result = write_model_as_fsr(
        model, output, source_path=source, source_kind=model.source
    )
    back = open_recording(output)

    samples = sum(len(c.times_s) for c in model.channels.values())
    assert result.records == samples + len(model.markers) + 2
    assert_same_channels(back, model)
    assert back.timeline.duration_s == model.timeline.duration_s
    assert back.markers == model.markers  # skelarm's markers are events
    assert back.provenance["source_sha256"] == (
        hashlib.sha256(source.read_bytes()).hexdigest()
    )


def test_a_camera_whose_frames_change_size_is_refused_and_nothing_is_left(
    source: Path, tmp_path: Path
) -> None:
    camera = epochs_camera()
    camera.pixels[2] = np.zeros((4, 4, 3), dtype=np.uint8)
    output = tmp_path / "run.fsr"

    with pytest.raises(SchemaError, match="frame 2 is 4x4, its first frame 8x6"):
        write_model_as_fsr(
            sample_model(source, camera), output, source_path=source, source_kind="x"
        )

    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.bag"]


def test_an_empty_model_becomes_a_file_with_its_timeline(
    source: Path, tmp_path: Path
) -> None:
    model = RecordingModel(
        path=source,
        source="test",
        title="nothing",
        timeline=Timeline((Segment(0, 0.0, 2.0, 0.0, 0, 2),)),
        channels={},
    )
    output = tmp_path / "run.fsr"

    result = write_model_as_fsr(model, output, source_path=source, source_kind="x")
    back = open_recording(output)

    assert result.records == 2  # lifecycle start and completion
    assert back.channels == {}
    assert back.duration_s == 2.0


def _arm_joints(positions: str = "/joint_states") -> JointSet:
    return JointSet(
        joints=(
            JointSpec("joint 1", JointKind.REVOLUTE, "deg", -170.0, 170.0, "arm"),
            JointSpec("joint_2", JointKind.PRISMATIC, "m", 0.0, 0.04),
        ),
        positions=positions,
        position_columns=(0, 1),
        velocities="/joint_states",
        velocity_columns=(2, 2),
    )


def test_the_source_joints_come_back_from_a_converted_file(
    source: Path, tmp_path: Path
) -> None:
    model = dataclasses.replace(sample_model(source), joints=_arm_joints())
    output = tmp_path / "run.fsr"

    write_model_as_fsr(model, output, source_path=source, source_kind="mcap")
    back = open_recording(output)

    assert back.joints == model.joints
    assert back.joints is not None
    assert back.joints.names == ("joint 1", "joint_2")
    assert back.joints.joints[0].to_si(180.0) == pytest.approx(np.pi)


def test_joints_reading_a_channel_left_out_are_not_written(
    source: Path, tmp_path: Path
) -> None:
    model = sample_model(source, geometry=False)
    channels = {
        **model.channels,
        "empty": Channel("empty", np.zeros(0), np.zeros((0, 2)), "rad"),
    }
    model = dataclasses.replace(
        model, channels=channels, joints=_arm_joints(positions="empty")
    )
    output = tmp_path / "run.fsr"

    write_model_as_fsr(model, output, source_path=source, source_kind="mcap")
    back = open_recording(output)

    assert "empty" not in back.channels
    assert back.joints is None


@pytest.mark.parametrize(
    "plain",
    [
        [],
        {"joints": [{"name": "a", "kind": "screw", "unit": "rad"}]},
        {"joints": [{"name": "a", "kind": "revolute", "unit": "rad"}]},
        {
            "joints": [{"name": "a", "kind": "revolute", "unit": "rad"}],
            "positions": "q",
            "position_columns": [0, 1],
        },
        {
            "joints": [{"name": "a", "kind": "revolute", "unit": "rad", "lower": "x"}],
            "positions": "q",
            "position_columns": [0],
        },
    ],
)
def test_a_joint_set_that_is_not_one_is_refused(plain: object) -> None:
    with pytest.raises(SchemaError, match="joints"):
        JointSet.from_plain(plain)
