"""Recorded calibration against rendered pixels: a body projects onto its image.

A scene of flat-lit spheres on a black background, seen by a camera riding a
turning body (given by its ``fovy``) and by a fixed camera given as a sensor
with an off-centre principal point: for every recorded frame, each sphere's
recorded world position, projected through that frame's recorded intrinsics
and extrinsics, must land within half a pixel of the centre of the sphere's
pixels.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from fsr_core.calibration import project_points
from fsr_core.format.reader import FsrReader

pytest.importorskip("mujoco")  # CI has it (the test extra); a guard for local runs

_MJCF = """<mujoco model="calibration">
  <option timestep="0.005" gravity="0 0 0"/>
  <visual>
    <headlight ambient="1 1 1" diffuse="0 0 0" specular="0 0 0"/>
  </visual>
  <worldbody>
    <geom name="red" type="sphere" size="0.025" pos="0.25 0.15 0.10" rgba="1 0 0 1"/>
    <body name="green" pos="-0.20 0.05 0.30">
      <freejoint name="green"/>
      <geom type="sphere" size="0.025" rgba="0 1 0 1"/>
    </body>
    <body name="rig">
      <joint name="pan" type="hinge" axis="0 0 1"/>
      <geom type="box" size="0.01 0.01 0.01" rgba="0 0 0 0"/>
      <camera name="eye" pos="0.9 -1.1 0.8" fovy="45"
              xyaxes="0.77 0.63 0 -0.3 0.37 0.88"/>
    </body>
    <camera name="sensor" pos="0.9 -1.1 0.8" xyaxes="0.77 0.63 0 -0.3 0.37 0.88"
            sensorsize="0.004 0.003" focal="0.0035 0.0032"
            principal="0.0003 -0.0002" resolution="200 150"/>
  </worldbody>
</mujoco>
"""

_SCENARIO = """simulator = "mujoco"
name = "calibration"
model = "calibration.xml"
duration_s = 0.3

[initial]
qpos = [-0.20, 0.05, 0.30, 1.0, 0.0, 0.0, 0.0, 0.0]
qvel = [0.4, 0.3, -0.2, 0.0, 0.0, 0.0, 0.6]

[[cameras]]
name = "eye"
width = 200
height = 150
rate_hz = 20.0
codec = "png"

[[cameras]]
name = "sensor"
width = 160
height = 120
rate_hz = 20.0
codec = "png"
"""


@pytest.fixture(scope="module")
def calibration_recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from fsr_core.simulators.mujoco.recorder import record_mujoco_run
    from fsr_core.simulators.mujoco.scenario import load_mujoco_scenario

    folder = tmp_path_factory.mktemp("mujoco_calibration")
    (folder / "calibration.xml").write_text(_MJCF, encoding="utf-8")
    (folder / "calibration.toml").write_text(_SCENARIO, encoding="utf-8")
    output = folder / "calibration.fsr"
    record_mujoco_run(load_mujoco_scenario(folder / "calibration.toml"), output)
    return output


def _centroid(mask: npt.NDArray[np.bool_]) -> npt.NDArray[np.float64]:
    rows, columns = np.nonzero(mask)
    assert len(rows) > 8, "the sphere is not in the image"
    return np.array([columns.mean(), rows.mean()])


@pytest.mark.parametrize("camera", ["eye", "sensor"])
def test_bodies_project_onto_their_rendered_pixels(
    calibration_recording: Path, camera: str
) -> None:
    with FsrReader.open(calibration_recording) as reader:
        columns = list(reader.streams["observations.mujoco"].spec.channels or ())
        at = [columns.index(f"qpos.green.{axis}") for axis in "xyz"]
        frames = list(reader.iter_records(f"sensors.{camera}.camera.rgb"))
        poses_seen = set()
        for frame in frames:
            pixels = reader.media_frame(frame).decoded.pixels.astype(np.int16)
            calibration = reader.calibration(camera, generation=0, tick=frame.tick)
            assert calibration.pose is not None
            poses_seen.add(tuple(np.round(calibration.pose.translation_m, 6)))
            state = reader.record("observations.mujoco", frame.tick).decoded
            green = np.asarray(state, dtype=np.float64).ravel()[at]
            points = np.array([[0.25, 0.15, 0.10], green])
            projected, in_front = project_points(
                points, calibration.profile, calibration.pose
            )
            assert in_front.all()
            red_mask = (pixels[..., 0] > 128) & (pixels[..., 1] < 80)
            green_mask = (pixels[..., 1] > 128) & (pixels[..., 0] < 80)
            np.testing.assert_allclose(_centroid(red_mask), projected[0], atol=0.5)
            np.testing.assert_allclose(_centroid(green_mask), projected[1], atol=0.5)
    assert len(frames) == 6
    moving = camera == "eye"  # it rides the turning body; "sensor" is fixed
    assert len(poses_seen) == (len(frames) if moving else 1)
