"""Build the viewer's :class:`~fsr_core.recording.RecordingModel` from a skelarm log.

A skelarm state log (``*.sklog.npz``, schema 1) is ``np.savez_compressed`` output:
a zip with one ``.npy`` member per array. ``time`` holds the N frame times in
seconds; every other member but ``__meta__`` is a float64 channel of shape (N,) or
(N, k); ``__meta__`` is a 0-d unicode array holding a TOML document (schema
version, producer, ``[skeleton]``, ``[channels.<name>]``, free-form ``[extra]``).

Reading is defensive: the zip directory is checked (member count, total
uncompressed size, ``.npy`` names, no duplicates, no encryption) and each
member's ``.npy`` header is read and bounded before numpy loads anything, and the
arrays are loaded with ``allow_pickle=False``. Every problem raises an
:class:`~fsr_core.errors.FsrError` subclass whose message names the file.

Choices made where the log leaves room:

- Geometry. skelarm puts the first joint at the plane origin and gives each
  joint angle relative to the previous link (checked on the real logs: the reach
  log's last tip is its target). ``base_length`` is taken as a fixed segment
  along +x ahead of the first joint, so the base point is ``(base_length, 0)``;
  every log seen has 0.0, so this is unconfirmed. The centre of mass offset along
  the link is ``rgx``; :class:`PlanarKinematics` has no perpendicular offset, so
  a non-zero ``rgy`` is left out and noted in ``report["notes"]``.
- Channels. One :class:`Channel` per member besides ``time`` and ``__meta__``,
  in archive order, with unit, label and columns from ``[channels.<name>]``
  (defaults: no unit, the name as label, columns ``name[j]``, or ``(name,)`` for
  a scalar channel). One derived channel, ``tip_speed`` = ``|J(q) dq|`` in m/s,
  is added when ``q``, ``dq`` and the skeleton agree, so the side panel can show
  tip speed as skelarm's does (:data:`DERIVED_CHANNELS`).
- Task overlay. From ``extra.source_config.task``, else ``extra.playback.task``.
  A task this module cannot draw gives no overlay (and a note), never an error:
  the log still plays.
"""

from __future__ import annotations

import math
import os
import struct
import tomllib
import zipfile
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, Any

import numpy as np
import numpy.typing as npt

from fsr_core.errors import (
    BadMagicError,
    CorruptRecordError,
    FormatError,
    FsrError,
    LimitExceededError,
    OpenFailedError,
    SchemaError,
    TruncatedFileError,
    UnsupportedVersionError,
)
from fsr_core.format.safe_open import FdSource, open_source
from fsr_core.recording import (
    Channel,
    Integrity,
    Marker,
    MarkerKind,
    PlanarKinematics,
    RecordingModel,
    Segment,
    TaskOverlay,
    Timeline,
)

__all__ = [
    "CURVE_SAMPLES",
    "DERIVED_CHANNELS",
    "GUI_PRODUCER",
    "MAX_MEMBERS",
    "MAX_META_BYTES",
    "MAX_UNCOMPRESSED_BYTES",
    "SUPPORTED_CURVES",
    "SUPPORTED_SCHEMA_VERSIONS",
    "load_skelarm",
]

FloatArray = npt.NDArray[np.float64]

MAX_UNCOMPRESSED_BYTES = 2 << 30
"""Refuse archives whose members add up to more than this when inflated (2 GiB)."""
MAX_MEMBERS = 4096
"""Refuse archives with more members than this."""
MAX_META_BYTES = 16 << 20
"""Refuse a ``__meta__`` member larger than this (16 MiB inflated)."""
MAX_META_DEPTH = 32
"""Refuse TOML metadata nested deeper than this."""
SUPPORTED_SCHEMA_VERSIONS = (1,)
GUI_PRODUCER = "skelarm_simulator"
"""The ``producer`` skelarm's interactive simulators write."""
CURVE_SAMPLES = 256
"""Points of a periodic-curve overlay, over ``0..2*pi`` with both ends included."""
DERIVED_CHANNELS = ("tip_speed",)
"""Channels this module computes; every other channel is a member of the log."""
SUPPORTED_CURVES = ("circle", "ellipse", "lemniscate", "vertical_lemniscate", "rose")
"""``periodic_curve`` curves drawn; any other curve gives a task without a curve."""

