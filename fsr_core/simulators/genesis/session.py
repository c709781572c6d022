"""Genesis's side of a replay: rebuild the recorded scene, seek, step, render, compare.

This is the one module that imports ``genesis`` (inside its functions), in
the viewer's process when Genesis imports there or in the worker's
(:mod:`.worker`). It uses Genesis's own public way back into a recording:

* the scene is rebuilt from the description the trajectory embeds
  (``Scene.load`` on the description, the recorded environment layout passed
  to ``Scene.build``; for a re-simulation ``Scene.load_trajectory``, which
  does both), and the frames are read and put back by Genesis's
  ``Trajectory`` reader (``frame``, ``seek``);
* a render adds one camera before the build (``Scene.add_camera``), seeks
  every frame and renders it (``Camera.render``);
* a re-simulation seeks the start frame and calls ``Scene.step`` until each
  later frame's step count. Before each step it writes the frame's *authored
  inputs* back into the scene through Genesis's checkpoint
  (``Scene.__getstate__`` / ``Scene.__setstate__``): the control targets and
  modes of every dof (``dyn_state.dofs.ctrl_*``), the external wrenches on
  links (``dyn_state.links.cfrc_applied_*``) and the model parameters (kind
  INFO: set only through setters). Everything else comes from stepping. Then
  every other field of the recorded frame is compared with the scene's array
  of the same name, bit for bit.

A run reports to a :class:`Sink`: once the scene's facts, then every frame
(its step counts, the scene's arrays of the recorded fields, the rendered
image, the fields that differ). The unused placeholder arrays of a scene
(recorded with no element) and the wall-clock ``timings/...`` fields are not
compared.

Only numpy and the standard library are imported at module level: the worker
imports this module in the Genesis interpreter, the viewer where Genesis may
be missing.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any, Final, Protocol

import numpy as np
import numpy.typing as npt

from fsr_core.simulators.genesis.channels import (
    TIMINGS_PREFIX,
    batch_axis,
    is_recorded_field,
)
from fsr_core.simulators.genesis.request import GenesisRequest
from fsr_core.simulators.genesis.trajectory_file import (
    FORMAT_BY_GENESIS,
    TrajectoryHeader,
    read_description,
    read_header,
)

__all__ = [
    "FRAMING_DIRECTION",
    "FrameOut",
    "GenesisRefusedError",
    "Sink",
    "authored_inputs",
    "difference",
    "run",
]

FRAMING_DIRECTION: Final = (3.5, 0.5, 2.0)
"""Where the framing camera looks from: Genesis's default viewer camera's side."""
_SAMPLED_FRAMES: Final = 48
_INPUT_MARKERS: Final = (".dofs.ctrl_", ".links.cfrc_applied_")
_OPENGL_TO_OPENCV: Final = np.diag([1.0, -1.0, -1.0])

Arrays = dict[str, npt.NDArray[Any]]


class GenesisRefusedError(RuntimeError):
    """Genesis cannot rebuild or replay the trajectory (the message says why)."""


@dataclass(frozen=True)
class FrameOut:
    """One frame put back (render) or stepped to (resimulate)."""

    index: int
    steps: tuple[int, ...]
    """The scene's step count per environment."""
    arrays: Arrays
    """The scene's arrays of the recorded fields (canonical shapes)."""
    differences: tuple[dict[str, Any], ...] = ()
    """The fields that differ from the recorded frame (see :func:`difference`)."""
    rgb: npt.NDArray[np.uint8] | None = None
    wall_s: float = 0.0


class Sink(Protocol):
    """Where a run reports: the scene's facts once, then every frame in order."""

    def scene(self, facts: dict[str, Any]) -> None:
        """Take the facts of the rebuilt scene (versions, frames, camera ...)."""
        ...

    def frame(self, frame: FrameOut) -> None:
        """Take one frame."""
        ...

    def stopped(self, reason: str) -> None:
        """Hear why the run ended before the last frame (it is no failure)."""
        ...


@dataclass
class _Context:
    """The modules and the trajectory of one run."""

    gs: Any
    header: TrajectoryHeader
    trajectory: Any = None
    steps_field: str = "Simulator.steps"
    compared: list[str] = field(default_factory=list)
    inputs: list[str] = field(default_factory=list)


def authored_inputs(header: TrajectoryHeader) -> list[str]:
    """Return the recorded fields written back before each step (see the docstring)."""
    found = [row.name for row in header.info_fields if row.size > 0]
    found += [
        row.name
        for row in header.fields
        if row.size > 0
        and (row.kind == "INFO" or any(m in row.name for m in _INPUT_MARKERS))
    ]
    return list(dict.fromkeys(found))


