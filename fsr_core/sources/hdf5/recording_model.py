"""Build the recording model of one episode of an HDF5 simulation dataset.

* **Time.** Row ``i`` of every array is at ``i / rate``: the control
  frequency the file names (:mod:`fsr_core.sources.hdf5.layouts`); without
  one, 20 Hz and a note. In a ManiSkill file what a step led to
  (``rewards``, ``success``, ``fail``, ``terminated``, ``truncated``) is at
  ``(i + 1) / rate``, beside the observation it was judged on: row 0 of the
  observations is the reset's, before the first action.
* **Channels.** Every 1-D or 2-D numeric array of the episode (``obs/*``,
  ``next_obs/*``, ``actions``, ``states``, ``rewards``, ``dones``,
  ``success``, ``env_states/*`` ...) is a channel named by its path in the
  episode, read when first shown (:meth:`Channel.lazy`).
* **Cameras.** ``*_image`` arrays (and ALOHA's ``images/<cam>``) are cameras,
  ``*_depth`` arrays depth cameras drawn through the colour scale; one frame
  is read when shown. Frames that robosuite stored upside down (OpenGL's
  convention, named by ``env_args``) are drawn right side up. ManiSkill's
  depth is integer millimetres: its values are shown in metres, over the
  scale of the first frame's range; its cameras' recorded matrices
  (``sensor_param``) are each frame's calibration
  (:mod:`fsr_core.sources.hdf5.sensor_params`).
* **Robot.** A demo's ``model_file`` attribute (robosuite's MJCF) is the
  robot and scene, drawn with the recorded joints; its joints name the
  columns of ``robot0_joint_pos``. Its ``states`` (MuJoCo's state per step)
  pose every joint of that scene: the fingers and the objects too.
* **Inspector.** ``env_args``, the ``data`` group's other attributes, the
  demo's attributes and ManiSkill's JSON.

Only the episode shown is read; the file stays open (shared by the model's
channels and cameras) while the model is in use.
"""

from __future__ import annotations

import functools
import threading
from pathlib import Path
from typing import Any, Final

import numpy as np

from fsr_core.arrays import FloatArray
from fsr_core.calibration import Calibration
from fsr_core.errors import FsrError
from fsr_core.media import RGBFrame
from fsr_core.media.depth_colours import depth_colours
from fsr_core.recording import (
    CameraTrack,
    Channel,
    Integrity,
    RecordingModel,
    RobotDescription,
    Segment,
    Timeline,
)
from fsr_core.sources.hdf5.arrays import (
    CALIBRATION,
    CAMERA,
    CHANNEL,
    DEPTH,
    LEFT_OUT,
    ArrayInfo,
    FrameReader,
    episode_arrays,
    read_channel,
)
from fsr_core.sources.hdf5.joints import (
    STATE_KEY,
    episode_joints,
    mjcf_joint_names,
)
from fsr_core.sources.hdf5.layouts import (
    DEFAULT_RATE_HZ,
    DatasetLayout,
    EpisodeRef,
    read_layout,
)
from fsr_core.sources.hdf5.library import h5_errors, open_h5
from fsr_core.sources.hdf5.sensor_params import (
    SensorCalibration,
    read_sensor_calibration,
    sensor_of,
)

__all__ = ["EpisodeFile", "open_episode", "play_rate"]

MAX_MODEL_FILE_BYTES: Final = 64 << 20
"""Largest ``model_file`` attribute read as the robot description."""


_LAYOUTS: dict[tuple[str, int, int, int], DatasetLayout] = {}
_LAYOUTS_LOCK: Final = threading.Lock()
_LAYOUTS_KEPT: Final = 16
"""Layouts remembered (listing a file's episodes, then opening one, reads it once)."""


def _file_key(path: Path) -> tuple[str, int, int, int]:
    stat = path.stat()
    return (str(path.resolve()), stat.st_ino, stat.st_size, stat.st_mtime_ns)


def _layout(handle: Any, path: Path) -> DatasetLayout:
    """Return the file's layout, read once while the file is unchanged."""
    key = _file_key(path)
    with _LAYOUTS_LOCK:
        found = _LAYOUTS.get(key)
    if found is None:
        found = read_layout(handle, path)
        with _LAYOUTS_LOCK:
            if len(_LAYOUTS) >= _LAYOUTS_KEPT:
                _LAYOUTS.pop(next(iter(_LAYOUTS)))
            _LAYOUTS[key] = found
    return found


