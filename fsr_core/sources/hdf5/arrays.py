"""The arrays of one episode: which are channels, which cameras, and reading them.

Every dataset under the episode's group is looked at by its name, shape and
type (nothing is read to decide):

* a camera: 4-D ``uint8`` ``(steps, height, width, 3|4)`` named ``*_image``,
  ``*rgb*`` or held by an ``images`` group (ALOHA);
* a depth camera: ``*_depth`` or ``depth``, ``(steps, height, width[, 1])``;
* a camera's calibration: ManiSkill's ``sensor_param/<camera>/intrinsic_cv``
  ``(steps, 3, 3)``, ``extrinsic_cv`` ``(steps, 3, 4)`` and ``cam2world_gl``
  ``(steps, 4, 4)`` (:mod:`fsr_core.sources.hdf5.sensor_params`);
* a channel: 1-D or 2-D numbers (booleans too), one column per component;
* anything else (segmentation masks, strings, scalars) is left out, and the
  report says so.

Sizes come from the file's own shapes: every array is checked against the
memory budget (:data:`fsr_core.budgets.MEMORY`) before it is read, a camera
by one frame.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any, Final

import numpy as np

from fsr_core.arrays import FloatArray
from fsr_core.budgets import MEMORY, check_budget
from fsr_core.errors import LimitExceededError
from fsr_core.sources.hdf5.library import h5_errors

__all__ = [
    "MATRIX_SHAPES",
    "MAX_ARRAYS",
    "ArrayInfo",
    "FrameReader",
    "episode_arrays",
    "read_channel",
]

MAX_ARRAYS: Final = 10_000
"""Datasets one episode may hold for it to be listed."""

CHANNEL: Final = "channel"
CAMERA: Final = "camera"
DEPTH: Final = "depth"
CALIBRATION: Final = "calibration"
LEFT_OUT: Final = "left out"

SENSOR_PARAM: Final = "sensor_param"
"""ManiSkill's group of each camera's recorded matrices."""
MATRIX_SHAPES: Final[Mapping[str, tuple[int, int]]] = MappingProxyType(
    {"intrinsic_cv": (3, 3), "extrinsic_cv": (3, 4), "cam2world_gl": (4, 4)}
)
"""The matrices ManiSkill records per camera, by name: each row's shape."""


@dataclass(frozen=True)
class ArrayInfo:
    """One dataset of an episode, as its shape and type say."""

    key: str
    """Its path inside the episode's group (``obs/robot0_joint_pos``)."""
    shape: tuple[int, ...]
    dtype: str
    itemsize: int
    role: str
    """``channel``, ``camera``, ``depth``, ``calibration`` or ``left out``."""
    why: str = ""
    """Why it is left out."""

    @property
    def rows(self) -> int:
        """Steps it holds (its first dimension)."""
        return self.shape[0] if self.shape else 0

    @property
    def width(self) -> int:
        """Columns of a channel."""
        return int(np.prod(self.shape[1:], dtype=np.int64)) if self.shape else 0

    @property
    def nbytes(self) -> int:
        """Bytes the whole array holds as stored."""
        return int(np.prod(self.shape, dtype=np.float64)) * self.itemsize


def _leaf(key: str) -> str:
    return key.rsplit("/", 1)[-1].lower()


def _parent(key: str) -> str:
    parts = key.lower().split("/")
    return parts[-2] if len(parts) > 1 else ""


def _is_depth(key: str, shape: tuple[int, ...]) -> bool:
    leaf = _leaf(key)
    named = leaf.endswith("_depth") or leaf == "depth"
    return named and (len(shape) == 3 or (len(shape) == 4 and shape[-1] == 1))


def _is_sensor_param(key: str, shape: tuple[int, ...]) -> bool:
    """Whether ``key`` is one of a camera's recorded matrices, one per row."""
    parts = key.split("/")
    return (
        len(parts) >= 3
        and parts[-3] == SENSOR_PARAM
        and len(shape) == 3
        and MATRIX_SHAPES.get(parts[-1]) == shape[1:]
    )


def _is_camera(key: str, shape: tuple[int, ...], kind: str) -> bool:
    if len(shape) != 4 or shape[-1] not in (3, 4) or kind != "u":
        return False
    leaf = _leaf(key)
    return leaf.endswith("_image") or "rgb" in leaf or _parent(key) == "images"


