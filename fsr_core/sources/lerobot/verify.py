"""``inspect --verify`` of LeRobot episodes: every file exists and decodes.

For an episode: its data file reads and holds as many rows as the metadata
says; each video file holds a frame within LeRobot's tolerance (1e-4 s) of
every row's ``from_timestamp + timestamp`` and its first and last frames
decode; each image column's first and last images decode.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

import numpy as np

from fsr_core.arrays import FloatArray
from fsr_core.errors import DecodeError, FsrError
from fsr_core.format.safe_open import open_source
from fsr_core.sources.lerobot.depth import depth_metres, read_depth_meta
from fsr_core.sources.lerobot.images import ImageColumn
from fsr_core.sources.lerobot.rows import EpisodeRows, episode_rows
from fsr_core.sources.lerobot.table import EpisodeMeta, EpisodeTable, VideoSpan
from fsr_core.sources.lerobot.video import frame_at

__all__ = ["TOLERANCE_S", "episode_problems", "video_frame_times"]

TOLERANCE_S: Final = 1e-4
"""How far a video frame may be from a row's time (LeRobot's ``tolerance_s``)."""

MAX_VIDEO_PACKETS: Final = 10_000_000
"""Most packets one video file may have for its timestamps to be checked."""


def _packet_times(container: Any) -> list[float] | None:
    """Return the packets' times of the first video stream (None: too many)."""
    stream = container.streams.video[0]
    base = float(stream.time_base)
    times: list[float] = []
    for packet in container.demux(stream):
        if packet.pts is not None:
            times.append(float(packet.pts) * base)
            if len(times) > MAX_VIDEO_PACKETS:
                return None
    return times


def video_frame_times(path: Path) -> FloatArray:
    """Return the presentation time of every frame of a video file, in seconds.

    Only packets are read (nothing decodes).

    Raises
    ------
    DecodeError
        The file does not demux, or has more than :data:`MAX_VIDEO_PACKETS`.
    """
    import av

    open_source(path).close()
    try:
        with av.open(str(path), mode="r") as container:
            times = _packet_times(container)
    except Exception as exc:
        raise DecodeError(f"not a readable video: {exc}", path=path) from exc
    if times is None:
        raise DecodeError(f"more than {MAX_VIDEO_PACKETS:,} video packets", path=path)
    found: FloatArray = np.sort(np.asarray(times, dtype=np.float64))
    return found


def _video_problems(
    key: str, span: VideoSpan, rows: EpisodeRows, fps: float
) -> list[str]:
    try:
        frames = video_frame_times(span.path)
    except FsrError as exc:
        return [f"{key}: {exc}"]
    wanted = span.from_s + rows.timestamps_s
    if not frames.size:
        return [f"{key}: {span.path.name} holds no frames"]
    nearest = np.searchsorted(frames, wanted).clip(1, frames.size - 1)
    gap = np.minimum(
        np.abs(frames[nearest] - wanted), np.abs(frames[nearest - 1] - wanted)
    )
    problems: list[str] = []
    far = np.flatnonzero(gap > TOLERANCE_S)
    if far.size:
        first = int(far[0])
        problems.append(
            f"{key}: {far.size} of {wanted.size} rows have no video frame within "
            f"{TOLERANCE_S:g} s (first: row {first}, wanted {wanted[first]:.4f} s in "
            f"{span.path.name}, nearest {gap[first]:.4f} s away)"
        )
    for row in {0, wanted.size - 1}:
        try:
            frame_at(span.path, float(wanted[row]), fps)
        except FsrError as exc:
            problems.append(f"{key}: row {row}: {exc}")
    return problems


def _image_problems(
    table: EpisodeTable, rows: EpisodeRows, key: str, size: tuple[int, int]
) -> list[str]:
    column = ImageColumn(rows.path, key, size)
    problems: list[str] = []
    count = len(rows.place.groups)
    for row in sorted({0, count - 1}) if count else []:
        try:
            column.frame(rows.place.groups[row], rows.place.offsets[row])
        except FsrError as exc:
            problems.append(f"{key}: row {row}: {exc}")
    return problems


def episode_problems(
    table: EpisodeTable, episode: EpisodeMeta
) -> tuple[int, list[str]]:
    """Return ``(rows checked, problems)`` of one episode."""
    if episode.problem:
        return 0, [f"episode {episode.index}: {episode.problem}"]
    try:
        rows = episode_rows(table, episode)
    except FsrError as exc:
        return 0, [f"episode {episode.index}: {exc}"]
    problems: list[str] = []
    count = len(rows.timestamps_s)
    if count != episode.length:
        problems.append(
            f"{count} rows in {rows.path.name} where the metadata says {episode.length}"
        )
    info = table.info
    for feature in info.cameras:
        if feature.dtype == "video":
            span = episode.videos.get(feature.key)
            if span is None:
                problems.append(f"{feature.key}: no video file is listed")
                continue
            problems.extend(_video_problems(feature.key, span, rows, info.fps))
        else:
            try:
                size = feature.image_size
            except FsrError as exc:
                problems.append(str(exc))
                continue
            problems.extend(_image_problems(table, rows, feature.key, size))
    problems.extend(_depth_problems(table, episode, count))
    return count, [f"episode {episode.index}: {problem}" for problem in problems]


def _depth_problems(table: EpisodeTable, episode: EpisodeMeta, rows: int) -> list[str]:
    """Check the episode's depth videos: frame counts, first and last frames."""
    sensors, problem = read_depth_meta(table.info.root)
    if problem:
        return [problem]
    problems: list[str] = []
    for name, episodes in sensors.items():
        depth = episodes.get(episode.index)
        if depth is None:
            continue
        try:
            frames = video_frame_times(depth.path).size
            if frames != depth.frames or frames != rows:
                problems.append(
                    f"depth {name}: {frames} frames in {depth.path.name}, the sidecar "
                    f"says {depth.frames} and the episode has {rows} rows"
                )
            for index in sorted({0, max(frames - 1, 0)}):
                depth_metres(depth, index, table.info.fps)
        except FsrError as exc:
            problems.append(f"depth {name}: {exc}")
    return problems


def files_of(table: EpisodeTable, episodes: tuple[EpisodeMeta, ...]) -> dict[str, Any]:
    """Return the files the episodes use, each once, with sizes (None: missing)."""
    sizes: dict[str, Any] = {}
    for episode in episodes:
        paths = [episode.data_file, *(span.path for span in episode.videos.values())]
        for path in paths:
            if path is None:
                continue
            key = str(path.relative_to(table.info.root))
            if key in sizes:
                continue
            try:
                sizes[key] = path.stat().st_size if path.is_file() else None
            except OSError:
                sizes[key] = None
    return sizes
