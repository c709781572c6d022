"""robosuite's side of a replay: rebuild the environment, put states back, step.

:func:`run` is called in this process when robosuite imports here, or by the
worker (:mod:`.worker`) in the Python ``FSR_VIEWER_ROBOSUITE_PYTHON`` names.
It imports robosuite and MuJoCo through :mod:`importlib` inside its functions
(nothing imports them statically) and needs nothing of the viewer but this
package's request.

The environment is made with ``robosuite.make`` from the file's environment
name and keyword arguments (the renderer off-screen, no camera observations:
the cameras are rendered here), reset, then rebuilt from the episode's
``model_file`` (``edit_model_xml`` then ``reset_from_xml_string``), as
robosuite's own playback does.

``render``
    every recorded ``states`` row is restored (``set_state_from_flattened``
    and ``forward``) and each chosen camera rendered. MuJoCo's off-screen
    images have their first row at the bottom (OpenGL); they are handed on
    right side up. With each image go the camera's world pose (OpenCV axes:
    x right, y down, z forward) and, once, its vertical field of view.
``resimulate``
    the first recorded state is restored and the recorded ``actions`` are
    stepped through ``env.step``; after each step the simulator's flattened
    state is handed on, for the viewer to compare with the next recorded row.

The scene's facts name this robosuite's assets folder (``assets_root``),
where the viewer finds the meshes the episode's ``model_file`` names to
embed them in its output. Each frame goes to the sink with the flattened
state it holds.
"""

from __future__ import annotations

import importlib
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Protocol

import numpy as np
import numpy.typing as npt

from fsr_core.simulators.robosuite.request import ALL_CAMERAS, RobosuiteRequest

__all__ = ["CameraPoseOut", "FrameOut", "Sink", "run", "state_names"]

_FLIP_TO_OPENCV: Final = np.diag([1.0, -1.0, -1.0])
"""MuJoCo's camera looks down -z with y up; OpenCV's down +z with y down."""
_FREE: Final = ("x", "y", "z", "qw", "qx", "qy", "qz")
_FREE_VEL: Final = ("vx", "vy", "vz", "wx", "wy", "wz")
_BALL: Final = ("qw", "qx", "qy", "qz")
_BALL_VEL: Final = ("wx", "wy", "wz")


@dataclass(frozen=True)
class CameraPoseOut:
    """A camera's world pose: position (m) and rotation (camera to world, OpenCV)."""

    position: tuple[float, ...]
    rotation: tuple[tuple[float, ...], ...]


@dataclass(frozen=True)
class FrameOut:
    """One replayed step: its index, the simulator's state, and any images."""

    index: int
    state: npt.NDArray[np.float64]
    images: dict[str, npt.NDArray[np.uint8]] = field(default_factory=dict)
    poses: dict[str, CameraPoseOut] = field(default_factory=dict)
    wall_s: float = 0.0


class Sink(Protocol):
    """What receives a run's scene facts and frames."""

    def scene(self, facts: dict[str, Any]) -> None:
        """Take the rebuilt environment's facts (versions, cameras, state names)."""

    def frame(self, frame: FrameOut) -> None:
        """Take one frame."""


def _joint_parts(mujoco: Any, model: Any) -> tuple[list[str], list[str]]:
    """Return the names of the qpos and qvel entries, joint by joint."""
    qpos = [""] * int(model.nq)
    qvel = [""] * int(model.nv)
    kinds = mujoco.mjtJoint
    for joint in range(int(model.njnt)):
        name = mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_JOINT, joint) or (
            f"joint{joint}"
        )
        kind = int(model.jnt_type[joint])
        parts: tuple[str, ...]
        velocity: tuple[str, ...]
        if kind == int(kinds.mjJNT_FREE):
            parts, velocity = _FREE, _FREE_VEL
        elif kind == int(kinds.mjJNT_BALL):
            parts, velocity = _BALL, _BALL_VEL
        else:
            parts, velocity = ("",), ("",)
        start, vstart = int(model.jnt_qposadr[joint]), int(model.jnt_dofadr[joint])
        for k, part in enumerate(parts):
            qpos[start + k] = f"qpos.{name}" + (f".{part}" if part else "")
        for k, part in enumerate(velocity):
            qvel[vstart + k] = f"qvel.{name}" + (f".{part}" if part else "")
    return qpos, qvel


def state_names(mujoco: Any, model: Any, width: int) -> list[str]:
    """Return a name for each entry of a flattened state of ``width`` entries.

    robosuite flattens ``[time, qpos..., qvel..., act..., udd...]``; qpos and
    qvel entries are named by their joint (``qpos.cube_joint0.z``).
    """
    qpos, qvel = _joint_parts(mujoco, model)
    names = ["time", *qpos, *qvel]
    names += [f"extra{k}" for k in range(max(width - len(names), 0))]
    return [name or f"state{k}" for k, name in enumerate(names[:width])]


def _read_episode(request: RobosuiteRequest) -> tuple[Any, Any, str]:
    h5py = importlib.import_module("h5py")
    with h5py.File(request.file, "r", locking=False) as handle:
        group = handle[request.group]
        states = np.asarray(group["states"][()], dtype=np.float64)
        actions = (
            np.asarray(group["actions"][()], dtype=np.float64)
            if "actions" in group
            else np.zeros((0, 0))
        )
        model = group.attrs["model_file"]
        text = model.decode("utf-8") if isinstance(model, bytes) else str(model)
    return states, actions, text


