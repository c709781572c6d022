"""A recording with its robot: meshes posed per frame, link poses as channels.

:func:`with_robot` reads a robot model once, matches its joints to the
recording's (:mod:`fsr_core.robots.matching`), runs forward kinematics over
the whole take and returns the recording with

* :attr:`~fsr_core.recording.RecordingModel.geometry`: the model's meshes on
  its links, posed at every joint sample, which the scene view draws;
* a channel ``robot/<link>`` per link, columns ``x y z qw qx qy qz``
  (metres, the model root's frame): plottable and exported like any other;
* ``metadata["robot"]``: the model, the joint match and the warnings, for
  the inspector.

A recording that names a channel of MuJoCo's whole state
(:attr:`~fsr_core.joint_set.JointSet.mujoco_state`, robosuite's ``states``)
has every joint of a model MuJoCo compiled posed from it, when its width is
that model's ``1 + nq + nv`` (:mod:`fsr_core.robots.mujoco_state`): the
fingers and the free objects too. Otherwise the recorded joints pose the
robot as before, and a note of the report says why the state did not.

A description the recording carries (:func:`with_carried_robot`) whose
recording draws that robot in its own recorded scene already (a MuJoCo run
records every body's pose, the floor, targets and loose objects too) keeps
that scene: only the ``robot/<link>`` channels of the links the recorded
joints pose, and the tip trail, are added.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Final

import numpy as np

from fsr_core.arrays import FloatArray
from fsr_core.errors import FsrError, RobotModelError, SchemaError
from fsr_core.joint_set import JointKind, JointSet, JointSpec
from fsr_core.recording import (
    Channel,
    GeometryMesh,
    RecordingModel,
    SceneGeometry,
)
from fsr_core.robots.description import JointType, RobotJoint, RobotModel
from fsr_core.robots.kinematics import link_poses, link_transforms
from fsr_core.robots.link_frames import frame_meshes
from fsr_core.robots.loading import load_robot, robot_from_text
from fsr_core.robots.matching import JointMatch, match_joints, read_joint_map
from fsr_core.robots.mujoco_state import state_mismatch, state_motions, state_moving

__all__ = [
    "LINK_POSE_COLUMNS",
    "ROBOT_PREFIX",
    "RobotRequest",
    "pose_robot",
    "tip_link",
    "with_carried_robot",
    "with_robot",
]

#: Name prefix of the derived link-pose channels.
ROBOT_PREFIX: Final = "robot/"
#: Columns of a link-pose channel.
LINK_POSE_COLUMNS: Final = ("x", "y", "z", "qw", "qx", "qy", "qz")
_UNITS: Final = ("rad", "deg")


@dataclass(frozen=True)
class RobotRequest:
    """The robot the user asked to draw a recording with (``--robot`` ...)."""

    path: Path
    """The description: URDF, or MJCF."""
    package_paths: tuple[Path, ...] = ()
    """``--package-path`` folders, searched first for ``package://`` meshes."""
    joint_map: Path | None = None
    """``--joint-map FILE.json``: recorded names to model joint names."""
    joint_units: str | None = None
    """``--joint-units``: ``rad`` or ``deg`` for every revolute joint, whatever
    the source says; ``None``: as the source says."""
    trail_link: str | None = None
    """``--trail-link``: the link whose path the tip trail draws; ``None``: the
    tip of the arm (:func:`tip_link`)."""
    required: bool = True
    """Whether a recording the robot cannot pose fails to open (the command
    line: the user named both) or opens without it, with a note saying why
    (the window, whose choice carries over to the next files of a playlist)."""

    def __post_init__(self) -> None:  # noqa: D105
        if self.joint_units is not None and self.joint_units not in _UNITS:
            raise ValueError(f"joint units {self.joint_units!r}: expected rad or deg")


