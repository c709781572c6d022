"""What a replayed file says about where it came from.

The footer's provenance and the metadata's ``replay`` section name the mode,
the source file and its SHA-256, the simulator and the fresh run ID; each
adapter adds what is particular to its run (sessions, chunk ID map, options).
A replay whose cameras the source names otherwise says which source camera
each renders again (``replay.source_cameras``, :data:`SOURCE_CAMERAS`), and
:mod:`fsr_core.compare` pairs them.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from fsr_core.simulation.protocol import ReplayMode, ReplayOptions

__all__ = ["SOURCE_CAMERAS", "replay_metadata", "replay_provenance"]

SOURCE_CAMERAS: Final = "source_cameras"
"""The key, in a replay's ``replay`` metadata, of a mapping from each of its
camera names to the source's camera it renders again, when they differ."""


def replay_provenance(
    *,
    producer: str,
    mode: ReplayMode,
    source: Path,
    source_sha256: str,
    simulator: str,
    run_id: str,
    options: ReplayOptions,
) -> dict[str, Any]:
    """Return the footer provenance of a replay (JSON values only)."""
    fields: dict[str, Any] = {
        "producer": producer,
        "mode": mode.value,
        "source": {"file": source.name, "sha256": source_sha256},
        "simulator": simulator,
        "run_id": run_id,
    }
    if mode is ReplayMode.RESIMULATE:
        fields["options"] = {
            "timing": options.timing.value,
            "execution": options.execution.value,
            "max_in_flight": options.max_in_flight,
            "with_recorded_force": options.with_recorded_force,
        }
    return fields


def replay_metadata(
    source_metadata: Mapping[str, Any], provenance: Mapping[str, Any]
) -> dict[str, Any]:
    """Return the replay's metadata: the source's, plus a ``replay`` section."""
    metadata = dict(source_metadata)
    metadata["replay"] = {
        key: provenance[key]
        for key in ("mode", "source", "simulator", "run_id", "options")
        if key in provenance
    }
    return metadata
