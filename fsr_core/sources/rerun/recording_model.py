"""Build the recording model of one Rerun recording, and its inspector section.

The play axis is the chosen timeline (:mod:`time_bases`) from its smallest
value; ``Scalars`` entities are channels, image entities cameras with their
``Pinhole``, the ``Transform3D`` tree and the shapes the 3D scene, and
``TextLog`` rows events on the timeline. Every moving frame of the tree is
also a ``tf:<entity>`` pose channel.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from fsr_core.errors import SchemaError
from fsr_core.recording import Channel, Integrity, RecordingModel, Segment, Timeline
from fsr_core.sources.rerun.cameras import camera_tracks
from fsr_core.sources.rerun.channels import joints_of, scalar_channels
from fsr_core.sources.rerun.events import text_log_events
from fsr_core.sources.rerun.frames import transform_tree
from fsr_core.sources.rerun.library import rerun_version
from fsr_core.sources.rerun.scene import scene_geometry
from fsr_core.sources.rerun.store import RecordingStore, open_store
from fsr_core.sources.rerun.time_bases import TimeBase, choose_time_base, offered
from fsr_core.sources.toolkit.pose_columns import POSE_COLUMNS, POSE_UNIT, pose_label
from fsr_core.sources.toolkit.transform_tree import TransformTree

__all__ = ["load_rerun"]


def _origins(store: RecordingStore) -> dict[str, int]:
    """Return each timeline's smallest value: rows read, and the manifest's."""
    origins: dict[str, int] = {name: low for name, (low, _) in store.ranges.items()}
    for rows in store.rows.values():
        for times, _ in rows.parts:
            for name, values in times.items():
                if values.size:
                    low = int(values.min())
                    origins[name] = min(origins.get(name, low), low)
    return origins


def _ends(store: RecordingStore, base: TimeBase) -> float:
    span = store.ranges.get(base.name)
    end = span[1] if span else base.origin
    for rows in store.rows.values():
        for times, _ in rows.parts:
            values = times.get(base.name)
            if values is not None and values.size:
                end = max(end, int(values.max()))
    return max(float(base.play(np.asarray([end]))[0]), 0.0)


def _pose_channels(tree: TransformTree, base: TimeBase) -> dict[str, Channel]:
    channels: dict[str, Channel] = {}
    for frame, times, translations, rotations in tree.series():
        raw = np.asarray(times, dtype=np.int64)
        order = np.argsort(raw, kind="stable")
        name = f"tf:{frame}"
        channels[name] = Channel(
            name,
            base.play(raw[order]),
            np.hstack([translations, rotations])[order],
            POSE_UNIT,
            pose_label(frame),
            POSE_COLUMNS,
        )
    return channels


def _archetypes(store: RecordingStore) -> dict[str, str]:
    """Return each entity's archetypes and rows, ``Image 4, Pinhole 1`` (inspector)."""
    found: dict[str, dict[str, int]] = {}
    for (entity, component), rows in sorted(store.rows.items()):
        archetype = component.split(":", 1)[0]
        counts = found.setdefault(entity, {})
        counts[archetype] = max(counts.get(archetype, 0), rows.rows)
    return {
        entity: ", ".join(f"{name} {rows}" for name, rows in counts.items())
        for entity, counts in found.items()
    }


def _model(
    store: RecordingStore, time_base: str | None, address: Path
) -> RecordingModel:
    path = store.path
    notes: list[str] = []
    try:
        base = choose_time_base(store.kinds, time_base, _origins(store))
    except SchemaError as exc:
        raise SchemaError(exc.reason, path=path) from None
    tree = transform_tree(store, base, notes)
    notes.extend(tree.problems)
    channels = scalar_channels(store, base, notes)
    channels.update(_pose_channels(tree, base))
    cameras, camera_entries = camera_tracks(store, base, tree)
    markers, events, left_out = text_log_events(store, base)
    if left_out:
        notes.append(
            f"{left_out} text log row(s) beyond the first {len(events)} not listed"
        )
    geometry = scene_geometry(store, base, tree, notes)
    duration = _ends(store, base)
    samples = [c.count or 0 for c in channels.values()] + [
        t.count or 0 for t in cameras
    ]
    ticks = max(samples, default=1)
    entry = store.entry
    title = (
        path.name
        if store.recordings == 1
        else f"{path.name} [{entry.index}] {entry.recording_id}"
    )
    integrity, reason = (Integrity.VALID, "")
    if not store.manifest:
        integrity = Integrity.RECOVERED
        reason = "no manifest (footer): the file was read from its start"
    return RecordingModel(
        path=address,
        source="rerun",
        title=title,
        timeline=Timeline((Segment(0, 0.0, duration, 0.0, 0, max(ticks - 1, 0)),)),
        channels=channels,
        cameras=cameras,
        geometry=geometry,
        joints=joints_of(channels),
        markers=tuple(markers),
        metadata={
            "format": "Rerun RRD",
            "library": f"rerun-sdk {rerun_version()}",
            "time_base": base.name,
            "time_bases": offered(store.kinds),
            "time_base_kind": base.kind,
            "application_id": entry.application_id,
            "recording_id": entry.recording_id,
            "recording_index": entry.index,
        },
        integrity=integrity,
        integrity_reason=reason,
        report={
            "application_id": entry.application_id,
            "recording_id": entry.recording_id,
            "recording_index": entry.index,
            "recordings_in_file": store.recordings,
            "manifest": store.manifest,
            "chunks": store.chunks,
            "time_base": base.describe(),
            "timelines": {name: store.kinds[name] for name in offered(store.kinds)},
            "entities": _archetypes(store),
            "cameras": camera_entries,
            "events": events,
            "notes": notes,
        },
    )


def load_rerun(
    path: Path,
    *,
    index: int = 0,
    time_base: str | None = None,
    other_bases: tuple[str, ...] = (),
    address: Path | None = None,
) -> RecordingModel:
    """Open recording ``index`` of the ``.rrd`` file ``path`` as a model.

    Everything but the image payloads is read at open; each camera's frames
    are read the first time one is shown. ``address`` is the model's path
    (``<file.rrd>/episode_000001`` for a recording of several).

    Raises
    ------
    FsrError
        The file does not read (cut, damaged), holds no such recording, needs
        more than the budgets, names no such time base (one of ``other_bases``,
        another source's, gives the default), or rerun-sdk is missing (named
        with its extra).
    """
    store = open_store(path, index)
    store.read_light()
    if time_base in other_bases and time_base not in store.kinds:
        time_base = None  # another kind's time base (a mixed playlist): the default
    return _model(store, time_base, path if address is None else address)


def count_rows(model: RecordingModel) -> int:
    """Return the rows the model's report lists (``inspect --verify``'s count)."""
    entities: Any = model.report.get("entities", {})
    return sum(
        max((int(part.rsplit(" ", 1)[1]) for part in text.split(", ")), default=0)
        for text in entities.values()
    )