def _joint_set(model: RecordingModel) -> JointSet | None:
    """Return the recording's joints (else the planar arm's joint channel)."""
    if model.joints is not None:
        return model.joints
    name = model.joint_channel
    if name is None or name not in model.channels:
        return None
    channel = model.channels[name]
    names = channel.columns or tuple(f"joint{i}" for i in range(channel.width))
    return JointSet.of_channel(name, names)


def _fitted(spec: JointSpec, target: RobotJoint, units: str | None) -> JointSpec:
    """Return what the model says of a recorded joint: its kind, unit and limits.

    A source that cannot tell (a JointState, a dataset's state vector) says
    radians; a prismatic joint of the model is metres then. ``units`` (the
    ``--joint-units`` option) sets the unit of every revolute joint recorded
    in radians or degrees. Limits the recording gives stay; the model's fill
    the rest.
    """
    prismatic = target.type is JointType.PRISMATIC
    unit = spec.unit
    if prismatic and unit in ("rad", "deg"):
        unit = "m"
    elif not prismatic and units is not None and unit in ("rad", "deg"):
        unit = units
    return dataclasses.replace(
        spec,
        kind=JointKind.PRISMATIC if prismatic else JointKind.REVOLUTE,
        unit=unit,
        lower=spec.lower if spec.lower is not None else target.lower,
        upper=spec.upper if spec.upper is not None else target.upper,
    )


def _rest(low: float | None, high: float | None) -> float:
    """Return a joint's value when nothing drives it: zero, moved inside its limits."""
    value = 0.0
    if low is not None and math.isfinite(low):
        value = max(value, low)
    if high is not None and math.isfinite(high):
        value = min(value, high)
    return value


#: A transform channel of a frame (an MCAP's ``/tf``): pose in its parent.
_TF_CHANNEL: Final = "/tf:{frame}"
_TF_COLUMNS: Final = ("x", "y", "z", "qx", "qy", "qz", "qw")


def _base_poses(
    model: RecordingModel, joints: JointSet, times_s: FloatArray, root: str
) -> FloatArray | None:
    """Return the floating base's poses at ``times_s`` (``x y z qw qx qy qz``).

    From the recorded base pose (a free joint), else from a recorded transform
    of the model's root frame (``/tf`` of ``base_link`` in its parent, such as
    ``odom``); ``None`` when neither is recorded: the base stays put.
    """
    name = joints.base_pose
    reorder = None
    if name is None or name not in model.channels:
        name = _TF_CHANNEL.format(frame=root)
        found = model.channels.get(name)
        if found is None or found.columns != _TF_COLUMNS:
            return None
        reorder = [0, 1, 2, 6, 3, 4, 5]
    channel = model.channels[name]
    values = channel.values if reorder is None else channel.values[:, reorder]
    if values.ndim != 2 or values.shape[1] != 7 or len(values) == 0:
        raise SchemaError(
            f"base pose {name!r} needs 7 columns (x y z qw qx qy qz)",
            path=model.path,
        )
    rows = np.clip(
        np.searchsorted(channel.times_s, times_s, side="right") - 1, 0, len(values) - 1
    )
    return np.asarray(values[rows], dtype=np.float64)


@dataclass(frozen=True)
class _StatePosing:
    """What a recorded MuJoCo state poses, or why it poses nothing."""

    state: FloatArray | None
    """``(T, 1 + nq + nv)`` at the play times, when it poses the robot."""
    note: str = ""
    """Why the state the recording names poses nothing ('' when it does or
    none is named)."""


