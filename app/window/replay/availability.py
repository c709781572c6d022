"""Whether the playing recording can be replayed in a mode, and why not.

The Replay menu asks this for every recording that loads, on the GUI thread,
so it reads only what the model already holds (its ``can_rerender`` /
``can_resimulate`` reasons, its source kind and its metadata) and what the
simulator registry says: no file I/O. An FSR recording replays on the
simulator its metadata names (or one chosen); a recording of another kind (a
skelarm log, an HDF5 episode) replays only on the simulator that claims that
kind, and only when that simulator takes the recording as opened (its
``can_replay_model``, :class:`~fsr_core.simulation.protocol.OpenedRecordingAdapter`:
robosuite takes robomimic-layout episodes of a robosuite environment, not an
ALOHA or a ManiSkill file).
The engine checks everything again, and more, before it runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fsr_core.errors import AdapterUnavailableError
from fsr_core.recording import RecordingModel
from fsr_core.simulation.protocol import (
    OpenedRecordingAdapter,
    ReplayingAdapter,
    ReplayMode,
)
from fsr_core.simulation.registry import (
    adapter_names,
    get_adapter,
    source_simulator,
)
from fsr_core.simulation.simulator_defaults import contract_simulator

__all__ = [
    "MODE_VERBS",
    "recorded_simulator",
    "replay_block_reason",
    "simulator_block_reason",
    "simulator_choices",
]

#: What each mode does, as the menu and messages say it.
MODE_VERBS: dict[ReplayMode, str] = {
    ReplayMode.RENDER: "Re-render",
    ReplayMode.RESIMULATE: "Re-simulate",
}


def recorded_simulator(metadata: Mapping[str, Any]) -> str | None:
    """Return the simulator a recording names (``simulation_contract.simulator``)."""
    return contract_simulator(metadata)


def simulator_block_reason(name: str, mode: ReplayMode) -> str | None:
    """Return why simulator ``name`` cannot replay in ``mode`` here (None: it can).

    An unavailable simulator's reason names the extra to install.
    """
    try:
        adapter = get_adapter(name, require_available=False)
    except AdapterUnavailableError as exc:
        return exc.reason
    reason = adapter.unavailable_reason()
    if reason is not None:
        return f"simulator {name!r} is unavailable: {reason}"
    if not isinstance(adapter, ReplayingAdapter):
        return f"simulator {name!r} cannot replay recordings"
    if mode not in adapter.capabilities():
        return f"simulator {name!r} cannot replay in {mode.value} mode"
    return None


def _owner_refusal(name: str, model: RecordingModel) -> str | None:
    """Return why simulator ``name``, which replays ``model``'s kind, refuses it."""
    try:
        adapter = get_adapter(name, require_available=False)
    except AdapterUnavailableError as exc:
        return exc.reason
    if isinstance(adapter, OpenedRecordingAdapter):
        return adapter.can_replay_model(model)
    return None


def replay_block_reason(
    model: RecordingModel, mode: ReplayMode, simulator: str | None = None
) -> str | None:
    """Return why ``model`` cannot be replayed in ``mode`` (None: it can).

    Parameters
    ----------
    model
        The recording, as the window loaded it.
    mode
        Render or resimulate.
    simulator
        The simulator to replay on; by default the one the recording names.
    """
    own = model.can_rerender if mode is ReplayMode.RENDER else model.can_resimulate
    if own is not None:
        return own
    owner = source_simulator(model.source)
    if owner is not None:
        refused = _owner_refusal(owner, model)
        if refused is not None:
            return refused
    name = owner or simulator or recorded_simulator(model.metadata)
    if name is None:
        return "the recording names no simulator (no simulation_contract.simulator)"
    return simulator_block_reason(name, mode)


def simulator_choices(model: RecordingModel) -> list[str]:
    """Return the simulators the dialog offers: the recorded one first.

    A recording of a kind a simulator claims (a skelarm log) re-runs through
    that simulator alone.
    """
    owner = source_simulator(model.source)
    if owner is not None:
        return [owner]
    names = list(adapter_names())
    recorded = recorded_simulator(model.metadata)
    if recorded is not None:
        names = [recorded, *(name for name in names if name != recorded)]
    return names