def _to_numpy(value: Any) -> npt.NDArray[Any]:
    if hasattr(value, "detach"):
        value = value.detach().cpu().numpy()
    return np.ascontiguousarray(np.asarray(value))


def _bitwise_differing(
    live: npt.NDArray[Any], recorded: npt.NDArray[Any]
) -> npt.NDArray[np.bool_]:
    """Return where two arrays of one dtype and shape differ in any bit."""
    ours = np.ascontiguousarray(live).reshape(-1).view(np.uint8)
    theirs = np.ascontiguousarray(recorded).reshape(-1).view(np.uint8)
    width = max(live.dtype.itemsize, 1)
    differing = (ours.reshape(-1, width) != theirs.reshape(-1, width)).any(axis=1)
    shaped: npt.NDArray[np.bool_] = differing.reshape(live.shape)
    return shaped


def difference(
    name: str, live: npt.NDArray[Any] | None, recorded: npt.NDArray[Any], batch: int
) -> dict[str, Any] | None:
    """Return how ``live`` differs from ``recorded`` (None: bit for bit equal).

    The result holds ``field``, ``max_abs_error`` (``inf`` for a shape
    mismatch, a missing array or NaN against a number), ``envs`` (the
    environments that differ, None for a field without environment axis),
    ``elements`` and ``what`` (``values``, ``dtype``, ``shape`` or ``missing``).
    """
    if live is None:
        return {"field": name, "max_abs_error": math.inf, "envs": None,
                "elements": int(recorded.size), "what": "missing"}  # fmt: skip
    recorded = np.ascontiguousarray(recorded)
    if live.shape != recorded.shape:
        return {"field": name, "max_abs_error": math.inf, "envs": None,
                "elements": int(recorded.size), "what": "shape"}  # fmt: skip
    if live.dtype == recorded.dtype and live.tobytes() == recorded.tobytes():
        return None
    ours, theirs = live.astype(np.float64), recorded.astype(np.float64)
    with np.errstate(invalid="ignore"):
        error = np.abs(ours - theirs)
    same = (ours == theirs) | (np.isnan(ours) & np.isnan(theirs))
    error = np.where(same, 0.0, np.where(np.isnan(error), np.inf, error))
    differing = ~same
    if live.dtype != recorded.dtype and not differing.any():
        return {"field": name, "max_abs_error": 0.0, "envs": None,
                "elements": 0, "what": "dtype"}  # fmt: skip
    if not differing.any():  # equal values, other bits (-0.0, NaN payloads)
        differing = _bitwise_differing(live, recorded)
    axis = batch_axis(name, recorded.shape, batch) if batch > 1 else None
    envs = None
    if axis is not None:
        others = tuple(a for a in range(differing.ndim) if a != axis)
        envs = [int(e) for e in np.flatnonzero(differing.any(axis=others))]
    return {
        "field": name,
        "max_abs_error": float(error.max()) if error.size else 0.0,
        "envs": envs,
        "elements": int(np.count_nonzero(differing)),
        "what": "values",
    }


def _genesis(precision: str) -> Any:
    """Import Genesis and initialise it on the CPU with the recording's precision."""
    try:
        gs = importlib.import_module("genesis")
    except ImportError as exc:
        raise GenesisRefusedError(
            f"genesis-world does not import here ({exc}): pip install "
            "'fsr-viewer[genesis]'"
        ) from exc
    wanted = {"float32": "32", "float64": "64"}.get(precision)
    if wanted is None:
        raise GenesisRefusedError(f"the recording's precision {precision!r} is unknown")
    if not getattr(gs, "_initialized", False):
        gs.init(backend=gs.cpu, precision=wanted, logging_level="error")
    elif np.dtype(gs.np_float) != np.dtype(precision):
        raise GenesisRefusedError(
            f"Genesis already runs in {np.dtype(gs.np_float).name} in this process and "
            f"the recording is {precision}; replay it through the worker "
            "(FSR_VIEWER_GENESIS_PYTHON) or in a new process"
        )
    return gs


def _layout(header: TrajectoryHeader) -> dict[str, Any]:
    layout = header.manifest.get("layout")
    if not isinstance(layout, dict):
        raise GenesisRefusedError("the manifest holds no environment layout")
    return {
        "n_envs": int(layout["n_envs"]),
        "env_spacing": tuple(float(v) for v in layout["env_spacing"]),
        "n_envs_per_row": layout.get("n_envs_per_row"),
        "center_envs_at_origin": bool(layout.get("center_envs_at_origin", True)),
    }


