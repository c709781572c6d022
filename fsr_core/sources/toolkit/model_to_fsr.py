"""Write any recording model as an FSR file: the one converter sources share.

A source that builds a :class:`~fsr_core.recording.RecordingModel` (MCAP,
Genesis trajectories, LeRobot datasets ...) offers ``convert FILE -o out.fsr``
by calling :func:`write_model_as_fsr` from its ``to_fsr``. What the viewer
showed of the file is what the FSR file holds, and opening the FSR file gives
the same channels, frames, calibration and scene.

**Time base.** Every record is in generation 0 with ``sim_time_s`` equal to
its play time in the model, so the file plays on the same axis (generations
of the model are laid end to end on it already). A record's ``tick`` is the
index of its time in the *common time base*: the sorted distinct times of
every item of the model (channel samples, camera frames, geometry pose
samples, markers) together with the timeline's start and end. Items at the
same time share a tick across streams; different times never share one.
The first record (lifecycle ``start``) is at the earliest of the timeline's
start and every item, so a model whose timeline starts at 0 keeps its play
times exactly.

**Streams**, declared in this order (names mapped by
:mod:`fsr_core.sources.toolkit.stream_names`: ``/joint_states`` ->
``joint_states``, ``/tf:base_link`` -> ``tf.base_link``, ``q_ref[0]`` ->
``q_ref.0``, made unique with ``-2``, ``-3`` ...):

- ``run.lifecycle``: ``start`` at tick 0, the model's first terminal-cut
  marker as the terminal cut, ``completion`` (``succeeded``, reason
  ``CONVERTED``) at the last tick.
- ``observations.<channel>``: one numeric stream per channel, in the model's
  order, one float64 record of its C columns per sample, NaN and infinities
  kept (``finite`` false). ``units`` is the channel's unit, ``channels`` its
  column names (mapped). Attributes: ``channel_name`` (the original name,
  which the FSR source gives the channel back), ``label``, ``scalar``
  (values were ``(N,)``), ``columns`` (the original column names, present
  when some had to be mapped) and ``unit`` (present when the unit is not a
  valid FSR unit: over 32 characters or not printable).
- ``sensors.<camera>.camera.rgb`` (``png`` by default, ``jpeg`` or
  ``rgb24``; attribute ``camera_name``: the original name), ``.intrinsics``,
  ``.extrinsics.translation`` and ``.extrinsics.quaternion_xyzw`` per
  camera. Frames are fetched one at a time, in time order. The first
  frame's intrinsics record (the calibration profile, distortion included)
  is at tick 0, so epoch 0 begins with the file; another starts a new epoch
  whenever a frame's calibration differs from the previous frame's; the pose
  is written when it differs from the last one written, so the FSR source
  gives every frame the same calibration and pose back. A frame without
  calibration gets a nominal pinhole (its intrinsics record says
  ``"nominal": true``): FSR requires intrinsics for every camera record.
- ``scene.geometry.meshes`` (each mesh once, at tick 0: float64 vertices,
  uint32 faces, metadata ``mesh_id``, ``body``, ``geom_type``, ``rgba``) and
  ``scene.geometry.transforms`` (every body's pose per sample), as MuJoCo
  recordings store them; ``task.context`` with ``targets_3d`` when the scene
  has targets.
- ``events``: every other marker, ``{"name": label, "marker": kind}`` (and
  ``end_play_s`` for a span). Calibration markers are not written: the FSR
  source makes them from the epochs.

**Metadata**: ``run`` (``name``: the model's title, ``source_kind``),
``converted_from`` (``kind``, ``file``, ``sha256``, ``title`` and the model's
``metadata`` and ``provenance`` as plain JSON, left out with a note when too
large), ``versions`` and ``joints``: the model's joint set
(:meth:`~fsr_core.joint_set.JointSet.plain`) when its channels are written,
which the FSR source reads back. Source metadata is kept out of the top level so it
can never make a simulator claim the file. **Footer provenance**: ``mode``
(``convert``), ``converter``, the caller's ``provenance``, then ``source``
(file name), ``source_sha256`` and ``source_kind`` (which the caller cannot
override), and ``notes`` when something was left out.

**Not stored**: planar kinematics, task overlays, readouts and the
active-target and external-force channel designations; the source's own
ticks and generations (the play-time axis replaces them); marker kinds other
than the terminal cut (they come back as event markers with their label).
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Final

import numpy as np

from fsr_core.budgets import MEMORY, check_budget
from fsr_core.canonical_json import JsonLimits, canonical_dumps
from fsr_core.errors import FsrError, LimitExceededError, WriteFailedError
from fsr_core.format.catalog import LIFECYCLE_STREAM, lifecycle_stream
from fsr_core.format.limits import ReaderLimits
from fsr_core.format.safe_open import open_source
from fsr_core.format.streams import StreamSpec
from fsr_core.format.writer import FsrWriter, PublishResult
from fsr_core.output_paths import check_output_path
from fsr_core.recording import RecordingModel
from fsr_core.simulation.recorded_streams import run_versions
from fsr_core.sources.inspection import json_safe
from fsr_core.sources.registry import FsrConversion
from fsr_core.sources.toolkit.model_streams import (
    CHANNEL_PREFIX,
    CameraPart,
    ChannelPart,
    MarkersPart,
    MeshesPart,
    Part,
    PosesPart,
    camera_names,
    channel_part,
    geometry_parts,
    targets_part,
)
from fsr_core.sources.toolkit.stream_names import NameTable

__all__ = ["COMPLETION_REASON", "IMAGE_CODECS", "write_model_as_fsr"]

IMAGE_CODECS: Final = ("png", "jpeg", "rgb24")
"""Codecs a camera's images may be written with; ``png`` and ``rgb24`` are lossless."""
COMPLETION_REASON: Final = "CONVERTED"
"""``reason_code`` of the ``completion`` lifecycle record."""
_EMBEDDED_JSON: Final = JsonLimits(max_bytes=256 << 10, max_depth=28)
_CHUNK: Final = 1 << 16
_SCHEDULE_BYTES_PER_ITEM: Final = 48


