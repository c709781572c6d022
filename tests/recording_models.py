"""Recording models built in memory, for tests that need no file.

``tests/`` is on ``sys.path`` (pytest puts the folder of ``tests/conftest.py``
there), so any test imports this as ``from recording_models import ...``.
"""

from __future__ import annotations

from pathlib import Path

from fsr_core.recording import Channel, RecordingModel, Timeline

__all__ = ["channels_model"]


def channels_model(*channels: Channel) -> RecordingModel:
    """Return a model of ``x.fsr`` holding ``channels`` and an empty timeline."""
    return RecordingModel(
        path=Path("x.fsr"),
        source="test",
        title="x",
        timeline=Timeline(()),
        channels={channel.name: channel for channel in channels},
    )