def _recorded_state(
    model: RecordingModel, joints: JointSet, robot: RobotModel, times_s: FloatArray
) -> _StatePosing:
    """Return the recorded MuJoCo state at ``times_s``, when it can pose ``robot``.

    A state that cannot (the model is no MuJoCo model, its width is not
    ``1 + nq + nv``, it cannot be read) leaves the joints the recording
    names to pose the robot, and the note says why.
    """
    name = joints.mujoco_state
    if name is None:
        return _StatePosing(None)
    lead = (
        f"{name!r} does not pose every joint of {robot.name!r} "
        "(only the recorded joints do; its other bodies rest where the model "
        "puts them)"
    )
    channel = model.channels.get(name)
    if channel is None:
        return _StatePosing(None, f"{lead}: the recording has no such channel")
    why = state_mismatch(robot, channel.width)
    if why is not None:
        return _StatePosing(None, f"{lead}: {why}")
    try:
        values = np.asarray(channel.values, dtype=np.float64)
        stamps = np.asarray(channel.times_s, dtype=np.float64)
    except FsrError as error:
        return _StatePosing(None, f"{lead}: {error}")
    if values.ndim != 2 or values.shape[1] != channel.width or not len(values):
        return _StatePosing(None, f"{lead}: it holds no samples")
    rows = np.clip(
        np.searchsorted(stamps, times_s, side="right") - 1, 0, len(values) - 1
    )
    return _StatePosing(values[rows])


def _resting_balls(robot: RobotModel, posed: bool) -> list[str]:
    """Return a warning per ball joint nothing poses (no recorded state does)."""
    if posed:
        return []
    return [
        f"ball joint {joint.name!r} is drawn at its rest pose"
        for joint in robot.joints
        if joint.type is JointType.BALL
    ]


def tip_link(
    robot: RobotModel,
    unposed: frozenset[int] = frozenset(),
    *,
    through_slides: bool = False,
) -> int:
    """Return the arm's tip: the deepest link reached without a sliding joint.

    Grippers' fingers slide, so a Franka's tip is its hand, not a finger.
    Links in ``unposed`` (loose bodies nothing recorded poses) are passed by;
    ``through_slides`` follows sliding joints too (a robot that only slides).
    """
    depth = {robot.root: 0}
    best = robot.root
    for joint in robot.joints:
        if joint.parent not in depth or joint.child in unposed:
            continue
        if joint.mimic is not None:
            continue
        if joint.type is JointType.PRISMATIC and not through_slides:
            continue
        depth[joint.child] = depth[joint.parent] + 1
        if joint.child not in robot.hidden_links and depth[joint.child] > depth[best]:
            best = joint.child
    return best


def _unposed_links(
    robot: RobotModel, base_posed: bool, state_posed: bool = False
) -> frozenset[int]:
    """Return the links below a floating joint no recorded pose moves.

    Only the first floating joint follows a recorded base pose; the others
    (an MJCF scene's loose bodies) rest where the description puts them,
    unless a recorded MuJoCo state poses them all (``state_posed``).
    """
    floating = next((j for j in robot.joints if j.type is JointType.FLOATING), None)
    found: set[int] = set()
    for joint in robot.joints:
        loose = (
            joint.type is JointType.FLOATING
            and not state_posed
            and not (joint is floating and base_posed)
        )
        if loose or joint.parent in found:
            found.add(joint.child)
    return frozenset(found)


def _trail_link(
    robot: RobotModel, name: str | None, where: Path, unposed: frozenset[int]
) -> str | None:
    """Return the link the trail follows (``None``: no link moves to follow)."""
    if name is None:
        tip = tip_link(robot, unposed)
        if tip == robot.root:  # nothing turns: follow what slides (a pusher)
            tip = tip_link(robot, unposed, through_slides=True)
        return None if tip == robot.root else robot.links[tip]
    if name not in robot.links:
        shown = ", ".join(robot.links[:8])
        raise RobotModelError(
            f"--trail-link {name!r}: {robot.name!r} has no such link ({shown}, ...)",
            path=where,
        )
    return name