def _parts(
    model: RecordingModel,
    path: Path,
    codec: str,
    cancel: Callable[[], None] | None,
    notes: list[str],
) -> list[Part]:
    """Check the model and return its parts, in stream order."""
    names = NameTable(CHANNEL_PREFIX)
    parts: list[Part] = []
    for key, channel in model.channels.items():
        part = channel_part(str(key), channel, names, path, notes)
        if part is not None:
            parts.append(part)
    for track, camera in zip(model.cameras, camera_names(model.cameras), strict=True):
        if len(track.times_s):
            parts.append(CameraPart(track, camera, codec, path, cancel))
    markers = MarkersPart(model.markers, notes)
    times = [part.times_s for part in parts] + [markers.times_s]
    if model.geometry is not None:
        times.append(model.geometry.times_s)
    start_s = _start_s(model, times)
    geometry = geometry_parts(model.geometry, start_s, path, notes)
    if geometry is not None:
        parts += geometry
    targets = targets_part(model.geometry, start_s)
    if targets is not None:
        parts.append(targets)
    parts.append(markers)
    return parts


def _start_s(model: RecordingModel, times: list[Any]) -> float:
    """Return the earliest of the timeline's start and every item's time."""
    segments = model.timeline.segments
    earliest = [segments[0].start_play_s if segments else 0.0]
    earliest += [float(np.min(series)) for series in times if len(series)]
    return min(earliest)


class _Schedule:
    """Every item of every part, in the order written: by tick, part, index."""

    def __init__(self, parts: list[Part], model: RecordingModel, path: Path) -> None:
        self.parts = parts
        series = [np.asarray(part.times_s, dtype=np.float64) for part in parts]
        self.count = sum(len(times) for times in series)
        check_budget(
            MEMORY,
            self.count * _SCHEDULE_BYTES_PER_ITEM,
            f"converting {self.count} samples, frames and markers",
            path=path,
        )
        frames = sum(len(p.times_s) for p in parts if isinstance(p, CameraPart))
        records = self.count + 3 * frames + 2
        limit = ReaderLimits().max_records
        if records > limit:
            raise LimitExceededError(
                f"up to {records} records, more than an FSR file holds ({limit})",
                path=path,
            )
        self.start_s = _start_s(model, series)
        self.end_s = max(
            [model.timeline.duration_s, *(float(t[-1]) for t in series if len(t))]
        )
        base = np.unique(np.concatenate([*series, [self.start_s, self.end_s]]))
        self.last_tick = len(base) - 1
        ticks = np.concatenate(
            [np.searchsorted(base, times).astype(np.int64) for times in series]
        )
        owners = np.concatenate(
            [np.full(len(times), i, dtype=np.int64) for i, times in enumerate(series)]
        )
        indices = np.concatenate([np.arange(len(times)) for times in series])
        order = np.lexsort((indices, owners, ticks))
        self._ticks, self._owners, self._indices = (
            ticks[order],
            owners[order],
            indices[order],
        )

    def write(
        self,
        writer: FsrWriter,
        progress: Callable[[int, int], None] | None,
        cancel: Callable[[], None] | None,
    ) -> None:
        """Write the lifecycle start, every item, then the completion."""
        total = self.count + 2
        writer.write(
            LIFECYCLE_STREAM, {"event": "start"}, tick=0, sim_time_s=self.start_s
        )
        for part in self.parts:
            if isinstance(part, CameraPart):
                part.declare(writer, 0, self.start_s)
        done = 1
        if progress is not None:
            progress(done, total)
        for begin in range(0, self.count, _CHUNK):
            rows = slice(begin, begin + _CHUNK)
            for owner, index, tick in zip(
                self._owners[rows].tolist(),
                self._indices[rows].tolist(),
                self._ticks[rows].tolist(),
                strict=True,
            ):
                if cancel is not None:
                    cancel()
                self.parts[owner].write(writer, index, tick)
                done += 1
                if progress is not None:
                    progress(done, total)
        completion = {
            "event": "completion",
            "status": "succeeded",
            "reason_code": COMPLETION_REASON,
        }
        writer.write(
            LIFECYCLE_STREAM, completion, tick=self.last_tick, sim_time_s=self.end_s
        )
        if progress is not None:
            progress(total, total)


