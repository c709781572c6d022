"""MuJoCo cameras: offscreen rendering and their calibration in OpenCV terms.

Intrinsics come from the camera's vertical field of view and the image size:
``fy = (height / 2) / tan(fovy / 2)``, square pixels (``fx = fy``) and the
optical axis through the image centre, which in OpenCV pixel coordinates
(pixel centres at integers) is ``((width - 1) / 2, (height - 1) / 2)``. A
camera given as a sensor (MJCF ``sensorsize`` with ``focal`` / ``principal``,
or their ``*pixel`` forms) maps its sensor onto the image instead:
``fx = focal_x / sensor_w * width``, ``fy = focal_y / sensor_h * height``, and
the principal point offset moves the centre the other way,
``cx = (width - 1) / 2 - principal_x / sensor_w * width`` (and likewise ``cy``),
which is how MuJoCo's renderer places it (checked against rendered pixels).
Extrinsics are the camera's world pose from ``cam_xpos`` / ``cam_xmat``; a
MuJoCo camera looks along its -z with y up, an OpenCV camera along +z with y
down, so the rotation's y and z columns change sign.

Renderer settings (:class:`~fsr_core.simulators.mujoco.scenario.RenderSettings`)
switch shadows, reflections and multisampling; all three are off by default
because each costs render time on a software (llvmpipe) OpenGL.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

from fsr_core.calibration import (
    CalibrationProfile,
    CameraPose,
    centred_pinhole,
    quaternion_from_matrix,
)
from fsr_core.errors import AdapterError, SchemaError
from fsr_core.simulators.mujoco.model_session import LoadedModel
from fsr_core.simulators.mujoco.scenario import CameraSpec, RenderSettings

__all__ = [
    "CameraRig",
    "camera_pose",
    "camera_profile",
    "model_camera_profile",
    "sensor_camera_profile",
]

_MUJOCO_TO_OPENCV = np.diag([1.0, -1.0, -1.0])


def camera_profile(fovy_deg: float, width: int, height: int) -> CalibrationProfile:
    """Return the pinhole intrinsics of a MuJoCo camera at this image size."""
    focal = 0.5 * height / math.tan(math.radians(fovy_deg) / 2.0)
    return centred_pinhole(width, height, focal)


def sensor_camera_profile(
    intrinsic: tuple[float, float, float, float],
    sensor_size: tuple[float, float],
    width: int,
    height: int,
) -> CalibrationProfile:
    """Return the intrinsics of a MuJoCo sensor camera at this image size.

    ``intrinsic`` is MuJoCo's ``cam_intrinsic`` (focal lengths and principal
    point offset, in the sensor's length unit), ``sensor_size`` its
    ``cam_sensorsize``.
    """
    focal_x, focal_y, offset_x, offset_y = intrinsic
    sensor_w, sensor_h = sensor_size
    return CalibrationProfile(
        width=width,
        height=height,
        fx=focal_x / sensor_w * width,
        fy=focal_y / sensor_h * height,
        cx=(width - 1) / 2.0 - offset_x / sensor_w * width,
        cy=(height - 1) / 2.0 - offset_y / sensor_h * height,
    )


def model_camera_profile(
    model: Any, camera: int, width: int, height: int
) -> CalibrationProfile:
    """Return camera ``camera``'s intrinsics: from its sensor, else its ``fovy``."""
    sensor = tuple(float(v) for v in model.cam_sensorsize[camera])
    if sensor[0] > 0 and sensor[1] > 0:
        intrinsic = tuple(float(v) for v in model.cam_intrinsic[camera])
        return sensor_camera_profile(
            (intrinsic[0], intrinsic[1], intrinsic[2], intrinsic[3]),
            (sensor[0], sensor[1]),
            width,
            height,
        )
    return camera_profile(float(model.cam_fovy[camera]), width, height)


def camera_pose(data: Any, camera: int) -> CameraPose:
    """Return camera ``camera``'s pose (camera -> world, OpenCV axes)."""
    rotation = np.asarray(data.cam_xmat[camera], dtype=np.float64).reshape(3, 3)
    quaternion = quaternion_from_matrix(rotation @ _MUJOCO_TO_OPENCV)
    return CameraPose.normalized(
        np.asarray(data.cam_xpos[camera], dtype=np.float64), quaternion
    )


class CameraRig:
    """Renders the scenario's cameras with one offscreen renderer per image size."""

    def __init__(
        self,
        loaded: LoadedModel,
        cameras: tuple[CameraSpec, ...],
        settings: RenderSettings,
    ) -> None:
        mujoco, model = loaded.mujoco, loaded.model
        self._loaded = loaded
        self._ids: dict[str, int] = {}
        self.profiles: dict[str, CalibrationProfile] = {}
        for spec in cameras:
            index = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_CAMERA, spec.name)
            if index < 0:
                raise SchemaError(f"the model has no camera {spec.name!r}")
            self._ids[spec.name] = int(index)
            self.profiles[spec.name] = model_camera_profile(
                model, int(index), spec.width, spec.height
            )
        self._renderers: dict[tuple[int, int], Any] = {}
        self._sizes = {spec.name: (spec.height, spec.width) for spec in cameras}
        self._settings = settings
        self._option: Any = None
        if cameras:
            self._option = mujoco.MjvOption()

    def _renderer(self, size: tuple[int, int]) -> Any:
        renderer = self._renderers.get(size)
        if renderer is None:
            mujoco = self._loaded.mujoco
            try:
                renderer = mujoco.Renderer(self._loaded.model, *size)
            except Exception as exc:  # any GL failure, reported whole
                raise AdapterError(
                    f"MuJoCo cannot render offscreen ({exc}); set MUJOCO_GL=egl or "
                    "MUJOCO_GL=osmesa and install Mesa (libegl1 libegl-mesa0 "
                    "libgl1-mesa-dri, or libosmesa6)"
                ) from exc
            flags = renderer.scene.flags
            flags[mujoco.mjtRndFlag.mjRND_SHADOW] = self._settings.shadows
            flags[mujoco.mjtRndFlag.mjRND_REFLECTION] = self._settings.reflections
            self._renderers[size] = renderer
        return renderer

    def render(self, name: str) -> npt.NDArray[np.uint8]:
        """Render camera ``name`` at the data's current state (H x W x 3 uint8)."""
        renderer = self._renderer(self._sizes[name])
        renderer.update_scene(
            self._loaded.data, camera=self._ids[name], scene_option=self._option
        )
        flags = renderer.scene.flags
        mujoco = self._loaded.mujoco
        flags[mujoco.mjtRndFlag.mjRND_SHADOW] = self._settings.shadows
        flags[mujoco.mjtRndFlag.mjRND_REFLECTION] = self._settings.reflections
        image: npt.NDArray[np.uint8] = renderer.render()
        return image

    def pose(self, name: str) -> CameraPose:
        """Return camera ``name``'s current pose."""
        return camera_pose(self._loaded.data, self._ids[name])

    def close(self) -> None:
        """Free the renderers' GL contexts."""
        for renderer in self._renderers.values():
            renderer.close()
        self._renderers.clear()
