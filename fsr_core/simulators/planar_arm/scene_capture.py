"""What a run records about its scene: cameras, render state, geometry.

Cameras render at their own rate (sample ``n`` on the tick nearest
``n / rate_hz``, :class:`~fsr_core.simulation.scene_capture.RateSchedule`,
started over with each generation) with the calibration of their current
epoch: an intrinsics record starts an epoch at tick 0 of each generation and
at every scheduled calibration change, and each image and extrinsics record
names that epoch's digest. Render state (joint positions and velocities) and
body transforms are written at the configured rates; meshes are written once.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from fsr_core.calibration import CalibrationProfile, CameraPose
from fsr_core.format.writer import FsrWriter
from fsr_core.simulation.recorded_streams import (
    MESHES,
    RENDER_STATE,
    TRANSFORMS,
    camera_prefix,
)
from fsr_core.simulation.scene_capture import RateSchedule, Stamp, write_camera_frame
from fsr_core.simulators.planar_arm.kinematics import (
    com_positions,
    frames,
    joint_positions,
    link_angles,
    plane_to_world,
    tip_jacobian_of,
)
from fsr_core.simulators.planar_arm.model import ArmState
from fsr_core.simulators.planar_arm.render import ArmScene, render_rgb
from fsr_core.simulators.planar_arm.scenario import CameraConfig, Scenario

__all__ = ["SceneCapture"]

LINK_RADIUS_M = 0.025


def _link_box(length_m: float, radius_m: float) -> dict[str, np.ndarray]:
    """Build a box mesh along the link's x axis, in the link frame (origin: joint)."""
    corners = [
        [x, y, z]
        for x in (0.0, length_m)
        for y in (-radius_m, radius_m)
        for z in (-radius_m, radius_m)
    ]
    faces = [
        [0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1],
        [2, 3, 7], [2, 7, 6], [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3],
    ]  # fmt: skip
    return {
        "vertices": np.array(corners, dtype=np.float32),
        "faces": np.array(faces, dtype=np.uint32),
    }


class _CameraTrack:
    """One camera's schedule and current calibration epoch."""

    def __init__(self, config: CameraConfig, dt_s: float) -> None:
        self.config = config
        self.schedule = RateSchedule(config.rate_hz, dt_s)
        self.pose: CameraPose = config.pose()
        self.prefix = camera_prefix(config.name)
        self.profile: CalibrationProfile = config.profile()
        self.change = 0

    def profile_at(self, time_s: float) -> tuple[CalibrationProfile, bool]:
        """Return the intrinsics in force at ``time_s`` and whether they changed."""
        changes = self.config.calibration_changes
        changed = False
        while (
            self.change < len(changes) and changes[self.change].time_s <= time_s + 1e-12
        ):
            change = changes[self.change]
            self.profile = self.config.profile(change.fx, change.fy)
            self.change += 1
            changed = True
        return self.profile, changed

    def restart(self) -> None:
        """Go back to the configured intrinsics (a new generation starts)."""
        self.profile = self.config.profile()
        self.change = 0


