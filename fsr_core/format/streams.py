"""Stream definitions: what a stream holds and how its payloads are encoded.

A stream is declared once, in the file's metadata, and every record names it
by its numeric id. The definition is checked strictly on both sides: the writer
refuses a definition the reader would reject.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import numpy as np

from fsr_core.errors import LimitExceededError, SchemaError

__all__ = [
    "CODECS_BY_KIND",
    "DTYPES",
    "StreamKind",
    "StreamSpec",
    "check_stream_name",
    "check_stream_table",
]

MAX_NAME_BYTES = 256
MAX_RANK = 32
MAX_ELEMENTS = 1 << 28
_REQUIRED_KEYS = (
    "id", "name", "kind", "codec", "schema", "required", "finite", "attributes",
    "units",
)  # fmt: skip
_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-]*")


class StreamKind(StrEnum):
    """What a stream's records mean."""

    NUMERIC = "numeric"
    CAMERA_RGB = "camera.rgb"
    CAMERA_INTRINSICS = "camera.intrinsics"
    CAMERA_TRANSLATION = "camera.translation"
    CAMERA_QUATERNION = "camera.quaternion"
    LIFECYCLE = "lifecycle"
    CONTROL_AUTHORED = "control.authored"
    CONTROL_APPLIED = "control.applied"
    EVENT = "event"
    TASK = "task"
    RENDER_STATE = "render_state"
    GEOMETRY_MESH = "geometry.mesh"
    GEOMETRY_TRANSFORM = "geometry.transform"
    JSON = "json"


CAMERA_KINDS = frozenset(
    {
        StreamKind.CAMERA_RGB,
        StreamKind.CAMERA_INTRINSICS,
        StreamKind.CAMERA_TRANSLATION,
        StreamKind.CAMERA_QUATERNION,
    }
)

CODECS_BY_KIND: dict[StreamKind, frozenset[str]] = {
    StreamKind.NUMERIC: frozenset({"raw"}),
    StreamKind.CAMERA_RGB: frozenset({"rgb24", "jpeg", "png"}),
    StreamKind.CAMERA_INTRINSICS: frozenset({"raw"}),
    StreamKind.CAMERA_TRANSLATION: frozenset({"raw"}),
    StreamKind.CAMERA_QUATERNION: frozenset({"raw"}),
    StreamKind.LIFECYCLE: frozenset({"json"}),
    StreamKind.CONTROL_AUTHORED: frozenset({"json"}),
    StreamKind.CONTROL_APPLIED: frozenset({"json"}),
    StreamKind.EVENT: frozenset({"json"}),
    StreamKind.TASK: frozenset({"json"}),
    StreamKind.RENDER_STATE: frozenset({"arrays+zlib"}),
    StreamKind.GEOMETRY_MESH: frozenset({"arrays+zlib"}),
    StreamKind.GEOMETRY_TRANSFORM: frozenset({"raw"}),
    StreamKind.JSON: frozenset({"json"}),
}

# Fixed shapes of the calibration kinds: K is 3x3, translation 3, quaternion xyzw 4.
_FIXED_SHAPES = {
    StreamKind.CAMERA_INTRINSICS: (3, 3),
    StreamKind.CAMERA_TRANSLATION: (3,),
    StreamKind.CAMERA_QUATERNION: (4,),
}

# dtype name -> little-endian numpy dtype. Nothing else is accepted.
DTYPES: dict[str, np.dtype[Any]] = {
    "float64": np.dtype("<f8"),
    "float32": np.dtype("<f4"),
    "int64": np.dtype("<i8"),
    "int32": np.dtype("<i4"),
    "int16": np.dtype("<i2"),
    "int8": np.dtype("i1"),
    "uint64": np.dtype("<u8"),
    "uint32": np.dtype("<u4"),
    "uint16": np.dtype("<u2"),
    "uint8": np.dtype("u1"),
    "bool": np.dtype("?"),
}


def check_stream_name(name: object, *, what: str = "stream name") -> str:
    """Return ``name`` when it is a valid FSR name, else raise :class:`SchemaError`.

    Names are ASCII letters, digits, ``_``, ``.`` and ``-``, start with a letter,
    digit or ``_`` and are at most 256 bytes: no control, bidi or zero-width
    characters, no path separators, nothing that normalizes to another name.
    """
    if not isinstance(name, str):
        raise SchemaError(f"{what} must be a string, found {type(name).__name__}")
    if len(name.encode("utf-8", "surrogatepass")) > MAX_NAME_BYTES:
        raise SchemaError(f"{what} longer than {MAX_NAME_BYTES} bytes")
    if not _NAME.fullmatch(name):
        shown = name.encode("unicode_escape").decode("ascii")[:60]
        raise SchemaError(f"{what} '{shown}' has characters outside [A-Za-z0-9_.-]")
    return name