def _source_sha256(path: Path, cancel: Callable[[], None] | None) -> str | None:
    """Return the source file's SHA-256 (hex), ``None`` for a folder."""
    if path.is_dir():
        return None
    source = open_source(path.resolve() if path.is_symlink() else path)
    try:
        return source.sha256(check=cancel)
    finally:
        source.close()


def _embedded(value: Any, what: str, notes: list[str]) -> Any:
    """Return ``value`` as plain JSON, or a stand-in when it is too large."""
    plain = json_safe(value)
    try:
        canonical_dumps(plain, limits=_EMBEDDED_JSON)
    except FsrError as exc:
        notes.append(f"the model's {what} left out: {exc.reason}")
        return {"left_out": exc.reason}
    return plain


def _metadata(
    model: RecordingModel,
    source_path: Path,
    source_kind: str,
    digest: str | None,
    notes: list[str],
) -> dict[str, Any]:
    return {
        "run": {"name": str(model.title), "source_kind": source_kind},
        "converted_from": {
            "kind": source_kind,
            "file": source_path.name,
            "sha256": digest,
            "title": str(model.title),
            "metadata": _embedded(model.metadata, "metadata", notes),
            "provenance": _embedded(model.provenance, "provenance", notes),
        },
        "versions": run_versions(),
        **_joints(model, notes),
    }


def _joints(model: RecordingModel, notes: list[str]) -> dict[str, Any]:
    """Return ``{"joints": ...}`` when the model's joints read written channels."""
    joints = model.joints
    if joints is None:
        return {}
    if any(name not in model.channels for name in joints.channels):
        notes.append("the joints read channels that are not written, left out")
        return {}
    return {"joints": joints.plain()}


def _provenance(
    source_path: Path,
    source_kind: str,
    digest: str | None,
    extra: Mapping[str, Any] | None,
) -> dict[str, Any]:
    footer: dict[str, Any] = {
        "mode": "convert",
        "converter": __name__,
        **json_safe(dict(extra or {})),
        "source": source_path.name,
        "source_sha256": digest,
        "source_kind": source_kind,
    }
    try:
        canonical_dumps(footer)  # a caller's field is refused before any work
    except FsrError as exc:
        exc.locate(path=source_path, section="provenance")
        raise
    return footer


def _publish(
    output: Path, overwrite: bool, write: Callable[[Path], PublishResult]
) -> PublishResult:
    """Publish through ``write``; an existing output is replaced in one rename."""
    if not (overwrite and os.path.lexists(output)):
        return write(output)
    staging = output.with_name(f".{output.name}.{secrets.token_hex(6)}.convert")
    try:
        published = write(staging)
    except FsrError as exc:
        if exc.path == str(staging):  # name the file the caller asked for
            exc.path = None
            exc.locate(path=output)
        raise
    try:
        staging.replace(output)
    except OSError as exc:
        staging.unlink(missing_ok=True)
        raise WriteFailedError.from_os_error("cannot replace", exc, output) from exc
    return PublishResult(
        output,
        atomic=published.atomic,
        size_bytes=published.size_bytes,
        records=published.records,
    )


def _stream_table(parts: list[Part], path: Path) -> list[StreamSpec]:
    specs = [lifecycle_stream()]
    for part in parts:
        specs += part.specs()
    limit = ReaderLimits().max_streams
    if len(specs) > limit:
        raise LimitExceededError(
            f"{len(specs)} streams (channels, 4 per camera ...), more than an "
            f"FSR file holds ({limit})",
            path=path,
        )
    return specs