_ZIP_MAGIC = b"PK\x03\x04"
_EMPTY_ZIP_MAGIC = b"PK\x05\x06"
_META = "__meta__"
_TIME = "time"
_NUMERIC_KINDS = "biuf"
_DEFLATE_MAX_RATIO = 1032  # deflate cannot expand data more than about 1032:1
_READ_ERRORS = (
    OSError,
    EOFError,
    ValueError,
    KeyError,
    TypeError,
    OverflowError,
    RuntimeError,  # an encrypted member; RecursionError
    NotImplementedError,  # an unsupported compression method
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    zlib.error,
    struct.error,
)


@dataclass(frozen=True)
class _Log:
    """What the archive holds, checked: arrays by member name and the parsed TOML."""

    arrays: dict[str, FloatArray]
    times_s: FloatArray
    meta: dict[str, Any]


# --------------------------------------------------------------------------
# Archive: directory, headers, arrays
# --------------------------------------------------------------------------


def _check_magic(handle: IO[bytes], name: str) -> None:
    head = handle.read(4)
    handle.seek(0)
    if not head:
        raise TruncatedFileError("empty file, not a skelarm log", path=name)
    if head == _EMPTY_ZIP_MAGIC:
        raise SchemaError("empty zip archive, not a skelarm log", path=name)
    if head != _ZIP_MAGIC:
        raise BadMagicError(
            f"not a zip archive (starts with {head!r}); skelarm logs are .npz zips",
            path=name,
        )


def _check_directory(archive: zipfile.ZipFile, name: str) -> list[zipfile.ZipInfo]:
    """Check the zip directory before anything is inflated."""
    members = archive.infolist()
    if len(members) > MAX_MEMBERS:
        raise LimitExceededError(
            f"{len(members)} archive members, limit {MAX_MEMBERS}", path=name
        )
    seen: set[str] = set()
    for info in members:
        if not info.filename.endswith(".npy") or info.is_dir():
            raise SchemaError(
                f"not an npz archive: member {info.filename!r} is not a .npy array",
                path=name,
            )
        if info.filename in seen:
            raise SchemaError(f"duplicate member {info.filename!r}", path=name)
        if info.flag_bits & 0x1:
            raise SchemaError(f"member {info.filename!r} is encrypted", path=name)
        seen.add(info.filename)
    total = sum(info.file_size for info in members)
    if total > MAX_UNCOMPRESSED_BYTES:
        raise LimitExceededError(
            f"members inflate to {total} bytes, limit {MAX_UNCOMPRESSED_BYTES}",
            path=name,
        )
    if not members:
        raise SchemaError("empty zip archive, not a skelarm log", path=name)
    return members


def _read_header(member: IO[bytes]) -> tuple[tuple[int, ...], np.dtype[Any]]:
    version = np.lib.format.read_magic(member)
    if version == (1, 0):
        shape, _, dtype = np.lib.format.read_array_header_1_0(member)
    elif version == (2, 0):
        shape, _, dtype = np.lib.format.read_array_header_2_0(member)
    else:
        raise ValueError(f"unsupported .npy version {version}")
    return tuple(int(size) for size in shape), dtype


def _check_ratio(info: zipfile.ZipInfo, name: str) -> None:
    """Refuse a member whose inflated size its compression cannot produce."""
    if info.compress_type == zipfile.ZIP_STORED:
        possible = info.compress_size
    elif info.compress_type == zipfile.ZIP_DEFLATED:
        possible = _DEFLATE_MAX_RATIO * info.compress_size + 1024
    else:
        return
    if info.file_size > possible:
        raise CorruptRecordError(
            f"member {info.filename!r} claims {info.file_size} bytes from "
            f"{info.compress_size} compressed",
            path=name,
        )


