"""Build the recording model of one episode of a LeRobot dataset.

* **Time.** Each row's ``timestamp`` (seconds from the episode's start) is the
  play time, less the first row's. Timestamps that do not increase fall back
  to ``frame_index / fps`` and the episode is marked degraded.
* **Channels.** Every numeric feature is a channel named by its key, its
  columns by the ``names`` of ``info.json`` (else ``key[i]``).
* **Cameras.** A ``video`` feature's frame ``i`` is the file's frame at
  ``from_timestamp + timestamp[i]``; an ``image`` feature's frame is the
  image bytes of row ``i``. Both decode on demand.
* **Joints.** ``observation.state``, named by ``info.json``, with velocities
  and efforts where recorded (:mod:`fsr_core.sources.lerobot.joints`).
* **Task.** The task strings of ``task_index`` (or the episode's tasks) show
  in the panel; the episode's metadata and statistics in the inspector.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any, Final

import numpy as np

from fsr_core.arrays import FloatArray
from fsr_core.calibration import Calibration
from fsr_core.errors import FsrError
from fsr_core.media import RGBFrame
from fsr_core.recording import (
    CameraTrack,
    Channel,
    Integrity,
    RecordingModel,
    Segment,
    Timeline,
)
from fsr_core.sources.lerobot.depth import (
    DepthEpisode,
    depth_frame,
    depth_metres,
    read_depth_meta,
)
from fsr_core.sources.lerobot.images import ImageColumn
from fsr_core.sources.lerobot.joints import dataset_joints
from fsr_core.sources.lerobot.rows import EpisodeRows, episode_rows
from fsr_core.sources.lerobot.table import (
    EpisodeMeta,
    EpisodeTable,
    episode_stats,
    episode_table,
)
from fsr_core.sources.lerobot.video import frame_at

__all__ = ["load_episode", "open_episode"]

_ON_GRID_FRAMES: Final = 1e-3
"""How far (in frames) a timestamp may be from ``k / fps`` and count as on it."""


def _play_times(rows: EpisodeRows, fps: float) -> tuple[FloatArray, str]:
    """Return the play times of the rows and why they are not the timestamps."""
    stamps = rows.timestamps_s
    if stamps.size and np.all(np.isfinite(stamps)) and np.all(np.diff(stamps) > 0):
        times: FloatArray = stamps - stamps[0]
        ticks = np.round(times * fps)
        if np.all(np.abs(times * fps - ticks) < _ON_GRID_FRAMES):
            # float32 timestamps (0.6 is 0.60000002): put them on the frame grid
            # so a time k / fps shows row k, as LeRobot's tolerance does.
            times = ticks / fps
        return times, ""
    fallback: FloatArray = (rows.frame_index - rows.frame_index[0]) / fps
    if fallback.size and np.all(np.diff(fallback) > 0):
        return fallback, "timestamps do not increase; frame_index / fps is used"
    even: FloatArray = np.arange(stamps.size, dtype=np.float64) / fps
    return even, "timestamps and frame indices do not increase; rows are spaced 1/fps"


def _video_fetch(
    path: Path, starts_s: FloatArray, fps: float, index: int
) -> tuple[RGBFrame, Calibration | None]:
    return frame_at(path, float(starts_s[index]), fps), None


def _image_fetch(
    column: ImageColumn, rows: EpisodeRows, index: int
) -> tuple[RGBFrame, Calibration | None]:
    return column.frame(rows.place.groups[index], rows.place.offsets[index]), None


def _cameras(
    table: EpisodeTable,
    episode: EpisodeMeta,
    rows: EpisodeRows,
    times: FloatArray,
    notes: list[str],
) -> tuple[CameraTrack, ...]:
    info = table.info
    tracks: list[CameraTrack] = []
    for feature in info.cameras:
        if feature.dtype == "video":
            span = episode.videos.get(feature.key)
            if span is None or not span.path.is_file():
                where = "none is listed" if span is None else f"{span.path} is missing"
                notes.append(f"camera {feature.key} left out: its video file {where}")
                continue
            starts: FloatArray = span.from_s + rows.timestamps_s
            fetch = functools.partial(_video_fetch, span.path, starts, info.fps)
        else:
            column = ImageColumn(rows.path, feature.key, feature.image_size)
            fetch = functools.partial(_image_fetch, column, rows)
        tracks.append(CameraTrack(feature.key, times, fetch))
    return (*tracks, *_depth_tracks(table, episode, times, notes))


def _depth_fetch(
    episode: DepthEpisode, fps: float, index: int
) -> tuple[RGBFrame, Calibration | None]:
    return depth_frame(episode, index, fps), None


def _depth_values(episode: DepthEpisode, fps: float, index: int) -> FloatArray:
    values: FloatArray = depth_metres(episode, index, fps).astype(np.float64)
    return values


def _depth_tracks(
    table: EpisodeTable, episode: EpisodeMeta, times: FloatArray, notes: list[str]
) -> list[CameraTrack]:
    """Return the depth sidecar's cameras of the episode (``depth.<sensor>``)."""
    sensors, problem = read_depth_meta(table.info.root)
    if problem:
        notes.append(f"depth sidecar unreadable: {problem}")
    fps = table.info.fps
    tracks = []
    for name, episodes in sensors.items():
        depth = episodes.get(episode.index)
        if depth is None or not depth.path.is_file():
            continue
        count = min(depth.frames or len(times), len(times))
        sensor = depth.sensor
        tracks.append(
            CameraTrack(
                f"depth.{name}",
                times[:count],
                functools.partial(_depth_fetch, depth, fps),
                values=functools.partial(_depth_values, depth, fps),
                value_unit="m",
                value_range=(sensor.depth_min, sensor.depth_max),
            )
        )
    record = None if table.journal is None else table.journal.for_episode(episode.index)
    shown = {track.name for track in tracks}
    for name in () if record is None else record.depth_sensors:
        if f"depth.{name}" not in shown:
            notes.append(f"the depth video of {name} is missing")
    return tracks