def _moving_values(
    model: RecordingModel,
    robot: RobotModel,
    joints: JointSet,
    match: JointMatch,
    joint_units: str | None,
) -> tuple[FloatArray, FloatArray, list[JointSpec]]:
    """Return the play times, the moving joints' values in SI units and the specs."""
    channel = model.channels[joints.positions]
    times_s = np.asarray(channel.times_s, dtype=np.float64)
    recorded = np.asarray(channel.values, dtype=np.float64).reshape(len(times_s), -1)
    moving_joints = robot.moving_joints
    moving = np.tile(
        [_rest(j.lower, j.upper) for j in moving_joints], (len(times_s), 1)
    ).astype(np.float64)
    specs = list(joints.joints)
    for r, name in match.followers:
        follower = robot.joint_named(name)
        if follower is not None:
            specs[r] = _fitted(specs[r], follower, joint_units)
    for r, m in match.pairs:
        specs[r] = _fitted(specs[r], moving_joints[m], joint_units)
        column = joints.position_columns[r]
        if column < recorded.shape[1]:
            moving[:, m] = specs[r].to_si(recorded[:, column])
    return times_s, np.where(np.isfinite(moving), moving, 0.0), specs


def _robot_geometry(
    robot: RobotModel, times_s: FloatArray, poses: FloatArray
) -> SceneGeometry:
    """Return the robot's meshes on its links, posed at ``times_s``.

    A link whose visual could not be read is drawn as its frame.
    """
    meshes = tuple(
        GeometryMesh(v.name, v.link, "mesh", v.vertices_m, v.faces, v.rgba)
        for v in robot.visuals
    )
    frames = frame_meshes(robot, poses[0, :, :3]) if len(poses) else ()
    return SceneGeometry(
        bodies=robot.links,
        meshes=meshes + frames,
        times_s=times_s,
        poses=np.concatenate(
            [poses[..., :3], poses[..., 4:], poses[..., 3:4]], axis=-1
        ),
    )


def _matched(
    model: RecordingModel, robot: RobotModel, joint_map: dict[str, str] | None
) -> tuple[JointSet, JointMatch]:
    """Return the recording's joints and how they match ``robot``'s.

    Raises
    ------
    RobotModelError
        The recording has no joints, or none of them matches the model.
    """
    joints = _joint_set(model)
    if joints is None:
        raise RobotModelError(
            f"the recording records no joint positions to pose {robot.name!r} with",
            path=model.path,
        )
    match = match_joints(joints.names, robot, joint_map)
    if not match.pairs:
        raise RobotModelError(
            f"no recorded joint matches a joint of {robot.name!r} "
            f"(recorded: {', '.join(joints.names[:6])}; model: "
            f"{', '.join(j.name for j in robot.moving_joints[:6])}); "
            "name them with --joint-map FILE.json",
            path=model.path,
        )
    return joints, match


def pose_robot(
    model: RecordingModel,
    robot: RobotModel,
    *,
    joint_map: dict[str, str] | None = None,
    joint_units: str | None = None,
    trail_link: str | None = None,
    keep_scene: bool = False,
) -> RecordingModel:
    """Return ``model`` with ``robot`` posed by its recorded joints.

    With ``keep_scene`` (a recording whose own scene geometry draws the
    robot), that geometry stays, and only the links the recorded joints pose
    (not a loose body below a floating joint no recorded pose moves) get a
    channel and may carry the trail.

    Raises
    ------
    RobotModelError
        The recording has no joints, or none of them matches the model.
    FsrError
        Reading the joint channel failed.
    """
    joints, match = _matched(model, robot, joint_map)
    times_s, moving, specs = _moving_values(model, robot, joints, match, joint_units)
    base = _base_poses(model, joints, times_s, robot.links[robot.root])
    recorded = _recorded_state(model, joints, robot, times_s)
    motions: dict[str, FloatArray] = {}
    if recorded.state is not None:
        moving = state_moving(robot, recorded.state, moving)
        motions = state_motions(robot, recorded.state)
    poses = link_poses(link_transforms(robot, moving, base, motions))
    state_posed = recorded.state is not None
    left_out = (
        robot.hidden_links | _unposed_links(robot, base is not None, state_posed)
        if keep_scene
        else robot.hidden_links
    )
    derived = {
        f"{ROBOT_PREFIX}{name}": Channel(
            f"{ROBOT_PREFIX}{name}",
            times_s,
            np.ascontiguousarray(poses[:, index]),
            unit="m",
            label=f"{name} pose",
            columns=LINK_POSE_COLUMNS,
        )
        for index, name in enumerate(robot.links)
        if index not in left_out
    }
    summary = _summary(robot, joints, match, _resting_balls(robot, state_posed))
    if state_posed:
        summary["posed_by"] = joints.mujoco_state
    if keep_scene:
        summary["scene"] = "recorded"
        summary["links"] = len(derived)
    report = model.report
    if recorded.note:
        report = {**report, "notes": [*report.get("notes", []), recorded.note]}
    return replace(
        model,
        report=report,
        joints=dataclasses.replace(joints, joints=tuple(specs)),
        geometry=model.geometry
        if keep_scene and model.geometry is not None
        else _robot_geometry(robot, times_s, poses),
        channels={**model.channels, **derived},
        metadata={
            **model.metadata,
            "robot": {
                **summary,
                "trail_link": _trail_link(
                    robot, trail_link, model.path, left_out - robot.hidden_links
                ),
            },
        },
    )