def _check_header(archive: zipfile.ZipFile, info: zipfile.ZipInfo, name: str) -> None:
    """Bound one member by its ``.npy`` header: kind, shape and declared size."""
    stem = info.filename[:-4]
    with archive.open(info) as member:
        shape, dtype = _read_header(member)
    if dtype.hasobject:
        raise SchemaError(
            f"member {info.filename!r} is an object array (it would need pickle)",
            path=name,
        )
    wanted = "U" if stem == _META else _NUMERIC_KINDS
    if dtype.kind not in wanted or dtype.fields is not None:
        raise SchemaError(
            f"member {info.filename!r} has dtype {dtype}, expected "
            + ("a unicode string" if stem == _META else "numbers"),
            path=name,
        )
    _check_ratio(info, name)
    declared = math.prod(shape) * dtype.itemsize
    if declared > info.file_size:
        raise CorruptRecordError(
            f"member {info.filename!r} declares {declared} bytes of data but "
            f"inflates to {info.file_size}",
            path=name,
        )
    if stem == _META and info.file_size > MAX_META_BYTES:
        raise LimitExceededError(
            f"__meta__ is {info.file_size} bytes, limit {MAX_META_BYTES}", path=name
        )


def _read_archive(handle: IO[bytes], name: str) -> dict[str, npt.NDArray[Any]]:
    _check_magic(handle, name)
    try:
        archive = zipfile.ZipFile(handle)
    except _READ_ERRORS as exc:
        raise FormatError(
            f"not a valid zip archive (truncated, or not a zip): {exc}", path=name
        ) from exc
    try:
        with archive:
            members = _check_directory(archive, name)
            for info in members:
                _check_header(archive, info, name)
        handle.seek(0)
        with np.load(handle, allow_pickle=False) as npz:
            return {info.filename[:-4]: npz[info.filename[:-4]] for info in members}
    except FsrError:
        raise
    except _READ_ERRORS as exc:
        raise CorruptRecordError(
            f"cannot read an npz member: {exc}", path=name
        ) from exc


def _read_file(path: Path) -> dict[str, npt.NDArray[Any]]:
    name = str(path)
    source = open_source(path)  # refuses symlinks, FIFOs, devices, directories
    try:
        if not isinstance(source, FdSource):  # pragma: no cover - paths give fds
            raise OpenFailedError("not a file on disk", path=name)
        if source.size > MAX_UNCOMPRESSED_BYTES + (64 << 20):
            raise LimitExceededError(
                f"file is {source.size} bytes, limit {MAX_UNCOMPRESSED_BYTES}",
                path=name,
            )
        try:
            handle = os.fdopen(os.dup(source.fd), "rb")
        except OSError as exc:
            raise OpenFailedError(
                f"cannot open: {exc.strerror}", errno=exc.errno, path=name
            ) from exc
        with handle:
            return _read_archive(handle, name)
    finally:
        source.close()


# --------------------------------------------------------------------------
# Checking the contents: metadata, time, channel shapes
# --------------------------------------------------------------------------


def _too_deep(value: Any) -> bool:
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_META_DEPTH:
            return True
        if isinstance(item, dict):
            stack.extend((child, depth + 1) for child in item.values())
        elif isinstance(item, list):
            stack.extend((child, depth + 1) for child in item)
    return False


def _parse_meta(arrays: dict[str, npt.NDArray[Any]], name: str) -> dict[str, Any]:
    raw = arrays.pop(_META, None)
    if raw is None:
        raise SchemaError("no __meta__ member: not a skelarm state log", path=name)
    if raw.ndim != 0 or raw.dtype.kind != "U":
        raise SchemaError(
            f"__meta__ must be a 0-d unicode array, found {raw.dtype} {raw.shape}",
            path=name,
        )
    try:
        meta = tomllib.loads(str(raw[()]))
    except (tomllib.TOMLDecodeError, RecursionError, ValueError) as exc:
        raise SchemaError(f"__meta__ is not valid TOML: {exc}", path=name) from exc
    if _too_deep(meta):
        raise LimitExceededError(
            f"__meta__ nests deeper than {MAX_META_DEPTH} levels", path=name
        )
    version = meta.get("schema_version")
    if isinstance(version, bool) or not isinstance(version, int):
        raise SchemaError(
            f"__meta__ has no integer schema_version (found {version!r})", path=name
        )
    if version not in SUPPORTED_SCHEMA_VERSIONS:
        raise UnsupportedVersionError(
            f"skelarm log schema_version {version} is not supported "
            f"(supported: {', '.join(map(str, SUPPORTED_SCHEMA_VERSIONS))})",
            path=name,
        )
    return meta