def classify(key: str, shape: tuple[int, ...], dtype: np.dtype[Any]) -> ArrayInfo:
    """Return what the dataset ``key`` of ``shape`` and ``dtype`` is to the viewer."""
    kind = dtype.kind

    def made(role: str, why: str = "") -> ArrayInfo:
        return ArrayInfo(key, shape, str(dtype), dtype.itemsize, role, why)

    if kind not in "biuf" or dtype.fields is not None:
        return made(LEFT_OUT, f"not numbers ({dtype})")
    if not shape:
        return made(LEFT_OUT, "a single value, not a series")
    if _is_depth(key, shape):
        return made(DEPTH)
    if _is_camera(key, shape, kind):
        return made(CAMERA)
    if _is_sensor_param(key, shape) and kind == "f":
        return made(CALIBRATION)
    if len(shape) <= 2:
        return made(CHANNEL)
    return made(LEFT_OUT, f"a {'x'.join(map(str, shape))} array that is no camera")


def episode_arrays(group: Any, path: Path) -> tuple[ArrayInfo, ...]:
    """Return every dataset under ``group``, in the file's order.

    Raises
    ------
    LimitExceededError
        The episode holds more than :data:`MAX_ARRAYS` datasets.
    FsrError
        The HDF5 library cannot list the group (a damaged file).
    """
    found: list[ArrayInfo] = []

    def visit(name: str, item: Any) -> None:
        if not hasattr(item, "shape") or not hasattr(item, "dtype"):
            return
        if len(found) >= MAX_ARRAYS:
            raise LimitExceededError(
                f"an episode holds more than {MAX_ARRAYS:,} arrays", path=path
            )
        found.append(classify(name, tuple(int(n) for n in item.shape), item.dtype))

    with h5_errors(path, f"cannot list the arrays of {group.name}"):
        group.visititems(visit)
    return tuple(found)


def read_channel(group: Any, info: ArrayInfo, path: Path) -> FloatArray:
    """Return a channel's values as ``(rows, width)`` float64.

    Raises
    ------
    LimitExceededError
        The array, as float64, is over the memory budget (checked before reading).
    FsrError
        The HDF5 library cannot read it.
    """
    rows, width = info.rows, max(info.width, 1)
    check_budget(
        MEMORY, rows * width * (8 + info.itemsize), f"array {info.key}", path=path
    )
    with h5_errors(path, f"cannot read {group.name}/{info.key}"):
        dataset = group[info.key]
        stored = np.empty(info.shape, dtype=dataset.dtype)
        if stored.size:
            dataset.read_direct(stored)
    values: FloatArray = stored.reshape(rows, width).astype(np.float64)
    return values


class FrameReader:
    """Reads frames of one camera or depth array, the dataset opened once.

    The HDF5 library serialises every call, so one reader serves any thread.
    """

    def __init__(self, group: Callable[[], Any], info: ArrayInfo, path: Path) -> None:
        self._group = group
        self._info = info
        self._path = path
        self._dataset: Any = None
        self._lock = threading.Lock()
        self._frame_bytes = info.nbytes // max(info.rows, 1)

    def _opened(self) -> Any:
        with self._lock:
            if self._dataset is None:
                # Every frame is this size: checked once, before the first read.
                what = f"one frame of {self._info.key}"
                check_budget(MEMORY, self._frame_bytes, what, path=self._path)
                group = self._group()
                with h5_errors(
                    self._path, f"cannot open {group.name}/{self._info.key}"
                ):
                    self._dataset = group[self._info.key]
            return self._dataset

    def read(self, index: int) -> np.ndarray[Any, Any]:
        """Return frame ``index`` as stored (a new array the caller owns).

        Raises
        ------
        LimitExceededError
            One frame is over the memory budget (checked at the first read),
            or ``index`` is out of range.
        FsrError
            The HDF5 library cannot read it.
        """
        info = self._info
        if not 0 <= index < info.rows:
            raise LimitExceededError(
                f"frame {index} of {info.key}: it has {info.rows}", path=self._path
            )
        dataset = self._opened()
        try:
            frame: np.ndarray[Any, Any] = dataset[index]  # h5py's fast path
        except (OSError, ValueError, RuntimeError, KeyError, TypeError):
            # What the HDF5 library said, as one project error.
            with h5_errors(self._path, f"cannot read frame {index} of {info.key}"):
                raise
        return frame