def _check_version(gs: Any, header: TrajectoryHeader) -> None:
    installed = str(getattr(gs, "__version__", ""))
    reads = 4 if _version_tuple(installed) >= (1, 4, 5) else 1
    if header.version != reads:
        raise GenesisRefusedError(
            f"the trajectory is in format GSTRAJ{header.version} (written by "
            f"genesis-world {header.genesis or '?'}), which only genesis-world "
            f"{FORMAT_BY_GENESIS[header.version]} reads; genesis-world "
            f"{installed or '?'} is installed here"
        )


def _version_tuple(text: str) -> tuple[int, ...]:
    parts = []
    for part in text.split(".")[:3]:
        digits = "".join(ch for ch in part if ch.isdigit())
        parts.append(int(digits) if digits else 0)
    return tuple(parts)


def _live(scene: Any, steps_field: str) -> Arrays:
    """Return every array of the scene's checkpoint, named as a frame names it."""
    state = scene.__getstate__()
    arrays: Arrays = {steps_field: _to_numpy(state.sim.steps)}
    for solver, checkpoint in state.sim.solvers.items():
        for name, value in checkpoint.arrays.items():
            arrays[f"{solver}.{name}"] = _to_numpy(value)
        if hasattr(checkpoint, "is_forward_pos_updated"):  # genesis-world 1.4.0-1.4.4
            arrays[f"{solver}.forward_flags"] = np.array(
                [checkpoint.is_forward_pos_updated, checkpoint.is_forward_vel_updated],
                dtype=np.uint8,
            )
    return arrays


def _steps(frame: Arrays, steps_field: str) -> tuple[int, ...]:
    return tuple(int(v) for v in np.asarray(frame[steps_field]).reshape(-1))


def _compare(
    context: _Context, live: Arrays, recorded: Arrays
) -> tuple[dict[str, Any], ...]:
    batch = context.header.batch
    found = []
    for name in context.compared:
        value = recorded.get(name)
        if value is None or value.size == 0:
            continue
        change = difference(name, live.get(name), value, batch)
        if change is not None:
            found.append(change)
    return tuple(found)


def _recorded_arrays(context: _Context, live: Arrays) -> Arrays:
    wanted = {row.name for row in context.header.fields + context.header.info_fields}
    return {name: value for name, value in live.items() if name in wanted}


def _frame_out(
    context: _Context,
    index: int,
    live: Arrays,
    differences: tuple[dict[str, Any], ...],
    began: float,
    rgb: npt.NDArray[np.uint8] | None = None,
) -> FrameOut:
    """Return frame ``index`` as the scene holds it (``live``), timed from ``began``."""
    return FrameOut(
        index=index,
        steps=_steps(live, context.steps_field),
        arrays=_recorded_arrays(context, live),
        differences=differences,
        rgb=rgb,
        wall_s=time.perf_counter() - began,
    )


def _put_back(context: _Context, scene: Any, recorded: Arrays) -> None:
    """Write the authored inputs of ``recorded`` into the scene, if any differ."""
    state = scene.__getstate__()
    changed = False
    for name in context.inputs:
        value = recorded.get(name)
        solver, _, array = name.partition(".")
        checkpoint = state.sim.solvers.get(solver)
        if value is None or checkpoint is None or array not in checkpoint.arrays:
            continue
        current = checkpoint.arrays[array]
        ours = _to_numpy(current)
        if (
            ours.shape != value.shape
            or ours.tobytes()
            == np.ascontiguousarray(value.astype(ours.dtype)).tobytes()
        ):
            continue
        if hasattr(current, "detach"):
            torch = importlib.import_module("torch")
            checkpoint.arrays[array] = torch.as_tensor(
                np.array(value), dtype=current.dtype, device=current.device
            )
        else:
            checkpoint.arrays[array] = np.array(value, dtype=ours.dtype)
        changed = True
    if changed:
        scene.__setstate__(state)


