"""``Image``, ``EncodedImage`` and ``DepthImage`` entities as cameras.

Each entity with image rows on the time base is a track; its frames' bytes
are read the first time one is shown (every frame of that camera at once,
checked against the budget first) and decoded when shown: raw ``Image``
buffers by their ``ImageFormat`` (L, RGB, RGBA, BGR, BGRA; 8 to 64 bits,
integer or float), ``EncodedImage`` blobs (PNG, JPEG) with Pillow, and
``DepthImage`` buffers as depth colours (the readout gives metres, the
buffer divided by ``DepthImage:meter``). The calibration is the ``Pinhole``
of the entity or its nearest ancestor (``image_from_camera``, column major,
and ``resolution``), posed where the transform tree puts the entity at the
frame's time; rerun's default camera axes (right, down, forward) are
OpenCV's.
"""

from __future__ import annotations

import functools
import threading
from dataclasses import dataclass, field
from typing import Any, Final

import numpy as np

from fsr_core.arrays import FloatArray
from fsr_core.calibration import Calibration, CalibrationProfile, CameraPose
from fsr_core.calibration.profile import calibration_digest
from fsr_core.errors import CalibrationError, DecodeError
from fsr_core.media import RGBFrame
from fsr_core.media.depth_colours import depth_colours
from fsr_core.recording import CameraTrack
from fsr_core.sources.rerun.frames import framed_ancestor, parent_of
from fsr_core.sources.rerun.store import ComponentRows, RecordingStore
from fsr_core.sources.rerun.time_bases import TimeBase
from fsr_core.sources.toolkit.message_images import check_pixels, compressed_frame
from fsr_core.sources.toolkit.transform_tree import TransformTree

__all__ = ["IMAGE_KINDS", "camera_tracks", "pinhole_profile"]

IMAGE_KINDS: Final = {
    "Image": "Image:buffer",
    "EncodedImage": "EncodedImage:blob",
    "DepthImage": "DepthImage:buffer",
}
"""Image archetype: its payload component."""

_DTYPES: Final = {
    6: "u1", 7: "i1", 8: "<u2", 9: "<i2", 10: "<u4", 11: "<i4",
    12: "<u8", 13: "<i8", 33: "<f2", 34: "<f4", 35: "<f8",
}  # fmt: skip
_CHANNELS: Final = {
    1: (1, None),
    2: (3, (0, 1, 2)),
    3: (4, (0, 1, 2)),
    4: (3, (2, 1, 0)),
    5: (4, (2, 1, 0)),
}


def _first(value: Any) -> Any:
    if isinstance(value, list):
        return value[0] if value else None
    return value


def _latest(store: RecordingStore, entity: str, component: str) -> Any:
    rows = store.component(entity, component)
    if rows is None:
        return None
    static = rows.static_values()
    if static:
        return _first(static[-1])
    return _first_value(rows)


def pinhole_profile(
    store: RecordingStore, entity: str, size: tuple[int, int] | None
) -> CalibrationProfile | None:
    """Return the ``Pinhole`` of ``entity`` or its nearest ancestor, if any."""
    current = entity
    while current not in ("", "/"):
        matrix = _latest(store, current, "Pinhole:image_from_camera")
        if matrix is not None and len(matrix) == 9:
            resolution = _latest(store, current, "Pinhole:resolution")
            width, height = (
                (int(resolution[0]), int(resolution[1]))
                if resolution is not None and len(resolution) == 2
                else size or (0, 0)
            )
            return _profile(matrix, width, height)
        current = parent_of(current)
    return None


def _profile(matrix: Any, width: int, height: int) -> CalibrationProfile | None:
    """Return the intrinsics of a column-major ``image_from_camera`` matrix."""
    m = [float(v) for v in matrix]
    try:
        return CalibrationProfile(
            width=width, height=height, fx=m[0], fy=m[4], cx=m[6], cy=m[7], skew=m[3]
        )
    except CalibrationError:
        return None


def _payload_bytes(column: Any, row: int, what: str) -> bytes:
    """Return the bytes of one row of a ``list<list<uint8>>`` payload column."""
    batch = column[row].values  # the row's batch: one buffer
    if batch is None or len(batch) == 0 or not batch[0].is_valid:
        raise DecodeError(f"{what}: frame {row} holds no image")
    inner = batch[0].values
    return bytes(inner.to_numpy(zero_copy_only=False).tobytes())