@dataclass(frozen=True)
class StreamSpec:
    """The definition of one stream.

    Parameters
    ----------
    name
        Unique stream name, e.g. ``observations.robot.joints``.
    kind
        What the records mean (:class:`StreamKind`).
    codec
        Payload encoding; allowed values depend on ``kind``.
    schema
        Schema id of the payload, e.g. ``fsr.numeric/1``.
    dtype, shape
        Element type and per-record shape for ``raw`` and image codecs
        (images are ``(height, width, 3)`` ``uint8``).
    units
        One unit for the whole record, or one per channel.
    channels
        Channel names of a numeric stream (one per element of the last axis).
    required
        Whether losing records of this stream makes the run invalid.
    finite
        Numeric values must be finite (NaN and infinities refused).
    camera
        The camera a ``camera.*`` stream belongs to.
    attributes
        Free-form bounded JSON (rate, frame ids, ...).
    """

    name: str
    kind: StreamKind
    codec: str
    schema: str = ""
    dtype: str | None = None
    shape: tuple[int, ...] = ()
    units: str | tuple[str, ...] = ""
    channels: tuple[str, ...] = ()
    required: bool = True
    finite: bool = True
    camera: str | None = None
    attributes: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        """Fill defaults and check the definition."""
        object.__setattr__(self, "kind", _parse_kind(self.kind))
        if not self.schema:
            object.__setattr__(self, "schema", f"fsr.{self.kind.value}/1")
        if self.kind in _FIXED_SHAPES and not self.shape:
            object.__setattr__(self, "shape", _FIXED_SHAPES[self.kind])
        if self.kind in _FIXED_SHAPES and self.dtype is None:
            object.__setattr__(self, "dtype", "float64")
        if self.kind is StreamKind.CAMERA_RGB and self.dtype is None:
            object.__setattr__(self, "dtype", "uint8")
        object.__setattr__(self, "shape", tuple(self.shape))
        object.__setattr__(self, "channels", tuple(self.channels))
        if isinstance(self.units, list):
            object.__setattr__(self, "units", tuple(self.units))
        self._check()

    @property
    def numpy_dtype(self) -> np.dtype[Any]:
        """The little-endian numpy dtype of a ``raw`` or image payload."""
        if self.dtype is None:
            raise SchemaError(f"stream {self.name!r} has no dtype")
        return DTYPES[self.dtype]

    @property
    def element_count(self) -> int:
        """Number of elements per record (product of ``shape``)."""
        count = 1
        for dim in self.shape:
            count *= dim
        return count

    @property
    def frame_size(self) -> tuple[int, int]:
        """``(width, height)`` of a camera stream's images."""
        return (self.shape[1], self.shape[0])

    def _bad(self, reason: str) -> SchemaError:
        return SchemaError(reason, stream=self.name)

    def _check(self) -> None:
        check_stream_name(self.name)
        if self.codec not in CODECS_BY_KIND[self.kind]:
            allowed = ", ".join(sorted(CODECS_BY_KIND[self.kind]))
            raise self._bad(
                f"codec {self.codec!r} is not allowed for kind {self.kind.value} "
                f"(allowed: {allowed})"
            )
        if not isinstance(self.schema, str) or not 0 < len(self.schema) <= 128:
            raise self._bad("schema must be a string of 1-128 characters")
        self._check_array_layout()
        if self.kind in CAMERA_KINDS:
            check_stream_name(self.camera, what=f"stream {self.name!r}: camera name")
        elif self.camera is not None:
            raise self._bad("only camera.* streams name a camera")
        self._check_channels()
        self._check_units()
        if not isinstance(self.required, bool) or not isinstance(self.finite, bool):
            raise self._bad("required and finite must be true or false")
        if not isinstance(self.attributes, dict):
            raise self._bad("attributes must be an object")

    def _check_channels(self) -> None:
        if not self.channels:
            return
        if self.kind is not StreamKind.NUMERIC:
            raise self._bad("only numeric streams have channels")
        for channel in self.channels:
            check_stream_name(channel, what=f"stream {self.name!r}: channel name")
        if len(set(self.channels)) != len(self.channels):
            raise self._bad("duplicate channel names")
        if len(self.channels) != (self.shape[-1] if self.shape else 1):
            raise self._bad(
                f"{len(self.channels)} channel names for shape {list(self.shape)}"
            )

    def _check_array_layout(self) -> None:
        if self.codec not in {"raw", "rgb24", "jpeg", "png"}:
            if self.dtype is not None or self.shape:
                raise self._bad(f"codec {self.codec} has no dtype or shape")
            return
        if self.dtype not in DTYPES:
            raise self._bad(f"dtype {self.dtype!r} is not allowed")
        if len(self.shape) > MAX_RANK:
            raise self._bad(f"rank {len(self.shape)} exceeds {MAX_RANK}")
        for dim in self.shape:
            if isinstance(dim, bool) or not isinstance(dim, int) or dim <= 0:
                raise self._bad(f"shape {list(self.shape)} needs positive integers")
        if self.element_count > MAX_ELEMENTS:
            raise LimitExceededError(
                f"{self.element_count} elements per record exceed {MAX_ELEMENTS}",
                stream=self.name,
            )
        fixed = _FIXED_SHAPES.get(self.kind)
        if fixed is not None and (self.shape != fixed or self.dtype != "float64"):
            raise self._bad(f"{self.kind.value} records are float64 {list(fixed)}")
        if self.kind is StreamKind.CAMERA_RGB and (
            len(self.shape) != 3 or self.shape[2] != 3 or self.dtype != "uint8"
        ):
            raise self._bad("camera images are uint8 [height, width, 3]")

    def _check_units(self) -> None:
        if isinstance(self.units, str):
            units: tuple[str, ...] = (self.units,)
        elif isinstance(self.units, tuple) and all(
            isinstance(unit, str) for unit in self.units
        ):
            units = self.units
            per_channel = self.shape[-1] if self.shape else 1
            if len(units) != per_channel:
                raise self._bad(
                    f"{len(units)} units for {per_channel} channels (shape "
                    f"{list(self.shape)}): give one unit, or one per channel"
                )
        else:
            raise self._bad("units must be a string or a list of strings")
        for unit in units:
            if len(unit) > 32 or not unit.isprintable():
                raise self._bad(f"unit {unit[:40]!r} is not printable or too long")

    def to_json(self, stream_id: int) -> dict[str, Any]:
        """Return the definition as it is stored in the file's metadata."""
        entry: dict[str, Any] = {
            "id": stream_id,
            "name": self.name,
            "kind": self.kind.value,
            "codec": self.codec,
            "schema": self.schema,
            "required": self.required,
            "finite": self.finite,
            "attributes": self.attributes,
        }
        if self.dtype is not None:
            entry["dtype"] = self.dtype
            entry["shape"] = list(self.shape)
        entry["units"] = self.units if isinstance(self.units, str) else list(self.units)
        if self.channels:
            entry["channels"] = list(self.channels)
        if self.camera is not None:
            entry["camera"] = self.camera
        return entry

    @classmethod
    def from_json(cls, entry: object, *, index: int) -> StreamSpec:
        """Build a definition from metadata; any defect raises :class:`SchemaError`.

        Fields this reader does not know (from a newer minor version) are ignored.
        """
        where = f"/streams/{index}"
        if not isinstance(entry, dict):
            raise SchemaError(f"{where} must be an object")
        for key in _REQUIRED_KEYS:
            if key not in entry:
                raise SchemaError(f"{where}/{key} is missing")
        if type(entry["id"]) is not int or entry["id"] != index:
            raise SchemaError(f"{where}/id is {entry['id']!r}, expected {index}")
        shape = entry.get("shape", [])
        if not isinstance(shape, list):
            raise SchemaError(f"{where}/shape must be a list")
        units = entry["units"]
        if isinstance(units, list):
            units = tuple(units)
        channels = entry.get("channels", [])
        if not isinstance(channels, list):
            raise SchemaError(f"{where}/channels must be a list")
        try:
            return cls(
                name=entry["name"],
                kind=entry["kind"],
                codec=entry["codec"],
                schema=entry["schema"],
                dtype=entry.get("dtype"),
                shape=tuple(shape),
                units=units,
                channels=tuple(channels),
                required=entry["required"],
                finite=entry["finite"],
                camera=entry.get("camera"),
                attributes=entry["attributes"],
            )
        except SchemaError as exc:
            raise SchemaError(f"{where}: {exc.reason}") from exc
        except TypeError as exc:
            raise SchemaError(f"{where}: wrong field type ({exc})") from exc