def _check_time(arrays: dict[str, FloatArray], name: str) -> FloatArray:
    times = arrays.pop(_TIME, None)
    if times is None:
        raise SchemaError("no 'time' member", path=name)
    if times.ndim != 1 or len(times) == 0:
        raise SchemaError(
            f"'time' must be (N,) with N >= 1, found {times.shape}", path=name
        )
    if not np.isfinite(times).all():
        first = int(np.flatnonzero(~np.isfinite(times))[0])
        raise SchemaError(f"'time' is not finite at frame {first}", path=name)
    steps = np.diff(times)
    if (steps < 0).any():
        first = int(np.flatnonzero(steps < 0)[0]) + 1
        raise SchemaError(
            f"'time' goes backwards at frame {first} "
            f"({float(times[first - 1])!r} then {float(times[first])!r})",
            path=name,
        )
    return times


_FIXED_SHAPES = {"ext_force": (2,), "active_target": ()}


def _check_channel(key: str, values: FloatArray, frames: int, name: str) -> None:
    if values.ndim not in (1, 2) or values.shape[0] != frames:
        raise SchemaError(
            f"channel {key!r} has shape {values.shape}, expected ({frames},) "
            f"or ({frames}, k) like 'time'",
            path=name,
        )
    if values.ndim == 2 and values.shape[1] == 0:
        raise SchemaError(f"channel {key!r} has no columns", path=name)
    expected = _FIXED_SHAPES.get(key)
    if expected is not None and values.shape[1:] != expected:
        shape = (frames, *expected)
        raise SchemaError(
            f"channel {key!r} has shape {values.shape}, expected {shape}", path=name
        )
    if key == "q" and values.ndim != 2:
        raise SchemaError(
            f"channel 'q' has shape {values.shape}, expected ({frames}, joints)",
            path=name,
        )
    if key == "active_target" and not (np.abs(values) < 2**31).all():
        raise SchemaError("channel 'active_target' holds a non-index value", path=name)


def _check_log(path: Path) -> _Log:
    name = str(path)
    raw = _read_file(path)
    meta = _parse_meta(raw, name)
    arrays = {key: np.asarray(value, dtype=np.float64) for key, value in raw.items()}
    times = _check_time(arrays, name)
    if "q" not in arrays:
        raise SchemaError("no 'q' member (joint angles)", path=name)
    for key, values in arrays.items():
        _check_channel(key, values, len(times), name)
    for values in arrays.values():
        values.flags.writeable = False
    return _Log(arrays, times, meta)


# --------------------------------------------------------------------------
# Kinematics
# --------------------------------------------------------------------------


def _number(table: Mapping[str, Any], key: str, default: float | None) -> float:
    value = table.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{key} = {value!r} is not a number")
    if not math.isfinite(value):
        raise ValueError(f"{key} = {value!r} is not finite")
    return float(value)


def _limit(link: Mapping[str, Any], key: str) -> float:
    """Return a joint limit in radians, NaN when the link has none."""
    return math.nan if link.get(key) is None else _number(link, key, None)


def _kinematics(
    meta: Mapping[str, Any], joints: int, name: str, notes: list[str]
) -> PlanarKinematics | None:
    skeleton = meta.get("skeleton")
    if skeleton is None:
        notes.append("no [skeleton]: the arm cannot be drawn")
        return None
    links = skeleton.get("links") if isinstance(skeleton, dict) else None
    if not isinstance(links, list) or not all(isinstance(x, dict) for x in links):
        raise SchemaError("[skeleton] has no [[skeleton.links]] tables", path=name)
    if len(links) != joints:
        raise SchemaError(
            f"[skeleton] has {len(links)} links but 'q' has {joints} joints",
            path=name,
        )
    try:
        lengths = [_number(link, "length", None) for link in links]
        com = [
            _number(link, "rgx", length / 2)
            for link, length in zip(links, lengths, strict=True)
        ]
        com_y = [_number(link, "rgy", 0.0) for link in links]
        low = [_limit(link, "qmin") for link in links]
        high = [_limit(link, "qmax") for link in links]
        base_length = _number(skeleton, "base_length", 0.0)
    except (ValueError, TypeError) as exc:
        raise SchemaError(f"[skeleton] link: {exc}", path=name) from exc
    for index, offset in enumerate(com_y):
        if offset != 0.0:
            notes.append(
                f"link {index + 1}: centre of mass rgy = {offset} m off the link "
                "axis is not drawn (only the along-link offset rgx is)"
            )
    if base_length != 0.0:
        notes.append(f"base_length {base_length} m drawn as an offset along +x")
    return PlanarKinematics(
        lengths_m=np.array(lengths),
        base_m=(base_length, 0.0),
        com_m=np.array(com),
        q_min_rad=np.array(low),
        q_max_rad=np.array(high),
    )


