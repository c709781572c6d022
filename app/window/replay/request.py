"""What the Replay dialog asks for: one replay and how to judge its result.

The output defaults to a name beside the source that says the mode
(``NAME.resim.fsr``, ``NAME.render.fsr``) and that does not exist yet, so a
replay never replaces a file unless the user ticks Replace.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from fsr_core.playlists.episodes import split_episode_path
from fsr_core.simulation.protocol import ReplayMode, ReplayOptions
from fsr_core.simulation.registry import replay_suffix
from fsr_core.sources import recording_stem

__all__ = [
    "MODE_SUFFIXES",
    "ReplayRequest",
    "default_output",
    "output_suffix",
    "parse_tolerance",
]

#: The part of the default output name that says the mode.
MODE_SUFFIXES: dict[ReplayMode, str] = {
    ReplayMode.RENDER: "render",
    ReplayMode.RESIMULATE: "resim",
}
#: Numbered names tried before giving up on a free default name.
_MAX_NUMBERED = 999


@dataclass(frozen=True)
class ReplayRequest:
    """One replay to run from the window, and the comparison that follows it."""

    source: Path
    output: Path
    options: ReplayOptions
    simulator: str | None = None
    """Registry name; ``None`` replays on the simulator the recording names."""
    tolerance: float = 0.0
    """Largest absolute error the comparison accepts, in each channel's unit."""
    pixel_tolerance: float = 0.0
    """Largest pixel error the comparison accepts in camera frames, in levels."""

    @property
    def mode(self) -> ReplayMode:
        """Render or resimulate."""
        return self.options.mode


def output_suffix(source_kind: str) -> str:
    """Return what a replay of a ``source_kind`` recording is written as.

    The simulator that replays that kind says (a simulator re-running its own
    tool's logs writes logs); every other recording replays into ``.fsr``.
    """
    return replay_suffix(source_kind)


def default_output(source: Path, mode: ReplayMode, suffix: str = ".fsr") -> Path:
    """Return a free name beside ``source`` for its replay in ``mode``.

    ``NAME.resim.fsr`` (or ``NAME.render.fsr``, or ``suffix`` for ``.fsr``);
    when that exists, ``NAME.resim-2.fsr``, ``NAME.resim-3.fsr`` ... The
    first name is returned when every numbered one is taken (the dialog then
    refuses it).
    """
    base = f"{recording_stem(source)}.{MODE_SUFFIXES[mode]}"
    # An episode of a file (an HDF5 file of demos) goes beside that file.
    episode = split_episode_path(source)
    beside = episode[0] if episode is not None and episode[0].is_file() else source
    first = beside.with_name(f"{base}{suffix}")
    if not first.exists():
        return first
    for number in range(2, _MAX_NUMBERED + 1):
        candidate = beside.with_name(f"{base}-{number}{suffix}")
        if not candidate.exists():
            return candidate
    return first


def parse_tolerance(text: str) -> float | None:
    """Return the tolerance typed in ``text`` (None when it is not one).

    A tolerance is a finite number ``>= 0``, e.g. ``0``, ``1e-9``, ``0.002``.
    """
    try:
        value = float(text.strip())
    except ValueError:
        return None
    return value if math.isfinite(value) and value >= 0 else None
