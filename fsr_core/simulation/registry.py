"""The simulator registry: every simulator, found by name or by what it recognises.

The replay engine, the FSR source and the command line never import a
simulator; they ask this registry for one by the name a recording's
``simulation_contract`` gives, or for the one that recognises a recording's
metadata, a scenario or a file that is not FSR. A simulator whose package is
missing stays registered and says why it cannot run
(:meth:`~fsr_core.simulation.protocol.Simulator.unavailable_reason`), so a
missing optional dependency is an actionable message, never an import error.

The built-in simulators are named in :data:`BUILTIN_SIMULATORS` by module path,
relative to this package, and imported with :mod:`importlib` the first time
the registry is used, so this module imports no simulator package. An
installed package adds a simulator through the entry point group
:data:`ENTRY_POINT_GROUP`: the entry point's name is the simulator's name and
it names a simulator class, object or factory. A plugin that fails to load, is
not a simulator or takes a name already used is logged and listed by
:func:`plugin_problems`; every other simulator keeps working.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Final

from fsr_core.errors import AdapterUnavailableError
from fsr_core.simulation.plugin_loading import (
    PluginRefusedError,
    import_target,
    load_entry_points,
)
from fsr_core.simulation.profile import RecordingProfile
from fsr_core.simulation.protocol import Simulator

__all__ = [
    "BUILTIN_SIMULATORS",
    "DEFAULT_SIMULATOR",
    "ENTRY_POINT_GROUP",
    "SimulatorAdapter",
    "adapter_names",
    "check_available",
    "claiming_simulator",
    "get_adapter",
    "plugin_problems",
    "recording_profile",
    "refresh_simulators",
    "register_adapter",
    "replay_suffix",
    "scenario_simulator",
    "simulators",
    "source_simulator",
]

logger = logging.getLogger(__name__)

SimulatorAdapter = Simulator
"""The former name of :class:`~fsr_core.simulation.protocol.Simulator`."""

ENTRY_POINT_GROUP: Final = "fsr_viewer.simulators"
"""The entry point group through which an installed package adds a simulator."""

DEFAULT_SIMULATOR: Final = "planar_arm"
"""The simulator of the demo takes and of scenario files that name none."""

BUILTIN_SIMULATORS: Final = {
    "planar_arm": "..simulators.planar_arm.adapter:PlanarArmAdapter",
    "mujoco": "..simulators.mujoco.adapter:MujocoAdapter",
    "skelarm": "..simulators.skelarm.adapter:SkelarmAdapter",
    "genesis": "..simulators.genesis.adapter:GenesisAdapter",
    "robosuite": "..simulators.robosuite.adapter:RobosuiteAdapter",
}
"""Name and ``module:class`` of each built-in simulator, the module relative to
this package: ``..simulators`` is the simulators package beside it."""

Factory = Callable[[], Simulator]

_REGISTRY: dict[str, Factory] = {}
"""Every simulator's factory by name, once loaded (and those registered)."""
_PROBLEMS: list[str] = []
_LOCK = threading.RLock()


def _as_factory(found: object, origin: str, name: str) -> Factory:
    """Return a factory of the simulator ``found`` is, or makes, checking it once."""
    makes = isinstance(found, type) or not isinstance(found, Simulator)
    made = found() if makes and callable(found) else found
    if not isinstance(made, Simulator):
        raise TypeError(
            f"{origin} gives {type(made).__name__}, not a simulator (see "
            "fsr_core.simulation.protocol.Simulator)"
        )
    if made.name != name:
        raise ValueError(f"{origin} gives a simulator named {made.name!r}")
    if made is found:
        return lambda: made
    factory: Factory = found  # type: ignore[assignment]  # checked by the call above
    return factory


def _note_problem(problem: str) -> None:
    logger.warning("simulator skipped: %s", problem)
    _PROBLEMS.append(problem)


def _load_plugins(registry: dict[str, Factory]) -> None:
    def register(name: str, origin: str, load: Callable[[], object]) -> None:
        if name in registry:
            raise PluginRefusedError(f"the name {name!r} is already taken")
        registry[name] = _as_factory(load(), origin, name)

    load_entry_points(ENTRY_POINT_GROUP, register, _note_problem)


