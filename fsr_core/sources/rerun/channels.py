"""``Scalars`` entities as channels.

Each entity with ``Scalars:scalars`` rows on the time base is a channel named
by its entity path; a row's values are its columns (``SeriesLines:names``
names them when the entity logs them, else ``0``, ``1`` ...), a row shorter
than the widest is padded with NaN. Rows that share one time are kept in
file order.
"""

from __future__ import annotations

import re
from typing import Final

from fsr_core.joint_set import JointSet, JointSpec
from fsr_core.recording import Channel
from fsr_core.sources.rerun.store import ComponentRows, RecordingStore
from fsr_core.sources.rerun.time_bases import TimeBase

__all__ = ["MAX_SCALAR_WIDTH", "joints_of", "scalar_channels"]

_JOINT_NAME: Final = re.compile(r"^(joint|joints|joint_positions?|q|qpos)$|joint_pos")
MAX_SCALAR_WIDTH: Final = 4096
"""Values one scalar row may hold for it to be a channel."""


def _names(store: RecordingStore, entity: str, width: int) -> tuple[str, ...]:
    found = store.component(entity, "SeriesLines:names")
    if found is not None:
        static = found.static_values()
        names = static[-1] if static else None
        if isinstance(names, list) and len(names) == width:
            return tuple(str(name)[:80] for name in names)
    if width == 1:
        return ("value",)
    return tuple(str(index) for index in range(width))


def _channel(
    store: RecordingStore, rows: ComponentRows, base: TimeBase, notes: list[str]
) -> Channel | None:
    found = rows.numeric_on_timeline(base.name, MAX_SCALAR_WIDTH, store.path)
    if isinstance(found, int):
        notes.append(
            f"entity {rows.entity[:80]!r}: {found} scalars a row, more than "
            f"{MAX_SCALAR_WIDTH}; left out"
        )
        return None
    times, values = found
    width = values.shape[1]
    if values.shape[0] == 0 or width == 0:
        return None
    return Channel(
        rows.entity,
        base.play(times),
        values,
        "",
        rows.entity,
        _names(store, rows.entity, width),
    )


def joints_of(channels: dict[str, Channel]) -> JointSet | None:
    """Return the joints: the ``Scalars`` entity named for joint positions.

    Rerun has no joint archetype; an entity whose last part names joints
    (``joint_positions``, ``joints``, ``q``) is taken as one angle per
    column, in radians, the one naming positions first.
    """
    found = [
        channel
        for name, channel in channels.items()
        if not name.startswith("tf:") and _JOINT_NAME.search(name.rsplit("/", 1)[-1])
    ]
    if not found:
        return None
    found.sort(key=lambda channel: "position" not in channel.name.rsplit("/", 1)[-1])
    channel = found[0]
    return JointSet(
        joints=tuple(JointSpec(column) for column in channel.columns),
        positions=channel.name,
        position_columns=tuple(range(len(channel.columns))),
    )


def scalar_channels(
    store: RecordingStore, base: TimeBase, notes: list[str]
) -> dict[str, Channel]:
    """Return a channel per ``Scalars`` entity with rows on the time base."""
    channels: dict[str, Channel] = {}
    for rows in store.with_component("Scalars:scalars"):
        found = _channel(store, rows, base, notes)
        if found is None:
            notes.append(
                f"entity {rows.entity[:80]!r}: no scalars on {base.describe()}"
            )
            continue
        channels[rows.entity] = found
    return channels
