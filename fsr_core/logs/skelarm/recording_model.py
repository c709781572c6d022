"""The :class:`~fsr_core.recording.RecordingModel` of a skelarm log.

Channels, the derived ``tip_speed``, readouts, target markers, provenance,
capabilities and :func:`load_skelarm` itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from fsr_core.arrays import FloatArray
from fsr_core.joint_set import JointSet
from fsr_core.logs.skelarm.kinematics import skeleton_kinematics
from fsr_core.logs.skelarm.log import CheckedLog, check_log
from fsr_core.logs.skelarm.overlays import follow_active, task_overlay
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

__all__ = ["DERIVED_CHANNELS", "GUI_PRODUCER", "build_model", "load_skelarm"]


GUI_PRODUCER = "skelarm_simulator"
"""The ``producer`` skelarm's interactive simulators write."""
DERIVED_CHANNELS = ("tip_speed",)
"""Channels this module computes; every other channel is a member of the log."""


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
    log: CheckedLog, play_times: FloatArray, kinematics: PlanarKinematics | None
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
        speed = kinematics.tip_speeds(q, dq)
        speed.flags.writeable = False
        channels["tip_speed"] = Channel(
            "tip_speed", play_times, speed, "m/s", "tip speed (derived)", ("tip_speed",)
        )
    return channels


def _joints(
    channels: Mapping[str, Channel], kinematics: PlanarKinematics | None
) -> JointSet:
    """Return the arm's joints: ``q`` as named, rates ``dq`` and torques ``tau``.

    The limits are the skeleton's; rates and torques count only when they
    hold as many columns as ``q``.
    """
    q = channels["q"]
    names = q.columns
    same = [
        key
        for key in ("dq", "tau")
        if key in channels and channels[key].width == q.width
    ]
    joint_set = JointSet.of_channel(
        "q",
        names,
        velocities="dq" if "dq" in same else None,
        efforts="tau" if "tau" in same else None,
    )
    if kinematics is None:
        return joint_set
    return replace(joint_set, joints=kinematics.joint_specs(names))


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


def _resimulation(meta: Mapping[str, Any]) -> str | None:
    """Return why skelarm cannot re-run the log (only without a config)."""
    extra = meta.get("extra")
    config = extra.get("source_config") if isinstance(extra, dict) else None
    if not isinstance(config, dict) or not config:
        return (
            "cannot re-simulate: no embedded configuration (a programmatic skelarm "
            "run has no extra.source_config for skelarm's rerun_log)"
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


def _report(log: CheckedLog, notes: list[str]) -> dict[str, Any]:
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
    return build_model(check_log(source), source)


def build_model(log: CheckedLog, source: Path) -> RecordingModel:
    """Build the recording model of a checked log (read from ``source``).

    :func:`load_skelarm` calls it on a ``.sklog.npz`` log, and the FSR source on
    a converted log's arrays and TOML, so both open the same way.

    Raises
    ------
    SchemaError
        The skeleton disagrees with ``q``, or ``extra.playback.task`` is
        malformed.
    """
    notes: list[str] = []
    q = log.arrays["q"]
    kinematics = skeleton_kinematics(log.meta, q.shape[1], str(source), notes)
    play_times = log.times_s - log.times_s[0]
    play_times.flags.writeable = False
    span_s = float(play_times[-1])
    timeline = Timeline(
        (Segment(0, 0.0, span_s, float(log.times_s[0]), 0, len(play_times) - 1),)
    )
    channels = _channels(log, play_times, kinematics)
    active = log.arrays.get("active_target")
    overlay = follow_active(
        task_overlay(log.meta, kinematics, notes, str(source)), active
    )
    return RecordingModel(
        path=source,
        source="skelarm",
        title=_title(source),
        timeline=timeline,
        channels=channels,
        kinematics=kinematics,
        joints=_joints(channels, kinematics),
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
        can_resimulate=_resimulation(log.meta),
    )