def _entries() -> dict[str, Factory]:
    """Return the registry, loading the built-ins and plugins on first use.

    The registry counts as loaded when it holds every built-in, so code that
    swaps :data:`_REGISTRY` for an empty dictionary (a test) gets them again.
    """
    with _LOCK:
        registry = _REGISTRY
        if not all(name in registry for name in BUILTIN_SIMULATORS):
            for name, target in BUILTIN_SIMULATORS.items():
                found = import_target(target, package=__package__)
                registry[name] = _as_factory(found, target, name)
            _load_plugins(registry)
        return registry


def register_adapter(name: str, factory: Factory) -> None:
    """Register a simulator factory under ``name``.

    Raises
    ------
    ValueError
        ``name`` is taken (a programmer error).
    """
    with _LOCK:
        if name in _entries():
            raise ValueError(f"simulator adapter {name!r} is already registered")
        _REGISTRY[name] = factory


def refresh_simulators() -> None:
    """Forget every simulator; the next use loads built-ins and entry points again."""
    with _LOCK:
        _REGISTRY.clear()
        _PROBLEMS.clear()


def plugin_problems() -> tuple[str, ...]:
    """Say why each simulator plugin that could not be registered was skipped."""
    with _LOCK:
        _entries()
        return tuple(_PROBLEMS)


def adapter_names() -> tuple[str, ...]:
    """Return the names of every registered simulator, sorted."""
    return tuple(sorted(_entries()))


def _unknown(name: str) -> AdapterUnavailableError:
    known = ", ".join(sorted(_entries())) or "none"
    return AdapterUnavailableError(
        f"no simulator adapter named {name!r} (known: {known})"
    )


def check_available(simulator: Simulator) -> Simulator:
    """Return ``simulator`` if it runs here.

    Raises
    ------
    AdapterUnavailableError
        It cannot; the message says why (the extra to install).
    """
    reason = simulator.unavailable_reason()
    if reason is not None:
        raise AdapterUnavailableError(
            f"simulator {simulator.name!r} is unavailable: {reason}"
        )
    return simulator


def get_adapter(name: str, *, require_available: bool = True) -> Simulator:
    """Return the simulator called ``name``.

    Raises
    ------
    AdapterUnavailableError
        No such simulator, or (with ``require_available``) it cannot run here.
    """
    factory = _entries().get(name)
    if factory is None:
        raise _unknown(name)
    simulator = factory()
    return check_available(simulator) if require_available else simulator


def simulators() -> tuple[Simulator, ...]:
    """Return every registered simulator, built-ins first, available or not."""
    made = (factory() for factory in tuple(_entries().values()))
    return tuple(simulator for simulator in made if isinstance(simulator, Simulator))


def recording_profile(metadata: Mapping[str, Any]) -> RecordingProfile | None:
    """Return the profile of the simulator that recognises an FSR file's ``metadata``.

    ``None`` when no simulator recognises it, or the one that does keeps the
    model every FSR file gets.
    """
    for simulator in simulators():
        if simulator.recognises_recording(metadata):
            return simulator.recording_profile()
    return None


def claiming_simulator(source: Path) -> Simulator | None:
    """Return the simulator that replays ``source`` itself (a file that is not FSR)."""
    for simulator in simulators():
        if simulator.claims_source(source):
            return simulator
    return None


def source_simulator(kind: str) -> str | None:
    """Return the name of the simulator that replays recordings of source ``kind``."""
    for simulator in simulators():
        if kind in simulator.source_kinds():
            return simulator.name
    return None


def replay_suffix(kind: str) -> str:
    """Return the file ending of a replay of a recording of source ``kind``.

    The simulator that replays that kind (:func:`source_simulator`) says;
    every other recording replays into FSR.
    """
    for simulator in simulators():
        if kind in simulator.source_kinds():
            return simulator.replay_suffix(kind)
    return ".fsr"


def scenario_simulator(document: Mapping[str, Any]) -> Simulator:
    """Return the simulator that recognises the parsed scenario ``document``.

    :data:`DEFAULT_SIMULATOR` takes the documents that name no simulator, so
    another simulator that recognises a document goes first.

    Raises
    ------
    AdapterUnavailableError
        No simulator recognises it (the message names the simulator it asks
        for, if any, and the known ones), or the one that does cannot run here.
    """
    found = [sim for sim in simulators() if sim.recognises_scenario(document)]
    specific = [sim for sim in found if sim.name != DEFAULT_SIMULATOR]
    if found:
        return check_available((specific or found)[0])
    named = document.get("simulator")
    if isinstance(named, str) and named not in _entries():
        raise _unknown(named)
    known = ", ".join(sorted(_entries()))
    raise AdapterUnavailableError(
        f"no simulator recognises the scenario (known: {known})"
    )