class EpisodeFile:
    """An HDF5 file opened once and shared by a model's channels and cameras."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self.handle: Any = open_h5(path)
        self.layout: DatasetLayout = _layout(self.handle, path)

    def group(self, episode: EpisodeRef) -> Any:
        """Return the episode's group."""
        with h5_errors(self.path, f"cannot open the group {episode.group}"):
            return self.handle[episode.group]

    def close(self) -> None:
        """Close the file (the model's arrays can no longer be read)."""
        with self._lock:
            self.handle.close()


def play_rate(layout: DatasetLayout) -> tuple[float, str]:
    """Return the rows per second and a note when it is not the file's own."""
    if layout.rate_hz is not None:
        return layout.rate_hz, ""
    return DEFAULT_RATE_HZ, (
        f"the file names no control frequency: steps are shown at "
        f"{DEFAULT_RATE_HZ:g} Hz, robosuite's and ManiSkill's default"
    )


_AFTER_STEP: Final = frozenset(
    {"rewards", "success", "fail", "terminated", "truncated"}
)
"""ManiSkill's arrays of what each step led to (one row fewer than ``obs``)."""


def _first_row(layout: DatasetLayout, info: ArrayInfo) -> int:
    """Return the step of the array's first row: 1 for ManiSkill's outcomes."""
    return 1 if layout.kind == "maniskill" and info.key in _AFTER_STEP else 0


def _columns(info: ArrayInfo) -> tuple[str, ...]:
    leaf = info.key.rsplit("/", 1)[-1]
    if info.width <= 1 and len(info.shape) == 1:
        return (leaf,)
    return tuple(f"{leaf}[{i}]" for i in range(info.width))


def _channel(
    source: EpisodeFile, episode: EpisodeRef, info: ArrayInfo, rate: float
) -> Channel:
    first = _first_row(source.layout, info)

    def load() -> tuple[FloatArray, FloatArray]:
        values = read_channel(source.group(episode), info, source.path)
        times: FloatArray = np.arange(first, first + info.rows, dtype=np.float64) / rate
        return times, values

    return Channel.lazy(
        info.key,
        load,
        label=info.key,
        columns=_columns(info),
        width=max(info.width, 1),
        count=info.rows,
        path=source.path,
    )


def _picture(pixels: np.ndarray[Any, Any], flip: bool) -> RGBFrame:
    if pixels.dtype != np.uint8:
        pixels = np.clip(pixels, 0, 255).astype(np.uint8)
    if pixels.shape[-1] == 4:
        pixels = pixels[..., :3]
    if flip:
        pixels = pixels[::-1]
    if pixels.flags.c_contiguous:
        pixels.flags.writeable = False  # ours alone: RGBFrame keeps it uncopied
    return RGBFrame(pixels)  # copies (once) what is not contiguous


MANISKILL_DEPTH_SCALE: Final = 1e-3
"""Metres per unit of ManiSkill's integer depth (millimetres, as its own
point-cloud conversion divides them)."""


def _calibration_at(
    calibration: SensorCalibration | None, index: int
) -> Calibration | None:
    return None if calibration is None else calibration.at(index)


def _camera_fetch(
    reader: FrameReader,
    flip: bool,
    calibration: SensorCalibration | None,
    index: int,
) -> tuple[RGBFrame, Calibration | None]:
    return _picture(reader.read(index), flip), _calibration_at(calibration, index)


def _depth_values(
    reader: FrameReader, flip: bool, scale: float, index: int
) -> FloatArray:
    depth = reader.read(index)
    values: FloatArray = np.asarray(depth, dtype=np.float64).reshape(depth.shape[:2])
    if scale != 1.0:
        values *= scale
    return values[::-1] if flip else values


def _depth_fetch(
    reader: FrameReader,
    flip: bool,
    scale: float,
    near_far: tuple[float, float] | None,
    calibration: SensorCalibration | None,
    index: int,
) -> tuple[RGBFrame, Calibration | None]:
    values = _depth_values(reader, flip, scale, index)
    colours = depth_colours(np.ascontiguousarray(values), near_far)
    return RGBFrame(colours), _calibration_at(calibration, index)


def _depth_scale(layout: DatasetLayout, info: ArrayInfo) -> tuple[float, str]:
    """Return the metres per stored unit of a depth array and its values' unit.

    ManiSkill stores integer millimetres (floating-point depth, ManiSkill2's,
    is metres already); other layouts' depth is shown as stored.
    """
    if layout.kind != "maniskill":
        return 1.0, ""
    if np.dtype(info.dtype).kind in "iu":
        return MANISKILL_DEPTH_SCALE, "m"
    return 1.0, "m"