def _pixels(buffer: bytes, form: dict[str, Any], what: str) -> np.ndarray:
    """Return ``(height, width, channels)`` values of a raw buffer."""
    width, height = int(form.get("width") or 0), int(form.get("height") or 0)
    check_pixels(width, height, what)
    if form.get("pixel_format"):
        raise DecodeError(
            f"{what}: pixel format {form['pixel_format']} is not supported"
        )
    dtype = _DTYPES.get(int(form.get("channel_datatype") or 6))
    channels, _ = _CHANNELS.get(int(form.get("color_model") or 1), (1, None))
    if dtype is None:
        raise DecodeError(
            f"{what}: channel datatype {form.get('channel_datatype')} unknown"
        )
    data = buffer
    need = width * height * channels * np.dtype(dtype).itemsize
    if len(data) < need:
        raise DecodeError(
            f"{what}: {len(data)} bytes cannot hold {width}x{height}x{channels} "
            f"{np.dtype(dtype).name} pixels"
        )
    return np.frombuffer(
        data, dtype=dtype, count=need // np.dtype(dtype).itemsize
    ).reshape(height, width, channels)


def _to_rgb(values: np.ndarray, color_model: int) -> np.ndarray:
    _, order = _CHANNELS.get(color_model, (1, None))
    if values.dtype != np.uint8:
        top = float(np.nanmax(values)) if values.size else 1.0
        scale = 255.0 / top if top > 0 else 1.0
        values = np.clip(
            np.nan_to_num(values.astype(np.float64) * scale), 0, 255
        ).astype(np.uint8)
    if order is None:
        return np.repeat(values[..., :1], 3, axis=2)
    return values[..., list(order)]


@dataclass(frozen=True)
class _Frames:
    """One camera's frames, read: times, payload rows, formats, calibration."""

    times: np.ndarray
    refs: list[tuple[Any, int]]
    forms: list[Any]
    profile: CalibrationProfile | None
    meter: Any
    """A depth camera's units per metre (``None``: one)."""


def _form_name(kind: str) -> str:
    return "EncodedImage:media_type" if kind == "EncodedImage" else f"{kind}:format"


def _size_of(forms: list[Any]) -> tuple[int, int] | None:
    first = forms[0] if forms and isinstance(forms[0], dict) else None
    if first is None:
        return None
    return int(first.get("width") or 0), int(first.get("height") or 0)


@dataclass(eq=False)
class _Camera:
    store: RecordingStore
    entity: str
    kind: str
    base: TimeBase
    tree: TransformTree
    profile: CalibrationProfile | None
    """The ``Pinhole`` read at open (static), if any."""
    _frames: _Frames | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def what(self) -> str:
        return f"{self.kind} {self.entity[:80]!r}"

    def frames(self) -> _Frames:
        """Read the camera's chunks (once): every frame's bytes and format."""
        with self._lock:
            if self._frames is None:
                self._frames = self._read()
            return self._frames

    def _read(self) -> _Frames:
        rows = self.store.read_entity(self.entity)
        payload = rows.get(IMAGE_KINDS[self.kind])
        if payload is None:
            raise DecodeError(f"{self.what}: no frames read")
        times, refs = payload.refs_on_timeline(self.base.name)
        found = rows.get(_form_name(self.kind))
        forms: list[Any] = [None] * len(refs)
        if found is not None:
            _, values = found.on_timeline(self.base.name)
            if len(values) == len(refs):
                forms = [_first(value) for value in values]
        profile = self.profile
        if profile is None:
            profile = _temporal_pinhole(rows, _size_of(forms))
        meter = _first_value(rows.get("DepthImage:meter"))
        if meter is None:
            meter = _latest(self.store, self.entity, "DepthImage:meter")
        return _Frames(times, refs, forms, profile, meter)

    def play_times(self) -> FloatArray:
        return self.base.play(self.frames().times)

    def payload(self, index: int) -> bytes:
        column, row = self.frames().refs[index]
        return _payload_bytes(column, row, self.what)

    def depth_m(self, index: int) -> FloatArray:
        form = self.frames().forms[index] or {}
        values = _pixels(self.payload(index), form, self.what)[..., 0].astype(
            np.float64
        )
        meter = self.frames().meter
        scale = float(meter) if isinstance(meter, int | float) and meter > 0 else 1.0
        result: FloatArray = values / scale
        return result

    def frame(self, index: int) -> RGBFrame:
        forms = self.frames().forms
        if self.kind == "EncodedImage":
            media = forms[index] if forms else None
            return compressed_frame(self.payload(index), str(media or ""), self.what)
        if self.kind == "DepthImage":
            return RGBFrame(np.ascontiguousarray(depth_colours(self.depth_m(index))))
        form = forms[index] or {}
        values = _pixels(self.payload(index), form, self.what)
        rgb = _to_rgb(values, int(form.get("color_model") or 1))
        return RGBFrame(np.ascontiguousarray(rgb))

    def calibration(self, index: int) -> Calibration | None:
        frames = self.frames()
        profile = frames.profile
        if profile is None:
            return None
        pose = None
        anchor = framed_ancestor(self.tree, self.entity)
        at = frames.times[index : index + 1]
        found = None if anchor is None else self.tree.world_poses(anchor, at)
        if found is not None:
            try:
                pose = CameraPose.normalized(tuple(found[0][0]), tuple(found[1][0]))
            except (CalibrationError, ValueError):
                pose = None
        return Calibration(
            camera=self.entity,
            generation=0,
            epoch=0,
            digest=calibration_digest(profile),
            profile=profile,
            pose=pose,
            first_tick=0,
            first_sim_time_s=0.0,
        )

    def __call__(self, index: int) -> tuple[RGBFrame, Calibration | None]:
        return self.frame(index), self.calibration(index)


