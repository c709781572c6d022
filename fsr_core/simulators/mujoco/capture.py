"""Everything a MuJoCo step records besides its observation row.

Cameras render at their own rate, render state (``qpos``, ``qvel``, mocap
poses and every body's world pose) and body transforms at theirs; sample
``n`` of a stream falls on the step nearest ``n / rate_hz``, so the mean rate
is exact. Intrinsics are written with each camera's first frame (one
calibration epoch: a MuJoCo camera's field of view is fixed); extrinsics with
every frame, since a camera may ride on a moving body.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from fsr_core.format.catalog import json_stream
from fsr_core.format.streams import StreamKind, StreamSpec
from fsr_core.format.writer import FsrWriter
from fsr_core.simulation.model_files import MODEL_FILE_SCHEMA, MODEL_FILES
from fsr_core.simulation.recorded_streams import (
    MESHES,
    RENDER_STATE,
    TRANSFORMS,
    camera_prefix,
    scene_streams,
)
from fsr_core.simulation.scene_capture import RateSchedule, Stamp, write_camera_frame
from fsr_core.simulators.mujoco.cameras import CameraRig
from fsr_core.simulators.mujoco.geometry import body_names, body_poses, geom_meshes
from fsr_core.simulators.mujoco.model_session import LoadedModel
from fsr_core.simulators.mujoco.scenario import MujocoScenario

__all__ = ["SceneCapture", "render_state", "scene_table", "write_scene_once"]


def scene_table(loaded: LoadedModel) -> list[StreamSpec]:
    """Return the model files, render state and geometry streams."""
    return [
        json_stream(MODEL_FILES, StreamKind.JSON, schema=MODEL_FILE_SCHEMA),
        *scene_streams(body_names(loaded)),
    ]


def render_state(loaded: LoadedModel) -> dict[str, npt.NDArray[np.float64]]:
    """Return what re-rendering this instant needs, plus body poses for viewers."""
    data = loaded.data
    return {
        "joint_positions": np.array(data.qpos, dtype=np.float64),
        "joint_velocities": np.array(data.qvel, dtype=np.float64),
        "mocap_pos": np.array(data.mocap_pos, dtype=np.float64).reshape(-1, 3),
        "mocap_quat": np.array(data.mocap_quat, dtype=np.float64).reshape(-1, 4),
        "body_poses": body_poses(loaded),
    }


def write_scene_once(writer: FsrWriter, loaded: LoadedModel) -> int:
    """Write the model files and the geom meshes at tick 0; return the mesh count."""
    stamp = Stamp(0, 0.0)
    for value in loaded.files.records():
        stamp.write(writer, MODEL_FILES, value)
    meshes = geom_meshes(loaded)
    for mesh in meshes:
        stamp.write(writer, MESHES, mesh.record(), mesh.metadata())
    return len(meshes)


class SceneCapture:
    """Writes cameras, render state and body transforms when they are due."""

    def __init__(
        self, scenario: MujocoScenario, loaded: LoadedModel, writer: FsrWriter
    ) -> None:
        dt_s = float(loaded.model.opt.timestep)
        recording = scenario.recording
        self._loaded = loaded
        self._writer = writer
        self._render = RateSchedule(recording.render_state_rate_hz, dt_s)
        self._geometry = RateSchedule(recording.geometry_rate_hz, dt_s)
        self._cameras = [
            (camera.name, RateSchedule(camera.rate_hz, dt_s))
            for camera in scenario.cameras
        ]
        self.rig = CameraRig(loaded, scenario.cameras, scenario.render)
        self._calibrated: set[str] = set()

    def capture(self, stamp: Stamp) -> None:
        """Write whatever is due at this step (the data is forward-computed)."""
        if self._render.due(stamp.tick):
            stamp.write(self._writer, RENDER_STATE, render_state(self._loaded))
        if self._geometry.due(stamp.tick):
            stamp.write(self._writer, TRANSFORMS, body_poses(self._loaded))
        for name in self.cameras_due(stamp.tick):
            self.camera(name, stamp)

    def cameras_due(self, tick: int) -> list[str]:
        """Names of the cameras whose next frame falls on ``tick``.

        Ticks must come in increasing order; they may skip (a re-render visits
        only the recorded render-state ticks), and a camera is then due at the
        first visited tick at or past its next sample.
        """
        return [name for name, schedule in self._cameras if schedule.due(tick)]

    def camera(self, name: str, stamp: Stamp) -> None:
        """Render camera ``name`` now and write its frame and calibration."""
        prefix = camera_prefix(name)
        if name not in self._calibrated:
            profile = self.rig.profiles[name]
            stamp.write(self._writer, f"{prefix}.intrinsics", profile)
            self._calibrated.add(name)
        rgb = self.rig.render(name)
        write_camera_frame(self._writer, stamp, prefix, rgb, self.rig.pose(name))

    def close(self) -> None:
        """Free the renderers."""
        self.rig.close()
