"""Build the viewer's :class:`~fsr_core.recording.RecordingModel` from an FSR file.

Every FSR file gets the same model (timeline, numeric channels, cameras,
geometry, overlays, markers, integrity); the simulator that recognises the
file's metadata then shapes it through its
:class:`~fsr_core.simulation.profile.RecordingProfile`, found through the
simulator registry, so no simulator is named here.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from fsr_core.calibration import Calibration
from fsr_core.errors import FsrError
from fsr_core.format.memory import check_numeric_memory
from fsr_core.format.reader import FsrReader
from fsr_core.format.report import inspection_report
from fsr_core.format.streams import StreamKind
from fsr_core.format.values import StreamInfo
from fsr_core.media import RGBFrame
from fsr_core.recording import (
    CameraTrack,
    Channel,
    Integrity,
    Marker,
    MarkerKind,
    RecordingModel,
    Segment,
    Timeline,
)
from fsr_core.simulation.profile import FsrOpening
from fsr_core.simulation.registry import recording_profile
from fsr_core.sources.fsr.channels import stream_channel
from fsr_core.sources.fsr.geometry import load_geometry, play_times
from fsr_core.sources.fsr.joints import converted_joints, recorded_joints
from fsr_core.sources.fsr.reader_pool import FileIdentity, file_identity, shared_pool
from fsr_core.sources.fsr.run_metadata import check_run_metadata, run_title
from fsr_core.sources.fsr.tail import lost_tail_markers, recovered_copy_reason
from fsr_core.sources.fsr.task_overlays import load_overlays

__all__ = ["load_fsr"]


def _timeline(reader: FsrReader) -> Timeline:
    spans: dict[int, list[float]] = {}
    ticks: dict[int, list[int]] = {}
    for info in reader.streams.values():
        firsts, lasts = reader.generation_runs(info.name)
        for first, last in zip(firsts, lasts, strict=True):
            generation = int(first["generation"])
            span = spans.setdefault(generation, [np.inf, -np.inf])
            span[0] = min(span[0], float(first["sim_time_s"]))
            span[1] = max(span[1], float(last["sim_time_s"]))
            tick = ticks.setdefault(generation, [2**63, -(2**63)])
            tick[0] = min(tick[0], int(first["tick"]))
            tick[1] = max(tick[1], int(last["tick"]))
    segments = []
    start = 0.0
    for generation in sorted(spans):
        first, last = spans[generation]
        segments.append(
            Segment(generation, start, start + last - first, first, *ticks[generation])
        )
        start += last - first
    return Timeline(tuple(segments))


def _numeric_streams(reader: FsrReader) -> list[StreamInfo]:
    return [
        info
        for info in reader.streams.values()
        if info.spec.kind is StreamKind.NUMERIC and info.record_count
    ]


def _channel_name(
    info: StreamInfo, streams: set[str], taken: dict[str, Channel]
) -> str:
    """Name a stream's channel: its ``channel_name`` attribute, else the stream.

    A converted file keeps a foreign name there (``/joint_states``); it is
    used unless it names another numeric stream or a channel already named.
    """
    wanted = info.spec.attributes.get("channel_name")
    if (
        isinstance(wanted, str)
        and wanted
        and wanted not in taken
        and (wanted == info.name or wanted not in streams)
    ):
        return wanted
    return info.name


def _channels(
    reader: FsrReader, identity: FileIdentity, timeline: Timeline
) -> dict[str, Channel]:
    """One lazy channel per numeric stream: nothing is read until shown."""
    channels: dict[str, Channel] = {}
    numeric = _numeric_streams(reader)
    streams = {info.name for info in numeric}
    for info in numeric:
        name = _channel_name(info, streams, channels)
        channels[name] = stream_channel(info, name, identity, timeline)
    return channels


def _column_units(
    reader: FsrReader, channels: dict[str, Channel]
) -> dict[str, tuple[str, ...]]:
    """Return each numeric stream's channel's unit per column (reads nothing)."""
    found: dict[str, tuple[str, ...]] = {}
    by_stream = {info.name: info for info in _numeric_streams(reader)}
    for name, channel in channels.items():
        info = by_stream.get(name) or next(
            (
                known
                for known in by_stream.values()
                if known.spec.attributes.get("channel_name") == name
            ),
            None,
        )
        if info is None:
            continue
        units = info.spec.units
        found[name] = (
            units if isinstance(units, tuple) else (units,) * max(channel.width, 1)
        )
    return found


def _record_markers(reader: FsrReader, timeline: Timeline) -> list[Marker]:
    """Markers from lifecycle and event records."""
    markers: list[Marker] = []
    for info in reader.streams.values():
        kind = info.spec.kind
        if kind not in (StreamKind.LIFECYCLE, StreamKind.EVENT):
            continue
        for record in reader.iter_records(info.name):
            value = record.decoded if isinstance(record.decoded, dict) else {}
            when = float(timeline.play_time(record.generation, record.sim_time_s))
            event = value.get("event")
            if kind is StreamKind.EVENT:
                label = str(value.get("name", "event"))
                markers.append(Marker(MarkerKind.EVENT, when, label))
            elif event == "generation_reset":
                label = f"generation {record.generation}"
                markers.append(Marker(MarkerKind.GENERATION_RESET, when, label))
            elif event == "terminal_semantic_cut":
                markers.append(Marker(MarkerKind.TERMINAL_CUT, when, "terminal cut"))
    return markers


def _gap_markers(reader: FsrReader, timeline: Timeline) -> list[Marker]:
    """Markers at the last record before each declared gap."""
    markers: list[Marker] = []
    if reader.footer is None:
        return markers
    for gap in reader.footer.gaps:
        rows = reader.rows(gap.stream)
        if not len(rows):
            continue
        seq = min(max(gap.after_seq, 0), len(rows) - 1)
        generation, time_s = (
            int(rows["generation"][seq]),
            float(rows["sim_time_s"][seq]),
        )
        label = f"{gap.stream}: {gap.lost} lost ({gap.reason})"
        markers.append(
            Marker(MarkerKind.GAP, float(timeline.play_time(generation, time_s)), label)
        )
    return markers


def _markers(reader: FsrReader, timeline: Timeline) -> tuple[Marker, ...]:
    markers = _record_markers(reader, timeline) + _gap_markers(reader, timeline)
    markers += lost_tail_markers(reader, timeline)
    for epoch in reader.calibration_epochs():
        if epoch.first_tick > 0 or epoch.epoch > 0:
            when = float(timeline.play_time(epoch.generation, epoch.first_sim_time_s))
            label = f"{epoch.camera} epoch {epoch.epoch}"
            markers.append(Marker(MarkerKind.CALIBRATION, when, label))
    return tuple(sorted(markers, key=lambda m: m.play_time_s))


def _camera_tracks(
    reader: FsrReader, identity: FileIdentity, timeline: Timeline
) -> tuple[CameraTrack, ...]:
    # No descriptor is held per model: each fetch borrows a reader from the
    # shared pool (a few stay open), reopening the same file (same inode) when
    # none is idle; a crashed file reopens the way it opened.
    pool = shared_pool()
    tracks = []
    for info in reader.streams.values():
        spec = info.spec
        if (
            spec.kind is not StreamKind.CAMERA_RGB
            or spec.camera is None
            or not info.record_count
        ):
            continue

        def fetch(
            index: int, stream: str = info.name, camera: str = spec.camera
        ) -> tuple[RGBFrame, Calibration | None]:
            with pool.lend(identity) as here:
                record = here.record(stream, index)
                calibration = here.calibration(
                    camera, generation=record.generation, tick=record.tick
                )
                return here.media_frame(record).decoded, calibration

        tracks.append(
            CameraTrack(spec.camera, play_times(reader, info.name, timeline), fetch)
        )
    return tuple(tracks)


def _integrity(reader: FsrReader) -> tuple[Integrity, str]:
    if reader.recovered:
        info = reader.recovery
        share = f"{100 * info.kept_fraction:.0f}%" if info else "?"
        return Integrity.RECOVERED, f"recovered: truncated at {share}"
    footer = reader.footer
    if footer is not None and footer.recovered is not None:
        return Integrity.RECOVERED, recovered_copy_reason(footer.recovered)
    if footer is not None and footer.degraded:
        return Integrity.DEGRADED, f"degraded: {len(footer.gaps)} gap(s)"
    if reader.profile.value == "structural":
        return Integrity.UNVERIFIED, "integrity not verified (structural profile)"
    return Integrity.VALID, f"{reader.profile.value} profile"


def load_fsr(path: str | Path, *, recover: bool = True) -> RecordingModel:
    """Open an FSR file and build its recording model.

    The run metadata's well-known keys are type-checked and the memory the
    numeric channels need as float64 is checked against the memory budget
    (:data:`fsr_core.budgets.MEMORY`) before any of them is read.

    Raises
    ------
    FsrError
        The file cannot be trusted at all (the playlist greys it out with the
        error's message); a model that needs more memory than the budget is a
        :class:`~fsr_core.errors.LimitExceededError` with the numbers.
    """
    source = Path(path)
    try:
        return _load(source, recover=recover)
    except FsrError as exc:
        exc.with_path(source)  # a profile's error may not know the file
        raise


def _load(source: Path, *, recover: bool) -> RecordingModel:
    # A file the pool already has a reader of (the same inode, size and
    # mtime: a playlist going back to it, an export of the file on screen)
    # is twinned, not validated and indexed in memory a second time.
    identity = file_identity(source, recover=recover)
    reader = shared_pool().open(identity)
    try:
        check_run_metadata(reader.metadata, source)
        check_numeric_memory(_numeric_streams(reader), str(source))
        integrity, reason = _integrity(reader)
        opening = FsrOpening(
            reader=reader,
            path=source,
            integrity=integrity,
            integrity_reason=reason,
            generic_model=lambda: _generic_model(reader, identity, integrity, reason),
        )
        profile = recording_profile(reader.metadata)
        model = opening.generic_model() if profile is None else profile.build(opening)
    except BaseException:
        reader.close()
        raise
    # The model's channels and cameras read through the pool: the reader
    # that validated the file serves them (and its twins share its index).
    shared_pool().adopt(identity, reader)
    return model


def _generic_model(
    reader: FsrReader, identity: FileIdentity, integrity: Integrity, reason: str
) -> RecordingModel:
    """Build the model every FSR file gets, whatever its simulator."""
    source = Path(identity.path)
    timeline = _timeline(reader)
    channels = _channels(reader, identity, timeline)
    joints = converted_joints(channels, reader.metadata) or recorded_joints(
        channels, _column_units(reader, channels)
    )
    streams = {info.spec.kind for info in reader.streams.values() if info.record_count}
    config_ok = "config" in reader.metadata and "simulation_contract" in reader.metadata
    return RecordingModel(
        path=source,
        source="fsr",
        title=run_title(reader.metadata, source.stem),
        timeline=timeline,
        channels=channels,
        cameras=_camera_tracks(reader, identity, timeline),
        geometry=load_geometry(reader, timeline),
        joints=joints,
        overlays=load_overlays(reader),
        markers=_markers(reader, timeline),
        provenance=dict(reader.footer.provenance) if reader.footer else {},
        metadata=reader.metadata,
        integrity=integrity,
        integrity_reason=reason,
        report=inspection_report(reader),
        can_rerender=None
        if StreamKind.RENDER_STATE in streams
        else "no render state recorded",
        can_resimulate=(
            None
            if config_ok and StreamKind.CONTROL_AUTHORED in streams
            else "no resolved config and authored control recorded"
        ),
    )