def _make_environment(request: RobosuiteRequest) -> Any:
    os.environ.setdefault("MUJOCO_GL", "egl")
    if os.environ["MUJOCO_GL"] in ("egl", "osmesa"):
        os.environ.setdefault("PYOPENGL_PLATFORM", os.environ["MUJOCO_GL"])
    suite = importlib.import_module("robosuite")
    kwargs = dict(request.env_kwargs)
    kwargs.update(
        has_renderer=False,
        has_offscreen_renderer=request.mode == "render",
        use_camera_obs=False,
        ignore_done=True,
    )
    for key in ("camera_depths", "camera_segmentations"):
        kwargs.pop(key, None)
    return suite.make(request.env_name, **kwargs)


def _cameras(mujoco: Any, model: Any, wanted: tuple[str, ...]) -> list[str]:
    names = [
        mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_CAMERA, k) or f"camera{k}"
        for k in range(int(model.ncam))
    ]
    if wanted == (ALL_CAMERAS,):
        return names
    missing = [name for name in wanted if name not in names]
    if missing:
        raise ValueError(
            f"the model has no camera {', '.join(missing)}; it has {', '.join(names)}"
        )
    return list(wanted)


def _pose(data: Any, camera: int) -> CameraPoseOut:
    position = np.asarray(data.cam_xpos[camera], dtype=np.float64)
    rotation = np.asarray(data.cam_xmat[camera], dtype=np.float64).reshape(3, 3)
    opencv = rotation @ _FLIP_TO_OPENCV
    return CameraPoseOut(
        tuple(float(v) for v in position),
        tuple(tuple(float(v) for v in row) for row in opencv),
    )


def run(request: RobosuiteRequest, sink: Sink, cancelled: Callable[[], bool]) -> None:
    """Rebuild the episode's environment and replay it into ``sink``.

    Raises
    ------
    Exception
        Whatever robosuite or MuJoCo raise (an environment it cannot make,
        a model it cannot load, a camera the model lacks).
    """
    started = time.perf_counter()
    states, actions, model_xml = _read_episode(request)
    mujoco = importlib.import_module("mujoco")
    robosuite = importlib.import_module("robosuite")
    env = _make_environment(request)
    try:
        env.reset()
        # edit_model_xml points the model's assets at this robosuite's files.
        env.reset_from_xml_string(env.edit_model_xml(model_xml))
        env.sim.reset()
        model = env.sim.model._model
        cameras = (
            _cameras(mujoco, model, request.cameras) if request.mode == "render" else []
        )
        ids = {name: mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_CAMERA, name)
               for name in cameras}  # fmt: skip
        sink.scene(
            {
                "robosuite_version": str(robosuite.__version__),
                "mujoco_version": str(mujoco.__version__),
                "build_s": time.perf_counter() - started,
                "steps": len(states),
                "actions": len(actions),
                "state_names": state_names(mujoco, model, states.shape[1]),
                "timestep": float(model.opt.timestep),
                "cameras": [
                    {"name": name, "fovy_deg": float(model.cam_fovy[ids[name]])}
                    for name in cameras
                ],
                "mujoco_gl": os.environ.get("MUJOCO_GL", ""),
                # Where this robosuite's meshes are: the viewer embeds them.
                "assets_root": str(
                    Path(str(robosuite.__file__)).parent / "models" / "assets"
                ),
            }
        )
        if request.mode == "render":
            _render(env, request, states, ids, sink, cancelled)
        else:
            _resimulate(env, states, actions, sink, cancelled)
    finally:
        env.close()


def _state(env: Any) -> npt.NDArray[np.float64]:
    return np.asarray(env.sim.get_state().flatten(), dtype=np.float64)


def _render(
    env: Any,
    request: RobosuiteRequest,
    states: npt.NDArray[np.float64],
    ids: dict[str, int],
    sink: Sink,
    cancelled: Callable[[], bool],
) -> None:
    for index, row in enumerate(states):
        if cancelled():
            return
        began = time.perf_counter()
        env.sim.set_state_from_flattened(row)
        env.sim.forward()
        images = {
            name: np.ascontiguousarray(
                env.sim.render(
                    camera_name=name, width=request.width, height=request.height
                )[::-1]
            )
            for name in ids
        }
        poses = {name: _pose(env.sim.data, camera) for name, camera in ids.items()}
        sink.frame(
            FrameOut(index, _state(env), images, poses, time.perf_counter() - began)
        )


def _resimulate(
    env: Any,
    states: npt.NDArray[np.float64],
    actions: npt.NDArray[np.float64],
    sink: Sink,
    cancelled: Callable[[], bool],
) -> None:
    env.sim.set_state_from_flattened(states[0])
    env.sim.forward()
    sink.frame(FrameOut(0, _state(env)))
    steps = min(len(actions), len(states) - 1)
    for index in range(steps):
        if cancelled():
            return
        began = time.perf_counter()
        env.step(actions[index])
        sink.frame(FrameOut(index + 1, _state(env), wall_s=time.perf_counter() - began))
