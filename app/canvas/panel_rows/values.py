"""Reading a readout's number from a recording: helpers the row providers share.

A recording names some readouts in :attr:`RecordingModel.readouts` as
``"channel:column"`` (``"friction"``, ``"tip speed"``); others have their own
channel (the external force, the active target). Plain numpy, no Qt.
"""

from __future__ import annotations

import math

from app.canvas.shown_text import fixed_text
from fsr_core.arrays import FloatArray
from fsr_core.recording import Channel, RecordingModel

__all__ = [
    "channel_value",
    "finite",
    "force_text",
    "recorded_column",
    "recorded_value",
]


def recorded_column(model: RecordingModel, label: str) -> tuple[Channel, int] | None:
    """Resolve the ``"channel:column"`` readout ``label`` to a channel and index.

    Never reads a channel: it looks at names and columns only.
    """
    reference = model.readouts.get(label)
    if reference is None:
        return None
    name, _, column = reference.rpartition(":")
    channel = model.channels.get(name)
    if channel is None or column not in channel.columns:
        return None
    return channel, channel.columns.index(column)


def finite(value: float) -> float | None:
    """Return ``value`` when it is finite, else ``None``."""
    return value if math.isfinite(value) else None


def recorded_value(
    model: RecordingModel, label: str, play_time_s: float
) -> float | None:
    """Return the readout ``label`` in force at ``play_time_s``, when known."""
    found = recorded_column(model, label)
    if found is None:
        return None
    channel, index = found
    return finite(float(channel.value_at(play_time_s)[index]))


def channel_value(
    model: RecordingModel, name: str | None, play_time_s: float
) -> FloatArray | None:
    """Return channel ``name``'s sample in force at ``play_time_s``, if it exists."""
    channel = None if name is None else model.channels.get(name)
    return None if channel is None else channel.value_at(play_time_s)


def force_text(newtons: float) -> str:
    """Return a force magnitude as shown: one decimal, three figures below 1 N.

    A skelarm mouse push is often a fraction of a newton; skelarm's player
    shows three significant figures, so ``0.0538`` is not shown as ``0.1``.
    """
    if 0 < abs(newtons) < 1:
        return f"{newtons:.3g}"
    return fixed_text(newtons, 1)