def _tip_points(kinematics: PlanarKinematics, q: FloatArray) -> FloatArray:
    """Tip positions for each row of ``q``, shape ``(rows, 2)``."""
    angles = np.cumsum(q, axis=1)
    with np.errstate(all="ignore"):
        x = (kinematics.lengths_m * np.cos(angles)).sum(axis=1)
        y = (kinematics.lengths_m * np.sin(angles)).sum(axis=1)
    points: FloatArray = np.stack([x, y], axis=1) + np.asarray(kinematics.base_m)
    return points


def _tip_speed(
    kinematics: PlanarKinematics, q: FloatArray, dq: FloatArray
) -> FloatArray:
    """``|J(q) dq|``: the tip's speed from joint angles and rates."""
    angles = np.cumsum(q, axis=1)
    rates = np.cumsum(dq, axis=1)
    with np.errstate(all="ignore"):
        vx = -(kinematics.lengths_m * np.sin(angles) * rates).sum(axis=1)
        vy = (kinematics.lengths_m * np.cos(angles) * rates).sum(axis=1)
        speed: FloatArray = np.hypot(vx, vy)
    return speed


# --------------------------------------------------------------------------
# Channels, readouts and markers
# --------------------------------------------------------------------------


def _describe(
    key: str, values: FloatArray, spec: Any
) -> tuple[str, str, tuple[str, ...]]:
    """Return a channel's unit, label and columns from ``[channels.<key>]``."""
    spec = spec if isinstance(spec, dict) else {}
    width = 1 if values.ndim == 1 else values.shape[1]
    default = (key,) if values.ndim == 1 else tuple(f"{key}[{j}]" for j in range(width))
    columns = spec.get("columns")
    if not (
        isinstance(columns, list)
        and len(columns) == width
        and all(isinstance(column, str) for column in columns)
    ):
        columns = default
    unit = spec.get("unit")
    label = spec.get("label")
    return (
        unit if isinstance(unit, str) else "",
        label if isinstance(label, str) else key,
        tuple(columns),
    )


def _channels(
    log: _Log, play_times: FloatArray, kinematics: PlanarKinematics | None
) -> dict[str, Channel]:
    specs = log.meta.get("channels")
    specs = specs if isinstance(specs, dict) else {}
    channels: dict[str, Channel] = {}
    for key, values in log.arrays.items():
        unit, label, columns = _describe(key, values, specs.get(key))
        channels[key] = Channel(key, play_times, values, unit, label, columns)
    dq = log.arrays.get("dq")
    q = log.arrays["q"]
    if (
        "tip_speed" not in channels  # a recorded tip_speed is kept as it is
        and kinematics is not None
        and dq is not None
        and dq.shape == q.shape
    ):
        speed = _tip_speed(kinematics, q, dq)
        speed.flags.writeable = False
        channels["tip_speed"] = Channel(
            "tip_speed", play_times, speed, "m/s", "tip speed (derived)", ("tip_speed",)
        )
    return channels


def _readouts(channels: Mapping[str, Channel]) -> dict[str, str]:
    """Side-panel readouts as ``"channel:column"``, like the FSR source's."""
    readouts: dict[str, str] = {}
    for label, key in (
        ("friction", "friction"),
        ("tip speed", "tip_speed"),
        ("active target", "active_target"),
    ):
        channel = channels.get(key)
        if channel is not None and channel.width == 1:
            readouts[label] = f"{key}:{channel.columns[0]}"
    return readouts