def _value_range(values: FloatArray) -> tuple[float, float] | None:
    valid = values[np.isfinite(values) & (values > 0)]
    if not valid.size:
        return None
    return float(valid.min()), float(valid.max())


def _flipped(layout: DatasetLayout) -> bool:
    """Whether the file's images are upside down (robosuite's OpenGL convention).

    robosuite renders with OpenGL (the first row is the bottom) unless its
    ``IMAGE_CONVENTION`` macro says ``opencv``; robomimic's ``env_args`` of a
    robosuite environment (``type`` 1) keeps that convention.
    """
    args = layout.env_args or {}
    if layout.kind != "robomimic" or args.get("type") != 1:
        return False
    kwargs = args.get("env_kwargs")
    convention = kwargs.get("image_convention") if isinstance(kwargs, dict) else None
    return convention != "opencv"


def _calibrations(
    source: EpisodeFile,
    episode: EpisodeRef,
    arrays: tuple[ArrayInfo, ...],
    rate: float,
    notes: list[str],
) -> dict[str, SensorCalibration]:
    """Return the recorded calibration of each camera array that has one, by key.

    A camera's colour and depth share their sensor's matrices.
    """
    params: dict[str, dict[str, ArrayInfo]] = {}
    for info in arrays:
        if info.role == CALIBRATION:
            sensor, _, name = info.key.rpartition("/")
            params.setdefault(sensor, {})[name] = info
    found: dict[str, SensorCalibration] = {}
    read: dict[str, SensorCalibration | None] = {}
    for info in arrays:
        owner = sensor_of(info.key) if info.role in (CAMERA, DEPTH) else None
        if owner is None or owner not in params or len(info.shape) < 3:
            continue
        if owner not in read:
            size = (info.shape[2], info.shape[1])
            read[owner], said = read_sensor_calibration(
                source.group(episode), owner, params[owner], size, rate, source.path
            )
            notes.extend(said)
        calibration = read[owner]
        if calibration is not None:
            found[info.key] = calibration
    return found


def _cameras(
    source: EpisodeFile,
    episode: EpisodeRef,
    arrays: tuple[ArrayInfo, ...],
    rate: float,
    calibrations: dict[str, SensorCalibration],
) -> tuple[CameraTrack, ...]:
    flip = _flipped(source.layout)
    tracks = []
    # The observations' cameras before the next observations' (the same views
    # one step later), pictures before depth.
    for info in sorted(
        arrays, key=lambda item: (item.key.startswith("next_obs/"), item.role == DEPTH)
    ):
        times: FloatArray = np.arange(info.rows, dtype=np.float64) / rate
        group = functools.partial(source.group, episode)
        reader = FrameReader(group, info, source.path)
        # A frame turned upside down no longer matches its recorded matrices.
        calibration = None if flip else calibrations.get(info.key)
        if info.role == CAMERA:
            fetch = functools.partial(_camera_fetch, reader, flip, calibration)
            tracks.append(CameraTrack(info.key, times, fetch))
        elif info.role == DEPTH:
            scale, unit = _depth_scale(source.layout, info)
            near_far = None
            if unit and info.rows:
                # The colour scale is the first frame's, as for image sequences.
                near_far = _value_range(_depth_values(reader, flip, scale, 0))
            tracks.append(
                CameraTrack(
                    info.key,
                    times,
                    functools.partial(
                        _depth_fetch, reader, flip, scale, near_far, calibration
                    ),
                    values=functools.partial(_depth_values, reader, flip, scale),
                    value_unit=unit,
                    value_range=near_far,
                )
            )
    return tuple(tracks)


def _attributes(group: Any, path: Path) -> tuple[dict[str, Any], bytes | None]:
    """Return the episode's attributes (but its model) and its ``model_file``."""
    found: dict[str, Any] = {}
    model: bytes | None = None
    with h5_errors(path, f"cannot read the attributes of {group.name}"):
        for key, value in group.attrs.items():
            if key == "model_file":
                text = value if isinstance(value, bytes) else str(value).encode()
                model = text if len(text) <= MAX_MODEL_FILE_BYTES else None
                continue
            found[str(key)] = value.tolist() if hasattr(value, "tolist") else value
    return found, model