def _task_texts(
    table: EpisodeTable, episode: EpisodeMeta, rows: EpisodeRows, times: FloatArray
) -> tuple[tuple[float, str], ...]:
    if rows.task_index is None or not table.tasks:
        return ((0.0, episode.task),) if episode.task else ()
    texts: list[tuple[float, str]] = []
    for time_s, index in zip(times, rows.task_index, strict=True):
        text = table.tasks.get(int(index), f"task {int(index)}")
        if not texts or texts[-1][1] != text:
            texts.append((float(time_s), text))
    return tuple(texts)


def _report(
    table: EpisodeTable, episode: EpisodeMeta, rows: EpisodeRows, notes: list[str]
) -> dict[str, Any]:
    info = table.info
    videos = {
        key: {
            "file": str(span.path.relative_to(info.root)),
            "from_timestamp": span.from_s,
            "to_timestamp": span.to_s,
        }
        for key, span in episode.videos.items()
    }
    return {
        "source": "lerobot",
        "notes": notes,
        "dataset": str(info.root),
        "codebase_version": info.version,
        "episode_index": episode.index,
        "length": episode.length,
        "rows": len(rows.timestamps_s),
        "tasks": list(episode.tasks),
        "data_file": str(rows.path.relative_to(info.root)),
        "dataset_rows": list(episode.rows) if episode.rows else None,
        "videos": videos,
        "features": {
            feature.key: {"dtype": feature.dtype, "shape": list(feature.shape)}
            for feature in info.features
        },
        "stats": episode_stats(table, episode.index),
        **(
            {"embodichain": journal_section(table, episode.index)}
            if table.journal is not None
            else {}
        ),
    }


def _journal_problem(table: EpisodeTable, index: int) -> list[str]:
    record = None if table.journal is None else table.journal.for_episode(index)
    return [record.problem] if record is not None and record.problem else []


def _integrity(table: EpisodeTable, index: int, notes: list[str]) -> Integrity:
    """Return the badge: an episode the recorder did not finish is invalid."""
    if _journal_problem(table, index):
        return Integrity.INVALID
    return Integrity.DEGRADED if notes else Integrity.VALID


def journal_section(table: EpisodeTable, index: int) -> dict[str, Any]:
    """Return what a recorder root's journal and sidecar say of an episode."""
    journal = table.journal
    if journal is None:
        return {}
    record = journal.for_episode(index)
    if record is None:
        return {"journal": "no journal record for this episode"}
    return {
        "episode_uuid": record.episode_uuid,
        "phase": record.phase,
        "problem": record.problem,
        "error": record.error,
        "updated_at": record.updated_at,
        "depth_sensors": list(record.depth_sensors),
        "sidecar_row": journal.sidecar_rows.get(index),
        "journal_sidecar": record.sidecar,
    }


def load_episode(address: Path, root: Path, index: int) -> RecordingModel:
    """Open episode ``index`` of the dataset at ``root`` as a recording model.

    ``address`` is the episode's path
    (:func:`~fsr_core.playlists.episodes.episode_path`), which becomes the
    model's path.

    Raises
    ------
    FsrError
        The metadata, the episode's data file or its rows cannot be read.
    """
    table = episode_table(root)
    episode = table.find(index)
    info = table.info
    rows = episode_rows(table, episode)
    times, timing = _play_times(rows, info.fps)
    notes = [timing] if timing else []
    count = len(times)
    if count != episode.length:
        notes.append(
            f"the episode has {count} rows where its metadata says {episode.length}"
        )
    channels = {
        key: Channel(
            name=key,
            times_s=times,
            values=values,
            label=key,
            columns=next(f.columns for f in info.numeric if f.key == key),
        )
        for key, values in rows.values.items()
    }
    cameras = _cameras(table, episode, rows, times, notes)
    duration = float(times[-1]) if count else 0.0
    return RecordingModel(
        path=address,
        source="lerobot",
        title=f"{root.name} · episode {index}"
        + (f" · {episode.task}" if episode.task else ""),
        timeline=Timeline((Segment(0, 0.0, duration, 0.0, 0, max(count - 1, 0)),)),
        channels=channels,
        cameras=cameras,
        joints=dataset_joints(channels),
        metadata={
            "dataset": root.name,
            "codebase_version": info.version,
            "robot_type": info.robot_type,
            "fps": info.fps,
            "episode_index": index,
            "task": episode.task,
            "total_episodes": len(table.episodes),
        },
        integrity=_integrity(table, index, notes),
        integrity_reason="; ".join([*_journal_problem(table, index), *notes]),
        report=_report(table, episode, rows, notes),
        task_texts=_task_texts(table, episode, rows, times),
    )


def open_episode(address: Path, root: Path, index: int) -> RecordingModel:
    """:func:`load_episode`, with any error naming the episode's address."""
    try:
        return load_episode(address, root, index)
    except FsrError as exc:
        raise exc.with_path(address) from None
