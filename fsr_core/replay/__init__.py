"""Replay a recording into a new file: re-render or re-simulate it.

:func:`replay_file` is the entry point; the options, modes and result it takes
and gives are defined with the simulator protocol
(:mod:`fsr_core.simulation.protocol`) and re-exported here for callers.
"""

from fsr_core.replay.engine import PASSIVE_NOTE, replay_file
from fsr_core.simulation.protocol import (
    CancelToken,
    Execution,
    ProgressFn,
    ReplayMode,
    ReplayOptions,
    ReplayOutcome,
    ReplayResult,
    Timing,
)

__all__ = [
    "PASSIVE_NOTE",
    "CancelToken",
    "Execution",
    "ProgressFn",
    "ReplayMode",
    "ReplayOptions",
    "ReplayOutcome",
    "ReplayResult",
    "Timing",
    "replay_file",
]