def _summary(parts: list[Part], notes: list[str]) -> str:
    channels = [p for p in parts if isinstance(p, ChannelPart)]
    cameras = [p for p in parts if isinstance(p, CameraPart)]
    names = [str(p.spec.attributes["channel_name"]) for p in channels]
    shown = ", ".join(names[:6]) + (", ..." if len(names) > 6 else "")
    samples = sum(len(p.times_s) for p in channels)
    pieces = [f"{samples} samples in {len(channels)} channels ({shown})"]
    if cameras:
        frames = sum(len(p.times_s) for p in cameras)
        pieces.append(f"{len(cameras)} camera(s), {frames} frames")
    poses = next((p for p in parts if isinstance(p, PosesPart)), None)
    meshes = next((p for p in parts if isinstance(p, MeshesPart)), None)
    if poses is not None and meshes is not None:
        bodies = poses.poses.shape[1]
        pieces.append(f"scene geometry ({bodies} bodies, {len(meshes.records)} meshes)")
    markers = next((p for p in parts if isinstance(p, MarkersPart)), None)
    if markers is not None and len(markers.times_s):
        pieces.append(f"{len(markers.times_s)} markers")
    if notes:
        pieces.append(f"{len(notes)} note(s), first: {notes[0]}")
    return ", ".join(pieces)


def write_model_as_fsr(
    model: RecordingModel,
    output: Path,
    *,
    source_path: Path,
    source_kind: str,
    overwrite: bool = False,
    provenance: Mapping[str, Any] | None = None,
    progress: Callable[[int, int], None] | None = None,
    cancel: Callable[[], None] | None = None,
    image_codec: str = "png",
    jpeg_quality: int = 92,
) -> FsrConversion:
    """Write ``model`` (read from ``source_path``) as the FSR file ``output``.

    The file is published atomically once complete and checked
    (:class:`~fsr_core.format.writer.FsrWriter`); the layout is in the module
    docstring.

    Parameters
    ----------
    model
        What the source opened.
    output
        The FSR file to write. It must not be ``source_path`` (nor a link to
        it), and must not exist unless ``overwrite``.
    source_path
        The file the model was read from: its name and SHA-256 go into the
        provenance (a folder gets no digest).
    source_kind
        The source's registry name (``"mcap"``).
    overwrite
        Replace an existing ``output`` in one rename, once the new file is
        complete.
    provenance
        Extra footer facts (the source tool's version ...), as plain JSON.
    progress
        Called with ``(done, total)`` after every sample, frame, pose sample,
        mesh and marker written (a frame's calibration records go with it).
    cancel
        Called before each of them (and while the source is hashed); raising
        stops the conversion, and nothing is left at ``output``.
    image_codec
        ``png`` (lossless, default), ``jpeg`` or ``rgb24``.
    jpeg_quality
        Quality of ``jpeg`` images, 1-100.

    Returns
    -------
    FsrConversion
        The published file, its record count and size, and a summary.

    Raises
    ------
    FsrError
        ``output`` is the input (:class:`~fsr_core.output_paths.OutputIsInputError`)
        or exists without ``overwrite`` (:class:`~fsr_core.errors.TargetExistsError`);
        the model does not fit FSR (times going back, frames changing size:
        :class:`~fsr_core.errors.SchemaError`); a count or size over a budget
        or an FSR limit (:class:`~fsr_core.errors.LimitExceededError`); a
        frame cannot be fetched; writing fails.
    """
    if image_codec not in IMAGE_CODECS:
        raise ValueError(
            f"image_codec must be one of {IMAGE_CODECS}, got {image_codec!r}"
        )
    if not isinstance(source_kind, str) or not source_kind:
        raise ValueError(f"source_kind must be a source's name, got {source_kind!r}")
    output, source_path = Path(output), Path(source_path)
    check_output_path(
        output, (source_path,), overwrite=overwrite, hint=" (use --overwrite)"
    )
    footer = _provenance(source_path, source_kind, None, provenance)
    notes: list[str] = []
    parts = _parts(model, source_path, image_codec, cancel, notes)
    schedule = _Schedule(parts, model, source_path)
    specs = _stream_table(parts, source_path)
    digest = _source_sha256(source_path, cancel)
    footer["source_sha256"] = digest
    metadata = _metadata(model, source_path, source_kind, digest, notes)

    def write(target: Path) -> PublishResult:
        writer = FsrWriter(
            target,
            specs,
            metadata=metadata,
            provenance=footer,
            jpeg_quality=jpeg_quality,
        )
        with writer:
            try:
                schedule.write(writer, progress, cancel)
            except FsrError as exc:
                exc.locate(path=source_path)  # a value of the model the file refused
                raise
            notes.extend(_camera_notes(parts))
            if notes:
                writer.set_provenance(notes=notes[:100])
        return writer.finish()

    try:
        published = _publish(output, overwrite, write)
    except FsrError as exc:
        exc.locate(path=output)
        raise
    return FsrConversion(
        output=output,
        records=published.records,
        size_bytes=published.size_bytes,
        summary=_summary(parts, notes),
    )


def _camera_notes(parts: list[Part]) -> list[str]:
    return [
        f"camera {part.track.name!r}: {part.nominal_frames} frame(s) without "
        "calibration got nominal intrinsics"
        for part in parts
        if isinstance(part, CameraPart) and part.nominal_frames
    ]
