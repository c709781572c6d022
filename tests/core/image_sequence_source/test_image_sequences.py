"""Image-sequence folders written by imageio (and numpy's ``.npy``), opened.

``tests/data/image_sequence`` (``tools/make_image_sequence_data.py``) holds a
Replicator-style folder (RGBA PNG and ``distance_to_camera`` arrays, with a
timestamps file), a Blender-style folder (numbered PNG and 16-bit depth PNG)
and 16-bit depth TIFF frames; ``expected.json`` is what imageio read back.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fsr_core.errors import FsrError, SchemaError
from fsr_core.recording import RecordingModel
from fsr_core.sources import (
    OpenOptions,
    convert_recording,
    expand_recordings,
    inspect_recording,
    open_recording,
    source_for,
)

DATA = Path(__file__).resolve().parents[2] / "data" / "image_sequence"
EXPECTED: dict[str, Any] = json.loads((DATA / "expected.json").read_text())


@pytest.fixture(scope="module")
def replicator() -> RecordingModel:
    return open_recording(DATA / "replicator")


def test_each_prefix_is_a_camera_timed_by_the_timestamps_file(
    replicator: RecordingModel,
) -> None:
    assert source_for(DATA / "replicator").name == "image_sequence"
    assert expand_recordings([DATA / "replicator"]) == [DATA / "replicator"]
    names = [camera.name for camera in replicator.cameras]
    assert names == ["distance_to_camera", "rgb"]
    times = EXPECTED["replicator"]["times_s"]
    for camera in replicator.cameras:
        np.testing.assert_allclose(camera.times_s, times, atol=1e-6)
    assert replicator.duration_s == pytest.approx(times[-1], abs=1e-6)


def test_pictures_show_the_pixels_imageio_reads(replicator: RecordingModel) -> None:
    rgb = replicator.cameras[1]
    frame, calibration = rgb.fetch(3)
    assert calibration is None
    truth = EXPECTED["replicator"]["frames"]["rgb_0003.png"]
    assert [frame.height, frame.width] == truth["shape"][:2]
    assert frame.pixels[12, 20].tolist() == truth["pixel_12_20"][:3]  # RGBA: no A
    assert frame.pixels[20, 2].tolist() == truth["pixel_20_2"][:3]


def test_depth_arrays_are_depth_cameras_with_their_values(
    replicator: RecordingModel,
) -> None:
    depth = replicator.cameras[0]
    assert depth.values is not None
    assert depth.value_unit == "m"
    truth = EXPECTED["replicator"]["frames"]["distance_to_camera_0002.npy"]
    values = depth.values(2)
    assert values[12, 20] == pytest.approx(truth["pixel_12_20"])
    assert values[20, 2] == pytest.approx(truth["pixel_20_2"])
    frame, _ = depth.fetch(2)
    assert frame.pixels[0, 0].tolist() == [0, 0, 0]  # inf: nothing hit, black
    assert frame.pixels[12, 20].tolist() != frame.pixels[20, 2].tolist()


def test_blender_frames_and_16_bit_depth_timed_by_fps() -> None:
    folder = DATA / "blender"
    default = open_recording(folder)
    assert any("30 fps" in note for note in default.report["notes"])
    model = open_recording(folder, options=OpenOptions(fps=24.0))
    assert [camera.name for camera in model.cameras] == ["blender", "depth"]
    np.testing.assert_allclose(model.cameras[0].times_s, np.arange(5) / 24)
    depth = model.cameras[1]
    assert depth.values is not None
    truth = EXPECTED["blender"]["frames"]["depth0004.png"]
    assert truth["dtype"] == "uint16"
    assert depth.values(3)[12, 20] == truth["pixel_12_20"]
    picture = EXPECTED["blender"]["frames"]["0002.png"]
    assert model.cameras[0].fetch(1)[0].pixels[20, 2].tolist() == picture["pixel_20_2"]


def test_16_bit_tiff_depth() -> None:
    model = open_recording(DATA / "tiff16")
    (depth,) = model.cameras
    assert depth.values is not None
    truth = EXPECTED["tiff16"]["frames"]["depth_001.tif"]
    assert depth.values(1)[12, 20] == truth["pixel_12_20"]
    assert depth.value_range == (1000.0, 3150.0)


def test_a_folder_converts_and_verifies(tmp_path: Path) -> None:
    out = tmp_path / "run.fsr"
    convert_recording(DATA / "replicator", out)
    assert {camera.name for camera in open_recording(out).cameras} == {
        "distance_to_camera",
        "rgb",
    }
    report = inspect_recording(DATA / "replicator", verify=True)
    assert report["valid"] is True
    assert report["verification"]["checked_records"] == 12


def test_a_damaged_frame_fails_alone_with_one_line(tmp_path: Path) -> None:
    folder = tmp_path / "takes"
    shutil.copytree(DATA / "replicator", folder)
    (folder / "rgb_0004.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 20)
    model = open_recording(folder)
    with pytest.raises(FsrError) as caught:
        model.cameras[1].fetch(4)
    assert "rgb_0004.png" in str(caught.value)
    assert "\n" not in str(caught.value)
    report = inspect_recording(folder, verify=True)
    assert report["valid"] is False
    assert report["verification"]["problems"][0].startswith("rgb frame 4: ")


def test_a_timestamps_file_that_does_not_increase_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "takes"
    shutil.copytree(DATA / "replicator", folder)
    (folder / "timestamps.csv").write_text(
        "frame,time_s\n" + "".join(f"{n},{1.0 - n * 0.1}\n" for n in range(6))
    )
    with pytest.raises(SchemaError, match="times do not increase"):
        open_recording(folder)