def _first_value(rows: ComponentRows | None) -> Any:
    if rows is None:
        return None
    for _, column in rows.parts:
        for value in column.to_pylist():
            if value:
                return _first(value)
    return None


def _temporal_pinhole(
    rows: dict[str, ComponentRows], size: tuple[int, int] | None
) -> CalibrationProfile | None:
    """Return the first ``Pinhole`` logged over time on the camera's entity."""
    matrix = rows.get("Pinhole:image_from_camera")
    if matrix is None:
        return None
    values = [_first(v) for _, column in matrix.parts for v in column.to_pylist()]
    values = [v for v in values if v is not None and len(v) == 9]
    if not values:
        return None
    resolution = rows.get("Pinhole:resolution")
    found = (
        []
        if resolution is None
        else [_first(v) for _, column in resolution.parts for v in column.to_pylist()]
    )
    sizes = [v for v in found if v is not None and len(v) == 2]
    width, height = (int(sizes[0][0]), int(sizes[0][1])) if sizes else size or (0, 0)
    return _profile(values[0], width, height)


def _frame_count(
    store: RecordingStore, entity: str, component: str, base: TimeBase
) -> int:
    deferred = store.deferred.get((entity, component))
    if deferred is not None:
        return deferred.get(base.name, 0)
    found = store.component(entity, component)
    return 0 if found is None else int(found.on_timeline(base.name)[0].size)


def camera_tracks(
    store: RecordingStore, base: TimeBase, tree: TransformTree
) -> tuple[tuple[CameraTrack, ...], list[dict[str, Any]]]:
    """Return a track per image entity, and each camera's report entry.

    A track's frame times are read with its frames, the first time either is
    asked for; its frame count comes from the manifest (or the rows read).
    """
    tracks: list[CameraTrack] = []
    entries: list[dict[str, Any]] = []
    for kind, component in IMAGE_KINDS.items():
        entities = {rows.entity for rows in store.with_component(component)}
        entities |= {e for e, part in store.deferred if part == component}
        for entity in sorted(entities):
            count = _frame_count(store, entity, component, base)
            if count == 0:
                continue
            profile = pinhole_profile(store, entity, None)
            camera = _Camera(store, entity, kind, base, tree, profile)
            depth = kind == "DepthImage"
            track = CameraTrack.lazy(
                entity,
                camera.play_times,
                camera,
                count=count,
                path=store.path,
                values=functools.partial(_depth_values, camera) if depth else None,
                value_unit="m" if depth else "",
            )
            tracks.append(track)
            entries.append(_entry(entity, kind, count, profile, base, store))
    return tuple(tracks), entries


def _depth_values(camera: _Camera, index: int) -> FloatArray:
    return camera.depth_m(index)


def _entry(
    entity: str,
    kind: str,
    frames: int,
    profile: CalibrationProfile | None,
    base: TimeBase,
    store: RecordingStore,
) -> dict[str, Any]:
    calibration: list[dict[str, Any]] = []
    if profile is not None:
        span = store.ranges.get(base.name)
        start = base.play(np.asarray([span[0] if span else base.origin]))[0]
        calibration.append(
            {
                "play_time_s": max(float(start), 0.0),
                "width": profile.width,
                "height": profile.height,
                "model": profile.distortion_model,
                "K": [
                    [profile.fx, profile.skew, profile.cx],
                    [0.0, profile.fy, profile.cy],
                    [0.0, 0.0, 1.0],
                ],
                "D": list(profile.distortion),
                "digest": calibration_digest(profile),
            }
        )
    return {
        "name": entity,
        "archetype": kind,
        "frames": frames,
        "calibration": calibration,
    }