def _report(
    source: EpisodeFile,
    episode: EpisodeRef,
    arrays: tuple[ArrayInfo, ...],
    attributes: dict[str, Any],
    notes: list[str],
    rate: float,
    calibrations: dict[str, SensorCalibration],
) -> dict[str, Any]:
    layout = source.layout
    return {
        "source": "hdf5",
        "notes": notes,
        "layout": layout.kind,
        "file": str(source.path),
        "episode_index": episode.index,
        "group": episode.group,
        "steps": episode.steps,
        "rate_hz": rate,
        "rate_from": layout.rate_from or "the default",
        "arrays": {
            info.key: {
                "shape": list(info.shape),
                "dtype": info.dtype,
                "role": info.role,
            }
            for info in arrays
        },
        "calibration": {
            key: {
                "from": sensor_of(key),
                "epochs": found.epochs,
                "pose_from": found.pose_from or "none",
            }
            for key, found in calibrations.items()
        },
        "attributes": attributes,
        "env_args": layout.env_args or {},
        "metadata": layout.metadata,
        "episode_metadata": layout.episode_metadata.get(episode.index, {}),
    }


def load_episode(address: Path, path: Path, index: int | None) -> RecordingModel:
    """Open episode ``index`` of the file ``path`` (its only one when ``None``).

    Raises
    ------
    FsrError
        The file is unreadable, follows no known layout, or has no such episode.
    """
    source = EpisodeFile(path)
    layout = source.layout
    if index is None:
        episode = layout.episodes[0] if layout.single else layout.find(-1, path)
    else:
        episode = layout.find(index, path)
    group = source.group(episode)
    arrays = episode_arrays(group, path)
    rate, timing = play_rate(layout)
    notes = [timing] if timing else []
    notes.extend(
        f"{info.key} left out: {info.why}" for info in arrays if info.role == LEFT_OUT
    )
    channels = {
        info.key: _channel(source, episode, info, rate)
        for info in arrays
        if info.role == CHANNEL
    }
    attributes, model_file = _attributes(group, path)
    calibrations = _calibrations(source, episode, arrays, rate, notes)
    model_joints = mjcf_joint_names(model_file) if model_file else ()
    steps = max(
        (
            info.rows + _first_row(layout, info)
            for info in arrays
            if info.role not in (LEFT_OUT, CALIBRATION)
        ),
        default=0,
    )
    duration = (steps - 1) / rate if steps else 0.0
    robot = None
    if model_file:
        if layout.kind == "robomimic" and STATE_KEY not in channels:
            notes.append(
                f"the episode records no {STATE_KEY}: only the arm's recorded "
                "joints pose its model; the gripper's fingers and the objects "
                "rest where the model puts them"
            )
        robot = RobotDescription.of_text(
            model_file, f"{path.name} {episode.group} model_file", kind="mjcf"
        )
    title = path.name if layout.single else f"{path.name} · {episode.name}"
    return RecordingModel(
        path=address,
        source="hdf5",
        title=title,
        timeline=Timeline((Segment(0, 0.0, duration, 0.0, 0, max(steps - 1, 0)),)),
        channels=channels,
        cameras=_cameras(source, episode, arrays, rate, calibrations),
        joints=episode_joints(
            channels, model_joints, mujoco_state=layout.kind == "robomimic"
        ),
        metadata={
            "layout": layout.kind,
            "file": path.name,
            "episode": episode.name,
            "episode_index": episode.index,
            "episodes": len(layout.episodes),
            "control_freq": rate,
            **({"env_args": layout.env_args} if layout.env_args else {}),
            # The data group's other attributes (robosuite's own writer names
            # its environment there, data@env, without env_args).
            **(
                {"data_attributes": dict(layout.metadata)}
                if layout.kind == "robomimic" and layout.metadata
                else {}
            ),
            **(
                {"episode_metadata": layout.episode_metadata[episode.index]}
                if episode.index in layout.episode_metadata
                else {}
            ),
            **{f"attr.{key}": value for key, value in attributes.items()},
        },
        integrity=Integrity.VALID,
        report=_report(source, episode, arrays, attributes, notes, rate, calibrations),
        robot_description=robot,
    )


def open_episode(address: Path, path: Path, index: int | None) -> RecordingModel:
    """:func:`load_episode`, with any error naming the episode's address."""
    try:
        return load_episode(address, path, index)
    except FsrError as exc:
        raise exc.with_path(address) from None