def _summary(
    robot: RobotModel, joints: JointSet, match: JointMatch, warnings: list[str]
) -> dict[str, object]:
    return {
        "name": robot.name,
        "description": robot.path,
        "links": len(robot.links) - len(robot.hidden_links),
        "triangles": robot.triangles,
        "joints": match.report(joints.names, robot),
        "warnings": [*robot.warnings, *warnings],
    }


def with_carried_robot(
    model: RecordingModel, package_paths: tuple[Path, ...] = ()
) -> RecordingModel:
    """Return ``model`` drawn with the robot description it carries, if any.

    A description that cannot be used (a mesh path nowhere, joints that
    match nothing, a copy in the file that does not read) does not stop the
    recording from opening: the model is returned without a robot, and a
    note of the report says why. A recording whose own scene draws the robot
    (:attr:`~fsr_core.recording.RobotDescription.scene_recorded`) keeps it.
    """
    description = model.robot_description
    if description is None:
        return model
    try:
        robot = robot_from_text(description, model.path.parent, package_paths)
        return _posed_with(
            model,
            robot,
            RobotRequest(path=Path(description.where)),
            keep_scene=description.scene_recorded and model.geometry is not None,
        )
    except FsrError as error:
        return _noted(model, f"robot not drawn: {error}")


def _noted(model: RecordingModel, note: str) -> RecordingModel:
    """Return ``model`` with one more note in its report."""
    notes = [*model.report.get("notes", []), note]
    return replace(model, report={**model.report, "notes": notes})


def _posed_with(
    model: RecordingModel,
    robot: RobotModel,
    request: RobotRequest,
    *,
    keep_scene: bool = False,
) -> RecordingModel:
    """Return ``model`` posed with ``robot`` as ``request`` asks, refined alike."""
    joint_map = (
        None if request.joint_map is None else read_joint_map(request.joint_map, robot)
    )

    def posed(recording: RecordingModel) -> RecordingModel:
        return pose_robot(
            recording,
            robot,
            joint_map=joint_map,
            joint_units=request.joint_units,
            trail_link=request.trail_link,
            keep_scene=keep_scene,
        )

    refine = model.refine
    if refine is None:
        return posed(model)

    def refined(progress: object) -> RecordingModel:
        return posed(refine(progress))  # type: ignore[arg-type]

    return replace(posed(model), refine=refined)


def with_robot(model: RecordingModel, request: RobotRequest) -> RecordingModel:
    """Return ``model`` drawn with the robot ``request`` names.

    A model opened before its checks (:attr:`RecordingModel.refine` set) gets
    the robot on the checked model too.

    Raises
    ------
    RobotModelError
        The description or the joint map cannot be read, or no joint matches.
    """
    try:
        robot = load_robot(request.path, request.package_paths)
        return _posed_with(model, robot, request)
    except RobotModelError as error:
        if request.required:
            raise
        return _noted(model, f"robot not drawn: {error}")