def _open(context: _Context, scene: Any | None) -> Any:
    """Open the trajectory in ``scene`` (None: the one Genesis rebuilds itself).

    A re-simulation (no scene given) compares every recorded field but the
    inputs it puts back; a render every recorded field.
    """
    recorders = importlib.import_module("genesis.recorders.trajectory")
    path = str(context.header.path)
    if scene is None:
        trajectory = context.gs.Scene.load_trajectory(path)
    else:
        trajectory = recorders.Trajectory(path, scene=scene)
    context.steps_field = getattr(recorders, "STEPS_FIELD", context.header.steps_field)
    context.trajectory = trajectory
    if scene is not None:
        context.inputs = []
    inputs = set(context.inputs)
    context.compared = [
        row.name
        for row in context.header.fields + context.header.info_fields
        if is_recorded_field(row) and row.name not in inputs
    ]
    return trajectory


def _facts(context: _Context, mode: str, build_s: float) -> dict[str, Any]:
    header, trajectory = context.header, context.trajectory
    try:
        torch_version = metadata.version("torch")
    except metadata.PackageNotFoundError:
        torch_version = "unknown"
    return {
        "mode": mode,
        "genesis_version": str(getattr(context.gs, "__version__", "")),
        "torch_version": torch_version,
        "backend": "cpu",
        "recorded_backend": str(header.manifest.get("backend", "")),
        "recorded_genesis": header.genesis,
        "frames": len(trajectory),
        "trajectory_mode": header.mode,
        "n_envs": header.n_envs,
        "frame_steps": [
            max(_steps(trajectory.frame(index), context.steps_field))
            for index in range(len(trajectory))
        ],
        "build_s": build_s,
        "compared_fields": len(context.compared),
        "put_back": list(context.inputs),
        "not_compared": [
            row.name
            for row in header.fields + header.info_fields
            if row.name.startswith(TIMINGS_PREFIX) or row.kind == "SCRATCH"
        ],
    }


@contextlib.contextmanager
def _timed() -> Iterator[list[float]]:
    holder = [0.0]
    started = time.perf_counter()
    try:
        yield holder
    finally:
        holder[0] = time.perf_counter() - started


def _check_start(trajectory: Any, start: int) -> None:
    if start >= len(trajectory):
        raise GenesisRefusedError(
            f"start frame {start} is past the {len(trajectory)} frames of the "
            "trajectory"
        )


def resimulate(
    context: _Context,
    request: GenesisRequest,
    sink: Sink,
    cancelled: Callable[[], bool],
) -> None:
    """Seek the start frame, then step and compare every later frame."""
    with _timed() as build:
        trajectory = _open(context, None)
    _check_start(trajectory, request.start_frame)
    if request.start_frame >= len(trajectory) - 1:
        raise GenesisRefusedError(
            f"frame {request.start_frame} is the last of the {len(trajectory)} "
            "frames: there is nothing after it to re-simulate"
        )
    sink.scene(_facts(context, "resimulate", build[0]))
    scene = trajectory.scene
    start = request.start_frame
    trajectory.seek(start)
    previous = current = -1
    for index in range(start, len(trajectory)):
        if cancelled():
            return
        began = time.perf_counter()
        recorded = trajectory.frame(index)
        target = max(_steps(recorded, context.steps_field))
        if index > start:
            if target <= previous:
                sink.stopped(
                    f"the recording resets the scene at frame {index}: the "
                    "re-simulation stops there"
                )
                return
            for _ in range(target - current):
                scene.step()
        live = _live(scene, context.steps_field)
        differences = _compare(context, live, recorded)
        if index > start:
            _put_back(context, scene, recorded)
            live = _live(scene, context.steps_field)
        previous = target
        current = max(_steps(live, context.steps_field))
        sink.frame(_frame_out(context, index, live, differences, began))


def _viewer_camera(scene: Any) -> tuple[Any, Any, Any] | None:
    """Return the scene author's viewer camera (pos, lookat, up), if they set one."""
    viewer = scene.options.viewer
    given: set[str] = set(getattr(viewer, "model_fields_set", ()))
    if not {"camera_pos", "camera_lookat"} & set(given):
        return None
    return viewer.camera_pos, viewer.camera_lookat, viewer.camera_up