def _target_markers(
    active: FloatArray | None, play_times: FloatArray, overlay: TaskOverlay | None
) -> tuple[Marker, ...]:
    if active is None or len(active) < 2:
        return ()
    indices = np.rint(active).astype(np.int64)
    labels = overlay.target_labels if overlay is not None else ()
    markers = []
    for frame in np.flatnonzero(np.diff(indices)) + 1:
        index = int(indices[frame])
        text = f"target → {index}"
        if 0 <= index < len(labels) and labels[index]:
            text += f" ({labels[index]})"
        markers.append(Marker(MarkerKind.EVENT, float(play_times[frame]), text))
    return tuple(markers)


# --------------------------------------------------------------------------
# Task overlays
# --------------------------------------------------------------------------


def _point(raw: Any, what: str) -> tuple[float, float]:
    values = np.asarray(raw, dtype=np.float64)
    if values.shape != (2,) or not np.isfinite(values).all():
        raise ValueError(f"{what} must be two finite numbers (x, y), got {raw!r}")
    return float(values[0]), float(values[1])


def _target(raw: Any) -> tuple[tuple[float, float], str, float | None]:
    """Parse a target, ``[x, y]`` or ``{pos, label?, color?, tolerance?}``."""
    if not isinstance(raw, dict):
        return _point(raw, "target"), "", None
    label = "" if raw.get("label") is None else str(raw["label"])
    tolerance = None if raw.get("tolerance") is None else _number(raw, "tolerance", 0)
    if tolerance is not None and tolerance < 0:
        raise ValueError(f"target tolerance {tolerance} is negative")
    return _point(raw.get("pos"), "target pos"), label, tolerance


def _centered(params: Mapping[str, Any], x: FloatArray, y: FloatArray) -> FloatArray:
    center = _point(params.get("center", (0.0, 0.0)), "center")
    points: FloatArray = np.stack([x + center[0], y + center[1]], axis=1)
    return points


def _curve(params: Mapping[str, Any], theta: FloatArray) -> FloatArray | None:
    """Sample a skelarm periodic curve; ``None`` for a curve this module lacks.

    Parameters (skelarm's names and defaults): every curve takes ``center``
    (0, 0); ``circle``: ``radius`` (1), ``phase`` (0); ``ellipse``: ``a`` (1,
    along x), ``b`` (0.5, along y), ``phase`` (0); ``lemniscate`` (Bernoulli,
    horizontal): ``a`` (1); ``vertical_lemniscate`` (upright figure eight):
    ``a`` (0.5, width), ``b`` (1, height); ``rose`` ``r = a cos(k theta)``:
    ``a`` (1), ``k`` (3).
    """
    kind = params.get("curve")
    phase = _number(params, "phase", 0.0)
    if kind == "circle":
        radius = _number(params, "radius", 1.0)
        x, y = radius * np.cos(theta + phase), radius * np.sin(theta + phase)
    elif kind == "ellipse":
        a, b = _number(params, "a", 1.0), _number(params, "b", 0.5)
        x, y = a * np.cos(theta + phase), b * np.sin(theta + phase)
    elif kind == "lemniscate":
        scale = _number(params, "a", 1.0) / (1.0 + np.sin(theta) ** 2)
        x, y = scale * np.cos(theta), scale * np.sin(theta) * np.cos(theta)
    elif kind == "vertical_lemniscate":
        a, b = _number(params, "a", 0.5), _number(params, "b", 1.0)
        x, y = a * np.sin(theta) * np.cos(theta), b * np.cos(theta)
    elif kind == "rose":
        rho = _number(params, "a", 1.0) * np.cos(int(_number(params, "k", 3)) * theta)
        x, y = rho * np.cos(theta), rho * np.sin(theta)
    else:
        return None
    return _centered(params, x, y)


def _pairs(points: FloatArray) -> tuple[tuple[float, float], ...]:
    return tuple((float(x), float(y)) for x, y in points)


