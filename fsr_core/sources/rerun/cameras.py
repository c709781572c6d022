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
from fsr_core.errors import CalibrationError, DecodeError, LimitExceededError
from fsr_core.media import RGBFrame
from fsr_core.media.depth_colours import depth_colours
from fsr_core.recording import CameraTrack
from fsr_core.sources.rerun.frames import framed_ancestor, parent_of
from fsr_core.sources.rerun.store import ComponentRows, RecordingStore
from fsr_core.sources.rerun.time_bases import TimeBase
from fsr_core.sources.toolkit.message_images import MAX_IMAGE_PIXELS, compressed_frame
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
    for _, column in rows.parts:
        for value in column.to_pylist():
            if value:
                return _first(value)
    return None


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
            m = [float(v) for v in matrix]
            try:
                return CalibrationProfile(
                    width=width,
                    height=height,
                    fx=m[0],
                    fy=m[4],
                    cx=m[6],
                    cy=m[7],
                    skew=m[3],
                )
            except CalibrationError:
                return None
        current = parent_of(current)
    return None


def _payload_bytes(column: Any, row: int, what: str) -> bytes:
    """Return the bytes of one row of a ``list<list<uint8>>`` payload column."""
    batch = column[row].values  # the row's batch: one buffer
    if batch is None or len(batch) == 0 or not batch[0].is_valid:
        raise DecodeError(f"{what}: frame {row} holds no image")
    inner = batch[0].values
    return bytes(inner.to_numpy(zero_copy_only=False).tobytes())


def _check_size(width: int, height: int, what: str) -> None:
    if width <= 0 or height <= 0:
        raise DecodeError(f"{what}: image of {width}x{height} pixels")
    if width * height > MAX_IMAGE_PIXELS:
        raise LimitExceededError(
            f"{what}: {width}x{height} pixels, more than {MAX_IMAGE_PIXELS:,}"
        )


def _pixels(buffer: bytes, form: dict[str, Any], what: str) -> np.ndarray:
    """Return ``(height, width, channels)`` values of a raw buffer."""
    width, height = int(form.get("width") or 0), int(form.get("height") or 0)
    _check_size(width, height, what)
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


@dataclass(eq=False)
class _Camera:
    store: RecordingStore
    entity: str
    kind: str
    base: TimeBase
    tree: TransformTree
    times: np.ndarray
    forms: list[Any]
    profile: CalibrationProfile | None
    _payloads: list[Any] | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def what(self) -> str:
        return f"{self.kind} {self.entity[:80]!r}"

    def payload(self, index: int) -> bytes:
        with self._lock:
            if self._payloads is None:
                rows: ComponentRows = self.store.read_heavy(
                    self.entity, IMAGE_KINDS[self.kind]
                )
                _, refs = rows.refs_on_timeline(self.base.name)
                if len(refs) != len(self.times):
                    raise DecodeError(
                        f"{self.what}: {len(refs)} frames read, "
                        f"{len(self.times)} listed"
                    )
                self._payloads = refs
            column, row = self._payloads[index]
        return _payload_bytes(column, row, self.what)

    def depth_m(self, index: int) -> FloatArray:
        form = self.forms[index] or {}
        values = _pixels(self.payload(index), form, self.what)[..., 0].astype(
            np.float64
        )
        meter = _latest(self.store, self.entity, "DepthImage:meter")
        scale = float(meter) if isinstance(meter, int | float) and meter > 0 else 1.0
        result: FloatArray = values / scale
        return result

    def frame(self, index: int) -> RGBFrame:
        if self.kind == "EncodedImage":
            media = _first(self.forms[index]) if self.forms else None
            return compressed_frame(self.payload(index), str(media or ""), self.what)
        if self.kind == "DepthImage":
            return RGBFrame(np.ascontiguousarray(depth_colours(self.depth_m(index))))
        form = self.forms[index] or {}
        values = _pixels(self.payload(index), form, self.what)
        return RGBFrame(
            np.ascontiguousarray(_to_rgb(values, int(form.get("color_model") or 1)))
        )

    def calibration(self, index: int, frame: RGBFrame) -> Calibration | None:
        profile = self.profile
        if profile is None:
            return None
        pose = None
        anchor = framed_ancestor(self.tree, self.entity)
        found = (
            None
            if anchor is None
            else self.tree.world_poses(anchor, self.times[index : index + 1])
        )
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
        frame = self.frame(index)
        return frame, self.calibration(index, frame)


def camera_tracks(
    store: RecordingStore, base: TimeBase, tree: TransformTree
) -> tuple[tuple[CameraTrack, ...], list[dict[str, Any]]]:
    """Return a track per image entity, and each camera's report entry."""
    tracks: list[CameraTrack] = []
    entries: list[dict[str, Any]] = []
    for kind, component in IMAGE_KINDS.items():
        for rows in store.with_component(component):
            times, _ = rows.on_timeline(base.name)
            if times.size == 0:
                continue
            form_name = (
                "EncodedImage:media_type"
                if kind == "EncodedImage"
                else f"{kind}:format"
            )
            found = store.component(rows.entity, form_name)
            forms = found.on_timeline(base.name)[1] if found is not None else []
            forms = (
                [_first(form) for form in forms]
                if len(forms) == times.size
                else [None] * times.size
            )
            first = forms[0] if forms and isinstance(forms[0], dict) else {}
            size = (
                (int(first.get("width") or 0), int(first.get("height") or 0))
                if first
                else None
            )
            profile = pinhole_profile(store, rows.entity, size)
            camera = _Camera(
                store, rows.entity, kind, base, tree, times, forms, profile
            )
            tracks.append(
                CameraTrack(
                    rows.entity,
                    base.play(times),
                    camera,
                    values=functools.partial(_depth_values, camera)
                    if kind == "DepthImage"
                    else None,
                    value_unit="m" if kind == "DepthImage" else "",
                )
            )
            entries.append(_entry(rows.entity, kind, times.size, profile, base, times))
    return tuple(tracks), entries


def _depth_values(camera: _Camera, index: int) -> FloatArray:
    return camera.depth_m(index)


def _entry(
    entity: str,
    kind: str,
    frames: int,
    profile: CalibrationProfile | None,
    base: TimeBase,
    times: np.ndarray,
) -> dict[str, Any]:
    calibration: list[dict[str, Any]] = []
    if profile is not None:
        calibration.append(
            {
                "play_time_s": float(base.play(times[:1])[0]),
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