class SceneCapture:
    """Writes cameras, render state and geometry for one run."""

    def __init__(self, scenario: Scenario, writer: FsrWriter) -> None:
        self.scenario = scenario
        self.writer = writer
        self.cameras = [
            _CameraTrack(camera, scenario.dt_s) for camera in scenario.cameras
        ]
        recording = scenario.recording
        self.render_schedule = RateSchedule(
            recording.render_state_rate_hz, scenario.dt_s
        )
        #: Whether this capture writes render state (a re-render writes the
        #: states it applies itself).
        self.records_render_state = True
        self.geometry_schedule = RateSchedule(recording.geometry_rate_hz, scenario.dt_s)
        self.floor_z_m = float(scenario.model.base_m[1]) - scenario.model.reach_m - 0.05
        self._overlays: dict[
            int, tuple[np.ndarray | None, float | None, np.ndarray | None]
        ] = {}

    def tip(self, state: ArmState) -> tuple[np.ndarray, float]:
        """Tip position (plane) and tip speed."""
        pose = frames(self.scenario.model, state.q)
        velocity = tip_jacobian_of(pose) @ state.dq
        return pose.joints_m[-1], math.hypot(float(velocity[0]), float(velocity[1]))

    def write_meshes(self) -> None:
        """Store one mesh per link, once, at the start of the run."""
        for index, link in enumerate(self.scenario.model.links):
            self.writer.write(
                MESHES,
                _link_box(link.length_m, LINK_RADIUS_M),
                tick=0,
                sim_time_s=0.0,
                metadata={
                    "mesh_id": f"link{index}",
                    "body": f"link{index}",
                    "frame": "link",
                },
            )

    def capture(
        self,
        generation: int,
        tick: int,
        state: ArmState,
        task: Any,
        active: int | None,
        force: np.ndarray,
    ) -> None:
        """Write whatever is due at this tick."""
        time_s = tick * self.scenario.dt_s
        stamp = Stamp(tick, time_s, generation)
        if tick == 0:  # a generation starts: every schedule from its first sample
            for schedule in self._schedules():
                schedule.restart()
        due = [camera for camera in self.cameras if camera.schedule.due(tick)]
        # Render state at its own rate and wherever a camera renders: a
        # re-render then applies exactly the state each recorded frame shows.
        at_rate = self.render_schedule.due(tick)
        if self.records_render_state and (at_rate or due):
            state_arrays = {"joint_positions": state.q, "joint_velocities": state.dq}
            stamp.write(self.writer, RENDER_STATE, state_arrays)
        if self.geometry_schedule.due(tick):
            stamp.write(self.writer, TRANSFORMS, self.link_transforms(state))
        if not due:
            return
        scene = self.scene(state, task, active, force)
        for camera in due:
            self._camera(camera, scene, stamp)

    def _schedules(self) -> list[RateSchedule]:
        cameras = [camera.schedule for camera in self.cameras]
        return [self.render_schedule, self.geometry_schedule, *cameras]

    def _camera(self, camera: _CameraTrack, scene: ArmScene, stamp: Stamp) -> None:
        if stamp.tick == 0:
            camera.restart()
        profile, changed = camera.profile_at(stamp.sim_time_s)
        if changed or stamp.tick == 0:
            stamp.write(self.writer, f"{camera.prefix}.intrinsics", profile)
        image = render_rgb(scene, profile, camera.pose)
        write_camera_frame(self.writer, stamp, camera.prefix, image, camera.pose)

    def scene(
        self, state: ArmState, task: Any, active: int | None, force: np.ndarray
    ) -> ArmScene:
        """Return the world-space drawing of the arm and its task at this state."""
        model = self.scenario.model
        targets, tolerance, curve = self._overlay(task)
        return ArmScene(
            joints_m=plane_to_world(joint_positions(model, state.q)),
            link_radius_m=LINK_RADIUS_M,
            coms_m=plane_to_world(com_positions(model, state.q)),
            targets_m=targets,
            active_target=active,
            target_tolerance_m=tolerance,
            curve_m=curve,
            tip_force_n=plane_to_world(force) if bool(force.any()) else None,
            floor_z_m=self.floor_z_m,
        )

    def _overlay(
        self, task: Any
    ) -> tuple[np.ndarray | None, float | None, np.ndarray | None]:
        """World-space targets, tolerance and path of the task (computed once)."""
        cached = self._overlays.get(id(task))
        if cached is None:
            overlay = task.overlay_json(self.scenario.model)
            items = overlay["targets"]
            targets = (
                plane_to_world(np.array([item["xy"] for item in items]))
                if items
                else None
            )
            tolerance = items[0]["tolerance_m"] if items else None
            path = overlay["curve_xy"] or overlay["reference_xy"]
            curve = plane_to_world(np.array(path, dtype=float)) if path else None
            cached = (targets, tolerance, curve)
            self._overlays[id(task)] = cached
        return cached

    def link_transforms(self, state: ArmState) -> np.ndarray:
        """World pose ``[x, y, z, qx, qy, qz, qw]`` of each link frame."""
        model = self.scenario.model
        origins = plane_to_world(joint_positions(model, state.q)[:-1])
        rows = []
        for origin, angle in zip(origins, link_angles(state.q), strict=True):
            # The plane angle turns +x towards +z: a rotation about world -y.
            half = angle / 2.0
            rows.append([*origin, 0.0, -math.sin(half), 0.0, math.cos(half)])
        return np.array(rows, dtype=np.float64)