def _reference_values(task: Mapping[str, Any]) -> FloatArray:
    samples = task.get("reference_samples")
    if not isinstance(samples, dict):
        raise TypeError("no reference_samples table")
    values = np.asarray(samples.get("values"), dtype=np.float64)
    if values.ndim != 2 or len(values) == 0 or not np.isfinite(values).all():
        raise ValueError("reference_samples.values is not a table of finite rows")
    return values


def _reaching(task: Mapping[str, Any], kind: str, _: Any) -> TaskOverlay:
    point, label, tolerance = _target(task.get("target"))
    return TaskOverlay(kind, (point,), (label,), tolerance, active_index=0)


def _multi_target(task: Mapping[str, Any], kind: str, _: Any) -> TaskOverlay:
    raw = task.get("targets")
    if not isinstance(raw, list) or not raw:
        raise ValueError("targets is not a non-empty array")
    targets = [_target(item) for item in raw]
    active = int(_number(task, "active", 0))
    active = active if 0 <= active < len(targets) else 0
    return TaskOverlay(
        kind,
        tuple(point for point, _, _ in targets),
        tuple(label for _, label, _ in targets),
        targets[active][2],
        active_index=active,
    )


def _periodic(task: Mapping[str, Any], kind: str, _: Any) -> TaskOverlay:
    params = dict(task)
    if isinstance(task.get("params"), dict):
        params.update(task["params"])
    theta = np.linspace(0.0, 2.0 * np.pi, CURVE_SAMPLES)
    points = _curve(params, theta)
    return TaskOverlay(kind, curve_xy=() if points is None else _pairs(points))


def _tracking(task: Mapping[str, Any], kind: str, _: Any) -> TaskOverlay:
    values = _reference_values(task)
    if values.shape[1] < 2:
        raise ValueError("reference_samples.values rows need x and y")
    return TaskOverlay(kind, reference_xy=_pairs(values[:, :2]))


def _joint_tracking(
    task: Mapping[str, Any], kind: str, kinematics: PlanarKinematics | None
) -> TaskOverlay:
    if kinematics is None:
        raise ValueError("no skeleton to run forward kinematics with")
    values = _reference_values(task)
    if values.shape[1] != len(kinematics.lengths_m):
        raise ValueError("reference_samples rows do not match the joints")
    return TaskOverlay(kind, reference_xy=_pairs(_tip_points(kinematics, values)))


_OverlayBuilder = Callable[[Mapping[str, Any], str, Any], TaskOverlay]
_OVERLAYS: dict[str, _OverlayBuilder] = {
    "reaching": _reaching,
    "multi_target_reaching": _multi_target,
    "periodic_curve": _periodic,
    "trajectory_tracking": _tracking,
    "joint_trajectory_tracking": _joint_tracking,
}


def _task_table(meta: Mapping[str, Any]) -> dict[str, Any] | None:
    extra = meta.get("extra")
    extra = extra if isinstance(extra, dict) else {}
    for holder in (extra.get("source_config"), extra.get("playback")):
        task = holder.get("task") if isinstance(holder, dict) else None
        if isinstance(task, dict) and task:
            return task
    return None


def _overlay(
    meta: Mapping[str, Any], kinematics: PlanarKinematics | None, notes: list[str]
) -> TaskOverlay | None:
    task = _task_table(meta)
    if task is None:
        return None
    kind = str(task.get("type", ""))
    build = _OVERLAYS.get(kind)
    if build is None:
        notes.append(f"task type {kind!r} has no overlay")
        return None
    try:
        overlay = build(task, kind, kinematics)
    except (ValueError, TypeError, OverflowError) as exc:
        notes.append(f"task {kind!r} not drawn: {exc}")
        return None
    if kind == "periodic_curve" and not overlay.curve_xy:
        notes.append(f"curve {task.get('curve')!r} is not one of {SUPPORTED_CURVES}")
    return overlay


def _follow_active(
    overlay: TaskOverlay | None, active: FloatArray | None
) -> TaskOverlay | None:
    """Start the emphasis at the recorded index (the channel wins over the config)."""
    if overlay is None or active is None or not overlay.targets_xy:
        return overlay
    first = int(np.rint(active[0]))
    index = first if 0 <= first < len(overlay.targets_xy) else None
    return replace(overlay, active_index=index)


