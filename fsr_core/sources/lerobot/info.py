"""``meta/info.json``: the dataset's layout version, rate, paths and features.

Codebase ``v2.x`` keeps one parquet file per episode and one video file per
episode and camera, with JSON-lines episode metadata; ``v3.x`` packs many
episodes into each parquet and video file and keeps the episode metadata in
parquet. Features are typed here once: numeric ones become channels, ``video``
and ``image`` ones cameras, and the bookkeeping columns (``timestamp``,
``frame_index``, ``episode_index``, ``index``, ``task_index``) neither.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from fsr_core.errors import LimitExceededError, SchemaError, UnsupportedVersionError
from fsr_core.sources.lerobot.files import read_json

__all__ = [
    "BOOKKEEPING",
    "INFO_FILE",
    "MAX_FEATURE_WIDTH",
    "DatasetInfo",
    "Feature",
    "read_info",
]

INFO_FILE: Final = "meta/info.json"
BOOKKEEPING: Final = frozenset(
    {"timestamp", "frame_index", "episode_index", "index", "task_index"}
)
"""Columns every episode row has, read apart from the features."""

MAX_FEATURE_WIDTH: Final = 4096
"""Most components one numeric feature may have."""

_NUMERIC: Final = frozenset(
    {
        "float16",
        "float32",
        "float64",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "bool",
    }
)
_CAMERAS: Final = frozenset({"video", "image"})


@dataclass(frozen=True)
class Feature:
    """One entry of ``features``: a column of every row."""

    key: str
    dtype: str
    shape: tuple[int, ...]
    names: tuple[str, ...]
    """Component names as the metadata gives them (flattened), else empty."""
    video: dict[str, Any]
    """The ``info`` of a video feature (codec, pixel format, depth flag)."""

    @property
    def is_numeric(self) -> bool:
        """Whether it is a number or a vector of numbers (a channel)."""
        return self.dtype in _NUMERIC and self.key not in BOOKKEEPING

    @property
    def is_camera(self) -> bool:
        """Whether it is a camera, stored as video or as images."""
        return self.dtype in _CAMERAS

    @property
    def width(self) -> int:
        """Number of components of a numeric feature."""
        return max(1, math.prod(self.shape))

    @property
    def columns(self) -> tuple[str, ...]:
        """Column names: the metadata's ``names`` when they fit, else ``key[i]``."""
        if len(self.names) == self.width and len(set(self.names)) == self.width:
            return self.names
        return tuple(f"{self.key}[{i}]" for i in range(self.width))

    @property
    def image_size(self) -> tuple[int, int]:
        """``(width, height)`` of a camera feature, from its shape and names."""
        shape = self.shape
        if len(shape) == 3 and self.names[:1] == ("channels",):
            return shape[2], shape[1]  # (channels, height, width)
        if len(shape) >= 2:
            return shape[1], shape[0]  # (height, width, channels)
        raise SchemaError(f"camera {self.key!r} has the shape {list(shape)}")


@dataclass(frozen=True)
class DatasetInfo:
    """What ``meta/info.json`` says, checked."""

    root: Path
    version: str
    fps: float
    robot_type: str
    total_episodes: int
    total_frames: int
    chunks_size: int
    data_path: str
    video_path: str
    features: tuple[Feature, ...]
    raw: dict[str, Any]

    @property
    def packed(self) -> bool:
        """Whether episodes share files (codebase v3)."""
        return self.version.startswith("v3")

    @property
    def numeric(self) -> tuple[Feature, ...]:
        """The features that become channels."""
        return tuple(item for item in self.features if item.is_numeric)

    @property
    def cameras(self) -> tuple[Feature, ...]:
        """The camera features, video and image."""
        return tuple(item for item in self.features if item.is_camera)


def _flat_names(value: object) -> tuple[str, ...]:
    """Return ``names`` flattened: a list, or a dict of lists (LeRobot ``motors``)."""
    if isinstance(value, list):
        if all(isinstance(item, str) for item in value):
            return tuple(value)
        if all(isinstance(item, list) for item in value):
            return tuple(str(name) for part in value for name in part)
    if isinstance(value, dict) and len(value) == 1:
        return _flat_names(next(iter(value.values())))
    return ()


def _feature(key: str, value: object, path: Path) -> Feature:
    if not isinstance(value, dict):
        raise SchemaError(f"feature {key[:80]!r} is not an object", path=path)
    dtype = value.get("dtype")
    shape = value.get("shape", [1])
    if not isinstance(dtype, str):
        raise SchemaError(f"feature {key[:80]!r} has no dtype", path=path)
    if not isinstance(shape, list) or not all(
        isinstance(n, int) and 0 <= n <= 1 << 20 for n in shape
    ):
        raise SchemaError(f"feature {key[:80]!r} has a bad shape", path=path)
    feature = Feature(
        key=key,
        dtype=dtype,
        shape=tuple(shape),
        names=_flat_names(value.get("names")),
        video=dict(info) if isinstance(info := value.get("info"), dict) else {},
    )
    if feature.is_numeric and feature.width > MAX_FEATURE_WIDTH:
        raise LimitExceededError(
            f"feature {key[:80]!r} has {feature.width:,} components, more than "
            f"{MAX_FEATURE_WIDTH:,}",
            path=path,
        )
    return feature


def _count(raw: dict[str, Any], key: str, path: Path, default: int = 0) -> int:
    value = raw.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise SchemaError(f"{key} is not a count: {str(value)[:40]!r}", path=path)
    return value


def read_info(root: Path) -> DatasetInfo:
    """Read and check ``meta/info.json`` of the dataset at ``root``.

    Raises
    ------
    UnsupportedVersionError
        The codebase version is not v2.x or v3.x.
    SchemaError
        A field is missing or of the wrong type.
    FsrError
        The file cannot be read (see :func:`~fsr_core.sources.lerobot.files.read_json`).
    """
    path = root / INFO_FILE
    raw = read_json(path)
    if not isinstance(raw, dict):
        raise SchemaError("info.json is not a JSON object", path=path)
    version = raw.get("codebase_version")
    if not isinstance(version, str) or not version.startswith(("v2.", "v3.")):
        raise UnsupportedVersionError(
            f"LeRobot codebase version {str(version)[:20]!r}; the viewer reads "
            "v2.x and v3.x datasets",
            path=path,
        )
    fps = raw.get("fps")
    if (
        not isinstance(fps, int | float)
        or isinstance(fps, bool)
        or not 0 < fps <= 100_000
    ):
        raise SchemaError(f"fps is not a rate: {str(fps)[:40]!r}", path=path)
    features = raw.get("features")
    if not isinstance(features, dict):
        raise SchemaError("info.json has no features", path=path)
    paths = {key: raw.get(key) for key in ("data_path", "video_path")}
    if not isinstance(paths["data_path"], str):
        raise SchemaError("info.json has no data_path", path=path)
    robot = raw.get("robot_type")
    return DatasetInfo(
        root=root,
        version=version,
        fps=float(fps),
        robot_type=robot if isinstance(robot, str) else "",
        total_episodes=_count(raw, "total_episodes", path),
        total_frames=_count(raw, "total_frames", path),
        chunks_size=max(_count(raw, "chunks_size", path, 1000), 1),
        data_path=paths["data_path"],
        video_path=paths["video_path"] if isinstance(paths["video_path"], str) else "",
        features=tuple(_feature(str(k), v, path) for k, v in features.items()),
        raw=raw,
    )