def _parse_kind(kind: object) -> StreamKind:
    if isinstance(kind, StreamKind):
        return kind
    try:
        return StreamKind(str(kind))
    except ValueError as exc:
        raise SchemaError(f"unknown stream kind {kind!r}") from exc


def check_stream_table(specs: list[StreamSpec], *, max_streams: int = 4096) -> None:
    """Check a whole stream table: count, unique names, complete cameras."""
    if len(specs) > max_streams:
        raise LimitExceededError(
            f"{len(specs)} streams exceed the limit of {max_streams}"
        )
    names: set[str] = set()
    for spec in specs:
        if spec.name in names:
            raise SchemaError(f"duplicate stream name {spec.name!r}")
        names.add(spec.name)
    cameras: dict[str, set[StreamKind]] = {}
    for spec in specs:
        if spec.camera is not None:
            kinds = cameras.setdefault(spec.camera, set())
            if spec.kind in kinds:
                raise SchemaError(
                    f"camera {spec.camera!r} has two {spec.kind.value} streams"
                )
            kinds.add(spec.kind)
    for camera, kinds in cameras.items():
        if StreamKind.CAMERA_INTRINSICS not in kinds:
            raise SchemaError(
                f"camera {camera!r} has no camera.intrinsics stream, so none of "
                "its records could name a calibration"
            )