# --------------------------------------------------------------------------
# Capabilities, provenance, the model
# --------------------------------------------------------------------------


def _resimulation(
    meta: Mapping[str, Any], arrays: Mapping[str, FloatArray]
) -> str | None:
    extra = meta.get("extra")
    extra = extra if isinstance(extra, dict) else {}
    if not isinstance(extra.get("source_config"), dict):
        return (
            "no embedded scenario config (a programmatic skelarm run): "
            "skelarm's rerun_log cannot rebuild it"
        )
    if not isinstance(extra.get("run"), dict):
        return "no resolved run settings ([extra.run]) to re-simulate with"
    if meta.get("producer") == GUI_PRODUCER or "active_target" in arrays:
        return (
            "recorded in skelarm's interactive simulator: mouse-drag forces, GUI "
            "friction and live target switches shaped the motion and are not "
            "replayed, so a re-simulation would give the unperturbed scenario, not "
            "this recording"
        )
    return None


def _provenance(meta: Mapping[str, Any]) -> dict[str, Any]:
    extra = meta.get("extra")
    versions = extra.get("provenance") if isinstance(extra, dict) else None
    provenance: dict[str, Any] = dict(versions) if isinstance(versions, dict) else {}
    for key in ("producer", "created_at", "schema_version"):
        if key in meta:
            provenance[key] = meta[key]
    return provenance


def _title(path: Path) -> str:
    name = path.name
    for suffix in (".sklog.npz", ".npz"):
        if name.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return name


def _report(log: _Log, notes: list[str]) -> dict[str, Any]:
    return {
        "source": "skelarm",
        "schema_version": log.meta.get("schema_version"),
        "producer": log.meta.get("producer"),
        "frames": len(log.times_s),
        "span_s": float(log.times_s[-1] - log.times_s[0]),
        "channels": {key: list(values.shape) for key, values in log.arrays.items()},
        "notes": list(notes),
    }


def load_skelarm(path: str | Path) -> RecordingModel:
    """Open a skelarm ``.sklog.npz`` state log and build its recording model.

    The log becomes one segment (generation 0) from ``time[0]`` to ``time[-1]``;
    play time is ``time - time[0]``. ``q`` is the joint channel, ``ext_force``
    the external-force channel and ``active_target`` (rounded when used) the
    active-target channel; each change of the active target is an EVENT marker.

    Raises
    ------
    FsrError
        A subclass naming the file and the problem: the path cannot be opened
        (:class:`OpenFailedError`), is not a zip (:class:`BadMagicError`), is
        too large (:class:`LimitExceededError`), has damaged members
        (:class:`CorruptRecordError`), an unknown schema version
        (:class:`UnsupportedVersionError`) or contents that are not a skelarm
        log (:class:`SchemaError`).
    """
    source = Path(path)
    log = _check_log(source)
    notes: list[str] = []
    q = log.arrays["q"]
    kinematics = _kinematics(log.meta, q.shape[1], str(source), notes)
    play_times = log.times_s - log.times_s[0]
    play_times.flags.writeable = False
    span_s = float(play_times[-1])
    timeline = Timeline(
        (Segment(0, 0.0, span_s, float(log.times_s[0]), 0, len(play_times) - 1),)
    )
    channels = _channels(log, play_times, kinematics)
    active = log.arrays.get("active_target")
    overlay = _follow_active(_overlay(log.meta, kinematics, notes), active)
    return RecordingModel(
        path=source,
        source="skelarm",
        title=_title(source),
        timeline=timeline,
        channels=channels,
        kinematics=kinematics,
        joint_channel="q",
        overlays={} if overlay is None else {0: overlay},
        active_target_channel="active_target" if active is not None else None,
        external_force_channel="ext_force" if "ext_force" in log.arrays else None,
        readouts=_readouts(channels),
        markers=_target_markers(active, play_times, overlay),
        provenance=_provenance(log.meta),
        metadata=log.meta,
        integrity=Integrity.UNVERIFIED,
        integrity_reason="skelarm log: no checksums",
        report=_report(log, notes),
        can_rerender="skelarm logs have no render state",
        can_resimulate=_resimulation(log.meta, log.arrays),
    )
