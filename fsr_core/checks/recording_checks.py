"""The checks of one recording: every channel, the joints, the cameras.

:func:`check_recording` reads each numeric channel once (times and values),
the joint state and the action, and each camera's frame times and small
frames, and returns the recording's :class:`~fsr_core.checks.flags.CheckResult`:
its metrics and the flags that need no other recording. Streams that share
one array of times (a dataset's columns) are checked for timing once, under
the first name (the joints' channel first).
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Iterator

import numpy as np

from fsr_core.arrays import FloatArray
from fsr_core.checks.camera_checks import desync_flags, frozen_flags
from fsr_core.checks.camera_frames import camera_timing, small_frames
from fsr_core.checks.flags import (
    ERROR_KINDS,
    CheckResult,
    EpisodeMetrics,
    Flag,
    FlagKind,
)
from fsr_core.checks.joint_series import ACTION_CHANNELS, action_series, joint_series
from fsr_core.checks.motion import (
    Motion,
    limit_flags,
    motion_of,
    non_finite_flags,
    offset_flags,
)
from fsr_core.checks.thresholds import Thresholds
from fsr_core.checks.timing import timing_flags
from fsr_core.playlists.episodes import split_episode_path
from fsr_core.recording import MarkerKind, RecordingModel

__all__ = ["check_recording", "episode_of", "error_flags"]


def episode_of(model: RecordingModel) -> int | None:
    """Return the model's episode index where it has one."""
    found = split_episode_path(model.path)
    if found is not None:
        return found[1]
    index = model.report.get("episode_index")
    return index if isinstance(index, int) else None


def _streams(
    model: RecordingModel,
) -> Iterator[tuple[str, FloatArray, FloatArray | None]]:
    """Yield ``(name, times, values)`` of the channels (joints first), then cameras."""
    first = model.joint_channel
    names = sorted(model.channels, key=lambda name: (name != first, name))
    for name in names:
        channel = model.channels[name]
        yield name, np.asarray(channel.times_s), np.asarray(channel.values)
    for camera in model.cameras:
        yield camera.name, np.asarray(camera.times_s), None


def _posing_channels(model: RecordingModel) -> set[str]:
    """Return the channels a pose or a command is read from: joints, action."""
    joints = model.joints
    posing = set(ACTION_CHANNELS)
    if joints is not None:
        posing |= {joints.positions, joints.velocities or "", joints.efforts or ""}
    return posing


def _value_flags(model: RecordingModel, thresholds: Thresholds) -> list[Flag]:
    flags: list[Flag] = []
    seen: set[bytes] = set()
    posing = _posing_channels(model)
    seams = [
        marker.play_time_s
        for marker in model.markers
        if marker.kind is MarkerKind.GENERATION_RESET
    ]
    for name, times, values in _streams(model):
        key = hashlib.blake2b(
            np.ascontiguousarray(times).tobytes(), digest_size=16
        ).digest()
        if key not in seen:
            seen.add(key)
            flags.extend(timing_flags(name, times, thresholds, seams_s=seams))
        if values is not None and values.shape[:1] == times.shape:
            strict = name in posing
            flags.extend(non_finite_flags(name, times, values, strict=strict))
    return flags


def _camera_flags(
    model: RecordingModel,
    motion: Motion | None,
    state_times: FloatArray | None,
    thresholds: Thresholds,
) -> list[Flag]:
    flags: list[Flag] = []
    for camera in model.cameras:
        timing = camera_timing(model, camera)
        if timing is not None:
            if thresholds.video_tolerance_s > 0:
                timing = dataclasses.replace(
                    timing, tolerance_s=thresholds.video_tolerance_s
                )
            flags.extend(desync_flags(camera.name, timing))
        if motion is None or state_times is None or motion.speed.size == 0:
            continue
        frames = small_frames(
            model,
            camera,
            int(thresholds.frozen_size),
            int(thresholds.max_camera_frames),
        )
        if frames is None:
            continue
        middles = (state_times[:-1] + state_times[1:]) / 2
        flags.extend(
            frozen_flags(camera.name, frames, middles, motion.speed, thresholds)
        )
    return flags


def check_recording(
    model: RecordingModel,
    thresholds: Thresholds | None = None,
    *,
    decode_frames: bool = True,
) -> CheckResult:
    """Return the metrics of ``model`` and the flags it gives on its own.

    ``decode_frames=False`` leaves out ``frozen_video`` (no frame is decoded;
    a video's frame times are still read for ``video_desync``).

    Raises
    ------
    FsrError
        A channel or camera cannot be read (a subclass of it).
    """
    limits = thresholds or Thresholds()
    flags = _value_flags(model, limits)
    state = joint_series(model)
    motion = None if state is None else motion_of(state, limits)
    if state is not None and motion is not None:
        action = action_series(model, state)
        if action is not None:
            flags.extend(offset_flags(state, action, motion.still, limits))
        flags.extend(limit_flags(state, limits))
    state_times = None if state is None or not decode_frames else state.times_s
    flags.extend(_camera_flags(model, motion, state_times, limits))
    frames = (
        int(state.times_s.size)
        if state is not None
        else max((channel.count or 0 for channel in model.channels.values()), default=0)
    )
    metrics = EpisodeMetrics(
        duration_s=float(model.duration_s),
        frames=frames,
        jerk_median=None if motion is None else motion.jerk_median,
        jerk_p95=None if motion is None else motion.jerk_p95,
        jerk_peak_s=None if motion is None else motion.jerk_peak_s,
        static_fraction=None if motion is None else motion.static_fraction,
        end_state=None if motion is None else motion.end_state,
        state_channel="" if state is None else state.channel,
    )
    return CheckResult(str(model.path), episode_of(model), metrics, tuple(flags))


def error_flags(model: RecordingModel, flags: tuple[Flag, ...]) -> list[Flag]:
    """Return the flags that make ``model``'s file invalid.

    They are those of :data:`~fsr_core.checks.flags.ERROR_KINDS`, a
    ``non_finite`` only in what a robot's pose or command is read from (the
    joints' channels and the action): elsewhere (a solver's diagnostics, a
    timing figure not yet measured) NaN is a value of its own.
    """
    posing = _posing_channels(model)
    return [
        flag
        for flag in flags
        if flag.kind in ERROR_KINDS
        and (flag.kind is not FlagKind.NON_FINITE or flag.channel in posing)
    ]