def _framing(
    context: _Context, scene: Any, start: int, fov_deg: float, aspect: float
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Return a camera position and look-at point that frame every link's motion."""
    trajectory = context.trajectory
    frames = np.unique(
        np.linspace(
            start, len(trajectory) - 1, min(_SAMPLED_FRAMES, len(trajectory) - start)
        )
        .round()
        .astype(int)
    )
    offsets = np.asarray(
        getattr(scene, "envs_offset", np.zeros((1, 3))), dtype=np.float64
    )
    points = []
    for index in frames:
        trajectory.seek(int(index))
        links = _to_numpy(scene.rigid_solver.get_links_pos()).astype(np.float64)
        links = (
            links.reshape(-1, links.shape[-2], 3) if links.ndim == 3 else links[None]
        )
        if len(offsets) == len(links):
            links = links + offsets[:, None, :]
        points.append(links.reshape(-1, 3))
    cloud = np.concatenate(points) if points else np.zeros((1, 3))
    low, high = cloud.min(axis=0), cloud.max(axis=0)
    centre = (low + high) / 2.0
    radius = max(float(np.linalg.norm(high - low)) / 2.0, 0.15) * 1.4 + 0.1
    half = math.radians(fov_deg) / 2.0
    half = min(half, math.atan(math.tan(half) * aspect))
    direction = np.asarray(FRAMING_DIRECTION) / np.linalg.norm(FRAMING_DIRECTION)
    return centre + direction * radius / math.sin(half), centre


def _camera_pose(camera: Any) -> tuple[list[float], list[list[float]]]:
    """Return the camera's position and camera-to-world rotation in OpenCV axes."""
    transform = np.asarray(camera.transform, dtype=np.float64)
    if transform.ndim == 3:
        transform = transform[0]
    rotation = transform[:3, :3] @ _OPENGL_TO_OPENCV
    return transform[:3, 3].tolist(), rotation.tolist()


def _rgb(camera: Any) -> npt.NDArray[np.uint8]:
    image = _to_numpy(camera.render(rgb=True)[0])
    if image.ndim == 4:
        image = image[0]
    return np.ascontiguousarray(image[..., :3], dtype=np.uint8)


def render(
    context: _Context,
    request: GenesisRequest,
    sink: Sink,
    cancelled: Callable[[], bool],
) -> None:
    """Rebuild with one camera, then seek and render every frame from the start."""
    gs, header, spec = context.gs, context.header, request.camera
    with _timed() as build:
        scene = gs.Scene.load(
            io.BytesIO(read_description(header.path)),
            renderer=gs.renderers.Rasterizer(),
        )
        chosen: tuple[Any, Any, Any] | None = (
            (spec.pos, spec.lookat, spec.up) if spec.posed else _viewer_camera(scene)
        )
        placed: tuple[Any, Any, Any] = chosen or (
            (3.5, 0.5, 2.5),
            (0.0, 0.0, 0.5),
            (0.0, 0.0, 1.0),
        )
        camera = scene.add_camera(
            res=(spec.width, spec.height),
            pos=tuple(placed[0]),
            lookat=tuple(placed[1]),
            up=tuple(placed[2]),
            fov=spec.fov_deg,
        )
        scene.build(**_layout(header))
        trajectory = _open(context, scene)
    _check_start(trajectory, request.start_frame)
    source = "user" if spec.posed else ("scene" if chosen else "framing")
    if chosen is None:
        pos, lookat = _framing(
            context, scene, request.start_frame, spec.fov_deg, spec.width / spec.height
        )
        camera.set_pose(pos=pos, lookat=lookat, up=np.array([0.0, 0.0, 1.0]))
    position, rotation = _camera_pose(camera)
    facts = _facts(context, "render", build[0])
    facts["camera"] = {
        **spec.to_json(),
        "pose_source": source,
        "position": position,
        "rotation_opencv": rotation,
    }
    sink.scene(facts)
    for index in range(request.start_frame, len(trajectory)):
        if cancelled():
            return
        began = time.perf_counter()
        trajectory.seek(index)
        # Read before rendering: drawing updates the visual geoms' poses, which
        # a run without a camera leaves as they were.
        live = _live(scene, context.steps_field)
        differences = _compare(context, live, trajectory.frame(index))
        image = _rgb(camera)
        sink.frame(_frame_out(context, index, live, differences, began, image))


def run(request: GenesisRequest, sink: Sink, cancelled: Callable[[], bool]) -> None:
    """Run ``request`` with Genesis, reporting to ``sink``; stop when ``cancelled()``.

    Raises
    ------
    GenesisRefusedError
        Genesis is missing, cannot read this format version, or the start
        frame is past the end.
    Exception
        Whatever Genesis raises while rebuilding or stepping the scene.
    """
    header = read_header(Path(request.source))
    gs = _genesis(header.precision)
    _check_version(gs, header)
    context = _Context(gs=gs, header=header, inputs=authored_inputs(header))
    if request.mode == "render":
        render(context, request, sink, cancelled)
    else:
        resimulate(context, request, sink, cancelled)
